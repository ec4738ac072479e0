/* The GPU factorization's first step: M = P Dr A Dc Q scattered into the
 * factor values (the pattern's fill entries stay zero), its largest
 * magnitude taken exactly, and the pivot rule made from it on the device. */
#include "lu/numeric/numeric_cuda.cuh"

#include <cuda_runtime.h>

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

void tsi_lu_scatter_cuda(const ts_lu *lu, tsi_lu_device *dev, double threshold, double root_eps, cudaStream_t stream) {
  int64_t blocks = (lu->nnz_a + TSI_LU_ELEMENTWISE_THREADS - 1) / TSI_LU_ELEMENTWISE_THREADS;
  if (blocks > TSI_LU_ELEMENTWISE_BLOCKS)
    blocks = TSI_LU_ELEMENTWISE_BLOCKS;
  if (blocks < 1)
    blocks = 1;
  if (dev->single)
    scatter_values<float><<<(unsigned)blocks, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(
        lu->nnz_a, dev->a_row, dev->a_col, dev->a_values, dev->row_scale, dev->col_scale, dev->a_to_lu,
        (float *)dev->values, dev->acc, dev->max_bits);
  else
    scatter_values<double><<<(unsigned)blocks, TSI_LU_ELEMENTWISE_THREADS, 0, stream>>>(
        lu->nnz_a, dev->a_row, dev->a_col, dev->a_values, dev->row_scale, dev->col_scale, dev->a_to_lu,
        (double *)dev->values, dev->acc, dev->max_bits);
  make_rule<<<1, 1, 0, stream>>>(dev->max_bits, threshold, root_eps, !lu->options.no_perturbation, dev->rule);
}
