/* Tuning constants of SpGEMM (C = A*B, Gustavson) on the GPU: the bins of
 * rows by their bound (products, capped at B's columns), the accumulators
 * each bin gets, and the dense accumulators' pool. "Design" values come from
 * the roofline in bench/notes/spgemm.md and wait for a measurement; they are
 * the same on every architecture the build targets (sm_80 to sm_90; the
 * least shared memory a block may opt into among them is sm_86's and sm_89's
 * 99 KB, of which these take at most 80 KB). */
#ifndef TESSERA_SPGEMM_TUNING_H
#define TESSERA_SPGEMM_TUNING_H

/* Bins of rows, in this order (the merged bin, last, aside): 0, rows
 * without products; 1 ..
 * TSI_SPGEMM_SORTED_BINS, rows of at most 32 << (b - 1) products, whose
 * warp sorts the products (spgemm_kernels_sorted.cuh); then the
 * shared-memory hash bins: the t-th of TSI_SPGEMM_SHARED_BINS (t = 1 ..)
 * holds the rows whose bound (products capped at B's columns) is at most
 * half its table of 2^(t + 5) slots (64 .. 4096): a load factor of 1/2 or
 * less keeps linear probes short; then the dense rows (longer bounds), and
 * the long dense rows (at least TSI_SPGEMM_LONG_ENTRIES entries of A). */
#define TSI_SPGEMM_SORTED_BINS 3
#define TSI_SPGEMM_SORTED_FIRST 32
#define TSI_SPGEMM_SHARED_BINS 7
#define TSI_SPGEMM_FIRST_TABLE 64
#define TSI_SPGEMM_HASH_BIN (1 + TSI_SPGEMM_SORTED_BINS) /* the first hash bin */
#define TSI_SPGEMM_DENSE_BIN (TSI_SPGEMM_HASH_BIN + TSI_SPGEMM_SHARED_BINS)
#define TSI_SPGEMM_LONG_BIN (TSI_SPGEMM_DENSE_BIN + 1)
/* The merged bin, last: rows of at most TSI_SPGEMM_MERGE_ENTRIES entries of
 * A and 1 .. TSI_SPGEMM_MERGE_PRODUCTS products (TESSERA_SPGEMM_MERGE_PRODUCTS
 * overrides it at plan creation, TESSERA_SPGEMM_MERGE=0 leaves the bin empty;
 * TESSERA_SPGEMM_MERGE_STAGED=0 writes C from each thread, unstaged), a thread each
 * merging its rows of B (spgemm_kernels_merge.cuh), ahead of every other
 * bin. Design: a 3-D 7-point stencil's rows (7 entries, 49 products). */
#define TSI_SPGEMM_MERGE_BIN (TSI_SPGEMM_LONG_BIN + 1)
#define TSI_SPGEMM_MERGE_ENTRIES 8
#define TSI_SPGEMM_MERGE_PRODUCTS 64
/* The merged bin only for A of at least this many rows
 * (TESSERA_SPGEMM_MERGE_LEAST_ROWS overrides it at plan creation): a thread
 * merging a row waits on one load of B after another, which many rows hide
 * and few do not, where a warp a row loads its products at once. Design
 * (the measurements: bench/notes/spgemm.md, session 10). */
#define TSI_SPGEMM_MERGE_LEAST_ROWS 32768
#define TSI_SPGEMM_BINS (TSI_SPGEMM_MERGE_BIN + 1)
/* Entries of A that make a dense row long: its numeric phase then takes a
 * block of TSI_SPGEMM_LONG_WARPS warps, each adding A's entries w, w + W,
 * ... into partial sums of its own (a warp alone would take one entry at a
 * time, hundreds of dependent steps). Design. */
#define TSI_SPGEMM_LONG_ENTRIES 512
#define TSI_SPGEMM_LONG_WARPS 16
/* Long rows' slots (W partial sum arrays of B's width each): at most this
 * many at a time (TESSERA_SPGEMM_LONG_SLOTS overrides it at plan creation),
 * and without a budget at most this many bytes in all (at least one slot).
 * Design. */
#define TSI_SPGEMM_LONG_SLOTS 32
#define TSI_SPGEMM_LONG_POOL_BYTES ((int64_t)256 << 20)
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
 * global memory): at most this many warps a multiprocessor at a time
 * (TESSERA_SPGEMM_DENSE_WARPS_PER_SM overrides it at plan creation), and
 * without a budget at most this share of the free memory. Design. */
#define TSI_SPGEMM_DENSE_WARPS_PER_SM 8
#define TSI_SPGEMM_DENSE_FREE_SHARE 0.25
/* The dense bin by expand, sort, compress: the keys and values of a chunk
 * (two buffers each for the radix sort, 24 bytes a product in fp32) take
 * TSI_SPGEMM_SORT_CHUNK_PER_PRODUCT bytes for each product of the whole
 * multiplication, within TSI_SPGEMM_SORT_CHUNK_BYTES .. _MOST
 * (TESSERA_SPGEMM_SORT_CHUNK_MB sets them at plan creation; a budget caps
 * them at half of what the plan has left), and at least
 * TSI_SPGEMM_SORT_CHUNK_LEAST products a chunk. Measured (H200,
 * bench/notes/spgemm.md): fewer, larger chunks run faster (rmat_16 65 ms in
 * chunks of 64 MB, 43 ms of 1 GB); 3 bytes a product keeps the peak memory
 * under cuSPARSE's ALG3 on the power-law products. */
#define TSI_SPGEMM_SORT_CHUNK_PER_PRODUCT 3
#define TSI_SPGEMM_SORT_CHUNK_MOST ((int64_t)1 << 30)
#define TSI_SPGEMM_SORT_CHUNK_BYTES ((int64_t)64 << 20)
#define TSI_SPGEMM_SORT_CHUNK_LEAST ((int64_t)1 << 16)
/* The dense bin in shared memory (spgemm_cuda_dense_shared.cu) when B's
 * width fits a block's: the numeric phase's block takes as many warps (a
 * bitmap and B's width of values each) as this many bytes hold, 1 to 8, so
 * that two blocks share a multiprocessor where the width allows
 * (TESSERA_SPGEMM_SHARED_DENSE=0 turns the shared accumulators off). Design. */
#define TSI_SPGEMM_SHARED_BLOCK_BYTES ((size_t)96 << 10)
/* The rules between the shared and the pool's (or the sort's) dense rows,
 * fitted on the H200's run of session 10 (bench/notes/spgemm.md): a
 * block a row counts unless one row holds more than this share of the dense
 * rows' products; a warp a row fills when no dense row has this many
 * entries of A, and the dense products are at most _FEW or the longest row
 * at most twice a resident warp's share. */
#define TSI_SPGEMM_SHARED_COUNT_SHARE 32
#define TSI_SPGEMM_SHARED_FILL_ENTRIES 1024
#define TSI_SPGEMM_SHARED_FILL_FEW ((double)(1 << 19))
/* Threads of the dense and long rows' count, a block a row. */
#define TSI_SPGEMM_DENSE_COUNT_BLOCK 256

#endif
