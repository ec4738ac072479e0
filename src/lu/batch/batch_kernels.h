/* The GPU batch's per-lane work, written once for the device and the host:
 * batch_cuda.cu calls these functions from its kernels (a lane a member, or
 * S lanes a member), and the tests call them on the host to check the plan
 * and the arithmetic against the single-system LU. C and CUDA.
 *
 * Layout. The members of a pattern go `width` (W, 32 unless the pattern
 * has fewer members) to a group; a group's values are interleaved: entry p
 * of member w of group g is at base + (g * len + p) * W + w, so the W lanes
 * of a warp that serve the group read W consecutive doubles for each entry.
 * The solves and the residual give each member one lane, in the host's
 * order. The factorization takes its members `factor_width` (B, a divisor
 * of W) to a warp: with B < 32, S = 32 / B lanes serve each member and
 * split a column's updates among them (each lane its own positions, so the
 * arithmetic of every entry is the one-lane arithmetic). Its group g of B
 * members holds members g * B onwards, wherever they lie in the layout:
 * long columns want many lanes a member, the solves' rows wide groups.
 *
 * Arithmetic. Every product and difference is rounded on its own (no fused
 * multiply-add) and in the order of the host's code (numeric_cpu_impl.h,
 * solve_cpu_impl.h, solve.c), so a member's factors, solution and backward
 * error are bitwise the host's. */
#ifndef TESSERA_LU_BATCH_KERNELS_H
#define TESSERA_LU_BATCH_KERNELS_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lu/lu_tuning.h"

#ifdef __CUDACC__
#define TSI_BATCH_HD static inline __host__ __device__
#else
#define TSI_BATCH_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One pattern in the device's table: sizes, the bases of its parts in the
 * concatenated arrays, and its members' layout. */
typedef struct tsi_lu_batch_pattern_gpu {
  int64_t n, nnz_a, lu_nnz;
  int64_t col_base;             /* in the arrays of n entries per pattern (global column numbering) */
  int64_t ptr_base;             /* in the arrays of n + 1 entries per pattern */
  int64_t lu_base;              /* in the arrays of lu_nnz entries */
  int64_t a_base;               /* in the arrays of nnz_a entries */
  int64_t lrow_base, urow_base; /* in the strict L and U rows */
  int64_t map_base;             /* in the update map */
  int64_t flag_base;            /* in the ready marks (factor_groups * n) */
  int64_t lane_base;            /* in the per-lane arrays (groups * width; lane = member index) */
  int64_t value_base;           /* interleaved factors: groups * lu_nnz * width */
  int64_t a_value_base;         /* interleaved values of A: groups * nnz_a * width */
  int64_t vector_base;          /* interleaved vectors: groups * n * width */
  int64_t user_value_base;      /* its first member's values in the caller's array */
  int64_t user_vector_base;     /* its first member's entries in the caller's vectors */
  int64_t first_member;         /* its first member's index */
  int32_t members, width, groups;
  int32_t factor_width, factor_groups; /* the factorization's members per warp, and its groups (every lane) */
  /* With factor_width < width, the factorization works in a layout of its
   * own (groups of factor_width, at this base of the narrow array) and
   * the factors are then spread into the solves' layout; -1 when it
   * works in the solves' layout. */
  int64_t narrow_base;
  /* Rows lower_tail .. n - 1 of L, the L solve's tail: one block a member
   * solves them by columns (tsi_lu_batch_lower_tail_rows, _column) after
   * the dataflow has solved the rows before; n when no tail pays. */
  int64_t lower_tail;
  /* Columns factor_tail .. n - 1, the factorization's tail: one block a
   * member factors them one after another (tsi_lu_batch_column with the
   * block's threads as the member's lanes) after the dataflow has factored
   * the columns before; n when none. */
  int64_t factor_tail;
  /* Rows upper_head .. n - 1 of U, which the U solve meets first: one block
   * a member solves them by columns, backwards (tsi_lu_batch_upper_head_*),
   * before the dataflow solves the rows before; n when no head pays. */
  int64_t upper_head;
} tsi_lu_batch_pattern_gpu;

/* Pivot outcomes of a lane (bits of `bad`); SMALL_PIVOT is a pivot the rule
 * keeps but below sqrt(threshold) * max|M|, whose factors the singularity
 * policy judges (numeric/singularity.c): the host decides that member. */
enum {
  TSI_LU_BATCH_BAD_VALUE = 1,
  TSI_LU_BATCH_BAD_SINGULAR = 2,
  TSI_LU_BATCH_BAD_PIVOT = 4,
  TSI_LU_BATCH_SMALL_PIVOT = 8
};

/* What the kernels read: the plan's arrays on the device, the interleaved
 * values, the per-lane outcomes and the pivot rule. */
typedef struct tsi_lu_batch_args {
  const tsi_lu_batch_pattern_gpu *pattern;
  int64_t pattern_count;
  const int64_t *col_ptr, *map_ptr, *a_row_ptr, *lrow_ptr, *urow_ptr, *diag_pos;
  const int32_t *row_perm, *col_perm, *col_pattern, *row_idx, *source, *a_col, *lrow_col, *urow_col, *map;
  const int64_t *lrow_pos, *urow_pos;
  /* what each schedule's ticket waits on (the plan's wait lists) */
  const int64_t *wait_ptr[3];
  const int32_t *wait_idx[3];
  const double *row_scale, *col_scale, *entry_row_scale, *entry_col_scale;
  double *values;         /* interleaved factors */
  double *narrow;         /* the factorizations' own layout of narrow patterns */
  const double *a_values; /* interleaved values of A, unscaled */
  /* per lane */
  const unsigned long long *max_bits; /* bits of max |M| (non-negative doubles order as integers) */
  int32_t *perturbed;
  int32_t *bad;
  /* the pivot rule (numeric_cpu.c) */
  double threshold, root_eps;
  int perturb, single;
} tsi_lu_batch_args;

