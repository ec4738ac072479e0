/* Tuning constants of SpMM (C = alpha*A*B + beta*C, A in CSR) on the GPU and
 * of its AUTO schedule. Each says what set it; "design" values come from the
 * roofline in bench/notes/spmm.md and wait for a measurement. They are the
 * same for every architecture the build targets (sm_80 to sm_90) until a
 * measurement says otherwise. */
#ifndef TESSERA_SPMM_TUNING_H
#define TESSERA_SPMM_TUNING_H

/* Threads per block of every SpMM kernel (the layer's block). */
#define TSI_SPMM_BLOCK 256

/* Resident blocks each kernel asks ptxas for (through
 * tsi_min_blocks_per_sm): 4 blocks of 256 threads leave 64 registers a
 * thread, room for a batch of row-major B loads (4 atoms x 16 bytes) or of
 * column-major ones (4 atoms x 8 columns) in flight without spilling. Design. */
#ifndef TSI_SPMM_MIN_BLOCKS /* a build may set it, for experiments (ptxas -v first) */
#define TSI_SPMM_MIN_BLOCKS 4
#endif

/* Nonzeros of a row whose B loads a lane issues before the first is used
 * (all predicated, so a short row costs one round trip). Design. */
#define TSI_SPMM_ATOM_BATCH 4

/* Columns of C one thread holds with a column-major B: a column-major B
 * has no contiguous row to split into lanes, so each thread walks its row
 * once for this many columns (B's gathers then hit one column each, C's
 * stores are coalesced over consecutive rows). Design. */
#define TSI_SPMM_COLMAJOR_COLUMNS 8

/* Thread-mapped with vector threads of a warp: a warp takes a group of
 * consecutive rows, as many (up to 32) as leave this many warps for each
 * resident warp, so that short matrices still fill the GPU. Design. */
#define TSI_SPMM_GROUP_WAVES 2

/* Thread-mapped with vector threads of a warp over a row-major B
 * (spmm_cuda_rows.cu): the 8 warps of a block may walk groups about d rows
 * apart instead of 8 consecutive groups ("stacked"), d the most frequent
 * column offset |j - i| of A, so that rows i - d and i + d of B, which a
 * stencil's row i gathers, are loaded by the block's neighbouring warps at
 * about the same time and hit in L1 (as i - 1, i + 1 already do within a
 * warp's group). The rule (tsi_spmm_stack_rows()): all of
 *   - the walk of two slices a lane (at least TSI_SPMM_STACK_MIN_SLICES
 *     slices: over 128 fp32 or 64 fp64 columns with 16-byte vectors, B rows
 *     of 1 KB a pass);
 *   - d over TSI_SPMM_STACK_NEAR, holding at least TSI_SPMM_STACK_SHARE of
 *     A's entries, estimated on TSI_SPMM_STACK_SAMPLE entries;
 *   - rows for one whole band of 8 warps d rows apart (8 (d + 16)). */
/* Slices of the width at least: the two-slice walk. At one slice (128 fp32
 * columns) stacking lifted L1 hits 29 -> 60 % on laplacian2d_1024 but not
 * the time (492 -> 485 us, DRAM-bound at 75 % of copy); at 256 it gained
 * 4-13 % on the meshes (bench/notes/spmm.md, H100 2026-12-05). Measured. */
#define TSI_SPMM_STACK_MIN_SLICES 2
/* Offsets up to this many rows stay within a warp's group of up to 32
 * consecutive rows (hit in L1 without stacking): not candidates for d. */
#define TSI_SPMM_STACK_NEAR 32
/* Share of A's entries at offset exactly +-d: a 5-point stencil holds 2/5 at
 * +-n, a 7-point one 2/7 at +-n (and 2/7 at +-n^2), a 9-point one 2/9 at each
 * of n - 1, n, n + 1; 1/5 keeps all three with room for boundary rows and
 * the sample's error (sd 0.6 % at 4096 entries), and is twice the 10 % that
 * found no offset on R-MAT and power-law matrices. Design. */
#define TSI_SPMM_STACK_SHARE 0.2
/* Offsets of at least this fraction of the most frequent one's sampled
 * count count as tied, and the smallest of them is d: a 7-point stencil's n
 * and n^2 tie exactly, and d = n measured 1.575x against 1.543x best
 * cuSPARSE for d = n^2 on laplacian3d_64 at 256 columns (a block's rows
 * stay within 8 n rows). Measured (one matrix). */
#define TSI_SPMM_STACK_TIE 0.75
/* Entries sampled for d and its share (stratified over the nonzeros, one a
 * stratum at a hashed place: no aliasing with a stencil's period), so the
 * plan pays O(4096 log rows) for it, against the O(nnz) of its checks and
 * of A's upload. Design. */
#define TSI_SPMM_STACK_SAMPLE 4096

/* Passes over bands of columns (spmm_passes.c): with random columns each
 * nonzero gathers a row of B from anywhere, so where B is many times the L2
 * most gathers go to DRAM; run band after band of B and C's columns, each
 * band's B is a fraction of B (A is read once a band). Through the public
 * API (bench/spmm --column-slices, H100 of 50 MB L2, 2026-12-05), bands of
 * 128 fp32 columns gained on rmat_20 (B 537 MB at 128 columns) 15 % at 256
 * columns and 28 % at 512, on rmat_18 7 % / 17 %, and lost 1-16 % on rmat_16
 * and the power-law rows (B within a few L2s); bands of 32 lost everywhere.
 * The rule (tsi_spmm_pass_rule()): a row-major B at least two bands wide,
 * B's bytes at least TSI_SPMM_PASS_L2_MULTIPLE L2s, no stencil offset in
 * A's sample (TSI_SPMM_STACK_SHARE: a stencil's gathers already hit) and a
 * schedule that walks rows (thread-mapped, split-rows). Measured (one GPU):
 * eight L2s take rmat_20 at 256 and 512 columns (20 and 40 L2s) and rmat_18
 * at 512 (10), and leave out B of 5 L2s and less (rmat_18 at 256, +7 %;
 * powerlaw_z0.9 at 256, a loss; rmat_16); powerlaw_z0.9 at 512 (10 L2s, a
 * loss: its time is the long rows' pieces) is the rule's known miss. */
