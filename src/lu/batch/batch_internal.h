/* Batches of LU systems (tessera/lu_batch.h): the batch object, the host
 * path (each member an LU object that borrows its pattern's analysis and
 * runs the single-system factorization and solve), and the GPU path's entry
 * points and host-built plan (batch_plan_gpu.c; the kernels' shared per-lane
 * code is in batch_kernels.h).
 *
 * Files: batch_object.c (create, destroy, member records, statistics),
 * batch_factor.c and batch_solve.c (the public calls: checks, the choice of
 * path, the members' outcomes), batch_member_cpu.c (one member on the
 * host), batch_plan_gpu.c (the GPU's schedule from the analyses),
 * batch_cuda.cu (device memory, kernels, launches), batch_nocuda.c. */
#ifndef TESSERA_LU_BATCH_INTERNAL_H
#define TESSERA_LU_BATCH_INTERNAL_H

#include "lu/batch/batch_kernels.h"
#include "lu/lu_internal.h"
#include "tessera/lu_batch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One pattern: its analysis and where its members lie. */
typedef struct tsi_lu_batch_pattern {
  ts_lu *lu;             /* analysed with the pattern's matrix; never factored itself */
  int64_t members;       /* members sharing it */
  int64_t first_member;  /* index of its first member */
  int64_t value_offset;  /* of its first member's values */
  int64_t vector_offset; /* of its first member's vector entries */
} tsi_lu_batch_pattern;

/* One member: its record, and on the host its LU object (a shallow copy of
 * its pattern's, sharing the analysis's arrays, owning its factors,
 * workspace and fallback) once the host path has run for it. */
typedef struct tsi_lu_batch_member_state {
  ts_lu *view;
  char *message;           /* the member's error message of the last call, or NULL */
  ts_status factor_status; /* of the last factorization (info.status may hold a later solve's error) */
  ts_lu_batch_member info;
} tsi_lu_batch_member_state;

/* Test and benchmark switches of the GPU path (never set through the API),
 * read when the device plan is built (the first GPU factorization). */
struct tsi_lu_batch_switches {
  int width;  /* > 0: members per warp of every pattern's factorization (a power of two up to 32) instead of the rule */
  int no_map; /* non-zero: the factorization finds its targets by binary search, without the update map */
  int full_waits; /* non-zero: every ticket waits on all its dependencies (the plan prunes none) */
  /* Rows of the L solve's tail and the U solve's head, and columns of the
   * factorization's tail: 0 the plan's models choose, > 0 that many, < 0
   * none. */
  int tail_rows;
  int factor_tail;          /* < 0: no factorization tail, whatever tail_rows says */
  int upper_head;           /* < 0: no U solve head, whatever tail_rows says */
  int factor_tail_unstaged; /* non-zero: the factorization's tail accumulates its columns in the factors */
  int factor_tail_threads;  /* > 0: threads of a factorization tail's block (up to TSI_LU_BATCH_FACTOR_TAIL_MOST) */
};

struct ts_lu_batch {
  ts_context *ctx;
  ts_lu_options options; /* resolved */
  int64_t pattern_count, members;
  int64_t values, rows; /* lengths of the value and vector arrays */
  tsi_lu_batch_pattern *patterns;
  tsi_lu_batch_member_state *member;
  bool on_gpu;
  bool factored; /* a factorization ran (its members may have failed) */
  /* Host path: one single-threaded CPU context per thread, for the members'
   * LU objects (their errors stay apart, their phases on one thread). */
  int slots;
  ts_context **slot_ctx;
  void *device; /* the GPU path's state (batch_cuda.cu), or NULL */
  struct tsi_lu_batch_switches switches;
  ts_lu_batch_stats stats;
};

/* ---- the host path (batch_member_cpu.c) ------------------------------------------- */

/* Slot contexts for `threads` threads (made once). */
ts_status tsi_lu_batch_slots(ts_lu_batch *batch, int threads);
/* Factor member m from its values (host) on the calling thread with slot
 * `slot`'s context: ts_lu_refactor on its LU object; its record updated,
 * its message kept on failure. */
ts_status tsi_lu_batch_member_factor(ts_lu_batch *batch, int64_t m, const double *values, int slot);
/* Solve member m (host vectors), which has factors: ts_lu_solve on its LU
 * object; its record updated. */
ts_status tsi_lu_batch_member_solve(ts_lu_batch *batch, int64_t m, const double *b, double *x, int slot);
/* Record a failure of member m decided outside its LU object (the GPU
 * path): its status and message. */
void tsi_lu_batch_member_fail(ts_lu_batch *batch, int64_t m, ts_status status, const char *message);
/* Free member m's LU object and message. */
void tsi_lu_batch_member_release(tsi_lu_batch_member_state *state);

/* Factor (or solve, when b is set) the members listed (all when list is
 * NULL) on the host threads: member list[i] reads values[i] (or b[i] and
 * writes x[i]). TS_ERROR_CANCELLED when the progress callback stops it. */
ts_status tsi_lu_batch_host_factor(ts_lu_batch *batch, int64_t count, const int64_t *list, const double *const *values);
ts_status tsi_lu_batch_host_solve(ts_lu_batch *batch, int64_t count, const int64_t *list, const double *const *b,
                                  double *const *x);