/* The tickets of one column or row of pattern P: one per factorization
 * group, or with `joined` (the solves, a lane a member) one per run of
 * 32 / width groups; run r holds groups r * 32 / width onwards. */
TSI_BATCH_HD int32_t tsi_lu_batch_ticket_groups(const tsi_lu_batch_pattern_gpu *P, int joined) {
  if (!joined)
    return P->factor_groups;
  const int32_t per = 32 / P->width;
  return (P->groups + per - 1) / per;
}

/* ---- arithmetic as the host rounds it ------------------------------------------- */

TSI_BATCH_HD double tsi_batch_mul(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

TSI_BATCH_HD double tsi_batch_sub(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

TSI_BATCH_HD double tsi_batch_add(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

/* A value another warp finished in this launch: from L2 on the device (an
 * older copy of its cache line may sit in this multiprocessor's L1). */
TSI_BATCH_HD double tsi_batch_load_final(const double *p) {
#ifdef __CUDA_ARCH__
  return __ldcg(p);
#else
  return *p;
#endif
}

/* The S lanes of one member see each other's stores: a warp's share, or a
 * whole block when a block serves the member (S > 32); a no-op on the host,
 * which runs a member's lanes as one. */
TSI_BATCH_HD void tsi_batch_sync_lanes(int64_t S) {
#ifdef __CUDA_ARCH__
  if (S > 32)
    __syncthreads();
  else
    __syncwarp();
#else
  (void)S;
#endif
}

TSI_BATCH_HD double tsi_batch_bits_double(unsigned long long bits) {
  union {
    unsigned long long u;
    double d;
  } v;
  v.u = bits;
  return v.d;
}

TSI_BATCH_HD unsigned long long tsi_batch_double_bits(double d) {
  union {
    unsigned long long u;
    double d;
  } v;
  v.d = d;
  return v.u;
}

/* Position of row `row` in rows[lo, hi) (sorted; present by the symbolic
 * phase's construction). */
TSI_BATCH_HD int64_t tsi_batch_find_row(const int32_t *rows, int64_t lo, int64_t hi, int32_t row) {
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (rows[mid] < row)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* ---- the factorization: one column, one lane ------------------------------------- */

/* Up to TSI_LU_BATCH_UPDATE_GROUP updates of one step of a lane: their
 * targets (offsets in the column) and the entries of L they subtract. */
typedef struct tsi_lu_batch_update_group {
  int32_t target[TSI_LU_BATCH_UPDATE_GROUP];
  double l[TSI_LU_BATCH_UPDATE_GROUP];
} tsi_lu_batch_update_group;

/* Load the lane's updates i = first, first + S, ... (at most a group, below
 * length) of the step by column j (L(:, j) at l_begin; map: the column's
 * update map at the step's first update, or NULL to search rows [lo, hi) of
 * the column, which starts at `begin`). Only finished columns and the plan
 * are read, so a group may be loaded before the step before it is applied. */
TSI_BATCH_HD void tsi_lu_batch_load_updates(tsi_lu_batch_update_group *u, const double *v, int64_t B,
                                            const int32_t *map, const int32_t *rows, int64_t begin, int64_t lo,
                                            int64_t hi, int64_t l_begin, int64_t first, int64_t length, int64_t S) {
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int c = 0; c < TSI_LU_BATCH_UPDATE_GROUP; c++) {
    const int64_t at = first + (int64_t)c * S;
    if (at < length) {
      u->target[c] = map ? map[at] : (int32_t)(tsi_batch_find_row(rows, lo, hi, rows[l_begin + at]) - begin);
      u->l[c] = tsi_batch_load_final(&v[(l_begin + at) * B]);
    } else {
      u->target[c] = 0;
      u->l[c] = 0.0;
    }
  }
}

/* Apply a loaded group to the accumulator x (stride B): x(t) -= l * x_j,
 * the loads of the targets before the stores (the targets are distinct
 * rows). */
TSI_BATCH_HD void tsi_lu_batch_apply_updates(const tsi_lu_batch_update_group *u, double *x, int64_t B, double x_j,
                                             int64_t first, int64_t length, int64_t S) {
  double old[TSI_LU_BATCH_UPDATE_GROUP];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int c = 0; c < TSI_LU_BATCH_UPDATE_GROUP; c++)
    old[c] = first + (int64_t)c * S < length ? x[(int64_t)u->target[c] * B] : 0.0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int c = 0; c < TSI_LU_BATCH_UPDATE_GROUP; c++)
    if (first + (int64_t)c * S < length)
      x[(int64_t)u->target[c] * B] = tsi_batch_sub(old[c], tsi_batch_mul(u->l[c], x_j));
}

/*
 * Column k of pattern P for member b of factorization group g (member
 * g * factor_width + b), lane s of the S that serve it (a warp's share, or
 * a whole block for the factorization's tail; s = 0, S = 1 on the host):
 * the left-looking column of numeric_cpu_impl.h (Gilbert and
 * Peierls 1988 with the pattern known), the
 * accumulator being the column's own positions: x = M(:, k); for each j of
 * U(:, k) in increasing order, x -= L(:, j) * x(j) (skipped where x(j) is
 * 0, as the host skips it), each entry of L(:, j) updating the position of
 * its row, which the update map gives (or a binary search); then the pivot
 * rule, U(:, k) = x above the diagonal and L(:, k) = x below it / pivot,
 * rounded to float with float factors. The caller has waited for the
 * columns j. A zero or tiny pivot is replaced (perturbation on) or left
 * (then the member's factors are garbage from here on, and the lane is
 * marked: the host decides such a member).
 *
 * The accumulator: `stage` (the column's positions at stride
 * factor_width; shared memory on the device) or, when NULL, the column's
 * own place in the factors. The first group of each step's updates is
 * loaded while the step before it is applied: the loads read only finished
 * columns, and the chain of steps is what a column waits on.
 */
TSI_BATCH_HD void tsi_lu_batch_column(const tsi_lu_batch_args *a, const tsi_lu_batch_pattern_gpu *P, int64_t k,
                                      int64_t g, int b, int s, int S, double *stage) {
  const int64_t W = P->width, member = g * P->factor_width + b;
  const int64_t at_g = member / W, at_b = member % W;
  /* The factors: in the narrow layout (stride factor_width) or the solves'
   * (stride width); the values of A always in the latter. */
  const int64_t B = P->narrow_base >= 0 ? P->factor_width : W;
  double *v = P->narrow_base >= 0 ? a->narrow + P->narrow_base + g * P->lu_nnz * B + b
                                  : a->values + P->value_base + at_g * P->lu_nnz * W + at_b;
  const double *av = a->a_values + P->a_value_base + at_g * P->nnz_a * W + at_b;
  const int64_t *col_ptr = a->col_ptr + P->ptr_base;
  const int64_t *diag_pos = a->diag_pos + P->col_base;
  const int32_t *rows = a->row_idx + P->lu_base;
  const int32_t *source = a->source + P->lu_base;
  const double *entry_row_scale = a->entry_row_scale + P->a_base;
  const double *entry_col_scale = a->entry_col_scale + P->a_base;
  const int64_t begin = col_ptr[k], diag = diag_pos[k], end = col_ptr[k + 1];
  double *x = stage ? stage : v + begin * B;
  const int64_t xs = stage ? P->factor_width : B; /* the accumulator's stride */

  /* x = M(:, k) = Dr A Dc in the column's positions, fill zero; rounded to
   * float with float factors, as the host's scatter stores it. */
  for (int64_t p = begin + s; p < end; p += S) {
    const int32_t e = source[p];
    const double m =
        e >= 0 ? tsi_batch_mul(tsi_batch_mul(entry_row_scale[e], av[(int64_t)e * W]), entry_col_scale[e]) : 0.0;
    x[(p - begin) * xs] = a->single ? (double)(float)m : m;
  }
  tsi_batch_sync_lanes(S);

  const int32_t *map = a->map ? a->map + P->map_base + a->map_ptr[P->ptr_base + k] : NULL;
  const int64_t step = (int64_t)TSI_LU_BATCH_UPDATE_GROUP * S;
  /* The steps' loads in three stages, so that no load waits on another
   * within a step: at step q the column j of step q + 3 (rows), the bounds
   * of L(:, j) of step q + 2 (diag_pos, col_ptr of a j loaded a step
   * before), and the first group of updates of step q + 1 (of bounds loaded
   * a step before) are issued, and step q applies the group loaded a step
   * before. */
  int64_t l_begin = 0, length = 0, next_begin = 0, next_length = 0;
  int32_t j_after = 0;
  tsi_lu_batch_update_group next;
  if (begin < diag) {
    const int32_t j = rows[begin];
    l_begin = diag_pos[j] + 1;
    length = col_ptr[j + 1] - l_begin;
    tsi_lu_batch_load_updates(&next, v, B, map, rows, begin, begin + 1, end, l_begin, s, length, S);
  }
  if (begin + 1 < diag) {
    const int32_t j = rows[begin + 1];
    next_begin = diag_pos[j] + 1;
    next_length = col_ptr[j + 1] - next_begin;
  }
  if (begin + 2 < diag)
    j_after = rows[begin + 2];
  int64_t m = 0;
  for (int64_t q = begin; q < diag; q++) {
    const tsi_lu_batch_update_group current = next;
    if (q + 1 < diag)
      tsi_lu_batch_load_updates(&next, v, B, map ? map + m + length : NULL, rows, begin, q + 2, end, next_begin, s,
                                next_length, S);
    int64_t after_begin = 0, after_length = 0;
    if (q + 2 < diag) {
      after_begin = diag_pos[j_after] + 1;
      after_length = col_ptr[j_after + 1] - after_begin;
    }
    const int32_t j_later = q + 3 < diag ? rows[q + 3] : 0;
    const double u = x[(q - begin) * xs];
    if (u != 0.0) {
      tsi_lu_batch_apply_updates(&current, x, xs, u, s, length, S);
      for (int64_t i = s + step; i < length; i += step) {
        tsi_lu_batch_update_group rest;
        tsi_lu_batch_load_updates(&rest, v, B, map ? map + m : NULL, rows, begin, q + 1, end, l_begin, i, length, S);
        tsi_lu_batch_apply_updates(&rest, x, xs, u, i, length, S);
      }
    }
    m += length;
    l_begin = next_begin;
    length = next_length;
    next_begin = after_begin;
    next_length = after_length;
    j_after = j_later;
    tsi_batch_sync_lanes(S);
  }

  /* The pivot rule of numeric_cpu.c: |u_kk| < threshold * max|M| (or 0) is
   * replaced by sign(u_kk) * max(sqrt(eps), threshold) * max|M|. */
  const int64_t lane = P->lane_base + member;
  const double max_abs = tsi_batch_bits_double(a->max_bits[lane]);
  const double tiny = a->threshold * max_abs;
  const double replacement = fmax(a->root_eps, a->threshold) * (max_abs > 0.0 ? max_abs : 1.0);
  double pivot = x[(diag - begin) * xs];
  tsi_batch_sync_lanes(S); /* every lane has read the pivot before the first lane stores its replacement */
  int kind = 0;
  if (!isfinite(pivot)) {
    kind = TSI_LU_BATCH_BAD_PIVOT;
  } else if (fabs(pivot) < tiny || pivot == 0.0) {
    if (a->perturb) {
      pivot = pivot < 0.0 ? -replacement : replacement;
      kind = -1;
    } else {
      kind = TSI_LU_BATCH_BAD_SINGULAR;
    }
  } else {
    /* The stored pivot against max|M|, rounded to single precision as the
     * smallest-pivot key rounds it (numeric/pivot_key.h). */
    const double stored = a->single ? (double)(float)pivot : pivot;
    const float ratio = (float)(fabs(stored) / (max_abs > 0.0 ? max_abs : 1.0));
    if ((double)ratio < sqrt(a->threshold))
      kind = TSI_LU_BATCH_SMALL_PIVOT;
  }
  if (s == 0 && kind != 0) {
#ifdef __CUDA_ARCH__
    if (kind < 0)
      atomicAdd(&a->perturbed[lane], 1);
    else
      atomicOr(&a->bad[lane], kind);
#else
    if (kind < 0)
      a->perturbed[lane]++;
    else
      a->bad[lane] |= kind;
#endif
  }
  for (int64_t p = begin + s; p < diag; p += S) {
    const double u = x[(p - begin) * xs];
    v[p * B] = a->single ? (double)(float)u : u;
  }
  if (s == 0)
    v[diag * B] = a->single ? (double)(float)pivot : pivot;
  for (int64_t p = diag + 1 + s; p < end; p += S) {
    const double l = x[(p - begin) * xs] / pivot;
    v[p * B] = a->single ? (double)(float)l : l;
  }
}

/* Position p of the factors of group g of a narrow pattern's solves'
 * layout: its width members' entries gathered from the narrow layout (the
 * device's kernel does the same through a shared tile). */
TSI_BATCH_HD void tsi_lu_batch_spread_position(const tsi_lu_batch_args *a, const tsi_lu_batch_pattern_gpu *P, int64_t g,
                                               int64_t p) {
  const int64_t W = P->width, B = P->factor_width;
  for (int64_t w = 0; w < W; w++) {
    const int64_t member = g * W + w, narrow_g = member / B, narrow_b = member % B;
    a->values[P->value_base + (g * P->lu_nnz + p) * W + w] =
        a->narrow[P->narrow_base + (narrow_g * P->lu_nnz + p) * B + narrow_b];
  }
}

/* ---- the triangular solves and the residual: one row, one lane ------------------- */

/* The offset of member lane b of group g in an interleaved array of `length`
 * entries per member (pattern P). */
TSI_BATCH_HD int64_t tsi_lu_batch_offset(const tsi_lu_batch_pattern_gpu *P, int64_t g, int b, int64_t length) {
  return g * length * P->width + b;
}

/*
 * A row of a triangular solve for one member, in two parts: its head, what
 * needs no wait (the right side, the bounds, the first
 * TSI_LU_BATCH_SOLVE_GROUP entries' columns and factor values, and for U
 * the pivot and the output's terms), loaded before the row waits for its
 * dependencies, so that after the wait only the y_j of the row are still
 * to come; then the rest (tsi_lu_batch_lower_finish, _upper_finish), which
 * loads each next group's columns and factors with the current group's y_j.
 */
typedef struct tsi_lu_batch_row {
  int64_t next;                          /* the next group's first entry */
  int64_t lo, hi;                        /* the row's entries */
  int step;                              /* +1 for L (increasing j), -1 for U (decreasing j) */
  double own;                            /* the right side (L) or y_i (U) */
  int32_t col[TSI_LU_BATCH_SOLVE_GROUP]; /* the current group's columns, -1 past the row */
  double f[TSI_LU_BATCH_SOLVE_GROUP];    /* and their factor values */
  double pivot, scale, base;             /* U: U(i, i), col_scale[q_i], base[q_i] (0 without base) */
  int32_t q;                             /* U: col_perm[i] */
} tsi_lu_batch_row;

/* Columns and factor values of the row's next group (entries next, next +
 * step, ... inside [lo, hi)). */
TSI_BATCH_HD void tsi_lu_batch_row_group(tsi_lu_batch_row *r, const int32_t *cols, const int64_t *pos, const double *v,
                                         int64_t B) {
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int c = 0; c < TSI_LU_BATCH_SOLVE_GROUP; c++) {
    const int64_t e = r->next + (int64_t)r->step * c;
    const bool inside = e >= r->lo && e < r->hi;
    r->col[c] = inside ? cols[e] : -1;
    r->f[c] = inside ? v[pos[e] * B] : 0.0;
  }
  r->next += (int64_t)r->step * TSI_LU_BATCH_SOLVE_GROUP;
}

