/* The LU solver's tuning: every block size, threshold, group size and
 * memory cap of src/lu in one place, with why it has its value.
 *
 * The GPU values were measured on one architecture, compute capability 9.0
 * (the benchmarks bench/lu_numeric_gpu and bench/lu_analysis_gpu; their
 * results in bench/results, lu-gpu-h200.md and lu-analysis-h200.md); the other
 * architectures of the build use them unmeasured. What does change with the
 * architecture is read from the device when the GPU factorization's device
 * cache is built, not on every call: the shared memory a block may opt in to
 * (it caps TSI_LU_SHARED_COLUMN_BYTES: 227 KiB on 9.0, 163 KiB on 8.0,
 * 99 KiB on 8.6 and 8.9), the multiprocessor count and the kernels'
 * occupancy. Resident threads per multiprocessor, which launch bounds must
 * respect, are in core/cuda_arch_limits.cuh. */
#ifndef TESSERA_LU_TUNING_H
#define TESSERA_LU_TUNING_H

#include <float.h>
#include <stdint.h>

/* ---- defaults of ts_lu_options (documented in tessera/lu.h) ------------------------ */

#define TSI_LU_PIVOT_THRESHOLD_F64 1e-14
#define TSI_LU_PIVOT_THRESHOLD_F32 1e-7
/* Refinement stops once a step fails to halve the backward error, so a
 * high cap costs nothing where one or two steps suffice, and lets it finish
 * where many perturbed pivots slow it down (jagmesh7 needs 21: lu-accuracy.md
 * in bench/results). */
#define TSI_LU_REFINE_MAX_STEPS 30
/* The accuracy the solves promise (issue 23: a backward error of 1e-14 in
 * double) and the singularity policy's limit: a solve whose backward errors
 * are already within it is not refined, since a step costs a solve and a
 * residual, as much again as the solve it refines (bench/notes/lu-newton.md). */
#define TSI_LU_REFINE_TOLERANCE 1e-14

/* ---- the pivot check after a refactorization (numeric/pivot_check.c) ---------------- */

/* The pivots no longer suit the values when a factorization reusing the
 * analysis has more perturbed pivots than the analysis's first one, or an
 * indicator past its bound and this many times the first's: the largest
 * multiplier |L(i, j)| or the growth max |U| / max |M| past 10^6 (six
 * digits lost to the factorization; the refinement then needs several
 * steps or stalls). Bounds of 10^3 (KLU's default pivoting tolerance) also
 * flagged values for which fresh pivots grew as much (bench/notes/lu-newton.md). */
#define TSI_LU_DEGRADED_FACTOR 1e3
#define TSI_LU_DEGRADED_MULTIPLIER 1e6
#define TSI_LU_DEGRADED_GROWTH 1e6
/* A componentwise backward error above this after the normwise refinement
 * means some entries of x are wrong beyond rounding (a badly scaled system,
 * whose small entries the normwise errors do not see): the refinement goes
 * on for them. Far above the few ulps of the usual solves, which then take
 * no extra step. */
#define TSI_LU_POLISH_THRESHOLD 1e-12

/* ---- the singularity policy (numeric/singularity.c; documented in tessera/lu.h) ---- */

/* With pivots perturbed, the factors stand when refined solves through them
 * reach this normwise backward error and the condition estimate is at most
 * 1 / DBL_EPSILON. */
#define TSI_LU_SINGULAR_BACKWARD_ERROR 1e-14
/* Static factors under judgement whose largest multiplier times growth
 * exceeds this (1/sqrt(eps)) do not stand on their own estimate
 * (singularity.c). */
#define TSI_LU_JUDGED_GROWTH 6.7e7
/* Where A's own estimate is beyond 1/eps, the factors stand on the scaled
 * matrix M's only when it is at most this (a thousandth of 1/eps): solves
 * through the factors of a matrix beyond 1/eps can put the estimate, a lower
 * bound, far below the truth (an adversarial 10 x 10 with kappa_1(M) 3.7e18
 * was estimated at 2.4e15), and such a matrix solves to fewer than four
 * digits anyway. */
#define TSI_LU_SCALED_CONDITION_LIMIT (1e-3 / DBL_EPSILON)
/* A judgement carries to new values when |dA|_1 times the judged estimate
 * of |A^{-1}|_1 is at most this (numeric/judgement_carry.c). The estimate
 * is a lower bound, usually within a factor of 3 of the norm, so the true
 * product stays below 1/2 (the new inverse's norm at most twice the judged
 * one) even where the estimate falls short by that much. */
#define TSI_LU_JUDGEMENT_CARRY_THETA 0.125

/* ---- cancellation ------------------------------------------------------------------ */

/* The host's loops over columns (the factorization, the partial-pivoting
 * fallback) look at the clock every this many columns of a thread, and call
 * the progress callback at most every TSI_LU_CANCEL_CHECK_SECONDS: a cancel
 * is honoured well within a second, for a cost lost in the columns' work. */
