/* Numeric LU factorization on the GPU: M = P Dr A Dc Q = L U in the symbolic
 * pattern, level by level (Xia, Jiang, Agrawal and Ramnath, PPoPP 2023,
 * sections 2.2 and 3.4; GLU 3.0's three level types, Peng and Tan 2020).
 *
 * The columns of a wide level are computed left-looking, one group of
 * threads per column (a warp for short subcolumns, a block of 128 or 512
 * threads for long ones): each column gathers the updates of the columns it
 * depends on, in increasing order, into a dense scratch vector (when one per
 * concurrent column fits) or in place, finding each row in the sorted column
 * by binary search (sparse scratch). With the dense scratch, a level whose
 * longest column fits shared memory accumulates there instead, the scratch
 * slot holding each row's position in the column. The last, narrow levels
 * (the dense part of the factors) are done right-looking one column at a
 * time, the update of the trailing columns spread over many blocks, after
 * each tail column has gathered the finished columns' updates entry by
 * entry, level by level (lu_tail_gather_order.c). Every entry receives its
 * updates in increasing column order, products and differences rounded
 * separately (no fused multiply-add), so the factors are bitwise repeatable,
 * the same as the host's left-looking code's, and no atomics touch values.
 * Consecutive levels of one group size whose columns fit shared memory run
 * as one launch without level barriers (left_flow_shared): a column waits,
 * step by step, for the mark of each column it gathers, so its early steps
 * overlap the levels before it (the circuit grid's left-looking part
 * refactors several times faster than level by level; gpu_level_sync keeps
 * the level-by-level launches as the ablation). The launches go from the
 * host without synchronising; the stream waits once, for the pivot
 * outcomes.
 */
#include "gemm/gemm_internal.h"
#include "lu/lu_numeric_cuda.h"
#include "lu/lu_numeric_cuda_device.cuh"
#include "lu/lu_numeric_workspace.h"

#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A level of at most this many columns at the end of the schedule joins the
 * right-looking tail. */
#define TSI_LU_TAIL_WIDTH 4
/* Threads of a block of the sparse tail's gather (a block per tail column). */
#define TAIL_GATHER_THREADS 512
/* The tail goes dense (lu_numeric_dense_tail_cuda.cu) from this many
 * columns, when its m^2 doubles fit in this many bytes and a quarter of the
 * free device memory. */
#define TSI_LU_DENSE_TAIL_MIN 128
#define TSI_LU_DENSE_TAIL_BYTES ((int64_t)4 << 30)

/* ---- scatter of M's values ------------------------------------------------------ */

template <typename T>
__global__ void scatter_values(int64_t nnz, const int32_t *a_row, const int32_t *a_col, const double *a_values,
                               const double *row_scale, const double *col_scale, const int64_t *a_to_lu, T *values,
                               double *acc, unsigned long long *max_bits) {
  double local_max = 0.0;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < nnz; e += (int64_t)gridDim.x * blockDim.x) {
    double v = row_scale[a_row[e]] * a_values[e] * col_scale[a_col[e]];
    T stored = (T)v;
    values[a_to_lu[e]] = stored;
    if ((void *)acc != (void *)values)
      acc[a_to_lu[e]] = (double)stored;
    local_max = fmax(local_max, fabs(v));
  }
  /* The bits of non-negative doubles order as the values: an exact maximum. */
  for (int offset = 16; offset > 0; offset >>= 1)
    local_max = fmax(local_max, __shfl_down_sync(0xffffffffu, local_max, offset));
  if ((threadIdx.x & 31) == 0 && local_max > 0.0)
    atomicMax(max_bits, (unsigned long long)__double_as_longlong(local_max));
}

__global__ void make_rule(const unsigned long long *max_bits, double threshold, double root_eps, int perturb,
                          double *rule) {
  double max_abs = __longlong_as_double((long long)*max_bits);
  double reference = max_abs > 0.0 ? max_abs : 1.0;
  rule[0] = threshold * max_abs;
  rule[1] = fmax(root_eps, threshold) * reference;
  rule[2] = perturb ? 1.0 : 0.0;
}

/* ---- left-looking levels ---------------------------------------------------------- */

/* The dependencies of 32 steps at once, a step per lane: column j =
 * row_idx[base + lane] and the bounds of L(:, j) (zero past `steps`). */
__device__ __forceinline__ void load_steps(const factor_args &a, int64_t base, int steps, int32_t *dep, int64_t *dep_lo,
                                           int64_t *dep_hi) {
  const int warp_lane = threadIdx.x & 31;
  *dep = 0;
  *dep_lo = *dep_hi = 0;
  if (warp_lane < steps) {
    *dep = a.row_idx[base + warp_lane];
    *dep_lo = a.diag_pos[*dep] + 1;
    *dep_hi = a.col_ptr[*dep + 1];
  }
}

/* Step s's bounds of L(:, j) from lane s, zero past the block's steps
 * (every lane of the warp calls it). */
__device__ __forceinline__ void step_bounds(int64_t dep_lo, int64_t dep_hi, int s, int steps, int64_t *lo,
                                            int64_t *hi) {
  const int src = s < steps ? s : 0;
  const int64_t l = __shfl_sync(0xffffffffu, dep_lo, src), h = __shfl_sync(0xffffffffu, dep_hi, src);
  *lo = s < steps ? l : 0;
  *hi = s < steps ? h : 0;
}

/* The dataflow levels (left_flow_shared): bit s set where step s's column
 * j (lane s's dep) is not marked finished yet (every lane of the warp calls
 * it; one load a lane, so the columns finished long before cost one trip a
 * batch). */
__device__ __forceinline__ unsigned pending_steps(const factor_args &a, int32_t dep, int steps) {
  const bool pending = (int)(threadIdx.x & 31) < steps && *(const volatile int32_t *)(a.ready + dep) != a.epoch;
  return __ballot_sync(0xffffffffu, pending);
}

/* Wait until step s's column is finished when it was pending (`waiting`
 * is the warp's common mask, so the branch and the shuffle are uniform). */
__device__ __forceinline__ void wait_step(const factor_args &a, int32_t dep, unsigned waiting, int s) {
  if (s < 32 && ((waiting >> s) & 1u)) {
    const int32_t j = __shfl_sync(0xffffffffu, dep, s);
    while (*(const volatile int32_t *)(a.ready + j) != a.epoch) {
    }
  }
}

/* An entry of a finished column L(:, j): in the dataflow levels, columns
 * finished by other blocks of the same launch, so volatile (after the mark,
 * from L2, where the writer's fence put it; L1 may hold an older line that
 * the column shares with its neighbours). */
template <typename T, bool FLOW> __device__ __forceinline__ double load_value(const T *values, int64_t q) {
  return FLOW ? (double)*(const volatile T *)(values + q) : (double)values[q];
}

/* Column k by one group of GROUP threads (lane = its thread): gather the
 * updates of the columns j of U(:, k) in increasing order, then the pivot
 * and the division of L(:, k). x: the group's dense scratch (DENSE). */