/* own minus f_j y_j over the row's entries in its order, skipping y_j = 0,
 * a group at a time (the next group's columns and factors loaded with the
 * current group's y_j, whose rows are final). */
TSI_BATCH_HD double tsi_lu_batch_row_subtract(tsi_lu_batch_row *r, const int32_t *cols, const int64_t *pos,
                                              const double *v, int64_t B, const double *y) {
  double own = r->own;
  for (;;) {
    double y_j[TSI_LU_BATCH_SOLVE_GROUP], f[TSI_LU_BATCH_SOLVE_GROUP];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int c = 0; c < TSI_LU_BATCH_SOLVE_GROUP; c++) {
      y_j[c] = r->col[c] >= 0 ? tsi_batch_load_final(&y[(int64_t)r->col[c] * B]) : 0.0;
      f[c] = r->f[c];
    }
    const bool more = r->next >= r->lo && r->next < r->hi;
    if (more)
      tsi_lu_batch_row_group(r, cols, pos, v, B);
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int c = 0; c < TSI_LU_BATCH_SOLVE_GROUP; c++)
      if (y_j[c] != 0.0)
        own = tsi_batch_sub(own, tsi_batch_mul(f[c], y_j[c]));
    if (!more)
      return own;
  }
}

/*
 * Row i of L y = P Dr rhs for one member (pattern P): y_i = row_scale[p_i]
 * * rhs[p_i] (p = row_perm), minus L(i, j) y_j for the entries of row i in
 * increasing j, skipping y_j = 0: the order in which the host's
 * column-oriented forward solve subtracts from y_i. v, rhs and y point at
 * the member's interleaved factors and vectors (entry i at [i * width]).
 * The head reads only what is final when the solve starts; the finish
 * runs once the rows j are.
 */
