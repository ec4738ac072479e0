/* The symbolic phase: the pattern of L + U of M = P Dr A Dc Q without
 * pivoting, on the host (symbolic_cpu.c picks the row merge with symmetric
 * pruning, the default, or the per-row fill-path traversal, the GPU's
 * algorithm and the tests' reference) or on the GPU (symbolic_cuda.cu, the
 * fill-path traversal out of core); both then share the steps of
 * symbolic.c. */
#ifndef TESSERA_LU_SYMBOLIC_INTERNAL_H
#define TESSERA_LU_SYMBOLIC_INTERNAL_H

#include "lu/lu_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The pattern of L + U by columns (lu_col_ptr, lu_row_idx, diag_pos), the
 * entry map a_to_lu, nnz(L), nnz(U) and the flops, found on the host or
 * (TS_ERROR_UNSUPPORTED without CUDA or without a CUDA context) the GPU. */
ts_status tsi_lu_symbolic_cpu(ts_lu *lu, const ts_csr *a);
ts_status tsi_lu_symbolic_cuda(ts_lu *lu, const ts_csr *a);

/* M's pattern by rows (row i is row row_perm[i] of A, columns renumbered by
 * the inverse of col_perm) and the rows of L + U found from it: row_ptr has
 * n + 1 offsets, each row's columns in any order, its diagonal included;
 * col_count, when the way of finding the rows fills it (n entries), the
 * entries of each column, else NULL. */
typedef struct tsi_lu_rows {
  int64_t n;
  int64_t *m_ptr;
  int32_t *m_idx;
  int64_t *row_ptr;
  int32_t *row_idx;
  int64_t *col_count;
} tsi_lu_rows;

/* The budget in bytes (symbolic_chunks.c): the option, or the default for
 * slots of `largest_slot_words` 32-bit words and `threads` threads. */
int64_t tsi_lu_symbolic_budget(const ts_lu *lu, int64_t largest_slot_words, int threads);

/* Rows per chunk for slots of `words` 32-bit words under `budget` bytes: at
 * least one, so a tiny budget still makes progress, and at most `rows`. */
int64_t tsi_lu_symbolic_chunk_rows(int64_t budget, int64_t words, int64_t rows);

/* One tier of the GPU symbolic phase's slots (symbolic_tiers_gpu.c): a row
 * in it finds its vertices in a window of the visited bitmap, the U entries
 * past the window in a hash set, and queues a sweep's levels in a ring; the
 * last tier cannot be outgrown (the whole bitmap, a queue of n). */
typedef struct tsi_lu_symbolic_tier {
  int64_t window_bits;  /* the bitmap window, a multiple of 1024; the whole bitmap when it covers n */
  int64_t bitmap_words; /* its words */
  int64_t summary_words;
  int64_t hash_words;  /* the far U entries' hash set (a power of two), 0: none (the window covers n) */
  int64_t queue_words; /* the queue's room */
  int ring;            /* non-zero: the queue wraps (queue_words a power of two); else it holds every sweep */
  int group;           /* threads a row: 32 (a warp) or a block's worth */
  int64_t slot_words;  /* the slot, rounded up to 4 words */
  int64_t rows;        /* rows in flight: the budget's slots, at most the device's */
} tsi_lu_symbolic_tier;

enum { TSI_LU_SYMBOLIC_TIERS_MAX = 3 };

typedef struct tsi_lu_symbolic_plan {
  int tiers;
  tsi_lu_symbolic_tier tier[TSI_LU_SYMBOLIC_TIERS_MAX];
  int64_t scratch_words; /* the largest tier's rows times its slot */
} tsi_lu_symbolic_plan;

/* The tests' limits of the tiers before the last, to send many rows
 * through the reruns on small matrices: > 0, the largest ring (a power of
 * two at most this), the windowed tier's window (rounded up to 1024, kept
 * below n) and its hash set (a power of two); 0, the defaults. */
typedef struct tsi_lu_symbolic_limits {
  int64_t ring_words, window_bits, hash_words;
} tsi_lu_symbolic_limits;

/* The tiers for order n under `budget` bytes on a device that runs
 * `in_flight` rows at once (a warp each) and `threads` resident threads;
 * limits may be NULL. TS_ERROR_OVERFLOW when a slot does not fit 64 bits. */
ts_status tsi_lu_symbolic_plan_tiers(ts_context *ctx, int64_t n, int64_t budget, int64_t in_flight, int64_t threads,
                                     const tsi_lu_symbolic_limits *limits, tsi_lu_symbolic_plan *plan);

/* Functions the GPU kernels share with the host. */
#ifdef __CUDACC__
#define TSI_LU_HOST_DEVICE __host__ __device__
#else
#define TSI_LU_HOST_DEVICE
#endif

/* The first vertex of row i's bitmap window of `window_bits` bits (0 when
 * the window covers the whole order n): a multiple of 1024, so that the
 * window's words and summary bits line up with the whole bitmap's. */
static inline TSI_LU_HOST_DEVICE int64_t tsi_lu_symbolic_window_base(int64_t i, int64_t window_bits, int64_t n) {
  if (window_bits >= n)
    return 0;
  int64_t base = i + 1 - (window_bits - window_bits / TSI_LU_SYMBOLIC_WINDOW_ABOVE);
  return base > 0 ? base / 1024 * 1024 : 0;
}

/* Rows of L + U by the per-row fill-path traversal (Rose and Tarjan), into
 * rows->row_ptr and rows->row_idx. */