template <typename T, bool DENSE, int GROUP>
__device__ void left_column(const factor_args &a, T *values, int32_t k, double *x, int lane) {
  const int64_t begin = a.col_ptr[k], diag = a.diag_pos[k], end = a.col_ptr[k + 1];
  double *acc = a.acc;
  const int32_t *row_idx = a.row_idx;
  if (DENSE) {
    for (int64_t p = begin + lane; p < end; p += GROUP)
      x[row_idx[p]] = acc[p];
    group_sync<GROUP>();
  }
  /* The chain from one dependency to the next is latency: the columns j
   * and the bounds of L(:, j) of 32 steps are loaded at once (a step per
   * lane, then broadcast), and the first chunk of the next step's L(:, j)
   * while the current step runs; what remains per step is x[j], then x[i]. */
  for (int64_t base = begin; base < diag; base += 32) {
    const int steps = (int)(diag - base < 32 ? diag - base : 32);
    int32_t dep;
    int64_t dep_lo, dep_hi;
    load_steps(a, base, steps, &dep, &dep_lo, &dep_hi);
    int64_t lo = __shfl_sync(0xffffffffu, dep_lo, 0), hi = __shfl_sync(0xffffffffu, dep_hi, 0);
    int32_t first_row = 0;
    double first_l = 0.0;
    if (lo + lane < hi) {
      first_row = row_idx[lo + lane];
      first_l = (double)values[lo + lane];
    }
    for (int t = 0; t < steps; t++) {
      const int64_t p = base + t;
      const int32_t j = __shfl_sync(0xffffffffu, dep, t);
      int64_t next_lo = 0, next_hi = 0;
      int32_t next_row = 0;
      double next_l = 0.0;
      if (t + 1 < steps) {
        next_lo = __shfl_sync(0xffffffffu, dep_lo, t + 1);
        next_hi = __shfl_sync(0xffffffffu, dep_hi, t + 1);
        if (next_lo + lane < next_hi) {
          next_row = row_idx[next_lo + lane];
          next_l = (double)values[next_lo + lane];
        }
      }
      const double u = DENSE ? x[j] : acc[p];
      if (u != 0.0) { /* the same for every lane: when zero, nothing written and no barrier needed */
        for (int64_t q = lo + lane; q < hi; q += GROUP) {
          const int32_t i = q == lo + lane ? first_row : row_idx[q];
          const double l = q == lo + lane ? first_l : (double)values[q];
          if (DENSE) {
            x[i] = minus_product(x[i], l, u);
          } else {
            int64_t pos = find_row(row_idx, p + 1, end, i);
            if (pos >= 0)
              acc[pos] = minus_product(acc[pos], l, u);
          }
        }
        group_sync<GROUP>();
      }
      lo = next_lo;
      hi = next_hi;
      first_row = next_row;
      first_l = next_l;
    }
  }
  double pivot = DENSE ? x[k] : acc[diag];
  const int kind = classify_pivot(&pivot, a.rule);
  group_sync<GROUP>(); /* x[k] read by every lane before it is cleared */
  for (int64_t p = begin + lane; p < end; p += GROUP) {
    double v;
    if (DENSE) {
      v = x[row_idx[p]];
      x[row_idx[p]] = 0.0;
    } else {
      v = acc[p];
    }
    T out = p < diag ? (T)v : (p == diag ? (T)pivot : (T)(v / pivot));
    values[p] = out;
  }
  if (lane == 0)
    a.kind[k] = (signed char)kind;
  group_sync<GROUP>(); /* x is all zero again before the next column */
  if (lane == 0)
    mark_ready(a, k);
}

/* Column k as left_column() with the dense scratch, but the column's values
 * accumulate in shared memory (xs, one entry per position of the column's
 * pattern) and `pos` (the group's scratch slot as n int32) maps a row to its
 * position. Every row of L(:, j), j in U(:, k), is in column k's pattern
 * (the symbolic closure), so an update is xs[pos[i]] -= l * u. The map does
 * not change while the column runs, so each step's positions are loaded one
 * step ahead and its rows two steps ahead: what remains per step is a
 * shared-memory read of x[j], the shared-memory updates and the barrier.
 * Each entry takes its updates in the same order as in left_column(): the
 * factors are bitwise the same. The map's words are zeroed at the end, so
 * the slot is a zero dense scratch again. */
template <typename T, int GROUP, bool FLOW>
__device__ void left_column_shared(const factor_args &a, T *values, int32_t k, double *xs, int32_t *pos, int lane) {
  constexpr int B = GROUP == 512 ? 1 : 2; /* entries of L(:, j) a lane holds ahead */
  const int64_t begin = a.col_ptr[k], diag = a.diag_pos[k], end = a.col_ptr[k + 1];
  const int32_t *row_idx = a.row_idx;
  for (int64_t p = begin + lane; p < end; p += GROUP) {
    xs[p - begin] = a.acc[p];
    pos[row_idx[p]] = (int32_t)(p - begin);
  }
  group_sync<GROUP>();
  for (int64_t base = begin; base < diag; base += 32) {
    const int steps = (int)(diag - base < 32 ? diag - base : 32);
    int32_t dep;
    int64_t dep_lo, dep_hi;
    load_steps(a, base, steps, &dep, &dep_lo, &dep_hi);
    /* FLOW: the steps whose column j was not yet finished when the batch
     * began (the same mask in every lane); their L(:, j) is read only after
     * its mark, each step's ahead of its use. */
    const unsigned waiting = FLOW ? pending_steps(a, dep, steps) : 0u;
    /* Stage 0: this step (positions loaded); stage 1: the next (rows loaded). */
    int64_t lo0, hi0, lo1, hi1;
    step_bounds(dep_lo, dep_hi, 0, steps, &lo0, &hi0);
    step_bounds(dep_lo, dep_hi, 1, steps, &lo1, &hi1);
    if (FLOW) {
      wait_step(a, dep, waiting, 0);
      wait_step(a, dep, waiting, 1);
    }
    int32_t at0[B], rows1[B];
    double l0[B], l1[B];
#pragma unroll
    for (int b = 0; b < B; b++) {
      const int64_t q = lo0 + lane + b * GROUP, q1 = lo1 + lane + b * GROUP;
      rows1[b] = q1 < hi1 ? row_idx[q1] : 0;
      l1[b] = q1 < hi1 ? load_value<T, FLOW>(values, q1) : 0.0;
      at0[b] = q < hi0 ? pos[row_idx[q]] : 0;
      l0[b] = q < hi0 ? load_value<T, FLOW>(values, q) : 0.0;
    }
    for (int t = 0; t < steps; t++) {
      /* Ahead: step t + 1's positions (its rows are here), step t + 2's rows. */
      int64_t lo2, hi2;
      step_bounds(dep_lo, dep_hi, t + 2, steps, &lo2, &hi2);
      if (FLOW)
        wait_step(a, dep, waiting, t + 2);
      int32_t at1[B], rows2[B];
      double l2[B];
#pragma unroll
      for (int b = 0; b < B; b++) {
        const int64_t q1 = lo1 + lane + b * GROUP, q2 = lo2 + lane + b * GROUP;
        at1[b] = q1 < hi1 ? pos[rows1[b]] : 0;
        rows2[b] = q2 < hi2 ? row_idx[q2] : 0;
        l2[b] = q2 < hi2 ? load_value<T, FLOW>(values, q2) : 0.0;
      }
      const double u = xs[base + t - begin];
      if (u != 0.0) { /* the same for every lane */
#pragma unroll
        for (int b = 0; b < B; b++)
          if (lo0 + lane + b * GROUP < hi0)
            xs[at0[b]] = minus_product(xs[at0[b]], l0[b], u);
        for (int64_t q = lo0 + lane + B * GROUP; q < hi0; q += GROUP) { /* beyond what was loaded ahead */
          const int32_t at = pos[row_idx[q]];
          xs[at] = minus_product(xs[at], load_value<T, FLOW>(values, q), u);
        }
        group_sync<GROUP>();
      }
      lo0 = lo1;
      hi0 = hi1;
      lo1 = lo2;
      hi1 = hi2;
#pragma unroll
      for (int b = 0; b < B; b++) {
        at0[b] = at1[b];
        l0[b] = l1[b];
        rows1[b] = rows2[b];
        l1[b] = l2[b];
      }
    }
  }
  double pivot = xs[diag - begin];
  const int kind = classify_pivot(&pivot, a.rule);
  group_sync<GROUP>(); /* xs[diag] read by every lane before the column is stored */
  for (int64_t p = begin + lane; p < end; p += GROUP) {
    const double v = xs[p - begin];
    pos[row_idx[p]] = 0;
    values[p] = p < diag ? (T)v : (p == diag ? (T)pivot : (T)(v / pivot));
  }
  if (lane == 0)
    a.kind[k] = (signed char)kind;
  group_sync<GROUP>(); /* the map is zero and xs free before the next column */
  if (lane == 0)
    mark_ready(a, k);
}

/* Columns of a level whose longest column's values fit shared memory:
 * `room` doubles of dynamic shared memory per group. */
template <typename T, int GROUP>
__global__ void __launch_bounds__(GROUP == 32 ? 256 : GROUP)
    left_level_shared(factor_args a, T *values, int64_t first, int64_t count, int room) {
  extern __shared__ double column_values[];
  const int per_block = blockDim.x / GROUP;
  const int lane = threadIdx.x % GROUP;
  const int64_t group_id = (int64_t)blockIdx.x * per_block + threadIdx.x / GROUP;
  const int64_t groups = (int64_t)gridDim.x * per_block;
  double *xs = column_values + (int64_t)(threadIdx.x / GROUP) * room;
  int32_t *pos = (int32_t *)(a.scratch + group_id * a.n);
  for (int64_t c = group_id; c < count; c += groups)
    left_column_shared<T, GROUP, false>(a, values, a.cols[first + c], xs, pos, lane);
}