/* The head of row i's entries lrow_ptr[i] .. hi (all of them, or those
 * left of the L solve's tail). */
TSI_BATCH_HD void tsi_lu_batch_lower_head_until(const tsi_lu_batch_args *a, const tsi_lu_batch_pattern_gpu *P,
                                                int64_t i, const double *v, const double *rhs, int64_t hi,
                                                tsi_lu_batch_row *r) {
  const int64_t B = P->width;
  const int32_t p_i = a->row_perm[P->col_base + i];
  r->own = tsi_batch_mul(a->row_scale[P->col_base + p_i], rhs[(int64_t)p_i * B]);
  r->lo = a->lrow_ptr[P->ptr_base + i];
  r->hi = hi;
  r->next = r->lo;
  r->step = 1;
  tsi_lu_batch_row_group(r, a->lrow_col + P->lrow_base, a->lrow_pos + P->lrow_base, v, B);
}

TSI_BATCH_HD void tsi_lu_batch_lower_head(const tsi_lu_batch_args *a, const tsi_lu_batch_pattern_gpu *P, int64_t i,
                                          const double *v, const double *rhs, tsi_lu_batch_row *r) {
  tsi_lu_batch_lower_head_until(a, P, i, v, rhs, a->lrow_ptr[P->ptr_base + i + 1], r);
}

