/* LU batches on the GPU: the plan uploaded once (batch_plan_gpu.c), then
 * per factorization and per solve a handful of launches for the whole
 * batch, every pattern and member at once.
 *
 * Members in lockstep: the members of a pattern go `width` to a group,
 * their values interleaved (batch_kernels.h), so that a warp's lanes run
 * the same operation for their members on consecutive doubles; a pattern
 * with few members, or long column updates, gives each member several
 * lanes of the factorization (32 / factor_width), wherever in the layout
 * its values lie, and the solves keep a lane a member on whole groups
 * (their rows' loads coalesced). The batch's parallelism (groups of members)
 * combines with the levels' (columns of a level) in one dataflow launch per
 * phase: warps take (column, group) tickets in the merged level order and
 * wait only for the columns each reads (Liu, Li, Hou and Vinter, Euro-Par
 * 2016, for the solves; the factorization's columns the same way), so
 * there is no launch per level.
 *
 * A factorization: the values interleaved (max |M| and non-finite values
 * per member on the way), the factorization kernel, the factorization
 * tails' kernel (a block a member for the last columns), one download of the
 * members' pivot outcomes (a synchronisation). A solve: b interleaved, the
 * L kernel, the L tails' kernel (patterns whose last rows pay solved by
 * columns, a block a member), the U heads' kernel (the same for the rows
 * the U solve meets first), the U kernel, the residual, the refinement
 * decision, then per refinement step the same launches and one download
 * of the count of members still refining; the solutions de-interleaved.
 * Members whose factorization replaced a pivot or met a bad one go to the
 * host (batch_factor.c), which decides them as the single LU does. */
#include "lu/batch/batch_internal.h"

#include "core/cuda_arch_limits.cuh"

#include <cuda_runtime.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = TSI_LU_BATCH_THREADS, WARPS = THREADS / 32, RUN = TSI_LU_BATCH_TICKET_RUN };
enum { SCHEDULE_FACTOR = 0, SCHEDULE_LOWER = 1, SCHEDULE_UPPER = 2 };
enum { NORMS = TSI_LU_BATCH_NORMS };

/* The GPU's state of a batch (batch->device). */
typedef struct tsi_lu_batch_device {
  tsi_lu_batch_pattern_gpu *pattern_host; /* the plan's table, kept */
  int64_t patterns, lanes, values_length, rows;
  int64_t tickets[3];
  int64_t flags, factor_values, a_values_length, vector_values;
  int64_t bytes, peak;
  /* the plan on the device */
  tsi_lu_batch_args args; /* its pointers are device pointers */
  tsi_lu_batch_pattern_gpu *pattern;
  int32_t *ticket[3];
  int64_t *value_units, *vector_units; /* per pattern: first unit of its element-wise blocks (patterns + 1) */
  int64_t value_unit_count, vector_unit_count;
  int64_t *spread_units; /* the same for the spread of narrow patterns' factors (none for the others) */
  int64_t spread_unit_count;
  int64_t *tail_units; /* per pattern: its first lane among those of patterns with an L solve tail (patterns + 1) */
  int64_t tail_unit_count;
  int tail_doubles;           /* the longest tail's accumulators */
  int64_t *factor_tail_units; /* the same for the factorization's tails (its lanes: factor_groups * factor_width) */
  int64_t *head_units;        /* the same for the U solve's heads */
  int64_t head_unit_count;
  int head_doubles; /* the longest head's accumulators */
  int64_t factor_tail_unit_count;
  int factor_stage_doubles; /* the factorization tail's staged column (0: accumulated in the factors) */
  int factor_tail_threads;  /* threads of its blocks */
  /* values and vectors, interleaved */
  double *values, *narrow, *a_values, *b, *y, *x[2], *r[2];
  /* the caller's arrays when they are on the host (uploaded / downloaded) */
  double *user_values, *user_b, *user_x;
  /* per lane */
  unsigned long long *max_bits, *norm_bits;
  int32_t *perturbed, *bad, *nonfinite, *b_bad;
  tsi_lu_batch_refine_state *state;
  int32_t *active; /* per refinement step: members still refining */
  /* dataflow */
  int32_t *ready;
  int32_t epoch;
  unsigned long long *counter;
  int flow_blocks[3];
  int stage_doubles; /* the factorization's shared accumulator per warp, doubles */
  /* host copies of the outcomes */
  int32_t *perturbed_host, *bad_host, *b_bad_host;
  tsi_lu_batch_refine_state *state_host;
} tsi_lu_batch_device;

/* Bytes of the factorization's shared accumulators in a block. */
static size_t stage_bytes(const tsi_lu_batch_device *dev) {
  return (size_t)dev->stage_doubles * WARPS * sizeof(double);
}

/* ---- kernels ------------------------------------------------------------------------ */

/* The pattern a lane or unit falls in: the last p with first[p] <= i. */
__device__ __forceinline__ int64_t find_pattern(const int64_t *first, int64_t patterns, int64_t i) {
  int64_t low = 0, high = patterns - 1;
  while (low < high) {
    const int64_t mid = low + (high - low + 1) / 2;
    if (first[mid] <= i)
      low = mid;
    else
      high = mid - 1;
  }
  return low;
}

__device__ __forceinline__ int64_t pattern_of_lane(const tsi_lu_batch_pattern_gpu *pattern, int64_t patterns,
                                                   int64_t lane) {
  int64_t low = 0, high = patterns - 1;
  while (low < high) {
    const int64_t mid = low + (high - low + 1) / 2;
    if (pattern[mid].lane_base <= lane)
      low = mid;
    else
      high = mid - 1;
  }
  return low;
}

/* Entries of a member an element-wise block handles: TSI_LU_BATCH_CHUNK
 * doubles of a group. */
__host__ __device__ __forceinline__ int64_t unit_entries(int width) { return TSI_LU_BATCH_CHUNK / width; }

enum { MOVE_VALUES = 0, MOVE_IN = 1, MOVE_OUT = 2 };

/*
 * Between the caller's member-major arrays and the interleaved ones, one
 * block per (pattern, group, chunk of entries), through a shared tile so
 * that both sides are read and written in consecutive addresses. MOVE_VALUES
 * and MOVE_IN interleave (the values of A, or b), pad lanes getting zeros,
 * and mark each lane with values that are not finite in `bad`; MOVE_VALUES
 * also gathers each lane's max |M| (scaled as the factorization scales). MOVE_OUT de-interleaves the
 * current solution of each lane (x[state.cur]) for the real members. `user`
 * is read (the caller's values or b) and `dst` written (the interleaved
 * array, or the caller's x).
 */
