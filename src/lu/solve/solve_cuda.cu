/* Triangular solves with the factors on the GPU: x = op(A)^{-1} b for
 * several right-hand sides. Each row (or column of the transposed factor)
 * gathers its known terms with one warp, summed in a fixed shuffle tree, so
 * the result is bitwise repeatable. The four schedules (L and U by rows, U^T
 * and L^T by columns: rows ordered by level, Anderson and Saad 1989) are
 * computed on the host at the first solve and kept.
 *
 * By default each triangular solve is one launch without barriers (Liu, Li,
 * Hou and Vinter, "A synchronization-free algorithm for parallel sparse
 * triangular solves", Euro-Par 2016): a row waits on the ready marks of the
 * rows it reads and then publishes its own. Warps take rows one at a time in
 * the schedule's order from a counter (warp per row with rows fetched in
 * topological order: Su et al., "CapelliniSpTRSV", 2020). The level-scheduled
 * solve (one launch per level; Naumov 2011 for the GPU) stays as the
 * reference: both use the same arithmetic, so they agree bit for bit.
 * Where the factorization kept its trailing block dense, that block's rows
 * are solved by blocks of rows from it (solve_dense_tail_cuda.cu), after
 * the other rows (L, U^T) or before them (U, L^T), in both paths. */
#include "lu/numeric/numeric_cuda.cuh"
#include "lu/solve/solve_internal.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
  SOLVE_LOWER = TSI_LU_SOLVE_LOWER,
  SOLVE_UPPER = TSI_LU_SOLVE_UPPER,
  SOLVE_UPPER_T = TSI_LU_SOLVE_UPPER_T,
  SOLVE_LOWER_T = TSI_LU_SOLVE_LOWER_T
};
enum { SOLVE_THREADS = TSI_LU_SOLVE_THREADS, SOLVE_WARPS = SOLVE_THREADS / 32 };
/* tsi_lu_solve_schedule.ready: how its items were ordered. */
enum { SCHEDULE_OWN_LEVELS = 1, SCHEDULE_FACTOR_ORDER = 2 };

struct solve_args {
  int64_t n;
  const int64_t *col_ptr;
  const int32_t *row_idx;
  const int64_t *diag_pos;
  const int64_t *lrow_ptr, *urow_ptr;
  const int32_t *lrow_col, *urow_col;
  const int64_t *lrow_pos, *urow_pos;
  /* Rows from here on are the dense tail's (tsi_lu_dense_tail_solve; n
   * without a dense tail): in L and U^T they only subtract their terms of
   * the rows before tail_start here, in U and L^T they are skipped (done
   * before, marked ready). */
  int64_t tail_start;
  /* Non-zero: the transposed solves use the conjugated factors (A^H,
   * complex values). */
  int conjugate;
  /* The entries of a row one warp sums (longer rows: row_terms). */
  int64_t segment;
};

/* The synchronisation-free launch's tickets (tsi_lu_solve_schedule): a
 * ticket t >= 0 is row t; t < 0 names code -t - 1, a segment of a long row
 * below `segments`, else the finish of long row code - segments. */
template <typename W> struct ticket_args {
  const int32_t *ticket;
  int64_t tickets, segments;
  const int32_t *segment_of, *long_row;
  int32_t *segment_ready;
  W *partials; /* segments x nrhs */
};

/* The solves' arithmetic on working values (numeric/numeric_cuda.cuh has
 * the types): sum + v y (the real form is the one the kernels always used),
 * a shuffle and a volatile load of a working value, the conjugate when
 * asked. */
__device__ __forceinline__ double plus_product(double sum, double v, double y) { return sum + v * y; }
__device__ __forceinline__ tsi_complex128 plus_product(tsi_complex128 sum, tsi_complex128 v, tsi_complex128 y) {
  return tsi_z_plus_product(sum, v, y);
}
__device__ __forceinline__ double plus(double a, double b) { return a + b; }
__device__ __forceinline__ tsi_complex128 plus(tsi_complex128 a, tsi_complex128 b) { return tsi_z_add(a, b); }
__device__ __forceinline__ double minus(double a, double b) { return a - b; }
__device__ __forceinline__ tsi_complex128 minus(tsi_complex128 a, tsi_complex128 b) { return tsi_z_sub(a, b); }
__device__ __forceinline__ double quotient(double a, double b) { return a / b; }
__device__ __forceinline__ tsi_complex128 quotient(tsi_complex128 a, tsi_complex128 b) { return tsi_z_div(a, b); }
__device__ __forceinline__ double shfl_xor(double v, int offset) { return __shfl_xor_sync(0xffffffffu, v, offset); }
__device__ __forceinline__ tsi_complex128 shfl_xor(tsi_complex128 v, int offset) {
  return tsi_z(__shfl_xor_sync(0xffffffffu, v.re, offset), __shfl_xor_sync(0xffffffffu, v.im, offset));
}
__device__ __forceinline__ double load_work_volatile(const double *p) { return *(const volatile double *)p; }
__device__ __forceinline__ tsi_complex128 load_work_volatile(const tsi_complex128 *p) {
  const volatile double *parts = (const volatile double *)p;
  return tsi_z(parts[0], parts[1]);
}
__device__ __forceinline__ double conj_if(double v, int conjugate) {
  (void)conjugate;
  return v;
}
__device__ __forceinline__ tsi_complex128 conj_if(tsi_complex128 v, int conjugate) {
  return conjugate ? tsi_z_conj(v) : v;
}

template <int MODE> __device__ __forceinline__ int32_t entry_unknown(const solve_args &a, int64_t e);

/* Forward solves (L, U^T) run their dense tail after the other rows. */
__host__ __device__ constexpr bool tail_after(int mode) { return mode == SOLVE_LOWER || mode == SOLVE_UPPER_T; }

/* Row r's entries [lo, hi) that this kernel reads, or false when it skips
 * the row: a dense-tail row of a forward solve reads only its terms of
 * columns before tail_start (its unknowns increase along the row). */