#define TSI_LU_CPU_CHECK_COLUMNS 64
/* The one-thread factorization reads the clock after this much work
 * instead (flops, and TSI_LU_CPU_CHECK_COLUMN_WORK a column: the loads and
 * stores of a near-empty one): well under a millisecond of work, and a few
 * reads a refactorization of a matrix of thousands of tiny columns. */
#define TSI_LU_CPU_CHECK_WORK 65536
#define TSI_LU_CPU_CHECK_COLUMN_WORK 16
#define TSI_LU_CANCEL_CHECK_SECONDS 0.1

/* ---- the solve's fallback to partial pivoting --------------------------------------- */

/* The matched row (M's diagonal) stays the pivot while it is at least this
 * fraction of the largest candidate (threshold partial pivoting, as KLU's
 * default). */
#define TSI_LU_PIVOTED_TOLERANCE 0.1

/* ---- the partial-pivoting analysis (analyze/partial_pivots_cpu.c) ------------------ */

/* M's diagonal (the transversal's row, which the ordering assumed) stays
 * the pivot while it is at least this fraction of the largest candidate:
 * KLU's default tolerance. */
#define TSI_LU_PARTIAL_PIVOT_TOLERANCE 1e-3
/* Under TS_LU_PIVOTING_AUTO, a matrix of at most this many entries whose
 * first factorization perturbed a static pivot is analyzed again with
 * partial pivoting. */
#define TSI_LU_PARTIAL_PIVOT_MAX_NNZ 1000000

/* ---- host threads ------------------------------------------------------------------ */

/* Host threads are chosen in lu_backend.c (tsi_lu_host_threads): one
 * thread below these sizes, where waking and joining a team costs more than
 * it saves, and where a thread the scheduler has set aside (a machine with
 * fewer free cores than threads) would stall the call for a time slice of
 * several ms: a pass over this many entries of A or of L + U (the pattern
 * check, the copy of the values, the norms, the scatter, the refinement's
 * residual), about a millisecond on one core; a factorization of this much
 * work (flops + TSI_LU_FACTOR_WORK_PER_ENTRY per entry of L + U), a few
 * milliseconds on one core; an analysis of a matrix with this many entries
 * (below). bench/notes/lu-newton.md. */
#define TSI_LU_PASS_PARALLEL_ENTRIES 1048576
/* The same pass from this many entries where at least
 * TSI_LU_PASS_MANY_FREE_CORES cores are free (lu_backend.c). */
#define TSI_LU_PASS_PARALLEL_ENTRIES_MANY_CORES 262144
#define TSI_LU_PASS_MANY_FREE_CORES 8
/* The device refinement's residual: rows of more entries than this take a
 * block of TSI_LU_REFINE_LONG_THREADS threads each, the others a thread. */
#define TSI_LU_REFINE_LONG_ROW 256
#define TSI_LU_REFINE_LONG_THREADS 256
/* AUTO's numeric phase on a CUDA context: the GPU from this much work (the
 * analysis's flops and TSI_LU_FACTOR_WORK_PER_ENTRY an entry of L + U, a few
 * ms on one host core); below, the host, where the GPU path's fixed costs
 * of a refactor and a solve dominate (lu_backend.c; measured and its misses
 * recorded in bench/notes/lu-newton.md). */
#define TSI_LU_GPU_FACTOR_WORK 5e6
/* The same for the first factorization of an analysis, which on the GPU
 * also builds the device arrays and the fronts' plan (a host pass over
 * L + U): below it the first factorization runs on the host and the
 * refactorizations on the GPU (bench/notes/lu-newton.md). */
#define TSI_LU_GPU_FIRST_FACTOR_WORK 1e8
#define TSI_LU_FACTOR_PARALLEL_WORK 4e6
/* ... and only where the levels hold this much of that work each on
 * average: the threaded schedules wait at every level (a barrier, or the
 * marks of the columns a column needs), and a thin level's wait costs more
 * than its columns. On the 2-core development machine two threads took
 * 2-3.5x one thread's time on bayer10, sherman5, watt_2 and cryg2500
 * (8e3-2e4 an average level), about the same on the 3000-row grid circuit
 * (3.5e4) and 0.6x on the 10^4-row one (1.5e5) (bench/notes/lu-newton.md,
 * the klublocks session). A lower bound paid right after an analysis, the
 * threads still warm, but lost where factorizations alternate with other
 * work (lu_newton's loops): the waits then sleep and wake
 * (bench/notes/lu-numeric.md, branch hostsplu). */