__global__ void __launch_bounds__(THREADS)
    move_kernel(tsi_lu_batch_args a, const int64_t *units, int64_t unit_count, int mode, const double *user,
                double *dst, const double *x0, const double *x1, const tsi_lu_batch_refine_state *state,
                unsigned long long *max_bits, int32_t *bad) {
  __shared__ double tile[TSI_LU_BATCH_CHUNK + 32];
  __shared__ unsigned long long lane_max[32];
  __shared__ int32_t lane_bad[32];
  for (int64_t unit = blockIdx.x; unit < unit_count; unit += gridDim.x) {
    const int64_t p = find_pattern(units, a.pattern_count, unit);
    const tsi_lu_batch_pattern_gpu P = a.pattern[p];
    const int64_t length = mode == MOVE_VALUES ? P.nnz_a : P.n;
    const int64_t chunk = unit_entries(P.width), stride = chunk + 1;
    const int64_t chunks = (length + chunk - 1) / chunk, u = unit - units[p];
    const int64_t g = u / chunks, first = (u % chunks) * chunk;
    const int64_t count = length - first < chunk ? length - first : chunk;
    const int B = P.width;
    const int64_t il_base = (mode == MOVE_VALUES ? P.a_value_base : P.vector_base) + (g * length + first) * B;
    const int64_t user_base = mode == MOVE_VALUES ? P.user_value_base : P.user_vector_base;
    if (threadIdx.x < 32) {
      lane_max[threadIdx.x] = 0;
      lane_bad[threadIdx.x] = 0;
    }
    __syncthreads();
    if (mode != MOVE_OUT) {
      for (int64_t t = threadIdx.x; t < B * count; t += blockDim.x) {
        const int64_t b = t / count, e = t % count, member = g * B + b;
        tile[b * stride + e] = member < P.members ? user[user_base + member * length + first + e] : 0.0;
      }
      __syncthreads();
      for (int64_t t = threadIdx.x; t < B * count; t += blockDim.x) {
        const int64_t e = t / B, b = t % B;
        const double v = tile[b * stride + e];
        dst[il_base + t] = v;
        if (mode == MOVE_VALUES) {
          const int64_t entry = P.a_base + first + e;
          const double m = fabs(tsi_batch_mul(tsi_batch_mul(a.entry_row_scale[entry], v), a.entry_col_scale[entry]));
          atomicMax(&lane_max[b], tsi_batch_double_bits(m));
        }
        if (!isfinite(v))
          atomicOr(&lane_bad[b], TSI_LU_BATCH_BAD_VALUE);
      }
      __syncthreads();
      if (threadIdx.x < B) {
        const int64_t lane = P.lane_base + g * B + threadIdx.x;
        if (mode == MOVE_VALUES)
          atomicMax(&max_bits[lane], lane_max[threadIdx.x]);
        if (lane_bad[threadIdx.x])
          atomicOr(&bad[lane], lane_bad[threadIdx.x]);
      }
    } else {
      for (int64_t t = threadIdx.x; t < B * count; t += blockDim.x) {
        const int64_t e = t / B, b = t % B;
        const double *x = state[P.lane_base + g * B + b].cur ? x1 : x0;
        tile[b * stride + e] = x[il_base + t];
      }
      __syncthreads();
      for (int64_t t = threadIdx.x; t < B * count; t += blockDim.x) {
        const int64_t b = t / count, e = t % count, member = g * B + b;
        if (member < P.members)
          dst[user_base + member * length + first + e] = tile[b * stride + e];
      }
    }
    __syncthreads();
  }
}

/*
 * The factors of narrow patterns (factorized in groups of factor_width)
 * spread into the solves' layout (groups of width), one block per (pattern,
 * group of the layout, chunk of positions): the width / factor_width
 * narrow groups' runs of the chunk read in consecutive addresses into a
 * shared tile, the layout's run written from it
 * (tsi_lu_batch_spread_position one position at a time).
 */
__global__ void __launch_bounds__(THREADS)
    spread_kernel(tsi_lu_batch_args a, const int64_t *units, int64_t unit_count) {
  __shared__ double tile[2 * TSI_LU_BATCH_CHUNK];
  for (int64_t unit = blockIdx.x; unit < unit_count; unit += gridDim.x) {
    const int64_t p = find_pattern(units, a.pattern_count, unit);
    const tsi_lu_batch_pattern_gpu P = a.pattern[p];
    const int64_t W = P.width, B = P.factor_width, stride = W + 1;
    const int64_t chunk = unit_entries(P.width), chunks = (P.lu_nnz + chunk - 1) / chunk, u = unit - units[p];
    const int64_t g = u / chunks, first = (u % chunks) * chunk;
    const int64_t count = P.lu_nnz - first < chunk ? P.lu_nnz - first : chunk;
    const int64_t run = count * B; /* doubles of one narrow group's part */
    for (int64_t t = threadIdx.x; t < W * count; t += blockDim.x) {
      const int64_t r = t / run, o = t % run;
      const double *from = a.narrow + P.narrow_base + ((g * (W / B) + r) * P.lu_nnz + first) * B;
      tile[(o / B) * stride + r * B + o % B] = from[o];
    }
    __syncthreads();
    double *to = a.values + P.value_base + (g * P.lu_nnz + first) * W;
    for (int64_t t = threadIdx.x; t < W * count; t += blockDim.x)
      to[t] = tile[(t / W) * stride + t % W];
    __syncthreads();
  }
}

enum { WAIT_GROUP = 8 };

/* Wait until the marks of deps[q] hold the epoch for q = first, first +
 * stride, ... below hi: WAIT_GROUP marks read together per round (a lane
 * of a long row or column has many, and each read is a trip to L2). */
__device__ __forceinline__ void wait_marks(const int32_t *deps, int64_t first, int64_t hi, int64_t stride,
                                           const int32_t *marks, int32_t epoch) {
  for (int64_t q = first; q < hi; q += WAIT_GROUP * stride) {
    const volatile int32_t *mark[WAIT_GROUP];
#pragma unroll
    for (int c = 0; c < WAIT_GROUP; c++)
      mark[c] = q + c * stride < hi ? marks + deps[q + c * stride] : NULL;
    bool ready;
    do {
      ready = true;
#pragma unroll
      for (int c = 0; c < WAIT_GROUP; c++)
        if (mark[c] && *mark[c] != epoch)
          ready = false;
    } while (!ready);
  }
}

/* Wait until every index deps[lo .. hi) of the group's marks holds the
 * epoch (the lanes split the list, a mark at a time: a pruned column's
 * list is short, and the factorization has no registers to spare), then
 * order what follows after it. */
__device__ __forceinline__ void wait_for(const int32_t *deps, int64_t lo, int64_t hi, const int32_t *marks,
                                         int32_t epoch, int lane) {
  for (int64_t q = lo + lane; q < hi; q += 32) {
    const volatile int32_t *mark = marks + deps[q];
    while (*mark != epoch) {
    }
  }
  __syncwarp();
  __threadfence();
}

/* Publish index k of the group: every lane's stores fenced, then the mark. */
__device__ __forceinline__ void publish(int32_t *marks, int64_t k, int32_t epoch, int lane) {
  __threadfence();
  __syncwarp();
  if (lane == 0)
    *(volatile int32_t *)(marks + k) = epoch;
}

/*
 * One dataflow launch of a schedule: each warp takes RUN tickets at a time
 * from *counter and runs them in order, a ticket being (column or row,
 * group). No deadlock: a ticket waits only on earlier tickets of its own
 * pattern and group (the merged level order), taken by warps that are
 * running and that wait only on still earlier ones.
 * SCHEDULE_FACTOR: column k for one group's members (lanes b, s);
 * SCHEDULE_LOWER and _UPPER: row k for a run of groups, a lane a member,
 * the right side (b on the first solve, else the current residual), the
 * output (x0 on the first solve, else the other solution vector, plus the
 * current one) chosen per lane by its refinement state.
 */