template <int MODE>
__device__ __forceinline__ bool sparse_part(const solve_args &a, int32_t r, int64_t lo, int64_t *hi) {
  if (r < a.tail_start)
    return true;
  if (!tail_after(MODE))
    return false;
  int64_t first = lo, last = *hi;
  while (first < last) {
    const int64_t mid = first + ((last - first) >> 1);
    if (entry_unknown<MODE>(a, mid) < a.tail_start)
      first = mid + 1;
    else
      last = mid;
  }
  *hi = first;
  return true;
}

/* Entries [lo, hi) of row (or column) r that the solve reads. */
template <int MODE>
__device__ __forceinline__ void row_bounds(const solve_args &a, int32_t r, int64_t *lo, int64_t *hi) {
  if (MODE == SOLVE_LOWER) {
    *lo = a.lrow_ptr[r];
    *hi = a.lrow_ptr[r + 1];
  } else if (MODE == SOLVE_UPPER) {
    *lo = a.urow_ptr[r];
    *hi = a.urow_ptr[r + 1];
  } else if (MODE == SOLVE_UPPER_T) {
    *lo = a.col_ptr[r];
    *hi = a.diag_pos[r];
  } else {
    *lo = a.diag_pos[r] + 1;
    *hi = a.col_ptr[r + 1];
  }
}

/* The unknown entry e multiplies (the row it depends on). */
template <int MODE> __device__ __forceinline__ int32_t entry_unknown(const solve_args &a, int64_t e) {
  if (MODE == SOLVE_LOWER)
    return a.lrow_col[e];
  if (MODE == SOLVE_UPPER)
    return a.urow_col[e];
  return a.row_idx[e];
}

/* How a solve reads the unknowns it depends on: plainly (they were finished
 * by earlier launches), after waiting for their ready mark (finished by
 * other warps of the same launch; the load then goes to L2, volatile, so
 * neither the compiler nor L1 hands back an older value), or volatile
 * without waiting (marks already seen by this lane). */
enum { READ_PLAIN = 0, READ_AFTER_MARK = 1, READ_VOLATILE = 2 };

/* Sum of the row's known terms: lane l takes entries lo + l, lo + l + 32, ...
 * in order, then the xor tree. The wait sits inside the loop, so a long row
 * sums its early entries while the rows it needs last are still running.
 * TSI_LU_SOLVE_BATCH entries a lane at a time, their loads (and marks)
 * issued together before the sum takes them in order: a long row's loads
 * in flight together instead of one entry's chain at a time, the same sum. */
template <typename T, int MODE, int READ>
__device__ __forceinline__ work_of<T> known_terms(const solve_args &a, const T *values, const work_of<T> *yc,
                                                  int64_t lo, int64_t hi, int lane, const int32_t *ready,
                                                  int32_t epoch) {
  using W = work_of<T>;
  constexpr int batch = TSI_LU_SOLVE_BATCH;
  W sum = work_zero<W>();
  for (int64_t base = lo + lane; base < hi; base += 32 * batch) {
    int64_t pos[batch];
    int32_t u[batch];
#pragma unroll
    for (int b = 0; b < batch; b++) {
      const int64_t e = base + 32 * b;
      pos[b] = e >= hi ? 0 : MODE == SOLVE_LOWER ? a.lrow_pos[e] : MODE == SOLVE_UPPER ? a.urow_pos[e] : e;
      u[b] = e < hi ? entry_unknown<MODE>(a, e) : -1;
    }
    if (READ == READ_AFTER_MARK) {
      bool waiting = true;
      while (waiting) {
        waiting = false;
#pragma unroll
        for (int b = 0; b < batch; b++)
          waiting = waiting || (u[b] >= 0 && *(const volatile int32_t *)(ready + u[b]) != epoch);
      }
    }
    W yu[batch], v[batch];
#pragma unroll
    for (int b = 0; b < batch; b++) {
      yu[b] = u[b] < 0 ? work_zero<W>() : READ == READ_PLAIN ? yc[u[b]] : load_work_volatile(yc + u[b]);
      v[b] = u[b] < 0 ? work_zero<W>() : widen(values[pos[b]]);
    }
#pragma unroll
    for (int b = 0; b < batch; b++)
      if (u[b] >= 0)
        sum = plus_product(sum, MODE == SOLVE_UPPER_T || MODE == SOLVE_LOWER_T ? conj_if(v[b], a.conjugate) : v[b],
                           yu[b]);
  }
  for (int offset = 16; offset > 0; offset >>= 1)
    sum = plus(sum, shfl_xor(sum, offset));
  return sum;
}

/* A row's known terms over [lo, hi): one warp's sum for a row of at most
 * a.segment entries; a longer row's by segments of a.segment entries, each
 * summed as known_terms sums a row, the segments' sums then added in order
 * (the sums the synchronisation-free launch makes on a warp a segment, so
 * the same bits in both paths). */
template <typename T, int MODE, int READ>
__device__ __forceinline__ work_of<T> row_terms(const solve_args &a, const T *values, const work_of<T> *yc, int64_t lo,
                                                int64_t hi, int lane, const int32_t *ready, int32_t epoch) {
  if (hi - lo <= a.segment)
    return known_terms<T, MODE, READ>(a, values, yc, lo, hi, lane, ready, epoch);
  work_of<T> sum = known_terms<T, MODE, READ>(a, values, yc, lo, lo + a.segment, lane, ready, epoch);
  for (int64_t first = lo + a.segment; first < hi; first += a.segment)
    sum = plus(sum, known_terms<T, MODE, READ>(a, values, yc, first, first + a.segment < hi ? first + a.segment : hi,
                                               lane, ready, epoch));
  return sum;
}

/* y(r) from its value before the solve and its known terms (U has a
 * diagonal to divide by). */
template <typename T, int MODE>
__device__ __forceinline__ work_of<T> row_value(const solve_args &a, const T *values, int32_t r, work_of<T> own,
                                                work_of<T> sum) {
  work_of<T> v = minus(own, sum);
  if (MODE == SOLVE_UPPER)
    v = quotient(v, widen(values[a.diag_pos[r]]));
  if (MODE == SOLVE_UPPER_T)
    v = quotient(v, conj_if(widen(values[a.diag_pos[r]]), a.conjugate));
  return v;
}