TSI_BATCH_HD void tsi_lu_batch_lower_finish(const tsi_lu_batch_args *a, const tsi_lu_batch_pattern_gpu *P, int64_t i,
                                            const double *v, tsi_lu_batch_row *r, double *y) {
  y[i * P->width] =
      tsi_lu_batch_row_subtract(r, a->lrow_col + P->lrow_base, a->lrow_pos + P->lrow_base, v, P->width, y);
}

/*
 * The L solve's tail (rows t0 = lower_tail .. n - 1) for one member, by
 * columns, in the arithmetic of the rows above: each row's entries left of
 * the tail first, in increasing j (tsi_lu_batch_lower_tail_rows: rows t,
 * t + threads, ... of the tail, after the dataflow finished every row
 * before t0), then for j = t0 .. n - 1 in turn y_j = own_j and own_i -=
 * L(i, j) y_j for the entries of L(:, j), skipping y_j = 0
 * (tsi_lu_batch_lower_tail_column: entries t, t + threads, ... of the
 * column, the first of them loaded the column before by
 * tsi_lu_batch_lower_tail_load; the caller synchronises the threads
 * between columns). Each own_i so takes its terms in increasing j, as the
 * host's column-oriented forward solve does. own holds n - t0 doubles.
 */
TSI_BATCH_HD void tsi_lu_batch_lower_tail_rows(const tsi_lu_batch_args *a, const tsi_lu_batch_pattern_gpu *P,
                                               const double *v, const double *rhs, const double *y, double *own, int t,
                                               int threads) {
  const int64_t t0 = P->lower_tail;
  const int32_t *cols = a->lrow_col + P->lrow_base;
  for (int64_t i = t0 + t; i < P->n; i += threads) {
    /* The row's entries left of the tail: columns below t0 (increasing). */
    const int64_t lo =
        tsi_batch_find_row(cols, a->lrow_ptr[P->ptr_base + i], a->lrow_ptr[P->ptr_base + i + 1], (int32_t)t0);
    tsi_lu_batch_row r;
    tsi_lu_batch_lower_head_until(a, P, i, v, rhs, lo, &r);
    own[i - t0] = tsi_lu_batch_row_subtract(&r, cols, a->lrow_pos + P->lrow_base, v, P->width, y);
  }
}

/* A thread's first TSI_LU_BATCH_TAIL_AHEAD entries of tail column j (rows
 * and factors; row -1 past the column), loaded while the column before is
 * applied: they do not depend on y. */
typedef struct tsi_lu_batch_tail_entries {
  int32_t row[TSI_LU_BATCH_TAIL_AHEAD];
  double f[TSI_LU_BATCH_TAIL_AHEAD];
} tsi_lu_batch_tail_entries;

TSI_BATCH_HD void tsi_lu_batch_lower_tail_load(const tsi_lu_batch_args *a, const tsi_lu_batch_pattern_gpu *P, int64_t j,
                                               const double *v, int t, int threads, tsi_lu_batch_tail_entries *c) {
  const int64_t first = j < P->n ? a->diag_pos[P->col_base + j] + 1 + t : 0;
  const int64_t end = j < P->n ? a->col_ptr[P->ptr_base + j + 1] : 0;
  const int32_t *rows = a->row_idx + P->lu_base;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int k = 0; k < TSI_LU_BATCH_TAIL_AHEAD; k++) {
    const int64_t e = first + (int64_t)k * threads;
    const bool inside = e < end;
    c->row[k] = inside ? rows[e] : -1;
    c->f[k] = inside ? v[e * P->width] : 0.0;
  }
}

/* own_i -= f_k y_j over a thread's staged entries (rows and factors loaded
 * a column ahead) whose rows are at least first_row: rows before it, and
 * the -1 past the column's end, are skipped. own is indexed from t0. */
TSI_BATCH_HD void tsi_lu_batch_apply_staged(const int32_t *row, const double *f, int64_t first_row, int64_t t0,
                                            double y_j, double *own) {
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int k = 0; k < TSI_LU_BATCH_TAIL_AHEAD; k++)
    if (row[k] >= first_row)
      own[row[k] - t0] = tsi_batch_sub(own[row[k] - t0], tsi_batch_mul(f[k], y_j));
}