/*
 * Consecutive levels as one launch, without a barrier between them: each
 * group takes the next column of the schedule (first .. first + count, in
 * level order) from *next and, before each step, waits for the mark of the
 * column j it gathers (ready[j] == epoch), so a column starts on the
 * columns finished long ago while the last ones it needs are still running.
 * On the circuit grid (n = 99,856) the level-by-level schedule's chain is
 * 894 K steps, the dataflow's 30 K with a column a multiprocessor (host
 * count, bench/notes/lu-numeric.md).
 *
 * No deadlock: a column waits only on columns of earlier levels, hence of
 * earlier tickets, taken by groups already running (a group takes a ticket
 * only when it runs), or finished by earlier launches; the earliest
 * unfinished column always has what it needs. The arithmetic is
 * left_column_shared's, so the factors are the same bits.
 */
template <typename T, int GROUP>
__global__ void __launch_bounds__(GROUP == 32 ? 256 : GROUP)
    left_flow_shared(factor_args a, T *values, int64_t first, int64_t count, int room, unsigned long long *next) {
  extern __shared__ double column_values[];
  __shared__ unsigned long long block_ticket;
  const int per_block = blockDim.x / GROUP;
  const int lane = threadIdx.x % GROUP;
  const int64_t group_id = (int64_t)blockIdx.x * per_block + threadIdx.x / GROUP;
  double *xs = column_values + (int64_t)(threadIdx.x / GROUP) * room;
  int32_t *pos = (int32_t *)(a.scratch + group_id * a.n);
  for (;;) {
    unsigned long long ticket = 0;
    if (GROUP == 32) {
      if (lane == 0)
        ticket = atomicAdd(next, 1ULL);
      ticket = __shfl_sync(0xffffffffu, ticket, 0);
    } else {
      /* The group is the block; the last column's final barrier kept the
       * previous ticket from being overwritten before every lane read it. */
      if (lane == 0)
        block_ticket = atomicAdd(next, 1ULL);
      __syncthreads();
      ticket = block_ticket;
    }
    if (ticket >= (unsigned long long)count)
      return;
    left_column_shared<T, GROUP, true>(a, values, a.cols[first + (int64_t)ticket], xs, pos, lane);
  }
}

template <typename T, bool DENSE, int GROUP>
__global__ void __launch_bounds__(GROUP == 32 ? 256 : GROUP)
    left_level(factor_args a, T *values, int64_t first, int64_t count) {
  const int per_block = blockDim.x / GROUP;
  const int lane = threadIdx.x % GROUP;
  const int64_t group_id = (int64_t)blockIdx.x * per_block + threadIdx.x / GROUP;
  const int64_t groups = (int64_t)gridDim.x * per_block;
  double *x = DENSE ? a.scratch + group_id * a.n : nullptr;
  for (int64_t c = group_id; c < count; c += groups)
    left_column<T, DENSE, GROUP>(a, values, a.cols[first + c], x, lane);
}

/* ---- right-looking tail -------------------------------------------------------------- */

/* Where row j lies in tail column k, below search_end: with map (column
 * k's rows above tail_start, offset + 1 by row, 0 where absent), one load;
 * else a binary search. -1 when absent. */
__device__ __forceinline__ int64_t tail_find(const factor_args &a, const int32_t *map, int64_t begin,
                                             int64_t search_end, int32_t j) {
  if (!map)
    return find_row(a.row_idx, begin, search_end, j);
  const int64_t q = begin + (int64_t)map[j] - 1;
  return q >= begin && q < search_end ? q : -1;
}

/* Entry p (row i) of tail column k, whose entries above tail_start lie in
 * [begin, first_tail): subtract L(i, j) U(j, k) for the columns j <
 * tail_start of row i of L, in increasing order, where U(j, k) is an entry
 * of column k (found below min(p, first_tail)) and not zero: the
 * operations, and the order, of the host's left-looking update
 * (lu_tail_gather_order.c). */
template <typename T>
__device__ __forceinline__ void gather_entry(const factor_args &a, const T *values, const int32_t *map, int64_t p,
                                             int64_t begin, int64_t first_tail, int64_t tail_start) {
  const int32_t i = a.row_idx[p];
  const int64_t search_end = p < first_tail ? p : first_tail;
  double x = a.acc[p];
  for (int64_t e = a.lrow_ptr[i]; e < a.lrow_ptr[i + 1]; e++) {
    const int32_t j = a.lrow_col[e];
    if (j >= tail_start)
      break; /* columns j of the tail come later, from tail_step */
    const int64_t pj = tail_find(a, map, begin, search_end, j);
    if (pj < 0)
      continue;
    const double u = a.acc[pj];
    if (u != 0.0)
      x = minus_product(x, (double)values[a.lrow_pos[e]], u);
  }
  a.acc[p] = x;
}

/* gather_entry for a long row of L, a warp at a time: each lane forms one
 * term's rounded product (its search and loads in parallel with the
 * others'), then every lane subtracts the products in increasing j, taking
 * each from its lane: the operations and order of gather_entry, so the same
 * bits, with the row's loads spread over the warp. */
template <typename T>
__device__ void gather_entry_warp(const factor_args &a, const T *values, const int32_t *map, int64_t p, int64_t begin,
                                  int64_t first_tail, int64_t tail_start, int lane) {
  const int32_t i = a.row_idx[p];
  const int64_t search_end = p < first_tail ? p : first_tail, row_end = a.lrow_ptr[i + 1];
  double x = a.acc[p];
  for (int64_t base = a.lrow_ptr[i]; base < row_end; base += 32) {
    const int64_t e = base + lane;
    double product = 0.0;
    bool term = false, past = false;
    if (e < row_end) {
      const int32_t j = a.lrow_col[e];
      past = j >= tail_start; /* and every later lane's j */
      const int64_t pj = past ? -1 : tail_find(a, map, begin, search_end, j);
      if (pj >= 0) {
        const double u = a.acc[pj];
        term = u != 0.0;
        product = __dmul_rn((double)values[a.lrow_pos[e]], u);
      }
    }
    for (unsigned m = __ballot_sync(0xffffffffu, term); m; m &= m - 1)
      x = __dsub_rn(x, __shfl_sync(0xffffffffu, product, __ffs(m) - 1));
    if (__any_sync(0xffffffffu, past))
      break;
  }
  if (lane == 0)
    a.acc[p] = x;
}

/* Rows of L longer than this go to a warp (gather_entry_warp). */
#define TAIL_LONG_ROW 32

/* Entries order[first .. last) (or, with order NULL, positions first ..
 * last) of tail column k: short rows a thread each, long rows a warp each. */
template <typename T>
__device__ void gather_entries(const factor_args &a, const T *values, const int32_t *map, const int64_t *order,
                               int64_t first, int64_t last, int64_t begin, int64_t first_tail, int64_t tail_start) {
  for (int64_t e = first + threadIdx.x; e < last; e += blockDim.x) {
    const int64_t p = order ? order[e] : e;
    const int32_t i = a.row_idx[p];
    if (a.lrow_ptr[i + 1] - a.lrow_ptr[i] <= TAIL_LONG_ROW)
      gather_entry<T>(a, values, map, p, begin, first_tail, tail_start);
  }
  const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  for (int64_t e = first + (threadIdx.x >> 5); e < last; e += warps) {
    const int64_t p = order ? order[e] : e;
    const int32_t i = a.row_idx[p];
    if (a.lrow_ptr[i + 1] - a.lrow_ptr[i] > TAIL_LONG_ROW)
      gather_entry_warp<T>(a, values, map, p, begin, first_tail, tail_start, lane);
  }
}

/* The tail's columns gather the updates of the finished columns j <
 * tail_start (a block per column): the entries above tail_start level by
 * level (a level's entries do not update one another), a barrier between
 * levels, then the entries from tail_start down. With use_map (the dense
 * scratch, a slot per block), the column's rows above tail_start are mapped
 * in the block's slot first, so that a term's U(j, k) is one load instead
 * of a binary search over the column (17 dependent loads for the 10^6-row
 * netlist's rails); the map is cleared after, leaving the slot zero. */