/* One level: a warp per (row, right-hand side). */
template <typename T, int MODE>
__global__ void __launch_bounds__(SOLVE_THREADS)
    solve_level(solve_args a, const T *values, const int32_t *items, int64_t count, int64_t nrhs, work_of<T> *y) {
  using W = work_of<T>;
  const int lane = threadIdx.x & 31;
  const int64_t warps = (int64_t)gridDim.x * SOLVE_WARPS;
  for (int64_t w = (int64_t)blockIdx.x * SOLVE_WARPS + threadIdx.x / 32; w < count * nrhs; w += warps) {
    const int32_t r = items[w % count];
    W *yc = y + (w / count) * a.n;
    int64_t lo, hi;
    row_bounds<MODE>(a, r, &lo, &hi);
    if (!sparse_part<MODE>(a, r, lo, &hi))
      continue;
    const W sum = row_terms<T, MODE, READ_PLAIN>(a, values, yc, lo, hi, lane, NULL, 0);
    if (lane == 0)
      yc[r] = r < a.tail_start ? row_value<T, MODE>(a, values, r, yc[r], sum) : minus(yc[r], sum);
  }
}

/*
 * A whole triangular solve in one launch: each warp takes the next ticket
 * of the schedule (rows ordered by level) from *next_row and computes that
 * row for every right-hand side, waiting for ready[u] == epoch before it
 * reads an unknown u, and then marks the row ready. A long row's tickets
 * are one for each of its segments, whose warps sum them at once and mark
 * them in segment_ready, and one after them whose warp adds the segments'
 * sums in order and finishes the row.
 *
 * No deadlock: the rows a row reads lie in earlier levels, hence earlier in
 * the tickets, so they were taken by earlier tickets, by warps that are
 * already running (a warp takes a ticket only when it runs) and that wait
 * only on still earlier tickets (a finish on its segments, just before
 * it); the earliest unfinished ticket always has all it needs. This holds
 * however many blocks are launched; launching only as many as are resident
 * just saves idle warps.
 *
 * Ordering: the writer stores y (or a segment's sum), fences, then stores
 * the mark (volatile); a reader spins on the mark (volatile) and only then
 * issues its volatile load, which is served by L2, where the fence put the
 * value before the mark. The arithmetic is solve_level's, so the two agree
 * bit for bit.
 */
template <typename T, int MODE>
__global__ void __launch_bounds__(SOLVE_THREADS)
    solve_sync_free(solve_args a, const T *values, ticket_args<work_of<T>> t, int64_t nrhs, work_of<T> *y,
                    int32_t *ready, int32_t epoch, unsigned long long *next_row) {
  using W = work_of<T>;
  const int lane = threadIdx.x & 31;
  for (;;) {
    unsigned long long number = 0;
    if (lane == 0)
      number = atomicAdd(next_row, 1ULL);
    number = __shfl_sync(0xffffffffu, number, 0);
    if (number >= (unsigned long long)t.tickets)
      return;
    const int32_t ticket = t.ticket[number];
    const int64_t code = ticket < 0 ? -(int64_t)ticket - 1 : -1;
    if (code >= 0 && code < t.segments) {
      /* A segment of a long row: its sum for every right-hand side. */
      const int32_t r = t.segment_of[2 * code];
      int64_t lo, hi;
      row_bounds<MODE>(a, r, &lo, &hi);
      (void)sparse_part<MODE>(a, r, lo, &hi); /* a long row has a part */
      const int64_t first = lo + (int64_t)t.segment_of[2 * code + 1] * a.segment;
      const int64_t last = first + a.segment < hi ? first + a.segment : hi;
      for (int64_t c = 0; c < nrhs; c++) {
        const W *yc = y + c * a.n;
        const W sum = c == 0 ? known_terms<T, MODE, READ_AFTER_MARK>(a, values, yc, first, last, lane, ready, epoch)
                             : known_terms<T, MODE, READ_VOLATILE>(a, values, yc, first, last, lane, ready, epoch);
        if (lane == 0)
          t.partials[code * nrhs + c] = sum;
      }
      if (lane == 0) {
        __threadfence();
        *(volatile int32_t *)(t.segment_ready + code) = epoch;
      }
      continue;
    }
    int32_t r;
    if (code >= 0) {
      /* A long row's finish: its segments' sums, in order. */
      const int64_t at = 3 * (code - t.segments);
      r = t.long_row[at];
      const int64_t first = t.long_row[at + 1], count = t.long_row[at + 2];
      for (bool waiting = true; waiting;) {
        waiting = false;
        for (int64_t g = lane; g < count; g += 32)
          waiting = waiting || *(const volatile int32_t *)(t.segment_ready + first + g) != epoch;
        waiting = __any_sync(0xffffffffu, waiting);
      }
      if (lane == 0)
        for (int64_t c = 0; c < nrhs; c++) {
          W *yc = y + c * a.n;
          W sum = load_work_volatile(t.partials + first * nrhs + c);
          for (int64_t g = 1; g < count; g++)
            sum = plus(sum, load_work_volatile(t.partials + (first + g) * nrhs + c));
          yc[r] = r < a.tail_start ? row_value<T, MODE>(a, values, r, yc[r], sum) : minus(yc[r], sum);
        }
    } else {
      r = ticket;
      int64_t lo, hi;
      row_bounds<MODE>(a, r, &lo, &hi);
      if (!sparse_part<MODE>(a, r, lo, &hi))
        continue;
      for (int64_t c = 0; c < nrhs; c++) {
        W *yc = y + c * a.n;
        /* Only this warp writes y(r) in this launch: a plain load, early. */
        const W own = lane == 0 ? yc[r] : work_zero<W>();
        const W sum = c == 0 ? row_terms<T, MODE, READ_AFTER_MARK>(a, values, yc, lo, hi, lane, ready, epoch)
                             : row_terms<T, MODE, READ_VOLATILE>(a, values, yc, lo, hi, lane, ready, epoch);
        if (lane == 0)
          yc[r] = r < a.tail_start ? row_value<T, MODE>(a, values, r, own, sum) : minus(own, sum);
      }
    }
    if (r >= a.tail_start)
      continue; /* no row of this launch reads it */
    if (lane == 0) {
      __threadfence();
      *(volatile int32_t *)(ready + r) = epoch;
    }
  }
}

/* Rows first .. last marked ready for the solve numbered epoch (the dense
 * tail's, solved before the launch that reads them). */