#define TSI_LU_FACTOR_PARALLEL_WORK_PER_LEVEL 5e4
#define TSI_LU_FACTOR_WORK_PER_ENTRY 8.0
/* TS_LU_ORDER_AUTO tries METIS's nested dissection beside AMD on one block
 * of at least ND_MIN_ROWS rows whose AMD work bound is at least
 * ND_TRY_WORK_PER_ROW a row, and takes it below ND_GAIN times AMD's bound.
 * METIS costs 6-12x AMD's time (3-6 us a row on the 2-core machine): the
 * trigger keeps that below the factorization's own time; on circuits its
 * separators fill far more than AMD (42x the flops on the 10^5 netlist),
 * on meshes far less (2-D 0.63x, 3-D 0.36x, wing 0.17x: bench/notes/
 * lu-analysis.md, session 32). */
#define TSI_LU_ND_MIN_ROWS 20000
#define TSI_LU_ND_TRY_WORK_PER_ROW 1e4
#define TSI_LU_ND_GAIN 0.8
/* The matching beside the speculative AMD ordering of A (analyze.c: only
 * where the matching can leave the rows in place), where a core is free:
 * the ordering then adds only what outlasts the matching. From this many
 * entries both cost far more than waking a team of two and checking for a
 * free core; the Python benchmark's matrices (above 10^4 entries) gain
 * where the matching is not trivial (bench/notes/lu-analysis.md). */
#define TSI_LU_ANALYSIS_PARALLEL_ENTRIES 10000
/* The AMD ordering orders the whole matrix when the largest block of its
 * block triangular form holds at least this share of the rows: the blocks
 * then save little, and AMD of the whole filled less on the generated
 * netlists (96 % of the rows in one block) and watt_2 (97 %), while the
 * comparison of both (a second ordering and symbolic phase) halved
 * analyze + factor + solve against KLU on the netlists of 10^3 rows
 * (btf_ordering_cpu.c, bench/notes/lu-newton.md). */
#define TSI_LU_BTF_LARGEST_BLOCK_SHARE 0.9

/* ts_lu_options::amd_dense when left at 0: AMD's own default
 * (AMD_DEFAULT_DENSE), so that the default ordering is AMD's. */
#define TSI_LU_AMD_DENSE_DEFAULT 10.0
/* The block form is kept without comparing it with the whole matrix's
 * ordering when the updates above its blocks are at most this share of its
 * flops: none on sherman5 and fs_183_6, where the block form filled no more;
 * 28-79 % on the corpus matrices where either ordering won (analyze.c). */
#define TSI_LU_BTF_ABOVE_SHARE 0.05
/* The GPU schedule's gather lengths (columns). */
#define TSI_LU_GATHER_PARALLEL_COLUMNS 16384
/* The host's transpose of L + U into rows (factor_rows_gpu.c): threads only
 * from this many entries, and their per-thread row counters within this
 * many bytes. */
#define TSI_LU_ROWS_PARALLEL_ENTRIES 200000
#define TSI_LU_ROWS_COUNTER_BYTES ((int64_t)256 << 20)

/* The host's factorization (numeric_cpu_impl.h). A level narrower than
 * this many columns per thread runs on one thread, with its narrow
 * neighbours behind one barrier (a barrier per one-column level cost more
 * than the column); the dataflow schedule needs this many columns per
 * thread and level on average, else chains of narrow levels stay with the
 * level schedule (lu-cpu.md in bench/results). */
#define TSI_LU_CPU_SERIAL_COLUMNS_PER_THREAD 2
#define TSI_LU_CPU_FLOW_COLUMNS_PER_THREAD_LEVEL 2
/* Work of a level shared in about this many pieces per thread (the dynamic
 * schedule's chunks, the dataflow's runs of tickets: one ticket a column
 * made the counter's cache line go back and forth). */
#define TSI_LU_CPU_PIECES_PER_THREAD 8
/* The host's factorization zeroes the fill entries of L + U by their list
 * when they are at most this fraction of L + U, else the whole array (a
 * memset streams faster than scattered stores). */
#define TSI_LU_FILL_LIST_FRACTION 4
/* A row of L that is the only entry of at least this many columns (an
 * arrowhead's dense row, ordered last) is updated in a register by the
 * host's column loops (numeric/numeric_workspace.c, tsi_lu_dense_row): in
 * memory, each of those one-entry updates waits for the one before through
 * a store and a load. Rows that share their columns with others are left
 * alone: there the other updates hide the wait, and the test costs. */
#define TSI_LU_DENSE_ROW_MIN_COLUMNS 64
/* The host's column kernel subtracts chained columns of L (a supernode's,
 * tsi_lu_chain_runs) together, each of their common rows loaded and stored
 * once for the group instead of once a column: groups of MIN to MAX columns
 * of U(:, k) (the multipliers are held in a local array) whose last column
 * keeps MIN_ROWS rows below the group. Only where the groups make MIN_SHARE
 * of the updates' work and MIN_WORK entries of L at least: elsewhere their
 * set-up is not repaid (netlists, and the smallest matrices;
 * bench/notes/lu-numeric.md). */