template <typename T>
__global__ void __launch_bounds__(TAIL_GATHER_THREADS)
    tail_gather(factor_args a, const T *values, int64_t tail_start, const int64_t *order_ptr, const int64_t *order,
                const int64_t *run_ptr, const int64_t *run_end, bool use_map) {
  int32_t *map = use_map ? reinterpret_cast<int32_t *>(a.scratch + blockIdx.x * a.n) : NULL;
  for (int64_t c = blockIdx.x; c < a.n - tail_start; c += gridDim.x) {
    const int64_t k = tail_start + c, begin = a.col_ptr[k], end = a.col_ptr[k + 1];
    const int64_t first_tail = begin + (order_ptr[c + 1] - order_ptr[c]);
    if (map) {
      for (int64_t p = begin + threadIdx.x; p < first_tail; p += blockDim.x)
        map[a.row_idx[p]] = (int32_t)(p - begin + 1);
      __syncthreads();
    }
    int64_t run_begin = order_ptr[c];
    for (int64_t r = run_ptr[c]; r < run_ptr[c + 1]; r++) {
      const int64_t stop = run_end[r];
      gather_entries<T>(a, values, map, order, run_begin, stop, begin, first_tail, tail_start);
      __syncthreads(); /* the level's entries final before the next level reads them */
      run_begin = stop;
    }
    gather_entries<T>(a, values, map, NULL, first_tail, end, begin, first_tail, tail_start);
    __syncthreads(); /* column k done before the block moves on (its runs' barriers assume the whole block) */
    if (map) {
      for (int64_t p = begin + threadIdx.x; p < first_tail; p += blockDim.x)
        map[a.row_idx[p]] = 0;
      __syncthreads();
    }
  }
}

/* Column j of the tail: block 0 stores column prev (factored by the
 * previous launch); every block computes j's pivot and pushes
 * L(:, j) * U(j, k) into the columns k of row j of U, a target per block. */
template <typename T>
__global__ void __launch_bounds__(256) tail_step(factor_args a, T *values, int64_t j, int64_t prev) {
  const int32_t *row_idx = a.row_idx;
  if (blockIdx.x == 0 && prev >= 0) {
    const int64_t begin = a.col_ptr[prev], diag = a.diag_pos[prev], end = a.col_ptr[prev + 1];
    double pivot = a.acc[diag];
    const int kind = classify_pivot(&pivot, a.rule);
    __syncthreads(); /* acc[diag] read by all before it is overwritten */
    for (int64_t p = begin + threadIdx.x; p < end; p += blockDim.x) {
      double v = a.acc[p];
      values[p] = p < diag ? (T)v : (p == diag ? (T)pivot : (T)(v / pivot));
    }
    if (threadIdx.x == 0)
      a.kind[prev] = (signed char)kind;
  }
  if (j < 0)
    return;
  const int64_t diag = a.diag_pos[j], l_end = a.col_ptr[j + 1];
  double pivot = a.acc[diag];
  (void)classify_pivot(&pivot, a.rule);
  for (int64_t e = a.urow_ptr[j] + blockIdx.x; e < a.urow_ptr[j + 1]; e += gridDim.x) {
    const int32_t k = a.urow_col[e];
    const int64_t p_jk = a.urow_pos[e];
    const double u = a.acc[p_jk];
    if (u == 0.0)
      continue;
    const int64_t end_k = a.col_ptr[k + 1];
    for (int64_t q = diag + 1 + threadIdx.x; q < l_end; q += blockDim.x) {
      const double l = (double)(T)(a.acc[q] / pivot); /* the value column j stores */
      int64_t pos = find_row(row_idx, p_jk + 1, end_k, row_idx[q]);
      if (pos >= 0)
        a.acc[pos] = minus_product(a.acc[pos], l, u);
    }
  }
}

/* a_row[e] = the row of A's entry e, from A's row offsets. */
__global__ void expand_rows(int64_t n, const int64_t *row_ptr, int32_t *a_row) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)
      a_row[e] = (int32_t)i;
}

/* ---- host side: the device cache ---------------------------------------------------- */

extern "C" ts_status tsi_lu_device_alloc(ts_context *ctx, tsi_lu_device *dev, void **ptr, int64_t count, size_t size,
                                         const char *what) {
  *ptr = NULL;
  int64_t bytes;
  if (tsi_mul_overflows(count > 0 ? count : 1, (int64_t)size, &bytes))
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "LU on the GPU: %s: %lld entries overflow", what, (long long)count);
  ts_status st = tsi_cuda_malloc(ctx, ptr, (size_t)bytes);
  if (st != TS_SUCCESS)
    return tsi_error(ctx, st, "LU on the GPU: no device memory for %s (%lld bytes; %lld held)", what, (long long)bytes,
                     (long long)dev->bytes);
  dev->bytes += bytes;
  if (dev->bytes > dev->peak)
    dev->peak = dev->bytes;
  return TS_SUCCESS;
}

static void device_free(tsi_lu_device *dev, void *ptr, int64_t count, size_t size) {
  if (!ptr)
    return;
  tsi_cuda_free(ptr);
  dev->bytes -= (count > 0 ? count : 1) * (int64_t)size;
}

static void free_schedule(tsi_lu_device *dev, tsi_lu_solve_schedule *s) {
  free(s->level_ptr);
  device_free(dev, s->items, dev->n, sizeof(int32_t));
  memset(s, 0, sizeof *s);
}

/* Free the factor values (precision change or release). */
static void free_values(tsi_lu_device *dev) {
  if ((void *)dev->acc != dev->values)
    device_free(dev, dev->acc, dev->lu_nnz, sizeof(double));
  device_free(dev, dev->values, dev->lu_nnz, dev->single ? sizeof(float) : sizeof(double));
  dev->acc = NULL;
  dev->values = NULL;
}

extern "C" void tsi_lu_cuda_release(ts_lu *lu) {
  if (!lu)
    return;
  tsi_lu_device *dev = (tsi_lu_device *)lu->numeric_device;
  lu->numeric_device = NULL;
  lu->factors_on_device = 0;
  if (!dev)
    return;
  if (lu->ctx)
    (void)tsi_cuda_sync(lu->ctx); /* nothing still running on the arrays */
  const int64_t n = dev->n, nnz = dev->lu_nnz, nnz_a = dev->nnz_a;
  device_free(dev, dev->col_ptr, n + 1, sizeof(int64_t));
  device_free(dev, dev->row_idx, nnz, sizeof(int32_t));
  device_free(dev, dev->diag_pos, n, sizeof(int64_t));
  device_free(dev, dev->a_to_lu, nnz_a, sizeof(int64_t));
  device_free(dev, dev->a_row, nnz_a, sizeof(int32_t));
  device_free(dev, dev->a_col, nnz_a, sizeof(int32_t));
  device_free(dev, dev->a_values, nnz_a, sizeof(double));
  device_free(dev, dev->row_scale, n, sizeof(double));
  device_free(dev, dev->col_scale, n, sizeof(double));
  device_free(dev, dev->row_perm, n, sizeof(int32_t));
  device_free(dev, dev->col_perm, n, sizeof(int32_t));
  device_free(dev, dev->urow_ptr, n + 1, sizeof(int64_t));
  device_free(dev, dev->lrow_ptr, n + 1, sizeof(int64_t));
  int64_t u_count = dev->urow_ptr_host ? dev->urow_ptr_host[n] : 0;
  device_free(dev, dev->urow_col, u_count, sizeof(int32_t));
  device_free(dev, dev->urow_pos, u_count, sizeof(int64_t));
  device_free(dev, dev->lrow_col, nnz - n - u_count, sizeof(int32_t));
  device_free(dev, dev->lrow_pos, nnz - n - u_count, sizeof(int64_t));
  device_free(dev, dev->left_cols, n, sizeof(int32_t));
  free_values(dev);
  device_free(dev, dev->scratch, dev->scratch_slots * n, sizeof(double));
  if (dev->tail_dense)
    device_free(dev, dev->tail_dense, (n - dev->tail_start) * (n - dev->tail_start), sizeof(double));
  device_free(dev, dev->tail_order_ptr, n - dev->tail_start + 1, sizeof(int64_t));
  device_free(dev, dev->tail_run_ptr, n - dev->tail_start + 1, sizeof(int64_t));
  device_free(dev, dev->tail_order, dev->tail_order_entries, sizeof(int64_t));
  device_free(dev, dev->tail_run_end, dev->tail_runs, sizeof(int64_t));
  device_free(dev, dev->kind, n, 1);
  device_free(dev, dev->rule, 3, sizeof(double));
  device_free(dev, dev->max_bits, 1, sizeof(unsigned long long));
  free_schedule(dev, &dev->lower);
  free_schedule(dev, &dev->upper);
  free_schedule(dev, &dev->upper_t);
  free_schedule(dev, &dev->lower_t);
  device_free(dev, dev->solve_y, dev->solve_cols * n, sizeof(double));
  device_free(dev, dev->solve_rhs, dev->solve_cols * n, sizeof(double));
  device_free(dev, dev->solve_ready_mark, n, sizeof(int32_t));
  device_free(dev, dev->solve_next_row, 2, sizeof(unsigned long long));
  device_free(dev, dev->factor_ready, n, sizeof(int32_t));
  device_free(dev, dev->flow_next, dev->left_levels > 0 ? dev->left_levels : 1, sizeof(unsigned long long));
  free(dev->urow_ptr_host);
  free(dev->left_ptr_host);
  free(dev->left_group_host);
  free(dev->left_len_host);
  free(dev->left_cols_host);
  free(dev->level_of_host);
  free(dev->kind_host);
  free(dev);
}