template <int SCHEDULE>
__global__ void
__launch_bounds__(THREADS, tsi_min_blocks_per_sm(THREADS, SCHEDULE == SCHEDULE_FACTOR ? 2 : TSI_LU_BATCH_SOLVE_BLOCKS))
    flow_kernel(tsi_lu_batch_args a, const int32_t *tickets, int64_t count, int32_t *ready, int32_t epoch,
                unsigned long long *counter, int first_solve, const double *b_il, double *y, double *x0, double *x1,
                const double *r0, const double *r1, const tsi_lu_batch_refine_state *state, int stage_doubles) {
  /* The factorization's accumulators: stage_doubles per warp (dynamic
   * shared memory; none for the solves). */
  extern __shared__ double stage_slab[];
  const int lane = threadIdx.x & 31;
  for (;;) {
    unsigned long long start = 0;
    if (lane == 0)
      start = atomicAdd(counter, (unsigned long long)RUN);
    start = __shfl_sync(0xffffffffu, start, 0);
    if (start >= (unsigned long long)count)
      return;
    const int64_t end = (int64_t)start + RUN < count ? (int64_t)start + RUN : count;
    for (int64_t t = (int64_t)start; t < end; t++) {
      const int32_t column = tickets[2 * t];
      const tsi_lu_batch_pattern_gpu P = a.pattern[a.col_pattern[column]];
      const int64_t k = column - P.col_base;
      if (SCHEDULE == SCHEDULE_FACTOR) {
        /* One factorization group: member b of it on lanes s = 0 .. 32 / B - 1. */
        const int B = P.factor_width;
        const int64_t g = tickets[2 * t + 1];
        int32_t *marks = ready + P.flag_base + g * P.n;
        const int64_t begin = a.col_ptr[P.ptr_base + k];
        const int64_t *waits = a.wait_ptr[SCHEDULE_FACTOR] + P.ptr_base + k;
        wait_for(a.wait_idx[SCHEDULE_FACTOR], waits[0], waits[1], marks, epoch, lane);
        /* The column in shared memory when it fits the warp's part. */
        const int64_t length = a.col_ptr[P.ptr_base + k + 1] - begin;
        double *stage =
            length * B <= stage_doubles ? stage_slab + (int64_t)(threadIdx.x / 32) * stage_doubles + lane % B : NULL;
        tsi_lu_batch_column(&a, &P, k, g, lane % B, lane / B, 32 / B, stage);
        publish(marks, k, epoch, lane);
        continue;
      }
      /* A run of 32 / B groups, a lane a member: lane (gi, b) serves member
       * b of group run * 32 / B + gi, waiting on that group's marks. */
      const bool lower = SCHEDULE == SCHEDULE_LOWER;
      const int64_t *waits = a.wait_ptr[SCHEDULE] + P.ptr_base + k;
      const int B = P.width;
      const int b = lane % B;
      const int64_t g = (int64_t)tickets[2 * t + 1] * (32 / B) + lane / B;
      const bool valid = g < P.groups;
      int32_t *marks = ready + P.flag_base + (valid ? g : 0) * P.n;
      /* The row's head before the wait, the rest after it. */
      tsi_lu_batch_row row;
      const double *v = NULL;
      int64_t vo = 0;
      int cur = 0;
      if (valid) {
        cur = first_solve ? 0 : state[P.lane_base + g * B + b].cur;
        v = a.values + P.value_base + tsi_lu_batch_offset(&P, g, b, P.lu_nnz);
        vo = P.vector_base + tsi_lu_batch_offset(&P, g, b, P.n);
        if (lower)
          tsi_lu_batch_lower_head(&a, &P, k, v, (first_solve ? b_il : (cur ? r1 : r0)) + vo, &row);
        else
          tsi_lu_batch_upper_head(&a, &P, k, v, y + vo, first_solve ? NULL : (cur ? x1 : x0) + vo, &row);
        wait_marks(a.wait_idx[SCHEDULE], waits[0] + b, waits[1], B, marks, epoch);
      }
      __syncwarp();
      __threadfence();
      if (valid) {
        if (lower)
          tsi_lu_batch_lower_finish(&a, &P, k, v, &row, y + vo);
        else
          tsi_lu_batch_upper_finish(&a, &P, k, v, &row, y + vo, (first_solve ? x0 : (cur ? x0 : x1)) + vo,
                                    !first_solve);
      }
      __threadfence();
      __syncwarp();
      if (valid && b == 0)
        *(volatile int32_t *)(marks + k) = epoch;
    }
  }
}

/* A solve launch's member by lanes (the L solve's tails, the U solve's
 * heads): its pattern, its group and place in the group, its factors, its
 * vectors' offset and which of the refinement's buffers is current (0 on
 * the first solve). */
typedef struct lane_member {
  tsi_lu_batch_pattern_gpu P;
  int64_t g;
  int b;
  const double *v;
  int64_t vo;
  int cur;
} lane_member;

__device__ __forceinline__ lane_member member_of_unit(const tsi_lu_batch_args &a, const int64_t *units, int64_t unit,
                                                      int first_solve, const tsi_lu_batch_refine_state *state) {
  lane_member m;
  const int64_t p = find_pattern(units, a.pattern_count, unit);
  m.P = a.pattern[p];
  const int64_t lane = unit - units[p];
  m.g = lane / m.P.width;
  m.b = (int)(lane % m.P.width);
  m.cur = first_solve ? 0 : state[m.P.lane_base + lane].cur;
  m.v = a.values + m.P.value_base + tsi_lu_batch_offset(&m.P, m.g, m.b, m.P.lu_nnz);
  m.vo = m.P.vector_base + tsi_lu_batch_offset(&m.P, m.g, m.b, m.P.n);
  return m;
}

/*
 * The L solve's tail (rows lower_tail .. n - 1) of each member of the
 * patterns that have one, by columns (tsi_lu_batch_lower_tail_rows,
 * _column), a block a lane, after the dataflow launch solved the rows
 * before: the tail's accumulators in shared memory, the block's threads
 * sharing its rows and then each column's entries, a barrier between
 * columns. Right sides and solutions chosen per lane as the dataflow does.
 */
__global__ void __launch_bounds__(TSI_LU_BATCH_TAIL_THREADS)
    lower_tail_kernel(tsi_lu_batch_args a, const int64_t *units, int64_t unit_count, int first_solve,
                      const double *b_il, double *y, const double *r0, const double *r1,
                      const tsi_lu_batch_refine_state *state) {
  extern __shared__ double own[];
  for (int64_t unit = blockIdx.x; unit < unit_count; unit += gridDim.x) {
    const lane_member m = member_of_unit(a, units, unit, first_solve, state);
    const tsi_lu_batch_pattern_gpu &P = m.P;
    const double *rhs = (first_solve ? b_il : (m.cur ? r1 : r0)) + m.vo;
    const int t = (int)threadIdx.x, threads = (int)blockDim.x;
    tsi_lu_batch_tail_entries current, next;
    tsi_lu_batch_lower_tail_load(&a, &P, P.lower_tail, m.v, t, threads, &current);
    tsi_lu_batch_lower_tail_rows(&a, &P, m.v, rhs, y + m.vo, own, t, threads);
    __syncthreads();
    for (int64_t j = P.lower_tail; j < P.n; j++) {
      tsi_lu_batch_lower_tail_load(&a, &P, j + 1, m.v, t, threads, &next);
      tsi_lu_batch_lower_tail_column(&a, &P, j, m.v, own, y + m.vo, t, threads, &current);
      current = next;
      __syncthreads();
    }
  }
}

/*
 * The U solve's head (rows upper_head .. n - 1) of each member of the
 * patterns that have one, by columns from the last
 * (tsi_lu_batch_upper_head_rows, _column), a block a lane, after the L
 * solve and before the U solve's dataflow launch, whose epoch the head's
 * rows are marked with (by lane 0 of each group: every member's head is
 * done before that launch starts). Solutions and refinement bases chosen per
 * lane as the dataflow does.
 */
__global__ void __launch_bounds__(TSI_LU_BATCH_TAIL_THREADS)
    upper_head_kernel(tsi_lu_batch_args a, const int64_t *units, int64_t unit_count, int first_solve, double *y,
                      double *x0, double *x1, const tsi_lu_batch_refine_state *state, int32_t *ready, int32_t epoch) {
  extern __shared__ double own[];
  for (int64_t unit = blockIdx.x; unit < unit_count; unit += gridDim.x) {
    const lane_member m = member_of_unit(a, units, unit, first_solve, state);
    const tsi_lu_batch_pattern_gpu &P = m.P;
    double *out = (first_solve ? x0 : (m.cur ? x0 : x1)) + m.vo;
    const double *base = first_solve ? NULL : (m.cur ? x1 : x0) + m.vo;
    const int t = (int)threadIdx.x, threads = (int)blockDim.x;
    tsi_lu_batch_head_entries current, next;
    tsi_lu_batch_upper_head_load(&a, &P, P.n - 1, m.v, t, threads, &current);
    tsi_lu_batch_upper_head_rows(&P, y + m.vo, own, t, threads);
    __syncthreads();
    for (int64_t j = P.n - 1; j >= P.upper_head; j--) {
      tsi_lu_batch_upper_head_load(&a, &P, j - 1, m.v, t, threads, &next);
      tsi_lu_batch_upper_head_column(&a, &P, j, m.v, own, y + m.vo, out, base, t, threads, &current);
      current = next;
      __syncthreads();
    }
    if (m.b == 0)
      for (int64_t i = P.upper_head + t; i < P.n; i += threads)
        ready[P.flag_base + m.g * P.n + i] = epoch;
  }
}

/*
 * The factorization's tail (columns factor_tail .. n - 1) of each member of
 * the patterns that have one, a block a member, after the dataflow launch
 * factored the columns before: the block's threads are the member's lanes
 * of tsi_lu_batch_column (each update step's entries shared among them,
 * synchronised by the block), the column staged in shared memory when it
 * fits, a barrier between columns.
 */