__global__ void mark_rows(int32_t *ready, int64_t first, int64_t last, int32_t epoch) {
  for (int64_t r = first + blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < last;
       r += (int64_t)gridDim.x * blockDim.x)
    ready[r] = epoch;
}

/* y = D P rhs (gather through perm, scale by the original index); values
 * of `parts` doubles (a complex one scaled part by part). */
__global__ void permute_in(int64_t n, int64_t nrhs, int parts, const int32_t *perm, const double *scale,
                           const double *rhs, double *y) {
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n * nrhs * parts;
       t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t v = t / parts, part = t % parts;
    int64_t i = v % n, c = v / n;
    int32_t from = perm[i];
    y[t] = scale[from] * rhs[(c * n + from) * parts + part];
  }
}

/* x(perm(i)) = scale(perm(i)) * y(i). */
__global__ void permute_out(int64_t n, int64_t nrhs, int parts, const int32_t *perm, const double *scale,
                            const double *y, double *x) {
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n * nrhs * parts;
       t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t v = t / parts, part = t % parts;
    int64_t i = v % n, c = v / n;
    int32_t to = perm[i];
    x[(c * n + to) * parts + part] = scale[to] * y[t];
  }
}

/* The entries of a row (or column) one warp of the triangular solves sums. */
static int64_t solve_segment(const ts_lu *lu) {
  return lu->switches.gpu_solve_segment > 0 ? lu->switches.gpu_solve_segment : TSI_LU_SOLVE_SEGMENT;
}

/* The segments of the row (column) at each of the schedule's items[k]
 * that `MODE`'s kernels read (row_bounds and sparse_part bound it), or 0
 * where one warp sums it. */
template <int MODE> __global__ void count_segments(solve_args a, const int32_t *items, int32_t *segments) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < a.n; k += (int64_t)gridDim.x * blockDim.x) {
    const int32_t r = items[k];
    int64_t lo, hi;
    row_bounds<MODE>(a, r, &lo, &hi);
    const bool part = sparse_part<MODE>(a, r, lo, &hi);
    segments[k] = part && hi - lo > a.segment ? (int32_t)((hi - lo + a.segment - 1) / a.segment) : 0;
  }
}

/* The solves' view of the device's factors for op; segment: the entries of
 * a row one warp sums. */
static solve_args args_of(const tsi_lu_device *dev, ts_operation op, int64_t segment) {
  solve_args args;
  args.n = dev->n;
  args.col_ptr = dev->col_ptr;
  args.row_idx = dev->row_idx;
  args.diag_pos = dev->diag_pos;
  args.lrow_ptr = dev->lrow_ptr;
  args.urow_ptr = dev->urow_ptr;
  args.lrow_col = dev->lrow_col;
  args.urow_col = dev->urow_col;
  args.lrow_pos = dev->lrow_pos;
  args.urow_pos = dev->urow_pos;
  args.tail_start = dev->tail_dense ? dev->tail_start : dev->n;
  args.conjugate = op == TS_OP_CONJ_TRANSPOSE;
  args.segment = segment;
  return args;
}

/* The segments of each item of schedule s (on the device) into `segments`
 * (host, n), counted on the device by the kernels' own bounds. */
static ts_status segments_of(ts_lu *lu, tsi_lu_device *dev, const tsi_lu_solve_schedule *s, int mode, int64_t segment,
                             int32_t *segments) {
  const int64_t n = lu->n;
  int32_t *counts = NULL;
  ts_status st = tsi_lu_device_alloc(lu->ctx, dev, (void **)&counts, n, sizeof(int32_t), "the rows' segments");
  if (st != TS_SUCCESS)
    return st;
  const solve_args args = args_of(dev, TS_OP_NONE, segment); /* counting reads no values: any operation */
  int64_t blocks = (n + TSI_LU_ELEMENTWISE_THREADS - 1) / TSI_LU_ELEMENTWISE_THREADS;
  blocks = blocks < TSI_LU_ELEMENTWISE_BLOCKS ? blocks : TSI_LU_ELEMENTWISE_BLOCKS;
  const dim3 grid((unsigned)(blocks > 0 ? blocks : 1));
  cudaStream_t stream = (cudaStream_t)lu->ctx->stream;
  if (mode == SOLVE_LOWER)
    count_segments<SOLVE_LOWER><<<grid, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(args, s->items, counts);
  else if (mode == SOLVE_UPPER)
    count_segments<SOLVE_UPPER><<<grid, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(args, s->items, counts);
  else if (mode == SOLVE_UPPER_T)
    count_segments<SOLVE_UPPER_T><<<grid, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(args, s->items, counts);
  else
    count_segments<SOLVE_LOWER_T><<<grid, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(args, s->items, counts);
  st = tsi_cuda_check_launch(lu->ctx, "LU solve on the GPU: the rows' segments");
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_host(lu->ctx, segments, counts, (size_t)n * sizeof(int32_t));
  tsi_lu_device_free(dev, counts, n, sizeof(int32_t));
  return st;
}

/* The synchronisation-free launch's tickets for schedule s (items on the
 * host, in order, and on the device): a row's, or for a row longer than
 * `segment` entries a ticket for each segment and one that finishes the
 * row (tsi_lu_solve_schedule). */