static ts_status upload(ts_context *ctx, tsi_lu_device *dev, void **dst, const void *src, int64_t count, size_t size,
                        const char *what) {
  ts_status st = tsi_lu_device_alloc(ctx, dev, dst, count, size, what);
  if (st == TS_SUCCESS && count > 0)
    st = tsi_cuda_memcpy_to_device(ctx, *dst, src, (size_t)count * size);
  return st;
}

/* The sparse tail's gather order (lu_tail_gather_order.c) on the device. */
static ts_status upload_tail_order(ts_lu *lu, tsi_lu_device *dev) {
  tsi_lu_tail_order order;
  ts_status st = tsi_lu_tail_gather_order(lu, dev->tail_start, dev->level_of_host, &order);
  if (st != TS_SUCCESS)
    return st;
  dev->tail_order_entries = order.order_ptr[order.columns];
  dev->tail_runs = order.runs;
  st = upload(lu->ctx, dev, (void **)&dev->tail_order_ptr, order.order_ptr, order.columns + 1, sizeof(int64_t),
              "the tail's gather order");
  if (st == TS_SUCCESS)
    st = upload(lu->ctx, dev, (void **)&dev->tail_order, order.order, dev->tail_order_entries, sizeof(int64_t),
                "the tail's gather order");
  if (st == TS_SUCCESS)
    st = upload(lu->ctx, dev, (void **)&dev->tail_run_ptr, order.run_ptr, order.columns + 1, sizeof(int64_t),
                "the tail's gather levels");
  if (st == TS_SUCCESS)
    st = upload(lu->ctx, dev, (void **)&dev->tail_run_end, order.run_end, dev->tail_runs, sizeof(int64_t),
                "the tail's gather levels");
  tsi_lu_tail_order_free(&order);
  return st;
}

/* Device memory free now; 1 GiB when the driver cannot say. */
static int64_t device_free_bytes(void) {
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess)
    return (int64_t)1 << 30;
  return (int64_t)free_bytes;
}

/* At most cap bytes, and a quarter of the device memory free now. */
static int64_t device_budget(int64_t cap) {
  int64_t quarter = device_free_bytes() / 4;
  return quarter < cap ? quarter : cap;
}

/* The schedule: the tail (trailing levels of at most TSI_LU_TAIL_WIDTH
 * columns, as columns tail_start..n-1), the other levels with their group
 * size, from the mean length of the subcolumns each column gathers. */
static ts_status build_schedule(ts_lu *lu, tsi_lu_device *dev) {
  const int64_t n = lu->n, levels = lu->levels;
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos, *level_ptr = lu->level_ptr;
  const int32_t *level_cols = lu->level_cols;
  int64_t tail_columns = 0;
  if (!lu->gpu_no_tail)
    for (int64_t l = levels - 1; l >= 0 && level_ptr[l + 1] - level_ptr[l] <= TSI_LU_TAIL_WIDTH; l--)
      tail_columns += level_ptr[l + 1] - level_ptr[l];
  /* A wider dense tail did not pay: on the H200 (bench/lu_numeric_gpu,
   * commit 87529d3) the circuit grid n = 99,856 refactored in 600 ms with
   * the narrow levels' 5,291 columns and with 1,024-4,096, 637 ms with 8,192
   * and 964 ms with 16,384 (the left-looking time did not shrink: the
   * trailing columns by number are not the long chains). */
  if (!lu->gpu_no_tail && lu->gpu_dense_tail != TSI_LU_DENSE_TAIL_OFF && lu->gpu_tail_columns > 0)
    tail_columns = lu->gpu_tail_columns < n ? lu->gpu_tail_columns : n;
  dev->tail_start = n - tail_columns;
  dev->left_ptr_host = (int64_t *)tsi_malloc_array(levels + 1, sizeof(int64_t));
  dev->left_group_host = (int *)tsi_malloc_array(levels > 0 ? levels : 1, sizeof(int));
  dev->left_len_host = (int32_t *)tsi_malloc_array(levels > 0 ? levels : 1, sizeof(int32_t));
  dev->left_cols_host = (int32_t *)tsi_malloc_array(n > 0 ? n : 1, sizeof(int32_t));
  dev->level_of_host = (int32_t *)tsi_malloc_array(n > 0 ? n : 1, sizeof(int32_t));
  int64_t *gathered_of = tsi_lu_gather_lengths(lu);
  if (!dev->left_ptr_host || !dev->left_group_host || !dev->left_len_host || !dev->left_cols_host ||
      !dev->level_of_host || !gathered_of) {
    free(gathered_of);
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for the schedule (n = %lld)",
                     (long long)n);
  }
  double flops = 0.0;
  int64_t filled = 0, kept = 0;
  dev->left_ptr_host[0] = 0;
  for (int64_t l = 0; l < levels; l++) {
    double widest_mean = 0.0;
    int64_t longest = 0;
    for (int64_t c = level_ptr[l]; c < level_ptr[l + 1]; c++) {
      const int32_t k = level_cols[c];
      dev->level_of_host[k] = (int32_t)l;
      const int64_t gathered = gathered_of[k], steps = diag_pos[k] - col_ptr[k];
      flops += 2.0 * (double)gathered + (double)(col_ptr[k + 1] - diag_pos[k] - 1);
      if (k >= dev->tail_start)
        continue;
      dev->left_cols_host[filled++] = k;
      if (col_ptr[k + 1] - col_ptr[k] > longest)
        longest = col_ptr[k + 1] - col_ptr[k];
      double mean = steps > 0 ? (double)gathered / (double)steps : (double)(col_ptr[k + 1] - col_ptr[k]);
      if (mean > widest_mean)
        widest_mean = mean;
    }
    if (filled > dev->left_ptr_host[kept]) {
      dev->left_group_host[kept] = widest_mean <= 48.0 ? 32 : (widest_mean <= 256.0 ? 128 : 512);
      dev->left_len_host[kept] = (int32_t)(longest < INT32_MAX ? longest : INT32_MAX);
      dev->left_ptr_host[++kept] = filled;
    }
  }
  free(gathered_of);
  dev->left_levels = kept;
  dev->flops = flops;
  return TS_SUCCESS;
}

/* Dense scratch when enough n-vectors fit (tsi_lu_dense_scratch_slots()),
 * else the sparse scratch. */
static ts_status reserve_scratch(ts_lu *lu, tsi_lu_device *dev) {
  int64_t widest = 0;
  for (int64_t l = 0; l < dev->left_levels; l++) {
    int64_t w = dev->left_ptr_host[l + 1] - dev->left_ptr_host[l];
    if (w > widest)
      widest = w;
  }
  int64_t slots = tsi_lu_dense_scratch_slots(dev->n, widest, device_free_bytes(), lu->gpu_scratch);
  if (lu->gpu_scratch_slots > 0 && lu->gpu_scratch != TSI_LU_SCRATCH_SPARSE) {
    if (dev->n > 0 && lu->gpu_scratch_slots > INT64_MAX / (int64_t)sizeof(double) / dev->n)
      return tsi_error(lu->ctx, TS_ERROR_OVERFLOW, "LU on the GPU: %lld scratch slots of %lld rows overflow",
                       (long long)lu->gpu_scratch_slots, (long long)dev->n);
    slots = lu->gpu_scratch_slots < 8 ? 8 : lu->gpu_scratch_slots; /* a block of warps needs 8 */
  }
  const int mode = slots > 0 ? TSI_LU_SCRATCH_DENSE : TSI_LU_SCRATCH_SPARSE;
  if (mode == TSI_LU_SCRATCH_DENSE && dev->left_levels > 0) {
    ts_status st = tsi_lu_device_alloc(lu->ctx, dev, (void **)&dev->scratch, slots * dev->n, sizeof(double),
                                       "the dense scratch columns");
    if (st == TS_SUCCESS)
      st = tsi_cuda_memset(lu->ctx, dev->scratch, 0, (size_t)(slots * dev->n) * sizeof(double));
    if (st != TS_SUCCESS)
      return st;
    dev->scratch_slots = slots;
  }
  dev->scratch_mode = mode;
  return TS_SUCCESS;
}