__global__ void __launch_bounds__(TSI_LU_BATCH_FACTOR_TAIL_MOST)
    factor_tail_kernel(tsi_lu_batch_args a, const int64_t *units, int64_t unit_count, int stage_doubles) {
  extern __shared__ double column_stage[];
  for (int64_t unit = blockIdx.x; unit < unit_count; unit += gridDim.x) {
    const int64_t p = find_pattern(units, a.pattern_count, unit);
    const tsi_lu_batch_pattern_gpu P = a.pattern[p];
    const int64_t lane = unit - units[p], g = lane / P.factor_width;
    const int b = (int)(lane % P.factor_width);
    for (int64_t k = P.factor_tail; k < P.n; k++) {
      const int64_t length = a.col_ptr[P.ptr_base + k + 1] - a.col_ptr[P.ptr_base + k];
      double *stage = length * P.factor_width <= stage_doubles ? column_stage + b : NULL;
      tsi_lu_batch_column(&a, &P, k, g, b, (int)threadIdx.x, (int)blockDim.x, stage);
      __syncthreads();
    }
  }
}

/*
 * r = b - A x for the solution being judged (x0 after the first solve, else
 * each lane's candidate, the vector that is not current), one block per
 * (pattern, group, chunk of rows), a thread per (row, member); each lane's
 * maxima (tsi_lu_batch_residual_row's shares) and whether x is finite,
 * gathered in shared memory and then once per block in global memory.
 */
__global__ void __launch_bounds__(THREADS)
    residual_kernel(tsi_lu_batch_args a, const int64_t *units, int64_t unit_count, int first_solve, const double *b,
                    const double *x0, const double *x1, double *r0, double *r1, const tsi_lu_batch_refine_state *state,
                    unsigned long long *norm_bits, int32_t *nonfinite) {
  __shared__ unsigned long long lane_norm[NORMS][32];
  __shared__ int32_t lane_nonfinite[32];
  for (int64_t unit = blockIdx.x; unit < unit_count; unit += gridDim.x) {
    const int64_t p = find_pattern(units, a.pattern_count, unit);
    const tsi_lu_batch_pattern_gpu P = a.pattern[p];
    const int64_t chunk = unit_entries(P.width), chunks = (P.n + chunk - 1) / chunk, u = unit - units[p];
    const int64_t g = u / chunks, first = (u % chunks) * chunk;
    const int64_t count = P.n - first < chunk ? P.n - first : chunk;
    const int B = P.width;
    if (threadIdx.x < 32) {
      for (int q = 0; q < NORMS; q++)
        lane_norm[q][threadIdx.x] = 0;
      lane_nonfinite[threadIdx.x] = 0;
    }
    __syncthreads();
    for (int64_t t = threadIdx.x; t < B * count; t += blockDim.x) {
      const int64_t i = first + t / B;
      const int b_lane = (int)(t % B);
      const int64_t l = P.lane_base + g * B + b_lane;
      const int cur = first_solve ? 0 : 1 - state[l].cur;
      const int64_t vo = P.vector_base + tsi_lu_batch_offset(&P, g, b_lane, P.n);
      const double *av = a.a_values + P.a_value_base + tsi_lu_batch_offset(&P, g, b_lane, P.nnz_a);
      const tsi_lu_batch_row_norms n =
          tsi_lu_batch_residual_row(&a, &P, i, av, b + vo, (cur ? x1 : x0) + vo, (cur ? r1 : r0) + vo);
      for (int q = 0; q < NORMS; q++)
        atomicMax(&lane_norm[q][b_lane], tsi_batch_double_bits(n.share[q]));
      if (!n.finite)
        atomicOr(&lane_nonfinite[b_lane], 1);
    }
    __syncthreads();
    if (threadIdx.x < B) {
      const int64_t l = P.lane_base + g * B + threadIdx.x;
      for (int q = 0; q < NORMS; q++)
        atomicMax(&norm_bits[l * NORMS + q], lane_norm[q][threadIdx.x]);
      if (lane_nonfinite[threadIdx.x])
        atomicOr(&nonfinite[l], 1);
    }
    __syncthreads();
  }
}

/* The refinement's decision for every lane (tsi_lu_batch_refine_decide):
 * its measures from the residual's maxima, which are then cleared for the
 * next residual; lanes the host decides, lanes whose b is not finite, and
 * pad lanes stop at once; the lanes still refining counted in *active. */
__global__ void __launch_bounds__(THREADS)
    decide_kernel(const tsi_lu_batch_pattern_gpu *pattern, int64_t patterns, int64_t lanes, int first_solve,
                  int max_steps, double tolerance, unsigned long long *norm_bits, int32_t *nonfinite,
                  const int32_t *perturbed, const int32_t *bad, const int32_t *b_bad, tsi_lu_batch_refine_state *state,
                  int32_t *active) {
  for (int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; l < lanes; l += (int64_t)gridDim.x * blockDim.x) {
    unsigned long long *bits = norm_bits + l * NORMS;
    double norms[NORMS];
    for (int q = 0; q < NORMS; q++) {
      norms[q] = tsi_batch_bits_double(bits[q]);
      bits[q] = 0;
    }
    const tsi_lu_batch_measures measures = tsi_lu_batch_measure(norms, !nonfinite[l]);
    nonfinite[l] = 0;
    tsi_lu_batch_refine_state st = state[l];
    tsi_lu_batch_refine_decide(&st, measures, first_solve, max_steps, tolerance);
    const tsi_lu_batch_pattern_gpu *P = &pattern[pattern_of_lane(pattern, patterns, l)];
    if (bad[l] || perturbed[l] || b_bad[l] || l - P->lane_base >= P->members)
      st.active = 0;
    state[l] = st;
    if (st.active)
      atomicAdd(active, 1);
  }
}

/* ---- device memory ------------------------------------------------------------------ */

static ts_status device_alloc(ts_lu_batch *batch, tsi_lu_batch_device *dev, void **ptr, int64_t count, size_t size,
                              const char *what) {
  *ptr = NULL;
  int64_t bytes;
  if (tsi_mul_overflows(count > 0 ? count : 1, (int64_t)size, &bytes))
    return tsi_error(batch->ctx, TS_ERROR_OVERFLOW, "LU batch on the GPU: %s: %lld entries overflow", what,
                     (long long)count);
  ts_status st = tsi_cuda_malloc(batch->ctx, ptr, (size_t)bytes);
  if (st != TS_SUCCESS)
    return tsi_error(batch->ctx, st, "LU batch on the GPU: no device memory for %s (%lld bytes; %lld held)", what,
                     (long long)bytes, (long long)dev->bytes);
  dev->bytes += bytes;
  if (dev->bytes > dev->peak)
    dev->peak = dev->bytes;
  batch->stats.peak_device_bytes = dev->peak;
  return TS_SUCCESS;
}

/* A device copy of count entries of size bytes from the host. */
static ts_status device_copy(ts_lu_batch *batch, tsi_lu_batch_device *dev, void **ptr, const void *host, int64_t count,
                             size_t size, const char *what) {
  ts_status st = device_alloc(batch, dev, ptr, count, size, what);
  if (st == TS_SUCCESS && count > 0 && host)
    st = tsi_cuda_memcpy_to_device(batch->ctx, *ptr, host, (size_t)count * size);
  return st;
}