#define TSI_LU_CPU_GROUP_MIN 4
#define TSI_LU_CPU_GROUP_MAX 32
#define TSI_LU_CPU_GROUP_MIN_ROWS 8
#define TSI_LU_CPU_GROUP_MIN_SHARE 0.25
#define TSI_LU_CPU_GROUP_MIN_WORK 3.2e4
/* The chains are not even looked for under this many flops an entry of
 * L + U: the search costs about a refactorization's tenth where the
 * updates are that light. */
#define TSI_LU_CPU_GROUP_MIN_FLOPS_PER_ENTRY 8.0
/* A dataflow wait spins this many times, then sleeps (a futex on Linux,
 * else yields) until the writer marks the column, so that the core is free
 * for a writer the scheduler had set aside. */
#define TSI_LU_CPU_SPINS_BEFORE_SLEEP 2048

/* ---- symbolic phase ---------------------------------------------------------------- */

/* Default budget: enough rows in flight per thread that a chunk's rows
 * balance across threads, capped so large orders stay modest. */
#define TSI_LU_SYMBOLIC_ROWS_PER_THREAD 16
#define TSI_LU_SYMBOLIC_DEFAULT_CAP ((int64_t)256 << 20)
/* Smallest order whose chunks run on several threads: waking the threads
 * for each chunk costs more than small orders' rows. */
#define TSI_LU_SYMBOLIC_PARALLEL_ORDER 2048
/* Arrays smaller than this need no huge pages: the TLB covers them. */
#define TSI_LU_HUGE_PAGES_MIN ((size_t)8 << 20)
/* The GPU's fill-path traversal: warps (a row each) per block; rows in
 * flight per resident warp (beyond a few, slots only cost memory and their
 * clearing); the default budget, this fraction of the free device memory;
 * the shortest queue a budget-sized slot gets (words). */
#define TSI_LU_SYMBOLIC_WARPS_PER_BLOCK 8
#define TSI_LU_SYMBOLIC_ROWS_PER_RESIDENT_WARP 2
#define TSI_LU_SYMBOLIC_BUDGET_DIVISOR 4
#define TSI_LU_SYMBOLIC_MIN_QUEUE_WORDS 1024
/* The GPU's fill-path traversal in tiers (symbolic_tiers_gpu.c): first a
 * warp a row whose slot holds a window of the visited bitmap around the row
 * (this fraction of it above the row), a hash set for the U entries above
 * the window and a ring for two consecutive levels of a sweep; a row that
 * reaches below its window, fills half its hash set or outgrows its ring
 * reruns with the whole bitmap and a larger ring, then (the ring outgrown
 * again) a queue of n, with as many threads a row as the budget's rows in
 * flight leave to the device. Sized from the rows' statistics of a large
 * planar mesh (bench/lu_symbolic_ooc.c; bench/notes/lu-newton.md): nearly
 * every row fits the window, its hash set and its ring; the few that do not
 * carry most of the work. */
#define TSI_LU_SYMBOLIC_WINDOW_ABOVE 4
#define TSI_LU_SYMBOLIC_WINDOW ((int64_t)1 << 16)
#define TSI_LU_SYMBOLIC_HASH_WORDS 2048
#define TSI_LU_SYMBOLIC_RING_WORDS 4096
#define TSI_LU_SYMBOLIC_FULL_RING_WORDS 16384
/* Threads a row in the whole-bitmap tiers: a warp up to a block of this many. */
#define TSI_LU_SYMBOLIC_MAX_GROUP 512

/* ---- levelization on the GPU ------------------------------------------------------- */

/* Threads of the cooperative Kahn kernel's blocks and of the one-block
 * variant. */
#define TSI_LU_LEVELIZE_THREADS 256
#define TSI_LU_LEVELIZE_SINGLE_BLOCK_THREADS 1024

/* ---- GPU factorization ------------------------------------------------------------- */

/* Threads per column of a left-looking level, from the mean length of the
 * subcolumns its columns gather: a warp up to the first bound, 128 threads
 * up to the second, else 512 (a block each). Warps go 8 to a block of
 * TSI_LU_LEFT_WARP_BLOCK threads. */
#define TSI_LU_LEFT_WARP_MEAN 48.0
#define TSI_LU_LEFT_MEDIUM_MEAN 256.0
#define TSI_LU_LEFT_WARP_BLOCK 256
/* Shared memory of the levels that accumulate their columns there: a column
 * of the widest groups (a block each) up to this many bytes, within the
 * device's opt-in limit; a block of warps or of 128 threads up to the
 * second, so that several blocks share a multiprocessor. */