TSI_BATCH_HD void tsi_lu_batch_lower_tail_column(const tsi_lu_batch_args *a, const tsi_lu_batch_pattern_gpu *P,
                                                 int64_t j, const double *v, double *own, double *y, int t, int threads,
                                                 const tsi_lu_batch_tail_entries *c) {
  const int64_t t0 = P->lower_tail, B = P->width;
  const double y_j = own[j - t0];
  if (t == 0)
    y[j * B] = y_j;
  if (y_j == 0.0)
    return;
  tsi_lu_batch_apply_staged(c->row, c->f, 0, t0, y_j, own);
  const int32_t *rows = a->row_idx + P->lu_base;
  const int64_t end = a->col_ptr[P->ptr_base + j + 1];
  for (int64_t e = a->diag_pos[P->col_base + j] + 1 + t + (int64_t)TSI_LU_BATCH_TAIL_AHEAD * threads; e < end;
       e += threads) {
    const int64_t i = rows[e];
    own[i - t0] = tsi_batch_sub(own[i - t0], tsi_batch_mul(v[e * B], y_j));
  }
}

/*
 * The U solve's head (rows t0 = upper_head .. n - 1, which need only each
 * other) for one member, by columns from the last, in the arithmetic of
 * the dataflow's rows: own_i = y_i (tsi_lu_batch_upper_head_rows), then for
 * j = n - 1 down to t0 in turn y_j = own_j / U(j, j), out[q_j] =
 * col_scale[q_j] y_j (plus base[q_j] when base is set), and own_i -= U(i,
 * j) y_j for the entries of U(:, j) in rows i >= t0, skipping y_j = 0
 * (tsi_lu_batch_upper_head_column: entries t, t + threads, ... of that
 * part of the column counted from the diagonal, the first of them and the
 * pivot loaded the column before by tsi_lu_batch_upper_head_load; the
 * caller synchronises the threads between columns). Each own_i so takes its terms in decreasing j, as the host's
 * back substitution does. own holds n - t0 doubles.
 */
TSI_BATCH_HD void tsi_lu_batch_upper_head_rows(const tsi_lu_batch_pattern_gpu *P, const double *y, double *own, int t,
                                               int threads) {
  const int64_t t0 = P->upper_head;
  for (int64_t i = t0 + t; i < P->n; i += threads)
    own[i - t0] = y[i * P->width];
}

/* A thread's first TSI_LU_BATCH_TAIL_AHEAD entries of head column j (rows
 * and factors, from the diagonal upwards; row -1 past the column) and the
 * pivot, loaded while the column before is applied. */
typedef struct tsi_lu_batch_head_entries {
  int32_t row[TSI_LU_BATCH_TAIL_AHEAD];
  double f[TSI_LU_BATCH_TAIL_AHEAD];
  double pivot;
} tsi_lu_batch_head_entries;

TSI_BATCH_HD void tsi_lu_batch_upper_head_load(const tsi_lu_batch_args *a, const tsi_lu_batch_pattern_gpu *P, int64_t j,
                                               const double *v, int t, int threads, tsi_lu_batch_head_entries *c) {
  const bool inside_head = j >= P->upper_head;
  const int64_t begin = inside_head ? a->col_ptr[P->ptr_base + j] : 0;
  const int64_t last = inside_head ? a->diag_pos[P->col_base + j] - 1 - t : -1;
  const int32_t *rows = a->row_idx + P->lu_base;
  c->pivot = inside_head ? v[a->diag_pos[P->col_base + j] * P->width] : 1.0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int k = 0; k < TSI_LU_BATCH_TAIL_AHEAD; k++) {
    const int64_t e = last - (int64_t)k * threads;
    const bool inside = e >= begin;
    c->row[k] = inside ? rows[e] : -1;
    c->f[k] = inside ? v[e * P->width] : 0.0;
  }
}

TSI_BATCH_HD void tsi_lu_batch_upper_head_column(const tsi_lu_batch_args *a, const tsi_lu_batch_pattern_gpu *P,
                                                 int64_t j, const double *v, double *own, double *y, double *out,
                                                 const double *base, int t, int threads,
                                                 const tsi_lu_batch_head_entries *c) {
  const int64_t t0 = P->upper_head, B = P->width;
  const double y_j = own[j - t0] / c->pivot;
  if (t == 0) {
    y[j * B] = y_j;
    const int32_t q = a->col_perm[P->col_base + j];
    const double x_j = tsi_batch_mul(a->col_scale[P->col_base + q], y_j);
    out[(int64_t)q * B] = base ? tsi_batch_add(x_j, base[(int64_t)q * B]) : x_j;
  }
  if (y_j == 0.0)
    return;
  /* U(:, j)'s rows ascend: the head's part is the column's last entries
   * above the diagonal, taken from the diagonal upwards until a row before
   * t0. */
  tsi_lu_batch_apply_staged(c->row, c->f, t0, t0, y_j, own);
  const int32_t *rows = a->row_idx + P->lu_base;
  const int64_t begin = a->col_ptr[P->ptr_base + j];
  for (int64_t e = a->diag_pos[P->col_base + j] - 1 - t - (int64_t)TSI_LU_BATCH_TAIL_AHEAD * threads; e >= begin;
       e -= threads) {
    const int64_t i = rows[e];
    if (i < t0)
      break;
    own[i - t0] = tsi_batch_sub(own[i - t0], tsi_batch_mul(v[e * B], y_j));
  }
}

