/* Iterative refinement with the residual on the device (refine.c's loop;
 * Wilkinson 1963, Moler 1967): for real values and A x = b, the factors on
 * the GPU. r = b - A x row by row, a thread a row, each row's sum in A's
 * order without fused multiply-adds, so r and every measure have the bits
 * of the host's residual; the maxima gathered by atomics on their bit
 * patterns (non-negative doubles order as their bits do), which no order
 * of arrival changes. The host reads the maxima once per residual and
 * decides as refine.c does. */
#include "lu/numeric/numeric_internal.h"
#include "lu/solve/solve_internal.h"

#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

namespace {

__device__ __forceinline__ void gather_max(unsigned long long *maxima, int slot, double value) {
  for (int offset = 16; offset > 0; offset /= 2)
    value = fmax(value, __shfl_down_sync(0xffffffffu, value, offset));
  if ((threadIdx.x & 31) == 0 && value > 0.0)
    atomicMax(&maxima[slot], (unsigned long long)__double_as_longlong(value));
}

/* r = b - A x and the maxima of tsi_lu_residual's measures. A residual
 * that is not a number makes R infinite: its measures are then infinite. */
__global__ void residual_kernel(int64_t n, const int64_t *row_ptr, const int32_t *col_idx, const double *a,
                                const double *row_scale, const double *col_scale, const double *b, const double *x,
                                double *r, unsigned long long *maxima) {
  const double guard = __dmul_rn((double)(n + 1), DBL_MIN);
  double x_norm = 0.0, x_scaled = 0.0, b_norm = 0.0, b_scaled = 0.0, r_norm = 0.0, r_scaled = 0.0;
  double componentwise = 0.0;
  int x_not_finite = 0, r_nan = 0;
  unsigned long long b_bad = 0;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const double b_i = b[i], x_i = x[i];
    x_not_finite |= !isfinite(x_i);
    if (!isfinite(b_i) && (unsigned long long)(n - i) > b_bad)
      b_bad = (unsigned long long)(n - i);
    const double x_abs = fabs(x_i), b_abs = fabs(b_i);
    x_norm = fmax(x_norm, x_abs);
    b_norm = fmax(b_norm, b_abs);
    x_scaled = fmax(x_scaled, __ddiv_rn(x_abs, col_scale[i]));
    b_scaled = fmax(b_scaled, __dmul_rn(b_abs, row_scale[i]));
    if (row_ptr[i + 1] - row_ptr[i] > TSI_LU_REFINE_LONG_ROW)
      continue; /* long_rows_kernel's */
    double sum = b_i, row_magnitude = b_abs;
    for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
      const double term = __dmul_rn(a[e], x[col_idx[e]]);
      sum = __dsub_rn(sum, term);
      row_magnitude = __dadd_rn(row_magnitude, fabs(term));
    }
    r[i] = sum;
    const double r_i = fabs(sum);
    r_nan |= isnan(r_i);
    r_norm = fmax(r_norm, r_i);
    r_scaled = fmax(r_scaled, __dmul_rn(r_i, row_scale[i]));
    /* refine.c's componentwise share, with LAPACK's guard (xGERFS) near the
     * underflow threshold. */
    if (sum != 0.0)
      componentwise = fmax(componentwise, row_magnitude > guard / DBL_EPSILON
                                              ? __ddiv_rn(r_i, row_magnitude)
                                              : __ddiv_rn(__dadd_rn(r_i, guard), __dadd_rn(row_magnitude, guard)));
  }
  gather_max(maxima, TSI_LU_REFINE_X, x_norm);
  gather_max(maxima, TSI_LU_REFINE_X_SCALED, x_scaled);
  gather_max(maxima, TSI_LU_REFINE_B, b_norm);
  gather_max(maxima, TSI_LU_REFINE_B_SCALED, b_scaled);
  gather_max(maxima, TSI_LU_REFINE_R, r_norm);
  gather_max(maxima, TSI_LU_REFINE_R_SCALED, r_scaled);
  gather_max(maxima, TSI_LU_REFINE_COMPONENTWISE, componentwise);
  const int lane_zero = (threadIdx.x & 31) == 0;
  if (__any_sync(0xffffffffu, r_nan) && lane_zero)
    atomicMax(&maxima[TSI_LU_REFINE_R], (unsigned long long)__double_as_longlong(INFINITY));
  if (__any_sync(0xffffffffu, x_not_finite) && lane_zero)
    atomicMax(&maxima[TSI_LU_REFINE_NOT_FINITE], 1ull);
  if (b_bad > 0)
    atomicMax(&maxima[TSI_LU_REFINE_B_BAD], b_bad);
}