static ts_status make_tickets(ts_lu *lu, tsi_lu_device *dev, tsi_lu_solve_schedule *s, int mode, const int32_t *items,
                              int64_t segment) {
  const int64_t n = lu->n;
  tsi_lu_device_free(dev, s->ticket, s->tickets, sizeof(int32_t));
  tsi_lu_device_free(dev, s->segment_of, 2 * s->segments, sizeof(int32_t));
  tsi_lu_device_free(dev, s->long_row, 3 * s->long_rows, sizeof(int32_t));
  tsi_lu_device_free(dev, s->segment_ready, s->segments, sizeof(int32_t));
  s->ticket = s->segment_of = s->long_row = s->segment_ready = NULL;
  s->tickets = s->segments = s->long_rows = 0;
  s->segment = 0;
  int32_t *parts = (int32_t *)tsi_malloc_array(n > 0 ? n : 1, sizeof(int32_t));
  if (!parts)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU solve on the GPU: no memory for the rows' segments");
  const ts_status counted = n > 0 ? segments_of(lu, dev, s, mode, segment, parts) : TS_SUCCESS;
  if (counted != TS_SUCCESS) {
    free(parts);
    return counted;
  }
  int64_t segments = 0, long_rows = 0;
  for (int64_t k = 0; k < n; k++)
    if (parts[k] > 0) {
      segments += parts[k];
      long_rows++;
    }
  const int64_t tickets = n + segments;
  if (segments + long_rows > INT32_MAX) {
    free(parts);
    return tsi_error(lu->ctx, TS_ERROR_OVERFLOW, "LU solve on the GPU: %lld segments overflow", (long long)segments);
  }
  int32_t *ticket = (int32_t *)tsi_malloc_array(tickets > 0 ? tickets : 1, sizeof(int32_t));
  int32_t *segment_of = (int32_t *)tsi_malloc_array(segments > 0 ? 2 * segments : 1, sizeof(int32_t));
  int32_t *long_row = (int32_t *)tsi_malloc_array(long_rows > 0 ? 3 * long_rows : 1, sizeof(int32_t));
  ts_status st = ticket && segment_of && long_row
                     ? TS_SUCCESS
                     : tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU solve on the GPU: no memory for the tickets");
  int64_t t = 0, g = 0, l = 0;
  for (int64_t k = 0; st == TS_SUCCESS && k < n; k++) {
    const int32_t r = items[k];
    if (parts[k] == 0) {
      ticket[t++] = r;
      continue;
    }
    const int64_t count = parts[k];
    long_row[3 * l] = r;
    long_row[3 * l + 1] = (int32_t)g;
    long_row[3 * l + 2] = (int32_t)count;
    for (int64_t part = 0; part < count; part++, g++) {
      segment_of[2 * g] = r;
      segment_of[2 * g + 1] = (int32_t)part;
      ticket[t++] = (int32_t)(-g - 1);
    }
    ticket[t++] = (int32_t)(-(segments + l) - 1);
    l++;
  }
  free(parts);
  struct {
    int32_t **dst;
    const int32_t *src;
    int64_t count;
  } uploads[] = {{&s->ticket, ticket, tickets},
                 {&s->segment_of, segment_of, 2 * segments},
                 {&s->long_row, long_row, 3 * long_rows}};
  for (size_t u = 0; st == TS_SUCCESS && u < sizeof uploads / sizeof uploads[0]; u++)
    if (uploads[u].count > 0) {
      st = tsi_lu_device_alloc(lu->ctx, dev, (void **)uploads[u].dst, uploads[u].count, sizeof(int32_t),
                               "the solve's tickets");
      if (st == TS_SUCCESS)
        st = tsi_cuda_memcpy_to_device(lu->ctx, *uploads[u].dst, uploads[u].src,
                                       (size_t)uploads[u].count * sizeof(int32_t));
    }
  if (st == TS_SUCCESS && segments > 0) {
    /* Epochs start at 1: a zero mark is "not summed" for every solve. */
    st = tsi_lu_device_alloc(lu->ctx, dev, (void **)&s->segment_ready, segments, sizeof(int32_t),
                             "the solve's segment marks");
    if (st == TS_SUCCESS)
      st = tsi_cuda_memset(lu->ctx, s->segment_ready, 0, (size_t)segments * sizeof(int32_t));
  }
  free(ticket);
  free(segment_of);
  free(long_row);
  /* The counts that size the device arrays (freed by count, also after a
   * failure part way). */
  s->tickets = s->ticket ? tickets : 0;
  s->segments = segments;
  s->long_rows = long_rows;
  if (st == TS_SUCCESS)
    s->segment = segment;
  return st;
}

/* The schedules of the two triangular solves of op (L then U, or U^T then
 * L^T), built on first use. The synchronisation-free kernels need only a
 * topological order of the rows, and the factorization's levels are one
 * for all four solves (column i is on a later level than j when L(i, j) or
 * U(j, i) is not zero: forward for L and U^T, backward for U and L^T), so
 * they take it as it is; the level-scheduled kernels need each solve's own
 * levels, two host sweeps on two threads, made only for the operation
 * asked for. */
static ts_status make_schedules(ts_lu *lu, tsi_lu_device *dev, ts_operation op) {
  const bool plain = op == TS_OP_NONE;
  tsi_lu_solve_schedule *pair[2] = {plain ? &dev->lower : &dev->upper_t, plain ? &dev->upper : &dev->lower_t};
  const int modes[2] = {plain ? SOLVE_LOWER : SOLVE_UPPER_T, plain ? SOLVE_UPPER : SOLVE_LOWER_T};
  const int wanted = lu->switches.gpu_solve_level_sync ? SCHEDULE_OWN_LEVELS : SCHEDULE_FACTOR_ORDER;
  const int64_t segment = solve_segment(lu);
  if (pair[0]->ready == wanted && pair[1]->ready == wanted &&
      (wanted != SCHEDULE_FACTOR_ORDER || (pair[0]->segment == segment && pair[1]->segment == segment)))
    return TS_SUCCESS;
  const int64_t n = lu->n;
  int32_t *items[2] = {(int32_t *)tsi_malloc_array(n > 0 ? n : 1, sizeof(int32_t)),
                       (int32_t *)tsi_malloc_array(n > 0 ? n : 1, sizeof(int32_t))};
  ts_status st = TS_SUCCESS;
  if (!items[0] || !items[1]) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU solve on the GPU: no memory for the schedules (n = %lld)",
                   (long long)n);
  } else if (wanted == SCHEDULE_FACTOR_ORDER) {
    /* pair[0] runs forward, pair[1] backward. */
    for (int64_t k = 0; k < n; k++) {
      items[0][k] = lu->level_cols[k];
      items[1][k] = lu->level_cols[n - 1 - k];
    }
  } else if (!tsi_lu_solve_levels(lu, modes, pair, items)) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU solve on the GPU: no memory for the schedules (n = %lld)",
                   (long long)n);
  }
  for (int t = 0; t < 2 && st == TS_SUCCESS; t++) {
    pair[t]->ready = 0;
    if (!pair[t]->items)
      st = tsi_lu_device_alloc(lu->ctx, dev, (void **)&pair[t]->items, n, sizeof(int32_t), "a solve schedule");
    if (st == TS_SUCCESS && n > 0)
      st = tsi_cuda_memcpy_to_device(lu->ctx, pair[t]->items, items[t], (size_t)n * sizeof(int32_t));
    if (st == TS_SUCCESS && wanted == SCHEDULE_FACTOR_ORDER)
      st = make_tickets(lu, dev, pair[t], modes[t], items[t], segment);
    if (st == TS_SUCCESS)
      pair[t]->ready = wanted;
  }
  free(items[0]);
  free(items[1]);
  return st;
}