#define TSI_LU_SHARED_COLUMN_BYTES (200 * 1024)
#define TSI_LU_SHARED_BLOCK_BYTES (48 * 1024)
/* Dense scratch (one n-vector per concurrent column): at most this many
 * bytes and a quarter of the free device memory, at most this many slots,
 * and the automatic choice takes the sparse scratch when fewer than the
 * minimum fit; dense scratch with fewer slots than the widest level still
 * beat the sparse scratch (lu-gpu-h200.md in bench/results). Past
 * n = 2^20 the byte cap would leave fewer slots than the large-order count;
 * the cap grows instead to keep them (measured since: bench/notes/lu-numeric.md). */
#define TSI_LU_SCRATCH_BYTES ((int64_t)2 << 30)
#define TSI_LU_SCRATCH_SLOTS 2048
#define TSI_LU_SCRATCH_MIN_SLOTS 128
#define TSI_LU_SCRATCH_LARGE_N_SLOTS 256
/* The warps' dataflow launches find a row's position by binary search in
 * the column's rows (shared memory) instead of a scratch slot's map when
 * the slots, fewer than the columns, are at most this many (the byte cap
 * at large n leaves few warps in flight); groups of 128 and 512 threads
 * keep the maps (longer columns, deeper searches), as do warps with more
 * slots (bench/notes/lu-numeric.md). */
#define TSI_LU_FLOW_SEARCH_SLOTS 1024
/* Trailing levels of at most this many columns form the right-looking tail;
 * wider tails did not pay (lu-gpu-h200.md in bench/results). */
#define TSI_LU_TAIL_WIDTH 4
/* The tail goes dense from this many columns, when its m^2 doubles fit in
 * this many bytes and a quarter of the free device memory. */
#define TSI_LU_DENSE_TAIL_MIN 128
#define TSI_LU_DENSE_TAIL_BYTES ((int64_t)4 << 30)
/* The dense tail's panel width: the GEMM's depth and the triangular
 * kernels' register arrays. */
#define TSI_LU_DENSE_TAIL_PANEL 64
/* Threads of the dense tail's column kernels (gather, diagonal block,
 * store) and of its panel solves (a thread a row or column). */
#define TSI_LU_DENSE_TAIL_THREADS 256
#define TSI_LU_DENSE_TAIL_PANEL_THREADS 128
/* The sparse tail: threads of a block of its gather (a block per tail
 * column); rows of L longer than this go to a warp instead of a thread;
 * threads of a column step's blocks and the most blocks (targets) a step
 * spreads over. */
#define TSI_LU_TAIL_GATHER_THREADS 512
#define TSI_LU_TAIL_LONG_ROW 32
/* Rows of L longer than this (a rail's row, as long as the order) go to
 * the whole block of the gather: the products of a chunk of terms of up to
 * TSI_LU_TAIL_BLOCK_ENTRIES entries at once, in TSI_LU_TAIL_BLOCK_BYTES of
 * shared memory, each entry's subtractions then by one thread. */
#define TSI_LU_TAIL_BLOCK_ROW 1024
/* Terms of a row of L whose loads a thread of the gather issues together. */
#define TSI_LU_TAIL_BATCH 8
#define TSI_LU_TAIL_BLOCK_ENTRIES 4
#define TSI_LU_TAIL_BLOCK_BYTES 32768
#define TSI_LU_TAIL_STEP_THREADS 256
#define TSI_LU_TAIL_STEP_BLOCKS 4096
/* A tail step stores the previous column with a block per this many of
 * its entries (within TSI_LU_TAIL_STEP_BLOCKS). */
#define TSI_LU_TAIL_STORE_ENTRIES 2048
/* Tail columns with at least this many entries above the tail (a rail's)
 * are gathered by many blocks, a launch per level, TSI_LU_TAIL_PIECE
 * entries a block, instead of by one block: between the generated
 * netlists' rails, the shorter of which lost to the launches
 * (bench/notes/lu-newton.md). */
#define TSI_LU_TAIL_SPLIT_ENTRIES 65536
#define TSI_LU_TAIL_PIECE TSI_LU_TAIL_GATHER_THREADS
/* An entry of a tail column whose row of L is longer than this many times
 * the column's part above it is gathered by walking that part (a search
 * in each met column of L) instead of the row. */
#define TSI_LU_TAIL_COLUMN_SIDE 4
/* Blocks a split column's map takes (set or cleared). */
#define TSI_LU_TAIL_MAP_BLOCKS 32
/* An entry of a tail column from the tail down whose row of L holds more
 * than TSI_LU_TAIL_SEGMENT_ROW entries (a rail's meeting a rail's column)
 * is summed by segments of TSI_LU_TAIL_SEGMENT positions of the row, a
 * block each, instead of term after term (tail_segments_gpu.c). */
#define TSI_LU_TAIL_SEGMENT_ROW 16384
#define TSI_LU_TAIL_SEGMENT 4096

/* ---- multifrontal numeric phase (fronts) ---------------------------------------------- */