/* The tail as one dense block when it is wide enough (or asked for) and
 * fits; otherwise it stays column by column in the sparse pattern. */
static ts_status reserve_dense_tail(ts_lu *lu, tsi_lu_device *dev) {
  const int64_t m = dev->n - dev->tail_start;
  const int mode = lu->gpu_dense_tail;
  if (m < 1 || mode == TSI_LU_DENSE_TAIL_OFF || (mode != TSI_LU_DENSE_TAIL_ON && m < TSI_LU_DENSE_TAIL_MIN))
    return TS_SUCCESS;
  if (m > INT32_MAX / 2 || m * m > device_budget(TSI_LU_DENSE_TAIL_BYTES) / (int64_t)sizeof(double))
    return TS_SUCCESS;
  ts_status st = tsi_gemm_cuda_multiprocessors(lu->ctx, &dev->multiprocessors);
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(lu->ctx, dev, (void **)&dev->tail_dense, m * m, sizeof(double), "the dense tail");
  return st;
}

static ts_status build_device(ts_lu *lu, tsi_lu_device **out) {
  ts_context *ctx = lu->ctx;
  const int64_t n = lu->n, nnz = lu->lu_nnz, nnz_a = lu->nnz_a;
  tsi_lu_device *dev = (tsi_lu_device *)calloc(1, sizeof *dev);
  if (!dev)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for the device cache");
  lu->numeric_device = dev; /* released by tsi_lu_cuda_release on any failure below */
  dev->n = n;
  dev->lu_nnz = nnz;
  dev->nnz_a = nnz_a;
  dev->single = -1;
  int64_t *lrow_ptr = NULL, *urow_pos = NULL, *lrow_pos = NULL, *a_row_ptr = NULL;
  int32_t *urow_col = NULL, *lrow_col = NULL;
  /* The rows of L and U: sorted on the device from the columns, or built on
   * the host where the sort's 32-bit keys do not fit. */
  const bool rows_on_device = tsi_lu_cuda_rows_fit(lu);
  ts_status st = build_schedule(lu, dev);
  if (st == TS_SUCCESS && !rows_on_device)
    st = tsi_lu_build_rows(lu, true, &dev->urow_ptr_host, &urow_col, &urow_pos);
  if (st == TS_SUCCESS && !rows_on_device)
    st = tsi_lu_build_rows(lu, false, &lrow_ptr, &lrow_col, &lrow_pos);
  const int64_t u_count = st == TS_SUCCESS && !rows_on_device ? dev->urow_ptr_host[n] : 0;
  const int64_t l_count = st == TS_SUCCESS && !rows_on_device ? lrow_ptr[n] : 0;
  struct {
    void **dst;
    const void *src;
    int64_t count;
    size_t size;
    const char *what;
  } uploads[] = {
      {(void **)&dev->col_ptr, lu->lu_col_ptr, n + 1, sizeof(int64_t), "column offsets"},
      {(void **)&dev->row_idx, lu->lu_row_idx, nnz, sizeof(int32_t), "row indices of L+U"},
      {(void **)&dev->diag_pos, lu->diag_pos, n, sizeof(int64_t), "diagonal positions"},
      {(void **)&dev->a_to_lu, lu->a_to_lu, nnz_a, sizeof(int64_t), "A's positions in L+U"},
      {(void **)&a_row_ptr, lu->a_row_ptr, n + 1, sizeof(int64_t), "A's row offsets"},
      {(void **)&dev->a_col, lu->a_col_idx, nnz_a, sizeof(int32_t), "A's columns"},
      {(void **)&dev->row_scale, lu->row_scale, n, sizeof(double), "row scaling"},
      {(void **)&dev->col_scale, lu->col_scale, n, sizeof(double), "column scaling"},
      {(void **)&dev->row_perm, lu->row_perm, n, sizeof(int32_t), "row permutation"},
      {(void **)&dev->col_perm, lu->col_perm, n, sizeof(int32_t), "column permutation"},
      {(void **)&dev->left_cols, dev->left_cols_host, n, sizeof(int32_t), "the level schedule"},
      /* The host's rows, when built there (the last six). */
      {(void **)&dev->urow_ptr, dev->urow_ptr_host, n + 1, sizeof(int64_t), "row offsets of U"},
      {(void **)&dev->urow_col, urow_col, u_count, sizeof(int32_t), "rows of U"},
      {(void **)&dev->urow_pos, urow_pos, u_count, sizeof(int64_t), "rows of U"},
      {(void **)&dev->lrow_ptr, lrow_ptr, n + 1, sizeof(int64_t), "row offsets of L"},
      {(void **)&dev->lrow_col, lrow_col, l_count, sizeof(int32_t), "rows of L"},
      {(void **)&dev->lrow_pos, lrow_pos, l_count, sizeof(int64_t), "rows of L"},
  };
  const size_t upload_count = sizeof uploads / sizeof uploads[0] - (rows_on_device ? 6 : 0);
  for (size_t u = 0; st == TS_SUCCESS && u < upload_count; u++)
    st = upload(ctx, dev, uploads[u].dst, uploads[u].src, uploads[u].count, uploads[u].size, uploads[u].what);
  if (st == TS_SUCCESS && rows_on_device)
    st = tsi_lu_cuda_build_rows(lu, dev);
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->a_row, nnz_a, sizeof(int32_t), "A's rows");
  if (st == TS_SUCCESS) {
    expand_rows<<<(unsigned)((n + 255) / 256 < 65535 ? (n + 255) / 256 : 65535), 256, 0, (cudaStream_t)ctx->stream>>>(
        n, a_row_ptr, dev->a_row);
    st = tsi_cuda_check_launch(ctx, "LU on the GPU: A's rows");
  }
  device_free(dev, a_row_ptr, n + 1, sizeof(int64_t));
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->a_values, nnz_a, sizeof(double), "A's values");
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->kind, n, 1, "pivot outcomes");
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->rule, 3, sizeof(double), "the pivot rule");
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->max_bits, 1, sizeof(unsigned long long), "max |M|");
  if (st == TS_SUCCESS) {
    dev->kind_host = (signed char *)malloc((size_t)(n > 0 ? n : 1));
    if (!dev->kind_host)
      st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for pivot outcomes");
  }
  if (st == TS_SUCCESS)
    st = reserve_scratch(lu, dev);
  if (st == TS_SUCCESS && dev->scratch_mode == TSI_LU_SCRATCH_DENSE) { /* the dataflow levels' */
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->factor_ready, n, sizeof(int32_t), "column ready marks");
    if (st == TS_SUCCESS)
      st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->flow_next, dev->left_levels > 0 ? dev->left_levels : 1,
                               sizeof(unsigned long long), "column tickets");
    dev->factor_epoch = INT32_MAX; /* the marks are cleared before the first factorization */
  }
  if (st == TS_SUCCESS)
    st = reserve_dense_tail(lu, dev);
  if (st == TS_SUCCESS && dev->tail_start < n && !dev->tail_dense)
    st = upload_tail_order(lu, dev);
  /* The uploads waited for their copies: the host arrays can go. */
  free(urow_col);
  free(urow_pos);
  free(lrow_ptr);
  free(lrow_col);
  free(lrow_pos);
  *out = dev;
  return st;
}

/* Factor values of the wanted precision (acc aliases them in double). */
static ts_status reserve_values(ts_lu *lu, tsi_lu_device *dev, int single) {
  if (dev->values && dev->single == single)
    return TS_SUCCESS;
  free_values(dev);
  dev->single = single;
  ts_status st = tsi_lu_device_alloc(lu->ctx, dev, &dev->values, dev->lu_nnz, single ? sizeof(float) : sizeof(double),
                                     "the factors");
  if (st != TS_SUCCESS)
    return st;
  if (!single) {
    dev->acc = (double *)dev->values;
    return TS_SUCCESS;
  }
  return tsi_lu_device_alloc(lu->ctx, dev, (void **)&dev->acc, dev->lu_nnz, sizeof(double), "the working values");
}

/* |A|_inf and |A|_1 for the refinement's backward error (host, as the CPU
 * path keeps them). */
static ts_status compute_norms(ts_lu *lu) {
  tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
  if (!ws)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for the numeric workspace");
  return tsi_lu_compute_norms(lu, ws);
}