static ts_status reserve_vectors(ts_lu *lu, tsi_lu_device *dev, int64_t nrhs) {
  if (dev->solve_cols >= nrhs)
    return TS_SUCCESS;
  tsi_lu_device_free(dev, dev->solve_y, dev->solve_cols * dev->n * dev->parts, sizeof(double));
  tsi_lu_device_free(dev, dev->solve_rhs, dev->solve_cols * dev->n * dev->parts, sizeof(double));
  dev->solve_y = dev->solve_rhs = NULL;
  dev->solve_cols = 0;
  int64_t count;
  if (tsi_mul_overflows(nrhs, dev->n * dev->parts, &count))
    return tsi_error(lu->ctx, TS_ERROR_OVERFLOW, "LU solve on the GPU: %lld right-hand sides overflow",
                     (long long)nrhs);
  ts_status st = tsi_lu_device_alloc(lu->ctx, dev, (void **)&dev->solve_y, count, sizeof(double), "solve vectors");
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(lu->ctx, dev, (void **)&dev->solve_rhs, count, sizeof(double), "solve vectors");
  if (st != TS_SUCCESS) {
    tsi_lu_device_free(dev, dev->solve_y, count, sizeof(double));
    dev->solve_y = NULL;
    return st;
  }
  dev->solve_cols = nrhs;
  return TS_SUCCESS;
}

/* Room for the long rows' segment sums of op's two schedules, nrhs
 * columns. */
static ts_status reserve_partials(ts_lu *lu, tsi_lu_device *dev, ts_operation op, int64_t nrhs) {
  const bool plain = op == TS_OP_NONE;
  const int64_t first = plain ? dev->lower.segments : dev->upper_t.segments;
  const int64_t second = plain ? dev->upper.segments : dev->lower_t.segments;
  const int64_t segments = first > second ? first : second;
  int64_t values;
  if (tsi_mul_overflows(segments, nrhs * dev->parts, &values))
    return tsi_error(lu->ctx, TS_ERROR_OVERFLOW, "LU solve on the GPU: %lld right-hand sides overflow",
                     (long long)nrhs);
  if (values <= dev->solve_partial_values)
    return TS_SUCCESS;
  tsi_lu_device_free(dev, dev->solve_partials, dev->solve_partial_values, sizeof(double));
  dev->solve_partials = NULL;
  dev->solve_partial_values = 0;
  ts_status st =
      tsi_lu_device_alloc(lu->ctx, dev, (void **)&dev->solve_partials, values, sizeof(double), "the segments' sums");
  if (st == TS_SUCCESS)
    dev->solve_partial_values = values;
  return st;
}

/* Ready marks, row counters and the resident blocks of each
 * synchronisation-free kernel (once per device cache). */
template <typename T, int MODE> static cudaError_t resident_blocks(int sms, int *blocks) {
  int per_sm = 0;
  cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, solve_sync_free<T, MODE>, SOLVE_THREADS, 0);
  *blocks = per_sm > 0 ? per_sm * sms : sms;
  return err;
}

/* The same for the four modes of one factor precision, blocks[MODE]. */
template <typename T> static cudaError_t resident_blocks_of_modes(int sms, int *blocks) {
  cudaError_t err = resident_blocks<T, SOLVE_LOWER>(sms, &blocks[SOLVE_LOWER]);
  if (err == cudaSuccess)
    err = resident_blocks<T, SOLVE_UPPER>(sms, &blocks[SOLVE_UPPER]);
  if (err == cudaSuccess)
    err = resident_blocks<T, SOLVE_UPPER_T>(sms, &blocks[SOLVE_UPPER_T]);
  if (err == cudaSuccess)
    err = resident_blocks<T, SOLVE_LOWER_T>(sms, &blocks[SOLVE_LOWER_T]);
  return err;
}

static ts_status prepare_sync_free(ts_lu *lu, tsi_lu_device *dev) {
  ts_context *ctx = lu->ctx;
  ts_status st = TS_SUCCESS;
  if (!dev->solve_ready_mark) {
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->solve_ready_mark, dev->n, sizeof(int32_t), "solve ready marks");
    if (st != TS_SUCCESS)
      return st;
    /* Epochs start at 1: a zero mark is "not ready" for every solve. */
    cudaError_t err =
        cudaMemsetAsync(dev->solve_ready_mark, 0, (size_t)dev->n * sizeof(int32_t), (cudaStream_t)ctx->stream);
    if (err != cudaSuccess)
      return tsi_cuda_error(ctx, err, "ts_lu_solve: clearing the ready marks");
    dev->solve_epoch = 0;
  }
  if (!dev->solve_next_row) {
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->solve_next_row, 2, sizeof(unsigned long long), "row counters");
    if (st != TS_SUCCESS)
      return st;
  }
  int sms = 0;
  cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device);
  int(*b)[4] = dev->solve_resident_blocks;
  if (err == cudaSuccess && dev->parts == 2)
    err = resident_blocks_of_modes<tsi_complex128>(sms, b[0]);
  if (err == cudaSuccess && dev->parts == 2)
    err = resident_blocks_of_modes<tsi_complex64>(sms, b[1]);
  if (err == cudaSuccess && dev->parts == 1)
    err = resident_blocks_of_modes<double>(sms, b[0]);
  if (err == cudaSuccess && dev->parts == 1)
    err = resident_blocks_of_modes<float>(sms, b[1]);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_lu_solve: occupancy of the solve kernels");
  return TS_SUCCESS;
}

/* The number of the next triangular solve; the marks are cleared when the
 * count would wrap, so no mark can hold a later solve's number early. */
