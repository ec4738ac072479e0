/* A CSR matrix in GPU memory the way cuSPARSE's anchors take it: int32 row
 * offsets and column indices (the benchmarks' matrices have fewer than 2^31
 * entries) and the values as they are. */
#include "tsb_cuda.h"

#include <stdint.h>
#include <stdlib.h>

int tsb_upload_csr32(const ts_csr *a, void **row_ptr, void **col_idx, void **values) {
  const size_t vs = ts_dtype_size(a->dtype);
  *row_ptr = *col_idx = *values = NULL;
  if (a->nnz > INT32_MAX) {
    fprintf(stderr, "error: %lld entries do not fit int32 offsets\n", (long long)a->nnz);
    return 1;
  }
  int32_t *offsets = (int32_t *)malloc((size_t)(a->rows + 1) * sizeof(int32_t));
  if (!offsets) {
    fprintf(stderr, "error: out of host memory\n");
    return 1;
  }
  for (int64_t i = 0; i <= a->rows; i++)
    offsets[i] = (int32_t)a->row_ptr[i];
  cudaError_t err = cudaMalloc(row_ptr, (size_t)(a->rows + 1) * sizeof(int32_t));
  if (err == cudaSuccess)
    err = cudaMalloc(col_idx, (size_t)a->nnz * sizeof(int32_t) + 4);
  if (err == cudaSuccess)
    err = cudaMalloc(values, (size_t)a->nnz * vs + 8);
  if (err == cudaSuccess)
    err = cudaMemcpy(*row_ptr, offsets, (size_t)(a->rows + 1) * sizeof(int32_t), cudaMemcpyHostToDevice);
  if (err == cudaSuccess && a->nnz > 0)
    err = cudaMemcpy(*col_idx, a->col_idx, (size_t)a->nnz * sizeof(int32_t), cudaMemcpyHostToDevice);
  if (err == cudaSuccess && a->nnz > 0)
    err = cudaMemcpy(*values, a->values, (size_t)a->nnz * vs, cudaMemcpyHostToDevice);
  free(offsets);
  if (err != cudaSuccess) {
    fprintf(stderr, "error: uploading A: %s\n", cudaGetErrorString(err));
    tsb_free_csr32(*row_ptr, *col_idx, *values);
    *row_ptr = *col_idx = *values = NULL;
    return 1;
  }
  return 0;
}

void tsb_free_csr32(void *row_ptr, void *col_idx, void *values) {
  (void)cudaFree(row_ptr);
  (void)cudaFree(col_idx);
  (void)cudaFree(values);
}