/*
 * Row i of U y = y for one member: minus U(i, j) y_j for the entries of row
 * i in decreasing j, skipping y_j = 0 (the host's back substitution), then
 * over U(i, i); then out[q_i] = col_scale[q_i] * y_i (q = col_perm), plus
 * base[q_i] when base is set (a refinement step's candidate: the correction
 * plus the solution so far, as solve.c adds them). Head and finish as for
 * L.
 */
TSI_BATCH_HD void tsi_lu_batch_upper_head(const tsi_lu_batch_args *a, const tsi_lu_batch_pattern_gpu *P, int64_t i,
                                          const double *v, const double *y, const double *base, tsi_lu_batch_row *r) {
  const int64_t B = P->width;
  r->own = y[i * B];
  r->lo = a->urow_ptr[P->ptr_base + i];
  r->hi = a->urow_ptr[P->ptr_base + i + 1];
  r->next = r->hi - 1;
  r->step = -1;
  r->pivot = v[a->diag_pos[P->col_base + i] * B];
  r->q = a->col_perm[P->col_base + i];
  r->scale = a->col_scale[P->col_base + r->q];
  r->base = base ? base[(int64_t)r->q * B] : 0.0;
  tsi_lu_batch_row_group(r, a->urow_col + P->urow_base, a->urow_pos + P->urow_base, v, B);
}

TSI_BATCH_HD void tsi_lu_batch_upper_finish(const tsi_lu_batch_args *a, const tsi_lu_batch_pattern_gpu *P, int64_t i,
                                            const double *v, tsi_lu_batch_row *r, double *y, double *out,
                                            bool has_base) {
  const int64_t B = P->width;
  const double own =
      tsi_lu_batch_row_subtract(r, a->urow_col + P->urow_base, a->urow_pos + P->urow_base, v, B, y) / r->pivot;
  y[i * B] = own;
  const double x_i = tsi_batch_mul(r->scale, own);
  out[(int64_t)r->q * B] = has_base ? tsi_batch_add(x_i, r->base) : x_i;
}

/* The maxima a residual gathers for a member (its rows' shares). */
enum {
  TSI_LU_BATCH_NORM_A,             /* |A|_inf: rows' sums of |a| */
  TSI_LU_BATCH_NORM_M,             /* |M|_inf of the scaled matrix */
  TSI_LU_BATCH_NORM_X,             /* |x|_inf */
  TSI_LU_BATCH_NORM_X_SCALED,      /* |Dc^{-1} x|_inf */
  TSI_LU_BATCH_NORM_B,             /* |b|_inf */
  TSI_LU_BATCH_NORM_B_SCALED,      /* |Dr b|_inf */
  TSI_LU_BATCH_NORM_R,             /* |r|_inf */
  TSI_LU_BATCH_NORM_R_SCALED,      /* |Dr r|_inf */
  TSI_LU_BATCH_NORM_COMPONENTWISE, /* max_i |r_i| / (|A| |x| + |b|)_i */
  TSI_LU_BATCH_NORMS
};

/* What one residual row contributes: its shares of each maximum (all
 * non-negative) and whether x_i is finite. */
typedef struct tsi_lu_batch_row_norms {
  double share[TSI_LU_BATCH_NORMS];
  int finite;
} tsi_lu_batch_row_norms;

/* Row i's share of the componentwise backward error, as refine.c computes
 * it (LAPACK's xGERFS guard for a denominator near underflow). */
TSI_BATCH_HD double tsi_lu_batch_componentwise_share(double residual, double denominator, int64_t n) {
  const double guard = tsi_batch_mul((double)(n + 1), DBL_MIN);
  if (residual == 0.0)
    return 0.0;
  if (denominator > guard / DBL_EPSILON)
    return fabs(residual) / denominator;
  return tsi_batch_add(fabs(residual), guard) / tsi_batch_add(denominator, guard);
}

/*
 * Row i of r = b - A x for one member, in double from the unscaled values
 * (av: the member's interleaved values of A), with the measures of
 * refine.c's residual (r and |A| |x| + |b| summed in its order) and the
 * row sums of |A| and |M| of numeric_workspace.c's norms.
 */
TSI_BATCH_HD tsi_lu_batch_row_norms tsi_lu_batch_residual_row(const tsi_lu_batch_args *a,
                                                              const tsi_lu_batch_pattern_gpu *P, int64_t i,
                                                              const double *av, const double *b, const double *x,
                                                              double *r) {
  const int64_t B = P->width;
  const int64_t *row_ptr = a->a_row_ptr + P->ptr_base;
  const int32_t *cols = a->a_col + P->a_base;
  const double *col_scale = a->col_scale + P->col_base, *row_scale = a->row_scale + P->col_base;
  const double b_i = b[i * B], x_i = x[i * B];
  double sum = b_i, magnitude = fabs(b_i), row_sum = 0.0, scaled_sum = 0.0;
  for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
    const double value = av[e * B];
    const int32_t j = cols[e];
    const double term = tsi_batch_mul(value, x[(int64_t)j * B]);
    sum = tsi_batch_sub(sum, term);
    magnitude = tsi_batch_add(magnitude, fabs(term));
    row_sum = tsi_batch_add(row_sum, fabs(value));
    scaled_sum = tsi_batch_add(scaled_sum, fabs(tsi_batch_mul(value, col_scale[j])));
  }
  r[i * B] = sum;
  tsi_lu_batch_row_norms norms;
  norms.share[TSI_LU_BATCH_NORM_A] = row_sum;
  norms.share[TSI_LU_BATCH_NORM_M] = tsi_batch_mul(scaled_sum, row_scale[i]);
  norms.share[TSI_LU_BATCH_NORM_X] = fabs(x_i);
  norms.share[TSI_LU_BATCH_NORM_X_SCALED] = fabs(x_i / col_scale[i]);
  norms.share[TSI_LU_BATCH_NORM_B] = fabs(b_i);
  norms.share[TSI_LU_BATCH_NORM_B_SCALED] = fabs(tsi_batch_mul(b_i, row_scale[i]));
  norms.share[TSI_LU_BATCH_NORM_R] = fabs(sum);
  norms.share[TSI_LU_BATCH_NORM_R_SCALED] = fabs(tsi_batch_mul(sum, row_scale[i]));
  norms.share[TSI_LU_BATCH_NORM_COMPONENTWISE] = tsi_lu_batch_componentwise_share(sum, magnitude, P->n);
  norms.finite = isfinite(x_i) ? 1 : 0;
  return norms;
}