static ts_status next_epoch(ts_context *ctx, tsi_lu_device *dev, cudaStream_t stream, int32_t *epoch) {
  if (dev->solve_epoch == INT32_MAX) {
    cudaError_t err = cudaMemsetAsync(dev->solve_ready_mark, 0, (size_t)dev->n * sizeof(int32_t), stream);
    const tsi_lu_solve_schedule *schedules[4] = {&dev->lower, &dev->upper, &dev->upper_t, &dev->lower_t};
    for (int k = 0; k < 4 && err == cudaSuccess; k++)
      if (schedules[k]->segment_ready)
        err = cudaMemsetAsync(schedules[k]->segment_ready, 0, (size_t)schedules[k]->segments * sizeof(int32_t), stream);
    if (err != cudaSuccess)
      return tsi_cuda_error(ctx, err, "ts_lu_solve: clearing the ready marks");
    dev->solve_epoch = 0;
  }
  *epoch = ++dev->solve_epoch;
  return TS_SUCCESS;
}

/* One triangular solve, one launch per level. */
template <typename T, int MODE>
static void run_levels(const tsi_lu_device *dev, const solve_args &args, const T *values,
                       const tsi_lu_solve_schedule &s, int64_t nrhs, work_of<T> *y, cudaStream_t stream) {
  const bool tail = args.tail_start < args.n; /* never for complex values */
  if (tail && !tail_after(MODE))
    tsi_lu_dense_tail_solve(dev, MODE, nrhs, (double *)y, stream);
  for (int64_t l = 0; l < s.levels; l++) {
    const int64_t first = s.level_ptr[l], count = s.level_ptr[l + 1] - first;
    int64_t blocks = (count * nrhs + SOLVE_WARPS - 1) / SOLVE_WARPS;
    if (blocks > 65535)
      blocks = 65535;
    solve_level<T, MODE><<<(unsigned)blocks, SOLVE_THREADS, 0, stream>>>(args, values, s.items + first, count, nrhs, y);
  }
  if (tail && tail_after(MODE))
    tsi_lu_dense_tail_solve(dev, MODE, nrhs, (double *)y, stream);
}

/* One triangular solve, one launch: no more warps than are resident or
 * than there are rows. `which` picks the row counter (0 or 1). */
template <typename T, int MODE>
static ts_status run_sync_free(ts_context *ctx, tsi_lu_device *dev, const solve_args &args, const T *values,
                               const tsi_lu_solve_schedule &s, int64_t nrhs, work_of<T> *y, int which,
                               cudaStream_t stream) {
  int32_t epoch = 0;
  ts_status st = next_epoch(ctx, dev, stream, &epoch);
  if (st != TS_SUCCESS)
    return st;
  int64_t blocks = dev->solve_resident_blocks[sizeof(T) < sizeof(work_of<T>)][MODE], /* [single][MODE] */
      wanted = (s.tickets + SOLVE_WARPS - 1) / SOLVE_WARPS;
  if (blocks > wanted)
    blocks = wanted;
  if (blocks < 1)
    blocks = 1;
  const bool tail = args.tail_start < args.n;
  if (tail && !tail_after(MODE)) { /* the tail first; the other rows wait on its marks */
    tsi_lu_dense_tail_solve(dev, MODE, nrhs, (double *)y, stream);
    const int64_t rows = args.n - args.tail_start;
    const int64_t mark_blocks = (rows + TSI_LU_ELEMENTWISE_THREADS - 1) / TSI_LU_ELEMENTWISE_THREADS;
    mark_rows<<<(unsigned)(mark_blocks < TSI_LU_ELEMENTWISE_BLOCKS ? mark_blocks : TSI_LU_ELEMENTWISE_BLOCKS),
                TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(dev->solve_ready_mark, args.tail_start, args.n, epoch);
  }
  ticket_args<work_of<T>> tickets;
  tickets.ticket = s.ticket;
  tickets.tickets = s.tickets;
  tickets.segments = s.segments;
  tickets.segment_of = s.segment_of;
  tickets.long_row = s.long_row;
  tickets.segment_ready = s.segment_ready;
  tickets.partials = (work_of<T> *)dev->solve_partials;
  solve_sync_free<T, MODE><<<(unsigned)blocks, SOLVE_THREADS, 0, stream>>>(
      args, values, tickets, nrhs, y, dev->solve_ready_mark, epoch, dev->solve_next_row + which);
  if (tail && tail_after(MODE))
    tsi_lu_dense_tail_solve(dev, MODE, nrhs, (double *)y, stream);
  return TS_SUCCESS;
}

