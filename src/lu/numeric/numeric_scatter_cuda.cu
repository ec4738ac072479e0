/* The GPU factorization's first step: M = P Dr A Dc Q scattered into the
 * factor values (the pattern's fill entries stay zero), its largest
 * magnitude taken exactly, and the pivot rule made from it on the device. */
#include "lu/numeric/numeric_cuda.cuh"

#include <cuda_runtime.h>

/* s * w * t for real s, t (the scaling; a complex value part by part, as
 * the host computes it), and |w| (the modulus). */
__device__ __forceinline__ double scaled(double s, double w, double t) { return s * w * t; }
__device__ __forceinline__ tsi_complex128 scaled(double s, tsi_complex128 w, double t) {
  return tsi_z(s * w.re * t, s * w.im * t);
}
__device__ __forceinline__ double magnitude(double w) { return fabs(w); }
__device__ __forceinline__ double magnitude(tsi_complex128 w) { return tsi_z_abs(w); }

template <typename T>
__global__ void scatter_values(int64_t nnz, const int32_t *a_row, const int32_t *a_col, const double *a_values,
                               const double *row_scale, const double *col_scale, const int64_t *a_to_lu, T *values,
                               double *acc_values, unsigned long long *max_bits) {
  using W = work_of<T>;
  const W *a = (const W *)a_values;
  W *acc = (W *)acc_values;
  double local_max = 0.0;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < nnz; e += (int64_t)gridDim.x * blockDim.x) {
    const W v = scaled(row_scale[a_row[e]], a[e], col_scale[a_col[e]]);
    T stored = narrow<T>(v);
    values[a_to_lu[e]] = stored;
    if ((void *)acc != (void *)values)
      acc[a_to_lu[e]] = widen(stored);
    local_max = fmax(local_max, magnitude(v));
  }
  tsi_lu_warp_max_into(max_bits, local_max);
}

__global__ void make_rule(const unsigned long long *max_bits, double threshold, double root_eps, int perturb,
                          double *rule) {
  double max_abs = __longlong_as_double((long long)*max_bits);
  double reference = max_abs > 0.0 ? max_abs : 1.0;
  rule[0] = threshold * max_abs;
  rule[1] = fmax(root_eps, threshold) * reference;
  rule[2] = perturb ? 1.0 : 0.0;
}

void tsi_lu_scatter_cuda(const ts_lu *lu, tsi_lu_device *dev, double threshold, double root_eps, cudaStream_t stream) {
  int64_t blocks = (lu->nnz_a + TSI_LU_ELEMENTWISE_THREADS - 1) / TSI_LU_ELEMENTWISE_THREADS;
  if (blocks > TSI_LU_ELEMENTWISE_BLOCKS)
    blocks = TSI_LU_ELEMENTWISE_BLOCKS;
  if (blocks < 1)
    blocks = 1;
#define TSI_SCATTER(T)                                                                                                 \
  scatter_values<T><<<(unsigned)blocks, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(                                      \
      lu->nnz_a, dev->a_row, dev->a_col, dev->a_values, dev->row_scale, dev->col_scale, dev->a_to_lu,                  \
      (T *)dev->values, dev->acc, dev->max_bits)
  if (dev->parts == 2 && dev->single)
    TSI_SCATTER(tsi_complex64);
  else if (dev->parts == 2)
    TSI_SCATTER(tsi_complex128);
  else if (dev->single)
    TSI_SCATTER(float);
  else
    TSI_SCATTER(double);
#undef TSI_SCATTER
  tsi_lu_pivot_rule_cuda(dev->max_bits, threshold, root_eps, !lu->options.no_perturbation, dev->rule, stream);
}

void tsi_lu_pivot_rule_cuda(const unsigned long long *max_bits, double threshold, double root_eps, int perturb,
                            double *rule, cudaStream_t stream) {
  make_rule<<<1, 1, 0, stream>>>(max_bits, threshold, root_eps, perturb, rule);
}