/* The rows of more than TSI_LU_REFINE_LONG_ROW entries (a circuit's
 * supply and ground nets), a block a row: each thread sums its stride of
 * the row, then a tree in shared memory in a fixed order (deterministic;
 * these rows' sums are grouped unlike the host's). */
__global__ void __launch_bounds__(TSI_LU_REFINE_LONG_THREADS)
    long_rows_kernel(int64_t n, int64_t count, const int32_t *long_rows, const int64_t *row_ptr, const int32_t *col_idx,
                     const double *a, const double *row_scale, const double *b, const double *x, double *r,
                     unsigned long long *maxima) {
  __shared__ double terms[TSI_LU_REFINE_LONG_THREADS], magnitudes[TSI_LU_REFINE_LONG_THREADS];
  const double guard = __dmul_rn((double)(n + 1), DBL_MIN);
  for (int64_t k = blockIdx.x; k < count; k += gridDim.x) {
    const int64_t i = long_rows[k];
    double term_sum = 0.0, magnitude = 0.0;
    for (int64_t e = row_ptr[i] + threadIdx.x; e < row_ptr[i + 1]; e += blockDim.x) {
      const double term = __dmul_rn(a[e], x[col_idx[e]]);
      term_sum = __dadd_rn(term_sum, term);
      magnitude = __dadd_rn(magnitude, fabs(term));
    }
    terms[threadIdx.x] = term_sum;
    magnitudes[threadIdx.x] = magnitude;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) {
        terms[threadIdx.x] = __dadd_rn(terms[threadIdx.x], terms[threadIdx.x + half]);
        magnitudes[threadIdx.x] = __dadd_rn(magnitudes[threadIdx.x], magnitudes[threadIdx.x + half]);
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      const double b_i = b[i];
      const double sum = __dsub_rn(b_i, terms[0]), row_magnitude = __dadd_rn(fabs(b_i), magnitudes[0]);
      r[i] = sum;
      const double r_i = fabs(sum);
      if (isnan(r_i)) {
        atomicMax(&maxima[TSI_LU_REFINE_R], (unsigned long long)__double_as_longlong(INFINITY));
      } else if (sum != 0.0) {
        const double share = row_magnitude > guard / DBL_EPSILON
                                 ? __ddiv_rn(r_i, row_magnitude)
                                 : __ddiv_rn(__dadd_rn(r_i, guard), __dadd_rn(row_magnitude, guard));
        atomicMax(&maxima[TSI_LU_REFINE_R], (unsigned long long)__double_as_longlong(r_i));
        atomicMax(&maxima[TSI_LU_REFINE_R_SCALED],
                  (unsigned long long)__double_as_longlong(__dmul_rn(r_i, row_scale[i])));
        atomicMax(&maxima[TSI_LU_REFINE_COMPONENTWISE], (unsigned long long)__double_as_longlong(share));
      }
    }
    __syncthreads(); /* the shared arrays are the next row's */
  }
}

/* candidate += x (refine.c's correction). */
__global__ void add_kernel(int64_t n, double *candidate, const double *x) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    candidate[i] = __dadd_rn(candidate[i], x[i]);
}

unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + TSI_LU_ELEMENTWISE_THREADS - 1) / TSI_LU_ELEMENTWISE_THREADS;
  return (unsigned)(blocks < TSI_LU_ELEMENTWISE_BLOCKS ? blocks : TSI_LU_ELEMENTWISE_BLOCKS);
}

/* The residual of x, its measures read back (the one synchronisation). */
ts_status residual(ts_lu *lu, tsi_lu_device *dev, const tsi_lu_refine_setup *setup, const double *b, const double *x,
                   double *r, tsi_lu_residual_measures *measures, int64_t *b_bad_row) {
  ts_context *ctx = lu->ctx;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  const int64_t n = lu->n;
  cudaError_t err = cudaMemsetAsync(dev->refine_norms, 0, TSI_LU_REFINE_NORMS * sizeof(unsigned long long), stream);
  if (err == cudaSuccess) {
    residual_kernel<<<grid_for(n), TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(
        n, dev->a_row_ptr, dev->a_col, dev->a_values, dev->row_scale, dev->col_scale, b, x, r, dev->refine_norms);
    if (dev->refine_long_count > 0) {
      const int64_t count = dev->refine_long_count;
      long_rows_kernel<<<(unsigned)(count < 65535 ? count : 65535), TSI_LU_REFINE_LONG_THREADS, 0, stream>>>(
          n, count, dev->refine_long_rows, dev->a_row_ptr, dev->a_col, dev->a_values, dev->row_scale, b, x, r,
          dev->refine_norms);
    }
    err = cudaGetLastError();
  }
  unsigned long long bits[TSI_LU_REFINE_NORMS];
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(bits, dev->refine_norms, sizeof bits, cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_lu_solve: the residual on the GPU");
  double maxima[TSI_LU_REFINE_NORMS];
  memcpy(maxima, bits, sizeof maxima);
  tsi_lu_measures_from_maxima(setup, maxima, bits[TSI_LU_REFINE_NOT_FINITE] == 0, measures);
  *b_bad_row = bits[TSI_LU_REFINE_B_BAD] > 0 ? n - (int64_t)bits[TSI_LU_REFINE_B_BAD] : -1;
  return TS_SUCCESS;
}

/* The rows long_rows_kernel takes, listed once per device cache. */
ts_status find_long_rows(ts_lu *lu, tsi_lu_device *dev) {
  int64_t count = 0;
  for (int64_t i = 0; i < lu->n; i++)
    count += lu->a_row_ptr[i + 1] - lu->a_row_ptr[i] > TSI_LU_REFINE_LONG_ROW;
  if (count > 0) {
    int32_t *rows = (int32_t *)malloc((size_t)count * sizeof(int32_t));
    if (!rows)
      return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_solve: no memory for the list of long rows");
    for (int64_t i = 0, k = 0; i < lu->n; i++)
      if (lu->a_row_ptr[i + 1] - lu->a_row_ptr[i] > TSI_LU_REFINE_LONG_ROW)
        rows[k++] = (int32_t)i;
    ts_status st = tsi_lu_device_alloc(lu->ctx, dev, (void **)&dev->refine_long_rows, count, sizeof(int32_t),
                                       "the list of long rows");
    if (st == TS_SUCCESS)
      st = tsi_cuda_memcpy_to_device(lu->ctx, dev->refine_long_rows, rows, (size_t)count * sizeof(int32_t));
    free(rows);
    if (st != TS_SUCCESS)
      return st;
  }
  dev->refine_long_count = count;
  dev->refine_long_listed = 1;
  return TS_SUCCESS;
}

double normwise(const tsi_lu_residual_measures *m) { return fmax(m->normwise, m->scaled); }

} // namespace