template <typename T>
static ts_status run_solves(ts_context *ctx, tsi_lu_device *dev, ts_operation op, int64_t nrhs, double *y_parts,
                            bool level_sync, int64_t segment, cudaStream_t stream) {
  work_of<T> *y = (work_of<T> *)y_parts;
  const solve_args args = args_of(dev, op, segment);
  const T *values = (const T *)dev->values;
  const bool plain = op == TS_OP_NONE;
  if (level_sync) {
    if (plain) {
      run_levels<T, SOLVE_LOWER>(dev, args, values, dev->lower, nrhs, y, stream);
      run_levels<T, SOLVE_UPPER>(dev, args, values, dev->upper, nrhs, y, stream);
    } else {
      run_levels<T, SOLVE_UPPER_T>(dev, args, values, dev->upper_t, nrhs, y, stream);
      run_levels<T, SOLVE_LOWER_T>(dev, args, values, dev->lower_t, nrhs, y, stream);
    }
    return TS_SUCCESS;
  }
  cudaError_t err = cudaMemsetAsync(dev->solve_next_row, 0, 2 * sizeof(unsigned long long), stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_lu_solve: clearing the row counters");
  ts_status st;
  if (plain) {
    st = run_sync_free<T, SOLVE_LOWER>(ctx, dev, args, values, dev->lower, nrhs, y, 0, stream);
    if (st == TS_SUCCESS)
      st = run_sync_free<T, SOLVE_UPPER>(ctx, dev, args, values, dev->upper, nrhs, y, 1, stream);
  } else {
    st = run_sync_free<T, SOLVE_UPPER_T>(ctx, dev, args, values, dev->upper_t, nrhs, y, 0, stream);
    if (st == TS_SUCCESS)
      st = run_sync_free<T, SOLVE_LOWER_T>(ctx, dev, args, values, dev->lower_t, nrhs, y, 1, stream);
  }
  return st;
}

/* The preparation every solve on the device needs: schedules (unless the
 * fronts solve), marks and vectors for nrhs columns. */
static ts_status prepare(ts_lu *lu, tsi_lu_device *dev, ts_operation op, int64_t nrhs) {
  ts_status st = tsi_cuda_activate(lu->ctx);
  /* The solves through the fronts need no schedule of rows. */
  const bool rows = !tsi_lu_front_solve_applies(lu, dev, op);
  if (st == TS_SUCCESS && rows)
    st = make_schedules(lu, dev, op);
  if (st == TS_SUCCESS && !dev->solve_ready) {
    st = prepare_sync_free(lu, dev);
    dev->solve_ready = st == TS_SUCCESS;
  }
  if (st == TS_SUCCESS)
    st = reserve_vectors(lu, dev, nrhs);
  if (st == TS_SUCCESS && rows)
    st = reserve_partials(lu, dev, op, nrhs);
  if (st == TS_SUCCESS && dev->peak > lu->stats.peak_device_bytes)
    lu->stats.peak_device_bytes = dev->peak;
  return st;
}

/* x = op(A)^{-1} rhs, both n * nrhs contiguous on the device (they may be
 * the same array), enqueued on the context's stream. */
static ts_status apply_inverse_on_device(ts_lu *lu, tsi_lu_device *dev, ts_operation op, int64_t nrhs,
                                         const double *rhs, double *x) {
  ts_context *ctx = lu->ctx;
  const int64_t n = lu->n;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  const int parts = dev->parts;
  int64_t blocks = (n * nrhs * parts + TSI_LU_ELEMENTWISE_THREADS - 1) / TSI_LU_ELEMENTWISE_THREADS;
  if (blocks > TSI_LU_ELEMENTWISE_BLOCKS)
    blocks = TSI_LU_ELEMENTWISE_BLOCKS;
  const bool plain = op == TS_OP_NONE;
  permute_in<<<(unsigned)blocks, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(
      n, nrhs, parts, plain ? dev->row_perm : dev->col_perm, plain ? dev->row_scale : dev->col_scale, rhs,
      dev->solve_y);
  const bool level_sync = lu->switches.gpu_solve_level_sync != 0;
  const int64_t segment = solve_segment(lu);
  ts_status st;
  if (tsi_lu_front_solve_applies(lu, dev, op))
    st = tsi_lu_front_solve(lu, dev, nrhs, dev->solve_y, stream);
  else if (parts == 2)
    st = dev->single ? run_solves<tsi_complex64>(ctx, dev, op, nrhs, dev->solve_y, level_sync, segment, stream)
                     : run_solves<tsi_complex128>(ctx, dev, op, nrhs, dev->solve_y, level_sync, segment, stream);
  else
    st = dev->single ? run_solves<float>(ctx, dev, op, nrhs, dev->solve_y, level_sync, segment, stream)
                     : run_solves<double>(ctx, dev, op, nrhs, dev->solve_y, level_sync, segment, stream);
  if (st != TS_SUCCESS)
    return st;
  permute_out<<<(unsigned)blocks, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(
      n, nrhs, parts, plain ? dev->col_perm : dev->row_perm, plain ? dev->col_scale : dev->row_scale, dev->solve_y, x);
  return tsi_cuda_check_launch(ctx, "ts_lu_solve on the GPU");
}

extern "C" ts_status tsi_lu_cuda_apply_inverse_device(ts_lu *lu, ts_operation op, const double *rhs, double *x) {
  tsi_lu_device *dev = (tsi_lu_device *)lu->numeric_device;
  if (!dev || !lu->factors_on_device)
    return tsi_error(lu->ctx, TS_ERROR_NOT_FACTORED, "ts_lu_solve: no factors on the device");
  if (lu->n == 0)
    return TS_SUCCESS;
  ts_status st = prepare(lu, dev, op, 1);
  return st == TS_SUCCESS ? apply_inverse_on_device(lu, dev, op, 1, rhs, x) : st;
}

/*
 * A = Dr^{-1} P^T M Q^T Dc^{-1}, so
 *   A x = b:   y = P Dr b,   y = U^{-1} L^{-1} y,   x = Dc Q y;
 *   A^T x = b: y = Q^T Dc b, y = L^{-T} U^{-T} y,   x = Dr P^T y;
 *   A^H x = b: as A^T, the factors conjugated (complex values, whose
 *   vectors hold (re, im) pairs; ldr and ldx count values).
 */
extern "C" ts_status tsi_lu_cuda_apply_inverse(ts_lu *lu, ts_operation op, int64_t nrhs, const double *rhs, int64_t ldr,
                                               double *x, int64_t ldx) {
  tsi_lu_device *dev = (tsi_lu_device *)lu->numeric_device;
  ts_context *ctx = lu->ctx;
  if (!dev || !lu->factors_on_device)
    return tsi_error(ctx, TS_ERROR_NOT_FACTORED, "ts_lu_solve: no factors on the device");
  const int64_t n = lu->n;
  if (n == 0 || nrhs == 0)
    return TS_SUCCESS;
  ts_status st = prepare(lu, dev, op, nrhs);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  const size_t value_bytes = (size_t)dev->parts * sizeof(double);
  cudaError_t err = cudaMemcpy2DAsync(dev->solve_rhs, (size_t)n * value_bytes, rhs, (size_t)ldr * value_bytes,
                                      (size_t)n * value_bytes, (size_t)nrhs, cudaMemcpyHostToDevice, stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_lu_solve: copy of the right-hand sides");
  st = apply_inverse_on_device(lu, dev, op, nrhs, dev->solve_rhs, dev->solve_rhs);
  if (st != TS_SUCCESS)
    return st;
  err = cudaMemcpy2DAsync(x, (size_t)ldx * value_bytes, dev->solve_rhs, (size_t)n * value_bytes,
                          (size_t)n * value_bytes, (size_t)nrhs, cudaMemcpyDeviceToHost, stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_lu_solve: copy of the solutions");
  return tsi_cuda_sync(ctx);
}
