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
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const double b_i = b[i], x_i = x[i];
    x_not_finite |= !isfinite(x_i);
    const double x_abs = fabs(x_i), b_abs = fabs(b_i);
    x_norm = fmax(x_norm, x_abs);
    b_norm = fmax(b_norm, b_abs);
    x_scaled = fmax(x_scaled, __ddiv_rn(x_abs, col_scale[i]));
    b_scaled = fmax(b_scaled, __dmul_rn(b_abs, row_scale[i]));
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
                   double *r, tsi_lu_residual_measures *measures) {
  ts_context *ctx = lu->ctx;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  const int64_t n = lu->n;
  cudaError_t err = cudaMemsetAsync(dev->refine_norms, 0, TSI_LU_REFINE_NORMS * sizeof(unsigned long long), stream);
  if (err == cudaSuccess) {
    residual_kernel<<<grid_for(n), TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(
        n, dev->a_row_ptr, dev->a_col, dev->a_values, dev->row_scale, dev->col_scale, b, x, r, dev->refine_norms);
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
  return TS_SUCCESS;
}

double normwise(const tsi_lu_residual_measures *m) { return fmax(m->normwise, m->scaled); }

} // namespace

extern "C" ts_status tsi_lu_cuda_refine(ts_lu *lu, const tsi_lu_refine_setup *setup, const double *b, double *x,
                                        tsi_lu_residual_measures *measures, int *steps) {
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
  if (st != TS_SUCCESS)
    return st;
  if (dev->peak > lu->stats.peak_device_bytes)
    lu->stats.peak_device_bytes = dev->peak;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  double *b_dev = dev->refine_work, *solution[2] = {b_dev + n, b_dev + 2 * n}, *r = b_dev + 3 * n;
  cudaError_t err = cudaMemcpyAsync(b_dev, b, (size_t)n * sizeof(double), cudaMemcpyHostToDevice, stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_lu_solve: copy of the right-hand side");
  int cur = 0;
  st = tsi_lu_cuda_apply_inverse_device(lu, TS_OP_NONE, b_dev, solution[cur]);
  if (st == TS_SUCCESS)
    st = residual(lu, dev, setup, b_dev, solution[cur], r, measures);
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
    st = residual(lu, dev, setup, b_dev, candidate, r, &next);
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
  err = cudaMemcpyAsync(x, solution[cur], (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "ts_lu_solve: copy of the solution");
  return TS_SUCCESS;
}