extern "C" ts_status tsi_lu_cuda_refine(ts_lu *lu, const tsi_lu_refine_setup *setup, const double *b, double *x,
                                        bool device_vectors, tsi_lu_residual_measures *measures, int *steps) {
  ts_context *ctx = lu->ctx;
  tsi_lu_device *dev = (tsi_lu_device *)lu->numeric_device;
  *steps = 0;
  if (!dev || !lu->factors_on_device || dev->parts != 1 || !dev->a_row_ptr)
    return tsi_error(ctx, TS_ERROR_INTERNAL, "ts_lu_solve: the device refinement needs real factors on the device");
  const int64_t n = lu->n;
  ts_status st = tsi_cuda_activate(ctx);
  if (st == TS_SUCCESS && !dev->refine_work)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->refine_work, 4 * n, sizeof(double), "the refinement's vectors");
  if (st == TS_SUCCESS && !dev->refine_norms)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->refine_norms, TSI_LU_REFINE_NORMS, sizeof(unsigned long long),
                             "the refinement's maxima");
  if (st == TS_SUCCESS && !dev->refine_long_listed)
    st = find_long_rows(lu, dev);
  if (st != TS_SUCCESS)
    return st;
  if (dev->peak > lu->stats.peak_device_bytes)
    lu->stats.peak_device_bytes = dev->peak;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  double *b_copy = dev->refine_work, *solution[2] = {b_copy + n, b_copy + 2 * n}, *r = b_copy + 3 * n;
  const double *b_dev = device_vectors ? b : b_copy;
  cudaError_t err = cudaSuccess;
  if (!device_vectors)
    err = cudaMemcpyAsync(b_copy, b, (size_t)n * sizeof(double), cudaMemcpyHostToDevice, stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_lu_solve: copy of the right-hand side");
  int cur = 0;
  int64_t b_bad_row = -1;
  st = tsi_lu_cuda_apply_inverse_device(lu, TS_OP_NONE, b_dev, solution[cur]);
  if (st == TS_SUCCESS)
    st = residual(lu, dev, setup, b_dev, solution[cur], r, measures, &b_bad_row);
  if (st == TS_SUCCESS && b_bad_row >= 0) {
    double value = 0.0;
    (void)cudaMemcpy(&value, b_dev + b_bad_row, sizeof value, cudaMemcpyDeviceToHost);
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "ts_lu_solve_buffers: b holds %g at row %lld (from 0): the right-hand sides must be finite", value,
                     (long long)b_bad_row);
  }
  while (st == TS_SUCCESS && *steps < setup->max_steps && isfinite(normwise(measures))) {
    if ((st = tsi_check_cancel(ctx)) != TS_SUCCESS)
      break;
    const bool polishing = normwise(measures) <= setup->tolerance;
    if (polishing && !(measures->componentwise > TSI_LU_POLISH_THRESHOLD))
      break;
    double *candidate = solution[cur ^ 1];
    st = tsi_lu_cuda_apply_inverse_device(lu, TS_OP_NONE, r, candidate);
    if (st != TS_SUCCESS)
      break;
    add_kernel<<<grid_for(n), TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(n, candidate, solution[cur]);
    tsi_lu_residual_measures next;
    st = residual(lu, dev, setup, b_dev, candidate, r, &next, &b_bad_row);
    if (st != TS_SUCCESS)
      break;
    const double before = polishing ? measures->componentwise : normwise(measures);
    const double after = polishing ? next.componentwise : normwise(&next);
    if (!(after < before) || (polishing && !(normwise(&next) <= setup->tolerance)))
      break; /* no better: keep x */
    cur ^= 1;
    (*steps)++;
    *measures = next;
    if (after > 0.5 * before && (polishing || normwise(&next) > setup->tolerance))
      break;
  }
  if (st != TS_SUCCESS)
    return st;
  if (device_vectors) {
    err = cudaMemcpyAsync(x, solution[cur], (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice, stream);
  } else {
    err = cudaMemcpyAsync(x, solution[cur], (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, stream);
    if (err == cudaSuccess)
      err = cudaStreamSynchronize(stream);
  }
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_lu_solve: copy of the solution");
  return TS_SUCCESS;
}