/* Shared memory a block of the shared-accumulator levels may take: a
 * column of the widest groups (one a block) up to 200 KiB, a block of warps
 * or of 128 threads up to 48 KiB (so that several blocks share an SM). */
#define TSI_LU_SHARED_COLUMN_BYTES (200 * 1024)
#define TSI_LU_SHARED_BLOCK_BYTES (48 * 1024)

template <typename T> static void allow_shared_columns() {
  cudaFuncSetAttribute(left_level_shared<T, 512>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       TSI_LU_SHARED_COLUMN_BYTES);
  cudaFuncSetAttribute(left_flow_shared<T, 512>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       TSI_LU_SHARED_COLUMN_BYTES);
}

/* Shared memory of a block of groups of `group` threads whose columns have
 * up to `longest` entries, or 0 when over the cap (the column then
 * accumulates in global memory). */
static size_t shared_column_bytes(int group, int64_t longest) {
  const int per_block = group == 32 ? 8 : 1;
  const size_t bytes = (size_t)per_block * (size_t)longest * sizeof(double);
  return bytes <= (group == 512 ? TSI_LU_SHARED_COLUMN_BYTES : TSI_LU_SHARED_BLOCK_BYTES) ? bytes : 0;
}

template <typename T>
static void launch_left_level(const factor_args &args, T *values, int64_t first, int64_t count, int group,
                              int32_t longest, bool dense, bool shared_columns, int64_t slots, cudaStream_t stream) {
  /* Warps share a block (8 columns); larger groups are the block, so that
   * their barriers are the block's. */
  const int block = group == 32 ? 256 : group;
  const int per_block = block / group;
  int64_t blocks = (count + per_block - 1) / per_block;
  if (dense && blocks * per_block > slots)
    blocks = slots / per_block; /* each group owns one scratch slot; slots >= 8 */
  if (blocks > 65535 * 16)
    blocks = 65535 * 16;
  const unsigned grid = (unsigned)blocks;
  const size_t shared = shared_column_bytes(group, longest);
  if (dense && shared_columns && shared > 0) {
#define TSI_LEFT_SHARED(G)                                                                                             \
  left_level_shared<T, G><<<grid, block, shared, stream>>>(args, values, first, count, (int)longest)
    group == 32 ? TSI_LEFT_SHARED(32) : (group == 128 ? TSI_LEFT_SHARED(128) : TSI_LEFT_SHARED(512));
#undef TSI_LEFT_SHARED
    return;
  }
#define TSI_LEFT(D, G) left_level<T, D, G><<<grid, block, 0, stream>>>(args, values, first, count)
  if (dense)
    group == 32 ? TSI_LEFT(true, 32) : (group == 128 ? TSI_LEFT(true, 128) : TSI_LEFT(true, 512));
  else
    group == 32 ? TSI_LEFT(false, 32) : (group == 128 ? TSI_LEFT(false, 128) : TSI_LEFT(false, 512));
#undef TSI_LEFT
}

/* Levels first .. first + count of one group size as one dataflow launch
 * (left_flow_shared): as many groups as there are scratch slots (each
 * group's position map) or columns; groups that are not resident yet start
 * when others finish and take the tickets left. */
template <typename T>
static void launch_left_flow(const factor_args &args, T *values, int64_t first, int64_t count, int group,
                             int32_t longest, int64_t slots, unsigned long long *next, cudaStream_t stream) {
  const int block = group == 32 ? 256 : group;
  const int per_block = block / group;
  int64_t blocks = (count + per_block - 1) / per_block;
  if (blocks * per_block > slots)
    blocks = slots / per_block;
  const unsigned grid = (unsigned)blocks;
  const size_t shared = shared_column_bytes(group, longest);
#define TSI_LEFT_FLOW(G)                                                                                               \
  left_flow_shared<T, G><<<grid, block, shared, stream>>>(args, values, first, count, longest, next)
  group == 32 ? TSI_LEFT_FLOW(32) : (group == 128 ? TSI_LEFT_FLOW(128) : TSI_LEFT_FLOW(512));
#undef TSI_LEFT_FLOW
}

/* The dataflow levels' marks and tickets: the number of this
 * factorization (the marks are cleared when it would wrap, and before the
 * first, so no mark holds a later number early) and zero tickets. */
static ts_status next_factor_epoch(ts_context *ctx, tsi_lu_device *dev, cudaStream_t stream, int32_t *epoch) {
  const int64_t segments = dev->left_levels > 0 ? dev->left_levels : 1;
  cudaError_t err = cudaSuccess;
  if (dev->factor_epoch == INT32_MAX) {
    err = cudaMemsetAsync(dev->factor_ready, 0, (size_t)dev->n * sizeof(int32_t), stream);
    dev->factor_epoch = 0;
  }
  if (err == cudaSuccess)
    err = cudaMemsetAsync(dev->flow_next, 0, (size_t)segments * sizeof(unsigned long long), stream);
  if (err != cudaSuccess)
    return tsi_error(ctx, TS_ERROR_CUDA, "LU factorization on the GPU: clearing the column marks: %s",
                     cudaGetErrorString(err));
  *epoch = ++dev->factor_epoch;
  return TS_SUCCESS;
}

template <typename T> static ts_status run_levels(ts_lu *lu, tsi_lu_device *dev, cudaStream_t stream) {
  factor_args args;
  args.n = dev->n;
  args.col_ptr = dev->col_ptr;
  args.row_idx = dev->row_idx;
  args.diag_pos = dev->diag_pos;
  args.cols = dev->left_cols;
  args.urow_ptr = dev->urow_ptr;
  args.urow_col = dev->urow_col;
  args.urow_pos = dev->urow_pos;
  args.lrow_ptr = dev->lrow_ptr;
  args.lrow_col = dev->lrow_col;
  args.lrow_pos = dev->lrow_pos;
  args.acc = dev->acc;
  args.scratch = dev->scratch;
  args.kind = dev->kind;
  args.rule = dev->rule;
  args.ready = nullptr;
  args.epoch = 0;
  T *values = (T *)dev->values;
  const bool dense = dev->scratch_mode == TSI_LU_SCRATCH_DENSE, shared_columns = !lu->gpu_global_columns;
  if (dense && shared_columns)
    allow_shared_columns<T>();
  const bool flow = dense && shared_columns && !lu->gpu_level_sync && dev->factor_ready;
  if (flow) {
    ts_status st = next_factor_epoch(lu->ctx, dev, stream, &args.epoch);
    if (st != TS_SUCCESS)
      return st;
    args.ready = dev->factor_ready;
  }
  int64_t segment = 0;
  for (int64_t l = 0; l < dev->left_levels;) {
    const int group = dev->left_group_host[l];
    int64_t longest = dev->left_len_host[l], last = l + 1;
    if (!flow || shared_column_bytes(group, longest) == 0) {
      const int64_t first = dev->left_ptr_host[l], count = dev->left_ptr_host[l + 1] - first;
      launch_left_level<T>(args, values, first, count, group, dev->left_len_host[l], dense, shared_columns,
                           dev->scratch_slots, stream);
      l++;
      continue;
    }
    /* The following levels of the same group size whose columns fit shared
     * memory run as one dataflow launch. */
    while (last < dev->left_levels && dev->left_group_host[last] == group &&
           shared_column_bytes(group, longest > dev->left_len_host[last] ? longest : dev->left_len_host[last]) > 0) {
      if (dev->left_len_host[last] > longest)
        longest = dev->left_len_host[last];
      last++;
    }
    const int64_t first = dev->left_ptr_host[l], count = dev->left_ptr_host[last] - first;
    launch_left_flow<T>(args, values, first, count, group, (int32_t)longest, dev->scratch_slots,
                        dev->flow_next + segment++, stream);
    l = last;
  }
  const int64_t n = dev->n, tail_start = dev->tail_start;
  if (tail_start >= n)
    return TS_SUCCESS;
  if (dev->tail_dense)
    return tsi_lu_dense_tail(lu->ctx, dev, args, values, stream);
  /* The position map needs a zero dense slot (two int32 words per double)
   * for each block. */
  const bool use_map = dev->scratch_mode == TSI_LU_SCRATCH_DENSE && dev->scratch && !lu->gpu_tail_search;
  int64_t gather_blocks = n - tail_start;
  if (gather_blocks > 65535)
    gather_blocks = 65535;
  if (use_map && gather_blocks > dev->scratch_slots)
    gather_blocks = dev->scratch_slots;
  tail_gather<T><<<(unsigned)gather_blocks, TAIL_GATHER_THREADS, 0, stream>>>(
      args, values, tail_start, dev->tail_order_ptr, dev->tail_order, dev->tail_run_ptr, dev->tail_run_end, use_map);
  for (int64_t j = tail_start; j <= n; j++) {
    int64_t targets = j < n ? dev->urow_ptr_host[j + 1] - dev->urow_ptr_host[j] : 0;
    if (targets < 1)
      targets = 1;
    if (targets > 4096)
      targets = 4096;
    tail_step<T><<<(unsigned)targets, 256, 0, stream>>>(args, values, j < n ? j : -1, j > tail_start ? j - 1 : -1);
  }
  return TS_SUCCESS;
}