/* Relaxed amalgamation of the fronts (tsi_lu_front_rule): a child merges
 * into its parent when the merged front has at most PIVOTS_0 pivots, or at
 * most PIVOTS_1 and a share of explicit zeros below ZEROS_0, or at most
 * PIVOTS_2 and below ZEROS_1, or any size below ZEROS_2. Fewer, larger
 * fronts mean fewer levels (launches) and denser kernels, at the price of
 * the zeros' flops and memory (the statistics of bench/lu_fronts). */
#define TSI_LU_FRONT_RELAX_PIVOTS_0 8
#define TSI_LU_FRONT_RELAX_PIVOTS_1 24
#define TSI_LU_FRONT_RELAX_PIVOTS_2 128
#define TSI_LU_FRONT_RELAX_ZEROS_0 0.8
#define TSI_LU_FRONT_RELAX_ZEROS_1 0.3
#define TSI_LU_FRONT_RELAX_ZEROS_2 0.1
/* Fronts of at most this many rows are eliminated one pivot at a time (on
 * the GPU a warp each, a row a lane: it must stay 32); larger ones by
 * panels of TSI_LU_FRONT_PANEL pivots (the GPU's triangular kernels hold a
 * panel's row in registers: at most 64). */
#define TSI_LU_FRONT_SMALL 32
#define TSI_LU_FRONT_PANEL 64
/* The host's fronts (numeric/frontal_cpu.c) share a panel step, or a
 * level's fronts, over threads only from this many flops (a few tenths of
 * a millisecond of one core's tiles): each shared step costs a fork and
 * barriers, and on a busy machine a time slice at each barrier
 * (bench/notes/lu-numeric.md). */
#define TSI_LU_FRONT_PARALLEL_FLOPS 4e6
/* The GPU's fronts (numeric/frontal_cuda.cu): small fronts a warp each,
 * this many warps (fronts) a block, each front in shared memory (8.4 KB a
 * warp); the large fronts' extend-add a block of ASSEMBLY_THREADS per
 * ASSEMBLY_COLUMNS target columns; a panel's diagonal block a block of
 * DIAGONAL_THREADS (a barrier a pivot: the more threads, the fewer entries
 * each updates between barriers); its row and column solves a warp a row or
 * column, PANEL_THREADS / 32 of them a block (a chain of 64 short steps
 * each; a thread a row holding 64 values in unrolled code was slower:
 * bench/notes/lu-numeric.md); the
 * trailing update by TILE x TILE squares (a thread 4 x 4 entries, 256
 * threads at 64), the panel's columns through shared memory TILE_DEPTH at a
 * time (2 x 33 KB at 64 and 32). */
#define TSI_LU_FRONT_SMALL_WARPS 4
#define TSI_LU_FRONT_ASSEMBLY_COLUMNS 8
#define TSI_LU_FRONT_ASSEMBLY_THREADS 256
#define TSI_LU_FRONT_DIAGONAL_THREADS 512
#define TSI_LU_FRONT_PANEL_THREADS 256
#define TSI_LU_FRONT_TILE 64
#define TSI_LU_FRONT_TILE_DEPTH 32
/* The solves through the fronts (solve/solve_fronts_cuda.cu): small fronts a
 * warp each, this many a block; larger ones a block of SOLVE_THREADS each
 * (the rows below a panel of 32 pivots a thread each). */
#define TSI_LU_FRONT_SOLVE_SMALL_WARPS 8
#define TSI_LU_FRONT_SOLVE_THREADS 256
/* A level of fewer large fronts than this (a GPU's multiprocessors, about)
 * whose products below the fronts' triangles (L21 t) hold at least
 * SPLIT_ENTRIES entries has them spread over blocks of SOLVE_THREADS rows
 * in the forward solve (0 keeps every level whole; a build may set it).
 * The backward products (U12 x) stay in the fronts' blocks: spread over
 * their few pivot rows they were slower (bench/notes/lu-solve.md). */
#ifndef TSI_LU_FRONT_SOLVE_SPLIT_FRONTS
#define TSI_LU_FRONT_SOLVE_SPLIT_FRONTS 128
#endif
#define TSI_LU_FRONT_SOLVE_SPLIT_ENTRIES 65536
/* Such a level is wide where one of its fronts has at least WIDE_PIVOTS
 * pivots: its fronts' pivots are solved WIDE_WINDOW at a time, a launch a
 * window, and the rest of each triangle takes the window's products in
 * another launch, a block for each WIDE_ROWS rows (one block streaming a
 * large front's triangle was most of the 3-D Laplacian's solve). */
#define TSI_LU_FRONT_SOLVE_WIDE_PIVOTS 512
#define TSI_LU_FRONT_SOLVE_WIDE_WINDOW 128
#define TSI_LU_FRONT_SOLVE_WIDE_ROWS 64
/* The GPU fronts' storage (f^2 doubles a front) at most this many bytes,
 * and a quarter of the free device memory; else the columns. */