void tsi_lu_batch_gpu_release(ts_lu_batch *batch) {
  tsi_lu_batch_device *dev = (tsi_lu_batch_device *)batch->device;
  if (!dev)
    return;
  if (batch->ctx && batch->ctx->backend == TS_BACKEND_CUDA && tsi_cuda_activate(batch->ctx) == TS_SUCCESS)
    (void)tsi_cuda_sync(batch->ctx);
  tsi_lu_batch_args *a = &dev->args;
  const void *arrays[] = {dev->pattern,
                          a->col_ptr,
                          a->map_ptr,
                          a->a_row_ptr,
                          a->lrow_ptr,
                          a->urow_ptr,
                          a->diag_pos,
                          a->row_perm,
                          a->col_perm,
                          a->col_pattern,
                          a->row_idx,
                          a->source,
                          a->a_col,
                          a->lrow_col,
                          a->urow_col,
                          a->map,
                          a->lrow_pos,
                          a->urow_pos,
                          a->row_scale,
                          a->col_scale,
                          a->entry_row_scale,
                          a->entry_col_scale,
                          a->wait_ptr[0],
                          a->wait_ptr[1],
                          a->wait_ptr[2],
                          a->wait_idx[0],
                          a->wait_idx[1],
                          a->wait_idx[2],
                          dev->ticket[0],
                          dev->ticket[1],
                          dev->ticket[2],
                          dev->value_units,
                          dev->spread_units,
                          dev->tail_units,
                          dev->factor_tail_units,
                          dev->narrow,
                          dev->vector_units,
                          dev->values,
                          dev->a_values,
                          dev->b,
                          dev->y,
                          dev->x[0],
                          dev->x[1],
                          dev->r[0],
                          dev->r[1],
                          dev->user_values,
                          dev->user_b,
                          dev->user_x,
                          dev->max_bits,
                          dev->norm_bits,
                          dev->perturbed,
                          dev->bad,
                          dev->nonfinite,
                          dev->b_bad,
                          dev->state,
                          dev->active,
                          dev->ready,
                          dev->counter};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    if (arrays[i])
      tsi_cuda_free((void *)arrays[i]);
  free(dev->pattern_host);
  free(dev->perturbed_host);
  free(dev->bad_host);
  free(dev->b_bad_host);
  free(dev->state_host);
  free(dev);
  batch->device = NULL;
}

enum { UNITS_VALUES = 0, UNITS_VECTORS = 1, UNITS_SPREAD = 2 };

/* First unit of each pattern's element-wise blocks, on the device: over
 * nnz_a entries per member (UNITS_VALUES), n (UNITS_VECTORS), or lu_nnz for
 * the spread of narrow patterns' factors (UNITS_SPREAD; none for the
 * others). */
static ts_status upload_units(ts_lu_batch *batch, tsi_lu_batch_device *dev, int what, int64_t **out, int64_t *total) {
  int64_t *units = (int64_t *)tsi_malloc_array(dev->patterns + 1, sizeof(int64_t));
  if (!units)
    return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch on the GPU: no memory for the block table");
  units[0] = 0;
  for (int64_t p = 0; p < dev->patterns; p++) {
    const tsi_lu_batch_pattern_gpu *P = &dev->pattern_host[p];
    const int64_t length = what == UNITS_VALUES    ? P->nnz_a
                           : what == UNITS_VECTORS ? P->n
                           : P->narrow_base >= 0   ? P->lu_nnz
                                                   : 0;
    const int64_t chunk = unit_entries(P->width);
    units[p + 1] = units[p] + (int64_t)P->groups * ((length + chunk - 1) / chunk);
  }
  *total = units[dev->patterns];
  ts_status st = device_copy(batch, dev, (void **)out, units, dev->patterns + 1, sizeof(int64_t), "the block table");
  free(units);
  return st;
}

/* The blocks of a solve's rows by columns (the L solve's tails, or with
 * `head` the U solve's heads): a lane each of the patterns that have them;
 * the most rows any has kept for the shared memory. */
static ts_status upload_column_rows_units(ts_lu_batch *batch, tsi_lu_batch_device *dev, bool head, int64_t **out,
                                          int64_t *count, int *doubles) {
  const char *what = head ? "the heads' table" : "the tails' table";
  int64_t *units = (int64_t *)tsi_malloc_array(dev->patterns + 1, sizeof(int64_t));
  if (!units)
    return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch on the GPU: no memory for %s", what);
  units[0] = 0;
  *doubles = 0;
  for (int64_t p = 0; p < dev->patterns; p++) {
    const tsi_lu_batch_pattern_gpu *P = &dev->pattern_host[p];
    const int64_t rows = P->n - (head ? P->upper_head : P->lower_tail);
    units[p + 1] = units[p] + (rows > 0 ? (int64_t)P->groups * P->width : 0);
    if (rows > *doubles)
      *doubles = (int)rows;
  }
  *count = units[dev->patterns];
  ts_status st =
      *count > 0 ? device_copy(batch, dev, (void **)out, units, dev->patterns + 1, sizeof(int64_t), what) : TS_SUCCESS;
  free(units);
  return st;
}

/* The factorization tails' blocks: a lane each (of the factorization's
 * lanes) of the patterns that have a tail; the stage holds the tails'
 * longest column (times factor_width: the column function's stride) where
 * that fits TSI_LU_BATCH_TAIL_STAGE_DOUBLES. */
static ts_status upload_factor_tail_units(ts_lu_batch *batch, tsi_lu_batch_device *dev, const tsi_lu_batch_plan *plan) {
  int64_t *units = (int64_t *)tsi_malloc_array(dev->patterns + 1, sizeof(int64_t));
  if (!units)
    return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch on the GPU: no memory for the tails' table");
  units[0] = 0;
  int64_t longest = 0;
  for (int64_t p = 0; p < dev->patterns; p++) {
    const tsi_lu_batch_pattern_gpu *P = &dev->pattern_host[p];
    units[p + 1] = units[p] + (P->factor_tail < P->n ? (int64_t)P->factor_groups * P->factor_width : 0);
    for (int64_t k = P->factor_tail; k < P->n; k++) {
      const int64_t need = (plan->col_ptr[P->ptr_base + k + 1] - plan->col_ptr[P->ptr_base + k]) * P->factor_width;
      longest = need > longest ? need : longest;
    }
  }
  dev->factor_tail_unit_count = units[dev->patterns];
  const int asked = batch->switches.factor_tail_threads;
  dev->factor_tail_threads =
      asked > 0 && asked <= TSI_LU_BATCH_FACTOR_TAIL_MOST ? asked : TSI_LU_BATCH_FACTOR_TAIL_THREADS;
  dev->factor_stage_doubles =
      (int)(longest <= TSI_LU_BATCH_TAIL_STAGE_DOUBLES && !batch->switches.factor_tail_unstaged ? longest : 0);
  ts_status st = dev->factor_tail_unit_count > 0 ? device_copy(batch, dev, (void **)&dev->factor_tail_units, units,
                                                               dev->patterns + 1, sizeof(int64_t), "the tails' table")
                                                 : TS_SUCCESS;
  free(units);
  return st;
}