ts_status tsi_lu_symbolic_fill_path_rows(ts_lu *lu, tsi_lu_rows *rows);

/* Rows of L + U on the GPU, out of core (symbolic_cuda.cu). */
ts_status tsi_lu_symbolic_cuda_rows(ts_lu *lu, tsi_lu_rows *rows);

/* A way of finding the rows of L + U from M's rows (one of the above). */
typedef ts_status (*tsi_lu_rows_fn)(ts_lu *lu, tsi_lu_rows *rows);

/* The symbolic phase with `find_rows`: M's pattern, its rows of L + U, then
 * the columns, the entry map and the counts (symbolic.c). */
ts_status tsi_lu_symbolic_with(ts_lu *lu, const ts_csr *a, tsi_lu_rows_fn find_rows);

/* The same steps for rows of L + U found elsewhere (the partial-pivoting
 * analysis, which finds them as it pivots): row_ptr (n + 1), row_idx and
 * col_count (n, or NULL) are taken over and freed. */
ts_status tsi_lu_symbolic_given_rows(ts_lu *lu, const ts_csr *a, int64_t *row_ptr, int32_t *row_idx,
                                     int64_t *col_count);

/* Rows of L + U by the row merge with symmetric pruning (Eisenstat and Liu). */
ts_status tsi_lu_symbolic_row_merge_rows(ts_lu *lu, tsi_lu_rows *rows);

/* Ask for transparent huge pages on a large array written or read at
 * random (advice only; huge_pages.c). */
void tsi_lu_advise_huge_pages(void *memory, size_t bytes);

/* ---- fronts of the multifrontal numeric phase (fronts.c) ------------------------- */

/* Relaxed amalgamation: a child front merges into its parent when the merged
 * front has at most max_pivots[0] pivots, or at most max_pivots[1] and a
 * fraction of explicit zeros below max_zeros[0], or at most max_pivots[2]
 * and below max_zeros[1], or any size below max_zeros[2] (the zeros counted
 * in the factors' part of the front: its pivot columns of L and rows of U). */
typedef struct tsi_lu_front_rule {
  int64_t max_pivots[3];
  double max_zeros[3];
} tsi_lu_front_rule;

/* The multifrontal view of the factorization of M (Duff and Reid, "The
 * multifrontal solution of indefinite sparse symmetric linear equations",
 * ACM TOMS 9(3), 1983; for unsymmetric matrices on the symmetrized pattern,
 * as Amestoy and Duff's MUMPS): the elimination tree of the pattern of
 * L + U + (L + U)^T, its Cholesky column counts, and the supernodes of that
 * pattern with relaxed amalgamation (Ashcraft and Grimes, "The influence of
 * relaxed supernode partitions on the multifrontal method", ACM TOMS 15(4),
 * 1989). Front s is a dense f x f matrix (column-major) on its index list:
 * its p pivots, then the r = f - p rows (= columns) its Schur complement,
 * the contribution block, passes to the parent front; every list is
 * ascending (the pivots of a front are descendants of its last pivot, the
 * other rows its ancestors), so the elimination order within a front is a
 * topological order of the tree and the factors are those of M in its own
 * order, entry for entry, up to rounding. */
typedef struct tsi_lu_fronts {
  int64_t n, count;
  /* Levels of the front tree by height (leaves at level 0): the fronts of
   * level l are level_fronts[level_ptr[l] .. level_ptr[l + 1]), ascending;
   * every child is on an earlier level than its parent. Fronts are
   * numbered in this order (level_fronts[k] == k). */
  int64_t levels;
  int64_t *level_ptr; /* levels + 1 */
  int32_t *parent;    /* count: parent front, or -1 */
  int64_t *child_ptr; /* count + 1 */
  int32_t *children;  /* each front's children, ascending */
  int32_t *pivots;    /* count: p of each front */
  int32_t *size;      /* count: f of each front */
  int64_t *index_ptr; /* count + 1 */
  int32_t *index;     /* index_ptr[count]: each front's index list (rows of M) */
  /* For each entry of an index list that is not a pivot, its position in
   * the parent's index list (the contribution block's extend-add map); -1
   * at the pivots and at a root. */
  int32_t *relative;
  int64_t *offset;      /* count + 1: front s at values + offset[s], f * f doubles */
  int32_t *front_of;    /* n: the front eliminating each column of M */
  int64_t *lu_to_front; /* lu_nnz: position of each entry of L + U in the fronts' values */
  /* Figures: entries of the pattern's Cholesky factor (one triangle, the
   * diagonal included) and of the fronts' factor parts (p f - p (p - 1) / 2
   * each), the flops of the partial factorizations, and the largest front. */
  int64_t chol_entries, factor_entries;
  double flops;
  int32_t max_size, max_pivots;
  int64_t max_children;
} tsi_lu_fronts;

/* The default rule (lu_tuning.h's TSI_LU_FRONT_* constants). */
tsi_lu_front_rule tsi_lu_front_rule_default(void);

/* The fronts of lu's analysis (its L + U pattern) under rule; *out NULL on
 * failure. The caller frees them with tsi_lu_fronts_free. */
ts_status tsi_lu_fronts_build(const ts_lu *lu, const tsi_lu_front_rule *rule, tsi_lu_fronts **out);
void tsi_lu_fronts_free(tsi_lu_fronts *fronts);

#ifdef __cplusplus
}
#endif

#endif
