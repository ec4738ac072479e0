/* The left-looking levels of the GPU factorization (Xia, Jiang, Agrawal and
 * Ramnath, PPoPP 2023, sections 2.2 and 3.4; GLU 3.0's level types, Peng
 * and Tan 2020): the columns of a wide level are computed one group of
 * threads per column (a warp for short subcolumns, a block of 128 or 512
 * threads for long ones): each column gathers the updates of the columns it
 * depends on, in increasing order, into a dense scratch vector (when one per
 * concurrent column fits) or in place, finding each row in the sorted column
 * by binary search (sparse scratch). With the dense scratch, a level whose
 * longest column fits shared memory accumulates there instead, the scratch
 * slot holding each row's position in the column. Consecutive levels of one
 * group size whose columns fit shared memory run as one launch without
 * level barriers (left_flow_shared): a column waits, step by step, for the
 * mark of each column it gathers, so its early steps overlap the levels
 * before it; switches.gpu_level_sync keeps the level-by-level launches as
 * the ablation. Every entry receives its updates in increasing column order,
 * products and differences rounded separately (no fused multiply-add), so
 * the factors are bitwise repeatable, the same as the host's left-looking
 * code's, and no atomics touch values. */
#include "lu/numeric/numeric_cuda.cuh"

#include <cuda_runtime.h>
#include <stdint.h>

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
template <typename T, bool FLOW> __device__ __forceinline__ work_of<T> load_value(const T *values, int64_t q) {
  return FLOW ? load_volatile(values + q) : widen(values[q]);
}

/* Column k by one group of GROUP threads (lane = its thread): gather the
 * updates of the columns j of U(:, k) in increasing order, then the pivot
 * and the division of L(:, k). x: the group's dense scratch (DENSE). */