/* The plan built and uploaded, the working arrays allocated. */
static ts_status device_build(ts_lu_batch *batch, tsi_lu_batch_device *dev) {
  tsi_lu_batch_plan plan;
  ts_status st = tsi_lu_batch_plan_build(batch, &plan);
  if (st != TS_SUCCESS)
    return st;
  dev->patterns = plan.pattern_count;
  dev->lanes = plan.lanes;
  dev->values_length = batch->values;
  dev->rows = batch->rows;
  dev->tickets[0] = plan.factor_tickets;
  dev->tickets[1] = plan.lower_tickets;
  dev->tickets[2] = plan.upper_tickets;
  dev->flags = plan.flags;
  dev->factor_values = plan.factor_values;
  const int64_t narrow_values = plan.narrow_values;
  dev->a_values_length = plan.a_values;
  dev->vector_values = plan.vector_values;
  dev->pattern_host = plan.pattern;
  plan.pattern = NULL; /* kept */
  tsi_lu_batch_args *a = &dev->args;
  a->pattern_count = plan.pattern_count;
  a->threshold = batch->options.pivot_threshold;
  a->root_eps = sqrt(batch->options.float_factors ? (double)FLT_EPSILON : DBL_EPSILON);
  a->perturb = !batch->options.no_perturbation;
  a->single = batch->options.float_factors;
#define TSI_UP(field, source, count, type, what)                                                                       \
  if (st == TS_SUCCESS)                                                                                                \
  st = device_copy(batch, dev, (void **)&field, source, count, sizeof(type), what)
  TSI_UP(dev->pattern, dev->pattern_host, plan.pattern_count, tsi_lu_batch_pattern_gpu, "the patterns' table");
  TSI_UP(a->col_ptr, plan.col_ptr, plan.ptrs, int64_t, "column offsets");
  TSI_UP(a->map_ptr, plan.map_ptr, plan.ptrs, int64_t, "update map offsets");
  TSI_UP(a->a_row_ptr, plan.a_row_ptr, plan.ptrs, int64_t, "row offsets of A");
  TSI_UP(a->lrow_ptr, plan.lrow_ptr, plan.ptrs, int64_t, "row offsets of L");
  TSI_UP(a->urow_ptr, plan.urow_ptr, plan.ptrs, int64_t, "row offsets of U");
  TSI_UP(a->diag_pos, plan.diag_pos, plan.columns, int64_t, "diagonal positions");
  TSI_UP(a->row_perm, plan.row_perm, plan.columns, int32_t, "row permutations");
  TSI_UP(a->col_perm, plan.col_perm, plan.columns, int32_t, "column permutations");
  TSI_UP(a->col_pattern, plan.col_pattern, plan.columns, int32_t, "column patterns");
  TSI_UP(a->row_scale, plan.row_scale, plan.columns, double, "row scaling");
  TSI_UP(a->col_scale, plan.col_scale, plan.columns, double, "column scaling");
  TSI_UP(a->row_idx, plan.row_idx, plan.lu_nnz, int32_t, "rows of L + U");
  TSI_UP(a->source, plan.source, plan.lu_nnz, int32_t, "sources of L + U");
  TSI_UP(a->a_col, plan.a_col, plan.entries, int32_t, "columns of A");
  TSI_UP(a->entry_row_scale, plan.entry_row_scale, plan.entries, double, "entry scaling");
  TSI_UP(a->entry_col_scale, plan.entry_col_scale, plan.entries, double, "entry scaling");
  TSI_UP(a->lrow_col, plan.lrow_col, plan.l_nnz, int32_t, "rows of L");
  TSI_UP(a->lrow_pos, plan.lrow_pos, plan.l_nnz, int64_t, "rows of L");
  TSI_UP(a->urow_col, plan.urow_col, plan.u_nnz, int32_t, "rows of U");
  TSI_UP(a->urow_pos, plan.urow_pos, plan.u_nnz, int64_t, "rows of U");
  if (plan.map)
    TSI_UP(a->map, plan.map, plan.map_size, int32_t, "the update map");
  for (int w = 0; w < 3; w++) {
    TSI_UP(a->wait_ptr[w], plan.wait_ptr[w], plan.ptrs, int64_t, "wait lists");
    TSI_UP(a->wait_idx[w], plan.wait_idx[w], plan.waits[w], int32_t, "wait lists");
  }
  TSI_UP(dev->ticket[0], plan.factor_ticket, 2 * plan.factor_tickets, int32_t, "factorization tickets");
  TSI_UP(dev->ticket[1], plan.lower_ticket, 2 * plan.lower_tickets, int32_t, "L solve tickets");
  TSI_UP(dev->ticket[2], plan.upper_ticket, 2 * plan.upper_tickets, int32_t, "U solve tickets");
#undef TSI_UP
  if (st == TS_SUCCESS)
    st = upload_factor_tail_units(batch, dev, &plan);
  tsi_lu_batch_plan_free(&plan);
  a->pattern = dev->pattern;
  if (st == TS_SUCCESS)
    st = upload_units(batch, dev, UNITS_VALUES, &dev->value_units, &dev->value_unit_count);
  if (st == TS_SUCCESS)
    st = upload_units(batch, dev, UNITS_VECTORS, &dev->vector_units, &dev->vector_unit_count);
  if (st == TS_SUCCESS)
    st = upload_units(batch, dev, UNITS_SPREAD, &dev->spread_units, &dev->spread_unit_count);
  if (st == TS_SUCCESS)
    st = upload_column_rows_units(batch, dev, false, &dev->tail_units, &dev->tail_unit_count, &dev->tail_doubles);
  if (st == TS_SUCCESS)
    st = upload_column_rows_units(batch, dev, true, &dev->head_units, &dev->head_unit_count, &dev->head_doubles);
#define TSI_ALLOC(field, count, type, what)                                                                            \
  if (st == TS_SUCCESS)                                                                                                \
  st = device_alloc(batch, dev, (void **)&field, count, sizeof(type), what)
  TSI_ALLOC(dev->values, dev->factor_values, double, "the factors");
  TSI_ALLOC(dev->narrow, narrow_values, double, "the narrow factorizations' factors");
  TSI_ALLOC(dev->a_values, dev->a_values_length, double, "the values of A");
  TSI_ALLOC(dev->b, dev->vector_values, double, "right-hand sides");
  TSI_ALLOC(dev->y, dev->vector_values, double, "the solves' vector");
  TSI_ALLOC(dev->x[0], dev->vector_values, double, "solutions");
  TSI_ALLOC(dev->x[1], dev->vector_values, double, "solutions");
  TSI_ALLOC(dev->r[0], dev->vector_values, double, "residuals");
  TSI_ALLOC(dev->r[1], dev->vector_values, double, "residuals");
  TSI_ALLOC(dev->max_bits, dev->lanes, unsigned long long, "pivot scales");
  TSI_ALLOC(dev->norm_bits, NORMS * dev->lanes, unsigned long long, "norms");
  TSI_ALLOC(dev->perturbed, dev->lanes, int32_t, "pivot outcomes");
  TSI_ALLOC(dev->bad, dev->lanes, int32_t, "pivot outcomes");
  TSI_ALLOC(dev->nonfinite, dev->lanes, int32_t, "solution checks");
  TSI_ALLOC(dev->b_bad, dev->lanes, int32_t, "right-hand side checks");
  TSI_ALLOC(dev->state, dev->lanes, tsi_lu_batch_refine_state, "refinement states");
  TSI_ALLOC(dev->active, batch->options.refine_max_steps + 2, int32_t, "refinement counts");
  TSI_ALLOC(dev->ready, dev->flags, int32_t, "ready marks");
  TSI_ALLOC(dev->counter, 1, unsigned long long, "the ticket counter");
#undef TSI_ALLOC
  a->values = dev->values;
  a->narrow = dev->narrow;
  a->a_values = dev->a_values;
  a->max_bits = dev->max_bits;
  a->perturbed = dev->perturbed;
  a->bad = dev->bad;
  dev->perturbed_host = (int32_t *)tsi_malloc_array(dev->lanes > 0 ? dev->lanes : 1, sizeof(int32_t));
  dev->bad_host = (int32_t *)tsi_malloc_array(dev->lanes > 0 ? dev->lanes : 1, sizeof(int32_t));
  dev->b_bad_host = (int32_t *)tsi_malloc_array(dev->lanes > 0 ? dev->lanes : 1, sizeof(int32_t));
  dev->state_host =
      (tsi_lu_batch_refine_state *)tsi_malloc_array(dev->lanes > 0 ? dev->lanes : 1, sizeof(tsi_lu_batch_refine_state));
  if (st == TS_SUCCESS && (!dev->perturbed_host || !dev->bad_host || !dev->b_bad_host || !dev->state_host))
    st = tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch on the GPU: no host memory for the outcomes");
  cudaStream_t stream = (cudaStream_t)batch->ctx->stream;
  if (st == TS_SUCCESS) {
    cudaError_t err =
        cudaMemsetAsync(dev->ready, 0, (size_t)(dev->flags > 0 ? dev->flags : 1) * sizeof(int32_t), stream);
    if (err == cudaSuccess)
      err = cudaMemsetAsync(dev->norm_bits, 0, (size_t)(NORMS * dev->lanes) * sizeof(unsigned long long), stream);
    if (err == cudaSuccess)
      err = cudaMemsetAsync(dev->nonfinite, 0, (size_t)(dev->lanes > 0 ? dev->lanes : 1) * sizeof(int32_t), stream);
    if (err == cudaSuccess) /* read whole by the first decision, which sets every field */
      err = cudaMemsetAsync(dev->state, 0,
                            (size_t)(dev->lanes > 0 ? dev->lanes : 1) * sizeof(tsi_lu_batch_refine_state), stream);
    if (err != cudaSuccess)
      st = tsi_cuda_error(batch->ctx, err, "LU batch on the GPU: clearing the marks");
  }
  /* Resident blocks of the dataflow kernel: enough warps to keep it busy,
   * never more blocks than there is work for. */
  int device = 0, sms = 1, per_sm = 1, optin = 0;
  if (st == TS_SUCCESS) {
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
      err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    /* The factorization's shared accumulators: TSI_LU_BATCH_STAGE_DOUBLES a
     * warp, fewer where the device's blocks cannot hold two blocks' worth. */
    if (err == cudaSuccess)
      err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (err == cudaSuccess) {
      const int64_t most = (int64_t)optin / 2 / (WARPS * (int64_t)sizeof(double));
      dev->stage_doubles = (int)(most < TSI_LU_BATCH_STAGE_DOUBLES ? most : TSI_LU_BATCH_STAGE_DOUBLES);
      err = cudaFuncSetAttribute(flow_kernel<SCHEDULE_FACTOR>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)stage_bytes(dev));
    }
    for (int s = 0; s < 3 && err == cudaSuccess; s++) {
      err = s == SCHEDULE_FACTOR ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, flow_kernel<SCHEDULE_FACTOR>,
                                                                                 THREADS, stage_bytes(dev))
            : s == SCHEDULE_LOWER
                ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, flow_kernel<SCHEDULE_LOWER>, THREADS, 0)
                : cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, flow_kernel<SCHEDULE_UPPER>, THREADS, 0);
      const int64_t runs = (dev->tickets[s] + RUN - 1) / RUN, wanted = (runs + WARPS - 1) / WARPS;
      const int64_t resident = (int64_t)sms * (per_sm > 0 ? per_sm : 1);
      dev->flow_blocks[s] = (int)(wanted < resident ? (wanted > 0 ? wanted : 1) : resident);
    }
    if (err != cudaSuccess)
      st = tsi_cuda_error(batch->ctx, err, "LU batch on the GPU: reading the device's occupancy");
  }
  return st;
}