/* A CUDA context's factor, refactor and solve run on the GPU unless the
 * options ask for the host: the GPU path passed tests/test_gpu_lu_*.c and
 * compute-sanitizer memcheck on the H200 (bench/results/core/compute-sanitizer-h200.md). */
#define TSI_LU_GPU_BY_DEFAULT 1

extern "C" bool tsi_lu_use_gpu(const ts_lu *lu) {
  if (lu->options.backend == TS_BACKEND_CUDA)
    return true; /* refused later on a context without CUDA */
  if (!lu->ctx || lu->options.backend == TS_BACKEND_CPU)
    return false;
  return TSI_LU_GPU_BY_DEFAULT && lu->ctx->backend == TS_BACKEND_CUDA;
}

extern "C" ts_status tsi_lu_numeric_cuda(ts_lu *lu) {
  ts_context *ctx = lu->ctx;
  if (!ctx || ctx->backend != TS_BACKEND_CUDA)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "LU factorization: the GPU backend was asked for (ts_lu_options.backend) on a %s context",
                     ctx ? ts_backend_name(ctx->backend) : "NULL");
  const int64_t n = lu->n;
  if (n > 0 && (!lu->lu_col_ptr || !lu->lu_row_idx || !lu->diag_pos || !lu->level_ptr || !lu->level_cols ||
                lu->levels < 1 || lu->level_ptr[lu->levels] != n))
    return tsi_error(ctx, TS_ERROR_INTERNAL, "LU numeric phase: the analysis left its arrays incomplete");
  if (n > INT32_MAX)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "LU on the GPU: order %lld exceeds 32-bit row indices", (long long)n);
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  lu->factors_on_device = 0;
  tsi_lu_device *dev = (tsi_lu_device *)lu->numeric_device;
  if (!dev) {
    st = build_device(lu, &dev);
    if (st != TS_SUCCESS) {
      tsi_lu_cuda_release(lu);
      return st;
    }
  }
  const int single = lu->options.float_factors != 0;
  st = reserve_values(lu, dev, single);
  if (st == TS_SUCCESS)
    st = compute_norms(lu);
  if (st != TS_SUCCESS)
    return st;
  lu->stats.peak_device_bytes = dev->peak;
  lu->stats.flops = dev->flops;
  if (n == 0) {
    lu->factors_on_device = 1;
    return TS_SUCCESS;
  }

  cudaStream_t stream = (cudaStream_t)ctx->stream;
  const size_t value_bytes = (size_t)dev->lu_nnz * (single ? sizeof(float) : sizeof(double));
  st = tsi_cuda_memcpy_to_device(ctx, dev->a_values, lu->a_values, (size_t)lu->nnz_a * sizeof(double));
  if (st == TS_SUCCESS)
    st = tsi_cuda_memset(ctx, dev->values, 0, value_bytes);
  if (st == TS_SUCCESS && single)
    st = tsi_cuda_memset(ctx, dev->acc, 0, (size_t)dev->lu_nnz * sizeof(double));
  if (st == TS_SUCCESS)
    st = tsi_cuda_memset(ctx, dev->max_bits, 0, sizeof(unsigned long long));
  if (st != TS_SUCCESS)
    return st;

  double threshold = lu->options.pivot_threshold;
  if (!(threshold > 0.0))
    threshold = single ? 1e-7 : 1e-14;
  const double root_eps = sqrt(single ? (double)FLT_EPSILON : DBL_EPSILON);
  int64_t blocks = (lu->nnz_a + 255) / 256;
  if (blocks > 4096)
    blocks = 4096;
  if (blocks < 1)
    blocks = 1;
  if (single)
    scatter_values<float><<<(unsigned)blocks, 256, 0, stream>>>(lu->nnz_a, dev->a_row, dev->a_col, dev->a_values,
                                                                dev->row_scale, dev->col_scale, dev->a_to_lu,
                                                                (float *)dev->values, dev->acc, dev->max_bits);
  else
    scatter_values<double><<<(unsigned)blocks, 256, 0, stream>>>(lu->nnz_a, dev->a_row, dev->a_col, dev->a_values,
                                                                 dev->row_scale, dev->col_scale, dev->a_to_lu,
                                                                 (double *)dev->values, dev->acc, dev->max_bits);
  make_rule<<<1, 1, 0, stream>>>(dev->max_bits, threshold, root_eps, !lu->options.no_perturbation, dev->rule);
  st = single ? run_levels<float>(lu, dev, stream) : run_levels<double>(lu, dev, stream);
  if (st == TS_SUCCESS)
    st = tsi_cuda_check_launch(ctx, "LU factorization on the GPU");
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_host(ctx, dev->kind_host, dev->kind, (size_t)n);
  if (st != TS_SUCCESS)
    return st;

  /* The first bad pivot in schedule order (level, then column; the tail
   * after every level, by column), as the host code reports it: a later
   * one can be the first's consequence (with perturbation off, a dense
   * tail carries on past a zero pivot). Perturbed pivots counted. */
  int64_t perturbed = 0, bad_column = -1, bad_level = INT64_MAX;
  int bad_kind = PIVOT_OK;
  for (int64_t k = 0; k < n; k++) {
    int kind = dev->kind_host[k];
    if (kind == PIVOT_PERTURBED)
      perturbed++;
    else if (kind != PIVOT_OK) {
      int64_t level = k < dev->tail_start ? dev->level_of_host[k] : lu->levels + (k - dev->tail_start);
      if (level < bad_level || (level == bad_level && k < bad_column)) {
        bad_level = level;
        bad_column = k;
        bad_kind = kind;
      }
    }
  }
  lu->stats.perturbed_pivots = perturbed;
  lu->stats.singular_column = -1;
  if (bad_kind != PIVOT_OK) {
    int64_t user_column = lu->col_perm[bad_column];
    lu->stats.singular_column = user_column;
    if (bad_kind == PIVOT_NOT_FINITE)
      return tsi_error(ctx, TS_ERROR_NUMERICALLY_SINGULAR,
                       "LU factorization: the pivot of column %lld is not finite (overflow; pivot %lld of %lld)",
                       (long long)user_column, (long long)bad_column, (long long)n);
    return tsi_error(ctx, TS_ERROR_NUMERICALLY_SINGULAR,
                     "LU factorization: matrix is numerically singular: column %lld has a zero or tiny pivot "
                     "(|u| < %.3g x max|scaled A|; pivot %lld of %lld; perturbation is off)",
                     (long long)user_column, threshold, (long long)bad_column, (long long)n);
  }
  lu->factors_on_device = 1;
  return perturbed > 0 ? TS_WARNING_PERTURBED_PIVOTS : TS_SUCCESS;
}

extern "C" ts_status tsi_lu_cuda_download_factors(ts_lu *lu) {
  tsi_lu_device *dev = (tsi_lu_device *)lu->numeric_device;
  if (!dev || !lu->factors_on_device)
    return tsi_error(lu->ctx, TS_ERROR_NOT_FACTORED, "LU on the GPU: no factors on the device");
  const int64_t count = lu->lu_nnz > 0 ? lu->lu_nnz : 1;
  void *host;
  if (dev->single) {
    if (!lu->lu_values_f32)
      lu->lu_values_f32 = (float *)tsi_malloc_array(count, sizeof(float));
    host = lu->lu_values_f32;
  } else {
    if (!lu->lu_values)
      lu->lu_values = (double *)tsi_malloc_array(count, sizeof(double));
    host = lu->lu_values;
  }
  if (!host)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no host memory for %lld factor entries",
                     (long long)lu->lu_nnz);
  if (lu->lu_nnz == 0)
    return TS_SUCCESS;
  return tsi_cuda_memcpy_to_host(lu->ctx, host, dev->values,
                                 (size_t)lu->lu_nnz * (dev->single ? sizeof(float) : sizeof(double)));
}