template <typename T, bool DENSE, int GROUP>
__device__ void left_column(const factor_args &a, T *values, int32_t k, work_of<T> *x, int lane) {
  using W = work_of<T>;
  const int64_t begin = a.col_ptr[k], diag = a.diag_pos[k], end = a.col_ptr[k + 1];
  W *acc = (W *)a.acc;
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
    W first_l = work_zero<W>();
    if (lo + lane < hi) {
      first_row = row_idx[lo + lane];
      first_l = widen(values[lo + lane]);
    }
    for (int t = 0; t < steps; t++) {
      const int64_t p = base + t;
      const int32_t j = __shfl_sync(0xffffffffu, dep, t);
      int64_t next_lo = 0, next_hi = 0;
      int32_t next_row = 0;
      W next_l = work_zero<W>();
      if (t + 1 < steps) {
        next_lo = __shfl_sync(0xffffffffu, dep_lo, t + 1);
        next_hi = __shfl_sync(0xffffffffu, dep_hi, t + 1);
        if (next_lo + lane < next_hi) {
          next_row = row_idx[next_lo + lane];
          next_l = widen(values[next_lo + lane]);
        }
      }
      const W u = DENSE ? x[j] : acc[p];
      if (!is_zero(u)) { /* the same for every lane: when zero, nothing written and no barrier needed */
        for (int64_t q = lo + lane; q < hi; q += GROUP) {
          const int32_t i = q == lo + lane ? first_row : row_idx[q];
          const W l = q == lo + lane ? first_l : widen(values[q]);
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
  W pivot = DENSE ? x[k] : acc[diag];
  const int kind = classify_pivot(&pivot, a.rule);
  const W d = divider(pivot);
  group_sync<GROUP>(); /* x[k] read by every lane before it is cleared */
  for (int64_t p = begin + lane; p < end; p += GROUP) {
    W v;
    if (DENSE) {
      v = x[row_idx[p]];
      x[row_idx[p]] = work_zero<W>();
    } else {
      v = acc[p];
    }
    T out = p < diag ? narrow<T>(v) : (p == diag ? narrow<T>(pivot) : narrow<T>(divide(v, d)));
    values[p] = out;
  }
  if (lane == 0)
    a.kind[k] = (signed char)kind;
  group_sync<GROUP>(); /* x is all zero again before the next column */
  if (lane == 0)
    mark_ready(a, k);
}

/* The position of row i in a column's sorted rows (held in shared memory),
 * where i is known to be one of them: a branch-free lower bound whose
 * steps depend only on the length, so the group's lanes stay together. */
__device__ __forceinline__ int32_t locate_row(const int32_t *rows, int32_t len, int32_t i) {
  int32_t base = 0;
  for (int32_t half = len; half > 1;) {
    const int32_t step = half / 2;
    base = rows[base + step] <= i ? base + step : base;
    half -= step;
  }
  return base;
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
 * the slot is a zero dense scratch again. SEARCH: no slot; the column's rows
 * are copied to shared memory (rows_s) and a row's position is found there
 * by binary search, so the number of groups in flight is not bounded by the
 * slots (n words each) but by shared memory. */
template <typename T, int GROUP, bool FLOW, bool SEARCH>
__device__ void left_column_shared(const factor_args &a, T *values, int32_t k, work_of<T> *xs, int32_t *pos,
                                   int32_t *rows_s, int lane) {
  using W = work_of<T>;
  constexpr int B = GROUP == 512 ? 1 : 2; /* entries of L(:, j) a lane holds ahead */
  const int64_t begin = a.col_ptr[k], diag = a.diag_pos[k], end = a.col_ptr[k + 1];
  const int32_t *row_idx = a.row_idx;
  const W *acc = (const W *)a.acc;
  const int32_t len = (int32_t)(end - begin);
  for (int64_t p = begin + lane; p < end; p += GROUP) {
    xs[p - begin] = acc[p];
    if (SEARCH)
      rows_s[p - begin] = row_idx[p];
    else
      pos[row_idx[p]] = (int32_t)(p - begin);
  }
  group_sync<GROUP>();
  auto position = [&](int32_t i) { return SEARCH ? locate_row(rows_s, len, i) : pos[i]; };
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
    W l0[B], l1[B];
#pragma unroll
    for (int b = 0; b < B; b++) {
      const int64_t q = lo0 + lane + b * GROUP, q1 = lo1 + lane + b * GROUP;
      rows1[b] = q1 < hi1 ? row_idx[q1] : 0;
      l1[b] = q1 < hi1 ? load_value<T, FLOW>(values, q1) : work_zero<W>();
      at0[b] = q < hi0 ? position(row_idx[q]) : 0;
      l0[b] = q < hi0 ? load_value<T, FLOW>(values, q) : work_zero<W>();
    }
    for (int t = 0; t < steps; t++) {
      /* Ahead: step t + 1's positions (its rows are here), step t + 2's rows. */
      int64_t lo2, hi2;
      step_bounds(dep_lo, dep_hi, t + 2, steps, &lo2, &hi2);
      if (FLOW)
        wait_step(a, dep, waiting, t + 2);
      int32_t at1[B], rows2[B];
      W l2[B];
#pragma unroll
      for (int b = 0; b < B; b++) {
        const int64_t q1 = lo1 + lane + b * GROUP, q2 = lo2 + lane + b * GROUP;
        at1[b] = q1 < hi1 ? position(rows1[b]) : 0;
        rows2[b] = q2 < hi2 ? row_idx[q2] : 0;
        l2[b] = q2 < hi2 ? load_value<T, FLOW>(values, q2) : work_zero<W>();
      }
      const W u = xs[base + t - begin];
      if (!is_zero(u)) { /* the same for every lane */
#pragma unroll
        for (int b = 0; b < B; b++)
          if (lo0 + lane + b * GROUP < hi0)
            xs[at0[b]] = minus_product(xs[at0[b]], l0[b], u);
        for (int64_t q = lo0 + lane + B * GROUP; q < hi0; q += GROUP) { /* beyond what was loaded ahead */
          const int32_t at = position(row_idx[q]);
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
  W pivot = xs[diag - begin];
  const int kind = classify_pivot(&pivot, a.rule);
  const W d = divider(pivot);
  group_sync<GROUP>(); /* xs[diag] read by every lane before the column is stored */
  for (int64_t p = begin + lane; p < end; p += GROUP) {
    const W v = xs[p - begin];
    if (!SEARCH)
      pos[row_idx[p]] = 0;
    values[p] = p < diag ? narrow<T>(v) : (p == diag ? narrow<T>(pivot) : narrow<T>(divide(v, d)));
  }
  if (lane == 0)
    a.kind[k] = (signed char)kind;
  group_sync<GROUP>(); /* the map is zero and xs free before the next column */
  if (lane == 0)
    mark_ready(a, k);
}

/* Columns of a level whose longest column's values fit shared memory:
 * `room` working values (doubles, or complex pairs) of dynamic shared memory
 * per group. */
template <typename T, int GROUP>
__global__ void __launch_bounds__(GROUP == 32 ? TSI_LU_LEFT_WARP_BLOCK : GROUP)
    left_level_shared(factor_args a, T *values, int64_t first, int64_t count, int room) {
  extern __shared__ double column_values[];
  const int per_block = blockDim.x / GROUP;
  const int lane = threadIdx.x % GROUP;
  const int64_t group_id = (int64_t)blockIdx.x * per_block + threadIdx.x / GROUP;
  const int64_t groups = (int64_t)gridDim.x * per_block;
  work_of<T> *xs = (work_of<T> *)column_values + (int64_t)(threadIdx.x / GROUP) * room;
  int32_t *pos = (int32_t *)((work_of<T> *)a.scratch + group_id * a.n);
  for (int64_t c = group_id; c < count; c += groups)
    left_column_shared<T, GROUP, false, false>(a, values, a.cols[first + c], xs, pos, nullptr, lane);
}

/*
 * Consecutive levels as one launch, without a barrier between them: each
 * group takes the next column of the schedule (first .. first + count, in
 * level order) from *next and, before each step, waits for the mark of the
 * column j it gathers (ready[j] == epoch), so a column starts on the
 * columns finished long ago while the last ones it needs are still running:
 * the chain of dependent steps is a column's longest path of steps, not the
 * sum over the levels of each level's longest column (bench/notes/lu-numeric.md).
 *
 * No deadlock: a column waits only on columns of earlier levels, hence of
 * earlier tickets, taken by groups already running (a group takes a ticket
 * only when it runs), or finished by earlier launches; the earliest
 * unfinished column always has what it needs. The arithmetic is
 * left_column_shared's, so the factors are the same bits.
 */
template <typename T, int GROUP, bool SEARCH>
__global__ void __launch_bounds__(GROUP == 32 ? TSI_LU_LEFT_WARP_BLOCK : GROUP)
    left_flow_shared(factor_args a, T *values, int64_t first, int64_t count, int room, unsigned long long *next) {
  extern __shared__ double column_values[];
  __shared__ unsigned long long block_ticket;
  const int per_block = blockDim.x / GROUP;
  const int lane = threadIdx.x % GROUP;
  const int64_t group_id = (int64_t)blockIdx.x * per_block + threadIdx.x / GROUP;
  work_of<T> *xs = (work_of<T> *)column_values + (int64_t)(threadIdx.x / GROUP) * room;
  /* SEARCH: the groups' rows after every group's values. */
  int32_t *rows_s = SEARCH ? (int32_t *)((work_of<T> *)column_values + (int64_t)per_block * room) +
                                 (int64_t)(threadIdx.x / GROUP) * room
                           : nullptr;
  int32_t *pos = SEARCH ? nullptr : (int32_t *)((work_of<T> *)a.scratch + group_id * a.n);
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
    left_column_shared<T, GROUP, true, SEARCH>(a, values, a.cols[first + (int64_t)ticket], xs, pos, rows_s, lane);
  }
}

template <typename T, bool DENSE, int GROUP>
__global__ void __launch_bounds__(GROUP == 32 ? TSI_LU_LEFT_WARP_BLOCK : GROUP)
    left_level(factor_args a, T *values, int64_t first, int64_t count) {
  const int per_block = blockDim.x / GROUP;
  const int lane = threadIdx.x % GROUP;
  const int64_t group_id = (int64_t)blockIdx.x * per_block + threadIdx.x / GROUP;
  const int64_t groups = (int64_t)gridDim.x * per_block;
  work_of<T> *x = DENSE ? (work_of<T> *)a.scratch + group_id * a.n : nullptr;
  for (int64_t c = group_id; c < count; c += groups)
    left_column<T, DENSE, GROUP>(a, values, a.cols[first + c], x, lane);
}

template <typename T> static cudaError_t allow_shared_columns(int bytes) {
  cudaError_t err = cudaFuncSetAttribute(left_level_shared<T, 512>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute(left_flow_shared<T, 512, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute(left_flow_shared<T, 512, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  return err;
}

ts_status tsi_lu_left_prepare(ts_context *ctx, tsi_lu_device *dev) {
  int optin = 0, per_block = 0;
  cudaFuncAttributes flow;
  cudaError_t err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, ctx->device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlock, ctx->device);
  if (err == cudaSuccess)
    err = cudaFuncGetAttributes(&flow, left_flow_shared<double, 512, false>);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "LU on the GPU: the shared memory of the left-looking kernels");
  /* The dataflow kernels' own shared words come off the dynamic part. */
  const int64_t reserved = (int64_t)flow.sharedSizeBytes;
  dev->shared_column_bytes =
      TSI_LU_SHARED_COLUMN_BYTES < optin - reserved ? TSI_LU_SHARED_COLUMN_BYTES : optin - reserved;
  dev->shared_block_bytes =
      TSI_LU_SHARED_BLOCK_BYTES < per_block - reserved ? TSI_LU_SHARED_BLOCK_BYTES : per_block - reserved;
  err = allow_shared_columns<double>((int)dev->shared_column_bytes);
  if (err == cudaSuccess)
    err = allow_shared_columns<float>((int)dev->shared_column_bytes);
  if (err == cudaSuccess)
    err = allow_shared_columns<tsi_complex128>((int)dev->shared_column_bytes);
  if (err == cudaSuccess)
    err = allow_shared_columns<tsi_complex64>((int)dev->shared_column_bytes);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "LU on the GPU: allowing %lld bytes of shared memory per column",
                          (long long)dev->shared_column_bytes);
  return TS_SUCCESS;
}

/* Shared memory of a block of groups of `group` threads whose columns have
 * up to `longest` entries, or 0 when over the device cache's cap (the
 * column then accumulates in global memory). */
static size_t shared_column_bytes(const tsi_lu_device *dev, int group, int64_t longest, bool search = false) {
  const int per_block = group == 32 ? TSI_LU_LEFT_WARP_BLOCK / 32 : 1;
  const size_t entry = work_bytes(dev->parts) + (search ? sizeof(int32_t) : 0);
  const size_t bytes = (size_t)per_block * (size_t)longest * entry;
  return bytes <= (size_t)(group == 512 ? dev->shared_column_bytes : dev->shared_block_bytes) ? bytes : 0;
}

template <typename T>
static void launch_left_level(const tsi_lu_device *dev, const factor_args &args, T *values, int64_t first,
                              int64_t count, int group, int32_t longest, bool dense, bool shared_columns,
                              cudaStream_t stream) {
  /* Warps share a block (8 columns); larger groups are the block, so that
   * their barriers are the block's. */
  const int64_t slots = dev->scratch_slots;
  const int block = group == 32 ? TSI_LU_LEFT_WARP_BLOCK : group;
  const int per_block = block / group;
  int64_t blocks = (count + per_block - 1) / per_block;
  if (dense && blocks * per_block > slots)
    blocks = slots / per_block; /* each group owns one scratch slot; slots >= 8 */
  if (blocks > 65535 * 16)
    blocks = 65535 * 16;
  const unsigned grid = (unsigned)blocks;
  const size_t shared = shared_column_bytes(dev, group, longest);
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
 * (left_flow_shared): as many groups as there are columns, or, where each
 * group's position map is a scratch slot, as there are slots; groups that
 * are not resident yet start when others finish and take the tickets left.
 * The slot-free search (rows in shared memory) is taken by warps where few
 * slots would hold fewer groups than the columns (TSI_LU_FLOW_SEARCH_SLOTS). */
template <typename T>
static void launch_left_flow(const tsi_lu_device *dev, const factor_args &args, T *values, int64_t first, int64_t count,
                             int group, int32_t longest, int lookup, unsigned long long *next, cudaStream_t stream) {
  const int64_t slots = dev->scratch_slots;
  const int block = group == 32 ? TSI_LU_LEFT_WARP_BLOCK : group;
  const int per_block = block / group;
  int64_t blocks = (count + per_block - 1) / per_block;
  const bool search =
      shared_column_bytes(dev, group, longest, true) > 0 &&
      (lookup == TSI_LU_FLOW_LOOKUP_SEARCH || (lookup == TSI_LU_FLOW_LOOKUP_AUTO && group == 32 &&
                                               blocks * per_block > slots && slots <= TSI_LU_FLOW_SEARCH_SLOTS));
  if (!search && blocks * per_block > slots)
    blocks = slots / per_block;
  if (blocks > 65535 * 16)
    blocks = 65535 * 16;
  const unsigned grid = (unsigned)blocks;
  const size_t shared = shared_column_bytes(dev, group, longest, search);
#define TSI_LEFT_FLOW(G, S)                                                                                            \
  left_flow_shared<T, G, S><<<grid, block, shared, stream>>>(args, values, first, count, longest, next)
  if (search)
    group == 32 ? TSI_LEFT_FLOW(32, true) : (group == 128 ? TSI_LEFT_FLOW(128, true) : TSI_LEFT_FLOW(512, true));
  else
    group == 32 ? TSI_LEFT_FLOW(32, false) : (group == 128 ? TSI_LEFT_FLOW(128, false) : TSI_LEFT_FLOW(512, false));
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
    return tsi_cuda_error(ctx, err, "LU factorization on the GPU: clearing the column marks");
  *epoch = ++dev->factor_epoch;
  return TS_SUCCESS;
}

template <typename T>
static ts_status run_left_looking(ts_lu *lu, tsi_lu_device *dev, factor_args *args, cudaStream_t stream) {
  T *values = (T *)dev->values;
  const bool dense = dev->scratch_mode == TSI_LU_SCRATCH_DENSE, shared_columns = !lu->switches.gpu_global_columns;
  const bool flow = dense && shared_columns && !lu->switches.gpu_level_sync && dev->factor_ready;
  if (flow) {
    ts_status st = next_factor_epoch(lu->ctx, dev, stream, &args->epoch);
    if (st != TS_SUCCESS)
      return st;
    args->ready = dev->factor_ready;
  }
  int64_t segment = 0;
  double last_check = tsi_seconds();
  for (int64_t l = 0; l < dev->left_levels;) {
    ts_status st = tsi_lu_gpu_check_cancel(lu->ctx, &last_check, dev->left_ptr_host[l], dev->n);
    if (st != TS_SUCCESS)
      return st;
    const int group = dev->left_group_host[l];
    int64_t longest = dev->left_len_host[l], last = l + 1;
    if (!flow || shared_column_bytes(dev, group, longest) == 0) {
      const int64_t first = dev->left_ptr_host[l], count = dev->left_ptr_host[l + 1] - first;
      launch_left_level<T>(dev, *args, values, first, count, group, dev->left_len_host[l], dense, shared_columns,
                           stream);
      l++;
      continue;
    }
    /* The following levels of the same group size whose columns fit shared
     * memory run as one dataflow launch. */
    while (last < dev->left_levels && dev->left_group_host[last] == group &&
           shared_column_bytes(dev, group, longest > dev->left_len_host[last] ? longest : dev->left_len_host[last]) >
               0) {
      if (dev->left_len_host[last] > longest)
        longest = dev->left_len_host[last];
      last++;
    }
    const int64_t first = dev->left_ptr_host[l], count = dev->left_ptr_host[last] - first;
    launch_left_flow<T>(dev, *args, values, first, count, group, (int32_t)longest, lu->switches.gpu_flow_lookup,
                        dev->flow_next + segment++, stream);
    l = last;
  }
  return TS_SUCCESS;
}

ts_status tsi_lu_left_looking_cuda(ts_lu *lu, tsi_lu_device *dev, factor_args *args, cudaStream_t stream) {
  if (dev->parts == 2)
    return dev->single ? run_left_looking<tsi_complex64>(lu, dev, args, stream)
                       : run_left_looking<tsi_complex128>(lu, dev, args, stream);
  return dev->single ? run_left_looking<float>(lu, dev, args, stream) : run_left_looking<double>(lu, dev, args, stream);
}
