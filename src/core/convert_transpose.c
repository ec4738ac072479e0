/* Counting transpose of a compressed layout: group entries by their minor
 * index (CSR -> CSC, or CSR(A) -> CSR(A^T)). The classic two-pass counting
 * sort (as in Gustavson, "Two fast algorithms for sparse matrices:
 * multiplication and permuted transposition", ACM TOMS 1978). */
#include "core/complex_value.h"
#include "core/convert_internal.h"

#include <string.h>

void tsi_compressed_transpose(int64_t majors, int64_t minors, int64_t nnz, const int64_t *ptr, const int32_t *idx,
                              const void *values, ts_dtype dtype, int64_t *out_ptr, int32_t *out_idx,
                              void *out_values) {
  memset(out_ptr, 0, (size_t)(minors + 1) * sizeof *out_ptr);
  for (int64_t k = 0; k < nnz; k++)
    out_ptr[idx[k] + 1]++;
  for (int64_t j = 0; j < minors; j++)
    out_ptr[j + 1] += out_ptr[j];
  /* out_ptr[j] is the cursor of group j; scattering majors in increasing
   * order keeps each group sorted and the sort stable. */
  const size_t value_size = ts_dtype_size(dtype);
  for (int64_t i = 0; i < majors; i++) {
    for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
      int64_t dest = out_ptr[idx[k]]++;
      out_idx[dest] = (int32_t)i;
      tsi_value_copy(value_size, out_values, dest, values, k);
    }
  }
  /* Each cursor now holds the end of its group = the start of the next. */
  for (int64_t j = minors; j > 0; j--)
    out_ptr[j] = out_ptr[j - 1];
  out_ptr[0] = 0;
}