/* Bytes of a band's row of B: 128 fp32 / 64 fp64 columns, one 16-byte
 * vector a lane of a warp's vector thread. */
#define TSI_SPMM_PASS_BYTES 512
/* B's bytes at least this many times the GPU's L2. */
#define TSI_SPMM_PASS_L2_MULTIPLE 8

/* Items (rows + nonzeros for merge-path, nonzeros for work-oriented) of one
 * vector thread's part: each part keeps two partial rows of C, so the
 * records take 2 (rows + nnz) / TSI_SPMM_PART_ITEMS rows of C at most.
 * Design. */
#define TSI_SPMM_PART_ITEMS 32

/* Split-rows: rows of more nonzeros than a piece are cut into pieces, one
 * vector thread each; shorter rows take one vector thread. A vector thread
 * walks its piece one batch of TSI_SPMM_ATOM_BATCH nonzeros (two dependent
 * loads) after another, so the longest piece sets the kernel's critical
 * path: TSI_SPMM_SPLIT_PIECE_NARROW nonzeros (8 batches) for vector threads
 * of up to 8 lanes (32 fp32 columns), TSI_SPMM_SPLIT_PIECE_WIDE for wider
 * ones, whose pieces' records (a row of C each) cost more to join. A piece
 * adds 2 / piece of the gathered bytes in records (written, then read by
 * the join). Design. */
#define TSI_SPMM_SPLIT_PIECE_NARROW 32
#define TSI_SPMM_SPLIT_PIECE_WIDE 64
/* Split-rows join: records a vector thread loads before adding them. */
#define TSI_SPMM_JOIN_BATCH 4
/* Split-rows join: a long row whose pieces would take a warp's vector
 * threads more than this many batches is joined by a whole block (a row of
 * 10^5 nonzeros has thousands of pieces). Design. */
#define TSI_SPMM_JOIN_WARP_ROUNDS 8
/* Split-rows join in the split kernel itself: a long row of at most this
 * many pieces is summed by the vector thread that stores its last record
 * (found by a counter a row), which saves the join's launch; the sum is one
 * vector thread's, TSI_SPMM_JOIN_BATCH records a round, so longer rows stay
 * with the join launch: 5 rounds still gained on the corpus graphs, 6 lost
 * (bench/notes/spmm.md, session 19). */
#define TSI_SPMM_JOIN_NEAR_PIECES 20

/* AUTO: a row longer than this is long (split-rows' reason to exist). */
#define TSI_SPMM_AUTO_LONG_ROW 256

/* AUTO: row-length shapes. Skewed: coefficient of variation above
 * TSI_SPMM_AUTO_SKEW_CV with some row longer than a split-rows piece
 * (SpMV's split-rows threshold, bench/NOTES.md, carried over). */
#define TSI_SPMM_AUTO_SKEW_CV 1.0
/* AUTO: vector threads (rows x column slices x lanes) below this many per SM
 * leave the GPU short of work with one vector thread a row. Design. */
#define TSI_SPMM_AUTO_FILL_PER_SM 512
/* AUTO on a GPU short of work: a block a row (block-mapped) where the rows
 * x slices are at most this many per SM (vector threads of a whole warp,
 * WIDE; narrower ones, NARROW, whose warp-mapped already gives a row a
 * warp) and some row has at least TSI_SPMM_AUTO_BLOCK_MAX_ROW entries (a
 * warp a row waits for it), or at most TSI_SPMM_AUTO_TINY_UNITS per SM
 * with rows of TSI_SPMM_AUTO_TINY_MEAN entries on average. Fitted on the
 * corpus's 59 matrices at 8, 32, 128 and 256 fp32 columns (H100, every
 * schedule timed: bench/notes/spmm.md, 2026-12-05). Measured. */
#define TSI_SPMM_AUTO_BLOCK_UNITS_WIDE 16
#define TSI_SPMM_AUTO_BLOCK_UNITS_NARROW 8
#define TSI_SPMM_AUTO_BLOCK_MAX_ROW 24
#define TSI_SPMM_AUTO_TINY_UNITS 1
#define TSI_SPMM_AUTO_TINY_MEAN 2.0
/* AUTO: vector threads of a whole warp over at most this many rows x
 * slices per SM take warp-mapped's kernel (a warp a row, as thread-mapped,
 * but without the group walk, which pays only with more rows than the
 * resident warps: 5-40 % faster below, same fit). Measured. */
#define TSI_SPMM_AUTO_WARP_UNITS 128
/* AUTO on a GPU short of work, narrower vector threads: warp-mapped (the
 * row's entries over a warp's vector threads) for rows of this mean or a
 * row this long (same fit). Measured. */
#define TSI_SPMM_AUTO_WARP_MEAN 8.0
#define TSI_SPMM_AUTO_WARP_MAX_ROW 32
/* AUTO: a block a row also for rows this long on average on a GPU short of
 * work, whatever their count. Design. */
#define TSI_SPMM_AUTO_BLOCK_MEAN 1024.0

#endif