static ts_status device_get(ts_lu_batch *batch, tsi_lu_batch_device **out) {
  *out = (tsi_lu_batch_device *)batch->device;
  if (*out)
    return TS_SUCCESS;
  ts_status st = TS_SUCCESS;
  tsi_lu_batch_device *dev = (tsi_lu_batch_device *)calloc(1, sizeof *dev);
  if (!dev)
    return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch on the GPU: no memory for its state");
  batch->device = dev;
  st = device_build(batch, dev);
  if (st != TS_SUCCESS) {
    tsi_lu_batch_gpu_release(batch);
    return st;
  }
  *out = dev;
  return TS_SUCCESS;
}

/* ---- launches ------------------------------------------------------------------------ */

static unsigned grid_for(int64_t units) {
  const int64_t most = 65535 * 16;
  return (unsigned)(units < 1 ? 1 : units < most ? units : most);
}

/* Room for the next epoch: the marks cleared when it would wrap. */
static cudaError_t epoch_room(ts_lu_batch *batch, tsi_lu_batch_device *dev) {
  if (dev->epoch < INT32_MAX)
    return cudaSuccess;
  dev->epoch = 0;
  return cudaMemsetAsync(dev->ready, 0, (size_t)(dev->flags > 0 ? dev->flags : 1) * sizeof(int32_t),
                         (cudaStream_t)batch->ctx->stream);
}

/* One dataflow launch of schedule s, with a new epoch and the ticket
 * counter zeroed. */
