/* Tuning constants of SpGEMM (C = A*B, Gustavson) on the GPU: the bins of
 * rows by their bound (products, capped at B's columns), the accumulators
 * each bin gets, and the dense accumulators' pool. "Design" values come from
 * the roofline in bench/notes/spgemm.md and wait for a measurement; they are
 * the same on every architecture the build targets (sm_80 to sm_90; the
 * least shared memory a block may opt into among them is sm_86's and sm_89's
 * 99 KB, of which these take at most 80 KB). */
#ifndef TESSERA_SPGEMM_TUNING_H
#define TESSERA_SPGEMM_TUNING_H

/* Shared-memory hash bins: bin b (1 <= b <= TSI_SPGEMM_SHARED_BINS) holds
 * the rows whose bound is at most half its table of 2^(b + 5) slots
 * (64 .. 4096): a load factor of 1/2 or less keeps linear probes short.
 * Bin 0: rows without products. The last bin: longer rows (dense). */
#define TSI_SPGEMM_SHARED_BINS 7
#define TSI_SPGEMM_FIRST_TABLE 64
#define TSI_SPGEMM_BINS (TSI_SPGEMM_SHARED_BINS + 2)
#define TSI_SPGEMM_DENSE_BIN (TSI_SPGEMM_SHARED_BINS + 1)
/* Tables up to this size take one warp a row, larger ones one block. */
#define TSI_SPGEMM_WARP_TABLE 512
/* Threads of a block-per-row kernel and warps of a warp-per-row block. */
#define TSI_SPGEMM_BLOCK 256
/* Shared memory a numeric block's partial sums may take (bytes): they are
 * split between up to 8 warps, each adding its share of A's row in order. */
#define TSI_SPGEMM_PARTIAL_BYTES 65536
/* Lanes of the groups that add partial sums in a warp-per-row numeric
 * kernel: a warp splits into 32 / this groups, each with its own partials. */
#define TSI_SPGEMM_LANES_PER_PARTIAL 8
/* Dense accumulators (one warp a row, a bitmap and values of B's width in
 * global memory): at most this many warps a multiprocessor at a time, and
 * without a budget at most this share of the free memory. Design. */
#define TSI_SPGEMM_DENSE_WARPS_PER_SM 8
#define TSI_SPGEMM_DENSE_FREE_SHARE 0.25

#endif