#define TSI_LU_FRONT_BYTES ((int64_t)16 << 30)
/* The model choosing the GPU's method (numeric/frontal_rule.c): a level of
 * the front tree (its small fronts' launch, its large fronts' assembly), a
 * panel step of the large fronts (three launches), the dense kernels' flop
 * rate, the memory's bytes per second; a dataflow level of the columns and
 * their sparse updates' flop rate. Derived from the launch latency (about
 * 4 us a kernel back to back), the FP64 CUDA-core rate the dense tail's
 * GEMM reached (about 6 TFLOP/s; 3 assumed for the fronts' smaller
 * GEMMs) and the column path's refactorizations (the circuit grid: 6.6e9
 * flops in about 60 ms); to be calibrated by bench/lu_solvers with both
 * methods forced. */
#define TSI_LU_MODEL_FRONT_LEVEL_SECONDS 10e-6
#define TSI_LU_MODEL_PANEL_STEP_SECONDS 15e-6
#define TSI_LU_MODEL_FRONT_FLOPS 3e12
#define TSI_LU_MODEL_BYTES_PER_SECOND 2e12
#define TSI_LU_MODEL_COLUMN_LEVEL_SECONDS 20e-6
#define TSI_LU_MODEL_COLUMN_FLOPS 1e11
/* Under AUTO the GPU keeps the columns, without building the fronts, when
 * the model gives the columns less than this: building the fronts is a host
 * pass over L + U (bench/lu_fronts prints its time), worth paying only where
 * refactorizations can save more. An estimate, like the model's constants. */
#define TSI_LU_FRONT_MIN_COLUMN_SECONDS 5e-3
/* The host's numeric method under AUTO (frontal_rule.c): the fronts where
 * the column path's work per entry of L + U (its flops and
 * TSI_LU_FACTOR_WORK_PER_ENTRY) reaches HOST_FRONT_WORK_PER_ENTRY (dense
 * fill, where the fronts' register tiles beat the sparse column updates),
 * the fronts' dense flops are at most HOST_FRONT_FLOP_RATIO times that work
 * (little padding from the amalgamation) and their storage at most
 * HOST_FRONT_STORAGE_RATIO times the entries of L + U. Measured on a 2-core
 * machine, one thread (bench/results/lu/lu-fronts-cpu-20261204.md): the
 * fronts 2.5-3.9x faster at 175-453 work per entry (bcsstk13, the 2-D and
 * 3-D Laplacians, the grid circuit), within 10 % either way at 42-75
 * (sherman5, watt_2, hor_131), slower below, but for one miss: jagmesh7,
 * 24 a entry, the fronts 10x faster. */
#define TSI_LU_HOST_FRONT_WORK_PER_ENTRY 120.0
#define TSI_LU_HOST_FRONT_FLOP_RATIO 2.0
#define TSI_LU_HOST_FRONT_STORAGE_RATIO 4.0

/* ---- GPU solves -------------------------------------------------------------------- */

/* Threads of a block of the triangular solves (a warp per row). */
#define TSI_LU_SOLVE_THREADS 256
/* Entries of a row a lane of the triangular solves loads together. */
#define TSI_LU_SOLVE_BATCH 4
/* Entries of a row one warp of the triangular solves sums: a longer row (a
 * supply rail's, hundreds of thousands of entries on a netlist) is summed
 * by segments of this many entries, on as many warps at once in the
 * synchronisation-free launch, their sums then added in order. */
#define TSI_LU_SOLVE_SEGMENT 2048
/* Rows of the dense tail a block of its solve's update subtracts from. */
#define TSI_LU_SOLVE_UPDATE_ROWS 64

/* ---- element-wise GPU kernels (scatter, permutations, marks) ------------------------ */

#define TSI_LU_ELEMENTWISE_THREADS 256
#define TSI_LU_ELEMENTWISE_BLOCKS 4096
/* The pivot check on the device: a thread takes a column of at most
 * QUALITY_THREAD_ENTRIES entries, loading QUALITY_BATCH at a time; longer
 * columns go by chunks of QUALITY_CHUNK entries, a block of
 * QUALITY_CHUNK_THREADS each, at most QUALITY_MOST_BLOCKS a launch. */
#define TSI_LU_QUALITY_THREAD_ENTRIES 32
#define TSI_LU_QUALITY_BATCH 8
#define TSI_LU_QUALITY_CHUNK 2048
#define TSI_LU_QUALITY_CHUNK_THREADS 256
#define TSI_LU_QUALITY_MOST_BLOCKS 65535

/* ---- LU batches on the host (lu/batch/batch_member_cpu.c) -------------------------- */

/* The members' work (the analyses' factor_work, or two per entry of L + U
 * and A for a solve) from which the host batch shares its members out over
 * threads: about 20 us of one core, the cost of waking them
 * (bench/notes/lu-batch.md). */