static ts_status run_flow(ts_lu_batch *batch, tsi_lu_batch_device *dev, int s, int first_solve, const char *op) {
  cudaStream_t stream = (cudaStream_t)batch->ctx->stream;
  cudaError_t err = epoch_room(batch, dev);
  if (err == cudaSuccess)
    err = cudaMemsetAsync(dev->counter, 0, sizeof(unsigned long long), stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(batch->ctx, err, "%s: clearing the ticket counter", op);
  const int32_t epoch = ++dev->epoch;
#define TSI_FLOW(S)                                                                                                    \
  flow_kernel<S><<<dev->flow_blocks[s], THREADS, S == SCHEDULE_FACTOR ? stage_bytes(dev) : 0, stream>>>(               \
      dev->args, dev->ticket[s], dev->tickets[s], dev->ready, epoch, dev->counter, first_solve, dev->b, dev->y,        \
      dev->x[0], dev->x[1], dev->r[0], dev->r[1], dev->state, dev->stage_doubles)
  if (s == SCHEDULE_FACTOR)
    TSI_FLOW(SCHEDULE_FACTOR);
  else if (s == SCHEDULE_LOWER)
    TSI_FLOW(SCHEDULE_LOWER);
  else
    TSI_FLOW(SCHEDULE_UPPER);
#undef TSI_FLOW
  return tsi_cuda_check_launch(batch->ctx, op);
}

ts_status tsi_lu_batch_gpu_factor(ts_lu_batch *batch, const double *values, bool on_device) {
  const char *op = "ts_lu_batch_factor on the GPU";
  tsi_lu_batch_device *dev;
  ts_status st = tsi_cuda_activate(batch->ctx);
  if (st == TS_SUCCESS)
    st = device_get(batch, &dev);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)batch->ctx->stream;
  const double *user = values;
  if (!on_device) {
    if (!dev->user_values)
      st = device_alloc(batch, dev, (void **)&dev->user_values, dev->values_length, sizeof(double), "the values");
    if (st == TS_SUCCESS && dev->values_length > 0)
      st = tsi_cuda_memcpy_to_device(batch->ctx, dev->user_values, values, (size_t)dev->values_length * sizeof(double));
    if (st != TS_SUCCESS)
      return st;
    user = dev->user_values;
  }
  const size_t lane_bytes = (size_t)(dev->lanes > 0 ? dev->lanes : 1);
  cudaError_t err = cudaMemsetAsync(dev->max_bits, 0, lane_bytes * sizeof(unsigned long long), stream);
  if (err == cudaSuccess)
    err = cudaMemsetAsync(dev->perturbed, 0, lane_bytes * sizeof(int32_t), stream);
  if (err == cudaSuccess)
    err = cudaMemsetAsync(dev->bad, 0, lane_bytes * sizeof(int32_t), stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(batch->ctx, err, "%s: clearing the outcomes", op);
  move_kernel<<<grid_for(dev->value_unit_count), THREADS, 0, stream>>>(
      dev->args, dev->value_units, dev->value_unit_count, MOVE_VALUES, user, dev->a_values, NULL, NULL, NULL,
      dev->max_bits, dev->bad);
  st = tsi_cuda_check_launch(batch->ctx, op);
  if (st == TS_SUCCESS)
    st = run_flow(batch, dev, SCHEDULE_FACTOR, 0, op);
  if (st == TS_SUCCESS && dev->factor_tail_unit_count > 0) {
    factor_tail_kernel<<<grid_for(dev->factor_tail_unit_count), dev->factor_tail_threads,
                         (size_t)dev->factor_stage_doubles * sizeof(double), stream>>>(
        dev->args, dev->factor_tail_units, dev->factor_tail_unit_count, dev->factor_stage_doubles);
    st = tsi_cuda_check_launch(batch->ctx, op);
  }
  if (st == TS_SUCCESS && dev->spread_unit_count > 0) {
    spread_kernel<<<grid_for(dev->spread_unit_count), THREADS, 0, stream>>>(dev->args, dev->spread_units,
                                                                            dev->spread_unit_count);
    st = tsi_cuda_check_launch(batch->ctx, op);
  }
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_host(batch->ctx, dev->perturbed_host, dev->perturbed, lane_bytes * sizeof(int32_t));
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_host(batch->ctx, dev->bad_host, dev->bad, lane_bytes * sizeof(int32_t));
  if (st != TS_SUCCESS)
    return st;
  for (int64_t p = 0; p < dev->patterns; p++) {
    const tsi_lu_batch_pattern_gpu *P = &dev->pattern_host[p];
    for (int64_t i = 0; i < P->members; i++) {
      const int64_t lane = P->lane_base + i;
      ts_lu_batch_member *info = &batch->member[P->first_member + i].info;
      if (dev->perturbed_host[lane] || dev->bad_host[lane]) {
        info->on_host = 1;
      } else {
        info->status = TS_SUCCESS;
        info->singular_column = -1;
        info->perturbed_pivots = 0;
      }
    }
  }
  return TS_SUCCESS;
}

ts_status tsi_lu_batch_gpu_solve(ts_lu_batch *batch, const double *b, double *x, bool on_device) {
  const char *op = "ts_lu_batch_solve on the GPU";
  tsi_lu_batch_device *dev = (tsi_lu_batch_device *)batch->device;
  if (!dev)
    return tsi_error(batch->ctx, TS_ERROR_INTERNAL, "%s: no device state after a factorization", op);
  cudaStream_t stream = (cudaStream_t)batch->ctx->stream;
  ts_status st = tsi_cuda_activate(batch->ctx);
  if (st != TS_SUCCESS)
    return st;
  const double *user_b = b;
  double *user_x = x;
  if (!on_device) {
    if (!dev->user_b)
      st = device_alloc(batch, dev, (void **)&dev->user_b, dev->rows, sizeof(double), "right-hand sides");
    if (st == TS_SUCCESS && !dev->user_x)
      st = device_alloc(batch, dev, (void **)&dev->user_x, dev->rows, sizeof(double), "solutions");
    if (st == TS_SUCCESS && dev->rows > 0)
      st = tsi_cuda_memcpy_to_device(batch->ctx, dev->user_b, b, (size_t)dev->rows * sizeof(double));
    if (st != TS_SUCCESS)
      return st;
    user_b = dev->user_b;
    user_x = dev->user_x;
  }
  const int max_steps = batch->options.refine_max_steps < 0 ? 0 : batch->options.refine_max_steps;
  cudaError_t err = cudaMemsetAsync(dev->active, 0, (size_t)(max_steps + 2) * sizeof(int32_t), stream);
  if (err == cudaSuccess)
    err = cudaMemsetAsync(dev->b_bad, 0, (size_t)(dev->lanes > 0 ? dev->lanes : 1) * sizeof(int32_t), stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(batch->ctx, err, "%s: clearing the counts", op);
  move_kernel<<<grid_for(dev->vector_unit_count), THREADS, 0, stream>>>(dev->args, dev->vector_units,
                                                                        dev->vector_unit_count, MOVE_IN, user_b, dev->b,
                                                                        NULL, NULL, NULL, NULL, dev->b_bad);
  st = tsi_cuda_check_launch(batch->ctx, op);
  const unsigned lane_blocks = grid_for((dev->lanes + THREADS - 1) / THREADS);
  for (int step = 0; st == TS_SUCCESS && step <= max_steps; step++) {
    const int first = step == 0;
    st = run_flow(batch, dev, SCHEDULE_LOWER, first, op);
    if (st == TS_SUCCESS && dev->tail_unit_count > 0) {
      lower_tail_kernel<<<grid_for(dev->tail_unit_count), TSI_LU_BATCH_TAIL_THREADS,
                          (size_t)dev->tail_doubles * sizeof(double), stream>>>(
          dev->args, dev->tail_units, dev->tail_unit_count, first, dev->b, dev->y, dev->r[0], dev->r[1], dev->state);
      st = tsi_cuda_check_launch(batch->ctx, op);
    }
    if (st == TS_SUCCESS && dev->head_unit_count > 0) {
      /* The head's rows marked with the U launch's epoch (run_flow's next). */
      const cudaError_t err = epoch_room(batch, dev);
      if (err != cudaSuccess)
        st = tsi_cuda_error(batch->ctx, err, "%s: clearing the marks", op);
      else
        upper_head_kernel<<<grid_for(dev->head_unit_count), TSI_LU_BATCH_TAIL_THREADS,
                            (size_t)dev->head_doubles * sizeof(double), stream>>>(
            dev->args, dev->head_units, dev->head_unit_count, first, dev->y, dev->x[0], dev->x[1], dev->state,
            dev->ready, dev->epoch + 1);
      if (st == TS_SUCCESS)
        st = tsi_cuda_check_launch(batch->ctx, op);
    }
    if (st == TS_SUCCESS)
      st = run_flow(batch, dev, SCHEDULE_UPPER, first, op);
    if (st != TS_SUCCESS)
      break;
    residual_kernel<<<grid_for(dev->vector_unit_count), THREADS, 0, stream>>>(
        dev->args, dev->vector_units, dev->vector_unit_count, first, dev->b, dev->x[0], dev->x[1], dev->r[0], dev->r[1],
        dev->state, dev->norm_bits, dev->nonfinite);
    st = tsi_cuda_check_launch(batch->ctx, op);
    if (st != TS_SUCCESS)
      break;
    decide_kernel<<<lane_blocks, THREADS, 0, stream>>>(
        dev->pattern, dev->patterns, dev->lanes, first, max_steps, batch->options.refine_tolerance, dev->norm_bits,
        dev->nonfinite, dev->perturbed, dev->bad, dev->b_bad, dev->state, dev->active + step);
    st = tsi_cuda_check_launch(batch->ctx, op);
    int32_t active = 0;
    if (st == TS_SUCCESS)
      st = tsi_cuda_memcpy_to_host(batch->ctx, &active, dev->active + step, sizeof active);
    if (active == 0)
      break;
  }
  if (st != TS_SUCCESS)
    return st;
  move_kernel<<<grid_for(dev->vector_unit_count), THREADS, 0, stream>>>(dev->args, dev->vector_units,
                                                                        dev->vector_unit_count, MOVE_OUT, NULL, user_x,
                                                                        dev->x[0], dev->x[1], dev->state, NULL, NULL);
  st = tsi_cuda_check_launch(batch->ctx, op);
  if (st == TS_SUCCESS && !on_device && dev->rows > 0)
    st = tsi_cuda_memcpy_to_host(batch->ctx, x, dev->user_x, (size_t)dev->rows * sizeof(double));
  const size_t lane_count = (size_t)(dev->lanes > 0 ? dev->lanes : 1);
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_host(batch->ctx, dev->state_host, dev->state,
                                 lane_count * sizeof(tsi_lu_batch_refine_state));
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_host(batch->ctx, dev->b_bad_host, dev->b_bad, lane_count * sizeof(int32_t));
  if (st != TS_SUCCESS)
    return st;
  for (int64_t p = 0; p < dev->patterns; p++) {
    const tsi_lu_batch_pattern_gpu *P = &dev->pattern_host[p];
    for (int64_t i = 0; i < P->members; i++) {
      const int64_t m = P->first_member + i;
      ts_lu_batch_member *info = &batch->member[m].info;
      if (info->on_host || TS_IS_ERROR(info->status))
        continue;
      const tsi_lu_batch_refine_state *state = &dev->state_host[P->lane_base + i];
      if (dev->b_bad_host[P->lane_base + i]) {
        tsi_lu_batch_member_fail(batch, m, TS_ERROR_INVALID_ARGUMENT,
                                 "ts_lu_batch_solve: the member's b holds a value that is not finite (the right-hand "
                                 "sides must be finite)");
        continue;
      }
      info->backward_error = state->measures.normwise;
      info->refinement_steps = state->steps;
      if (!isfinite(state->measures.solution_norm))
        tsi_lu_batch_member_fail(batch, m, TS_ERROR_OVERFLOW,
                                 "ts_lu_batch_solve: the member's solution does not fit in double (an entry "
                                 "overflowed to infinity or NaN)");
    }
  }
  return TS_SUCCESS;
}

ts_status tsi_lu_batch_gpu_copy(ts_lu_batch *batch, void *dst, const void *src, int64_t count, bool to_device) {
  if (count <= 0)
    return TS_SUCCESS;
  ts_status st = tsi_cuda_activate(batch->ctx);
  if (st != TS_SUCCESS)
    return st;
  const size_t bytes = (size_t)count * sizeof(double);
  return to_device ? tsi_cuda_memcpy_to_device(batch->ctx, dst, src, bytes)
                   : tsi_cuda_memcpy_to_host(batch->ctx, dst, src, bytes);
}