/* r / (a x + b) for non-negative norms as refine.c evaluates it, without
 * forming an a x beyond DBL_MAX; infinity for a non-finite result, 0 for
 * 0 / 0. */
TSI_BATCH_HD double tsi_lu_batch_ratio(double r, double a, double x, double b) {
  double error;
  if (x > 0.0 && a > DBL_MAX / x)
    error = r / a / x;
  else if (tsi_batch_add(tsi_batch_mul(a, x), b) == 0.0)
    error = r == 0.0 ? 0.0 : INFINITY;
  else
    error = tsi_batch_mul(0.5, r) / tsi_batch_add(tsi_batch_mul(0.5, tsi_batch_mul(a, x)), tsi_batch_mul(0.5, b));
  return isfinite(error) ? error : INFINITY;
}

/* A solution's measures (refine.c's tsi_lu_residual_measures, the figures
 * the batch keeps). */
typedef struct tsi_lu_batch_measures {
  double normwise, scaled, componentwise, solution_norm;
} tsi_lu_batch_measures;

/* The measures from a member's maxima (every figure infinite when x is not
 * finite or the residual is not). */
TSI_BATCH_HD tsi_lu_batch_measures tsi_lu_batch_measure(const double *norm, int finite) {
  tsi_lu_batch_measures m;
  if (!finite || !isfinite(norm[TSI_LU_BATCH_NORM_R])) {
    m.normwise = m.scaled = m.componentwise = INFINITY;
    m.solution_norm = finite ? norm[TSI_LU_BATCH_NORM_X] : INFINITY;
    return m;
  }
  m.normwise = tsi_lu_batch_ratio(norm[TSI_LU_BATCH_NORM_R], norm[TSI_LU_BATCH_NORM_A], norm[TSI_LU_BATCH_NORM_X],
                                  norm[TSI_LU_BATCH_NORM_B]);
  m.scaled = tsi_lu_batch_ratio(norm[TSI_LU_BATCH_NORM_R_SCALED], norm[TSI_LU_BATCH_NORM_M],
                                norm[TSI_LU_BATCH_NORM_X_SCALED], norm[TSI_LU_BATCH_NORM_B_SCALED]);
  m.componentwise = isfinite(norm[TSI_LU_BATCH_NORM_COMPONENTWISE]) ? norm[TSI_LU_BATCH_NORM_COMPONENTWISE] : INFINITY;
  m.solution_norm = norm[TSI_LU_BATCH_NORM_X];
  return m;
}

/* A member's refinement state between launches. */
typedef struct tsi_lu_batch_refine_state {
  tsi_lu_batch_measures measures; /* of the current solution */
  int32_t steps;                  /* steps accepted */
  int32_t active;                 /* refining goes on */
  int32_t cur;                    /* which of the two solution (and residual) vectors is current */
  int32_t polishing;              /* the step under way drives the componentwise error down */
} tsi_lu_batch_refine_state;

TSI_BATCH_HD double tsi_lu_batch_normwise(const tsi_lu_batch_measures *m) { return fmax(m->normwise, m->scaled); }

/* Whether refine.c's loop takes another step from the current solution;
 * sets the step's kind. */
TSI_BATCH_HD int tsi_lu_batch_refine_more(tsi_lu_batch_refine_state *st, int max_steps, double tolerance) {
  const tsi_lu_batch_measures *m = &st->measures;
  if (!(st->steps < max_steps && isfinite(tsi_lu_batch_normwise(m))))
    return 0;
  st->polishing = tsi_lu_batch_normwise(m) <= tolerance;
  return !(st->polishing && !(m->componentwise > TSI_LU_POLISH_THRESHOLD));
}

/*
 * The refinement loop of refine.c, one decision at a time: after the first
 * solve (first set) the measures are the solution's; after a correction
 * step the candidate (the other vector) replaces the solution when its
 * error (the larger normwise one, or the componentwise one when polishing)
 * is smaller, and refining stops when it is not, when a step fails to
 * halve that error, after max_steps steps, or once the normwise errors are
 * within the tolerance and the componentwise one within the polishing
 * threshold.
 */
TSI_BATCH_HD void tsi_lu_batch_refine_decide(tsi_lu_batch_refine_state *st, tsi_lu_batch_measures next, int first,
                                             int max_steps, double tolerance) {
  if (first) {
    st->measures = next;
    st->steps = 0;
    st->cur = 0;
    st->polishing = 0;
    st->active = tsi_lu_batch_refine_more(st, max_steps, tolerance);
    return;
  }
  if (!st->active)
    return;
  const int polishing = st->polishing;
  const double before = polishing ? st->measures.componentwise : tsi_lu_batch_normwise(&st->measures);
  const double after = polishing ? next.componentwise : tsi_lu_batch_normwise(&next);
  if (!(after < before) || (polishing && !(tsi_lu_batch_normwise(&next) <= tolerance))) {
    st->active = 0;
    return;
  }
  st->cur ^= 1;
  st->steps++;
  st->measures = next;
  if (after > tsi_batch_mul(0.5, before) && (polishing || tsi_lu_batch_normwise(&next) > tolerance)) {
    st->active = 0;
    return;
  }
  st->active = tsi_lu_batch_refine_more(st, max_steps, tolerance);
}

#ifdef __cplusplus
}
#endif

#endif