/* The members' outcomes counted into the statistics; the call's status: the
 * first failed member's (named, with the count of failures) or, for a
 * factorization that replaced pivots, the warning (batch_factor.c). */
ts_status tsi_lu_batch_outcome(ts_lu_batch *batch, const char *caller, bool solve);

/* The pattern of member m (binary search over the patterns' first members). */
int64_t tsi_lu_batch_pattern_of(const ts_lu_batch *batch, int64_t m);

/* ---- the GPU path (batch_cuda.cu; TS_ERROR_UNSUPPORTED without CUDA) -------------- */

/* Factor every member on the GPU from values (device memory when
 * on_device, else host). Members the host must decide get info.on_host set
 * (the caller runs the host path for them); the others get their status
 * (TS_SUCCESS) and record. */
ts_status tsi_lu_batch_gpu_factor(ts_lu_batch *batch, const double *values, bool on_device);
/* Solve the members factored on the GPU (info.on_host clear and status
 * not an error); b and x in device memory when on_device, else host. The
 * entries of x of the other members are left as they were. */
ts_status tsi_lu_batch_gpu_solve(ts_lu_batch *batch, const double *b, double *x, bool on_device);
/* Copy count doubles between the host and the batch's device memory
 * (to_device: host src, device dst); for the members the host decides. */
ts_status tsi_lu_batch_gpu_copy(ts_lu_batch *batch, void *dst, const void *src, int64_t count, bool to_device);
void tsi_lu_batch_gpu_release(ts_lu_batch *batch);

/* ---- the GPU's plan, built on the host (batch_plan_gpu.c) ------------------------- */

/* Everything the GPU path uploads once per batch: the patterns' table, the
 * concatenated arrays of their analyses (each pattern's part at the bases
 * its table entry gives), the update map of the factorization, and the
 * schedules (tickets) of the factorization and the two triangular solves.
 * Host arrays. */
typedef struct tsi_lu_batch_plan {
  int64_t pattern_count;
  tsi_lu_batch_pattern_gpu *pattern;
  int64_t columns;                                /* columns of all patterns */
  int64_t ptrs;                                   /* columns + pattern_count: entries of the n + 1 arrays */
  int64_t lu_nnz;                                 /* L + U positions of all patterns */
  int64_t entries;                                /* entries of A of all patterns */
  int64_t l_nnz;                                  /* strict L entries of all patterns */
  int64_t u_nnz;                                  /* strict U entries of all patterns */
  int64_t map_size;                               /* update map entries (0 without a map) */
  int64_t lanes;                                  /* member lanes of all patterns, padding included */
  int64_t flags;                                  /* ready marks: groups * n summed */
  int64_t factor_values, a_values, vector_values; /* interleaved doubles */
  int64_t narrow_values;                          /* doubles of the narrow patterns' own layout */
  /* n + 1 per pattern */
  int64_t *col_ptr, *map_ptr, *a_row_ptr, *lrow_ptr, *urow_ptr;
  /* n per pattern */
  int64_t *diag_pos;
  int32_t *row_perm, *col_perm;
  double *row_scale, *col_scale;
  int32_t *col_pattern; /* the pattern of each column (global numbering) */
  /* lu_nnz per pattern */
  int32_t *row_idx;
  int32_t *source; /* the entry of A at each position (pattern numbering), -1 for fill */
  /* entries per pattern */
  int32_t *a_col;
  double *entry_row_scale, *entry_col_scale;
  /* strict L and U by rows: columns and positions */
  int32_t *lrow_col, *urow_col;
  int64_t *lrow_pos, *urow_pos;
  /* The update map: for column k, for each j of U(:, k) in increasing
   * order, for each position of L(:, j), the offset from col_ptr[k] of the
   * position in column k it updates; NULL when too large (binary search). */
  int32_t *map;
  /* What each ticket waits on, per schedule (0 the factorization, 1 the L
   * solve, 2 the U solve): for index k of pattern P, wait_idx[s][wait_ptr[s][P->ptr_base + k]
   * .. wait_ptr[s][P->ptr_base + k + 1]) (offsets into the concatenated
   * wait_idx[s]; indices local to the pattern), a part of its dependencies
   * whose completion implies the others' (prune_waits in batch_plan_gpu.c). */
  int64_t waits[3];
  int64_t *wait_ptr[3];
  int32_t *wait_idx[3];
  /* Tickets: (global column or row, group) pairs in an order where every
   * ticket's dependencies come before it. */
  int64_t factor_tickets, lower_tickets, upper_tickets;
  int32_t *factor_ticket, *lower_ticket, *upper_ticket; /* 2 per ticket */
  double flops;                                         /* of one factorization of every member */
} tsi_lu_batch_plan;

/* The plan of batch's analyses (its switches read). */
ts_status tsi_lu_batch_plan_build(ts_lu_batch *batch, tsi_lu_batch_plan *plan);
void tsi_lu_batch_plan_free(tsi_lu_batch_plan *plan);

#ifdef __cplusplus
}
#endif

#endif