#define TSI_LU_BATCH_HOST_PARALLEL_WORK 5e4

/* ---- LU batches on the GPU (lu/batch/) ------------------------------------------ */

/* Members per group of the batch's layout: the values of up to this many
 * members of one pattern are interleaved, and a warp of the solves serves
 * them in lockstep (a pattern with fewer members takes the next power of
 * two). The factorization takes them this many to a warp too while its
 * steps update, on average, at most TSI_LU_BATCH_LANE_UPDATES entries of a
 * column; past that, TSI_LU_BATCH_NARROW_MEMBERS to a warp (the others'
 * lanes split each member's updates). The values and the two regimes come
 * from the width sweeps in bench/notes/lu-batch.md. */
#define TSI_LU_BATCH_WARP_MEMBERS 32
#define TSI_LU_BATCH_LANE_UPDATES 4.0
#define TSI_LU_BATCH_NARROW_MEMBERS 2
/* The factorization's update map (an int32 per update) up to this many
 * bytes; past it, targets are found by binary search. */
#define TSI_LU_BATCH_MAP_BYTES ((int64_t)1 << 30)
/* Updates of a column step a lane issues together (their loads before their
 * stores, to overlap the latencies): the most that the factorization's 128
 * registers hold without spilling (6 spills on sm_90 with the steps' loads
 * in three stages); SOLVE_GROUP: entries of a row the solves' lanes load
 * together. */
#define TSI_LU_BATCH_UPDATE_GROUP 5
#define TSI_LU_BATCH_SOLVE_GROUP 8
/* Blocks of the solves' kernels an SM holds at least (their registers: a
 * row's next group is loaded while the current group's y_j arrive). */
#define TSI_LU_BATCH_SOLVE_BLOCKS 2
/* Doubles of shared memory a warp of the factorization stages a column in
 * (its positions times the members of the warp): a column that fits is
 * accumulated there instead of in the factors (sized so that two blocks
 * of eight warps share an SM). */
#define TSI_LU_BATCH_STAGE_DOUBLES 1536
/* Tickets a warp takes at once from the dataflow counter (fewer atomics on
 * one address). */
#define TSI_LU_BATCH_TICKET_RUN 4
/* Threads of a block of the batch's kernels; entries (rows, values) of one
 * member group an element-wise block handles. */
#define TSI_LU_BATCH_THREADS 256
#define TSI_LU_BATCH_CHUNK 1024
/* The L solve's last rows (a nested-dissection ordering's separators, a
 * netlist's rails: long rows that need each other) are solved by columns,
 * a block a member, where the plan's model of the dataflow's path says it
 * pays: a column costs TAIL_COLUMN_TRIPS of a dataflow row's trips (a
 * barrier, the column's factors loaded the column before; fitted on a
 * sweep of forced tail lengths, bench/notes/lu-batch.md), and the model's
 * path must fall below TAIL_GAIN of the dataflow's alone. At most TAIL_MAX
 * rows (their accumulators, 8 bytes a row, in shared memory). */
#ifndef TSI_LU_BATCH_TAIL_COLUMN_TRIPS /* a build may set it, for experiments */
#define TSI_LU_BATCH_TAIL_COLUMN_TRIPS 0.8
#endif
#define TSI_LU_BATCH_TAIL_GAIN 0.9
#define TSI_LU_BATCH_TAIL_MAX 4096
#define TSI_LU_BATCH_TAIL_THREADS 128
/* Threads of a factorization tail's block (a member's lanes), and the most
 * a test or benchmark switch may ask for; a step of the tail's column costs
 * FACTOR_TAIL_STEP of the dataflow's trips in the plan's model (fitted on
 * the H200: 1.0 puts the 1k and 10k Laplacians' measured tails within 2 %). */
#define TSI_LU_BATCH_FACTOR_TAIL_THREADS 64
#define TSI_LU_BATCH_FACTOR_TAIL_STEP 1.0
/* A step of a column accumulated in the factors (too long for a stage in
 * shared memory: an L2 round trip where the stage's is a few cycles) in
 * the model's trips of a staged one (fitted on the H200's circuits, whose
 * rails' columns the dataflow cannot stage: their 8-column tail factored
 * 2.2x faster). */
#define TSI_LU_BATCH_UNSTAGED_STEP 3.0
#define TSI_LU_BATCH_FACTOR_TAIL_MOST 256
/* Doubles of shared memory the factorization's tail stages its columns in
 * (the longest tail column times factor_width); past it the columns are
 * accumulated in the factors. */
#define TSI_LU_BATCH_TAIL_STAGE_DOUBLES 6144
/* Entries of a tail column a thread loads while the column before is applied. */
#define TSI_LU_BATCH_TAIL_AHEAD 4

#endif
