/* libFuzzer target: arbitrary bytes -> ts_mm_read_memory (float and double);
 * whatever is accepted must be a valid COO holding the declared entry count,
 * and (for modest dimensions) convert to a CSR that passes ts_csr_check. */
#include "tessera.h"

#include <stdint.h>
#include <stdlib.h>

/* Larger matrices are read but not converted: a CSR allocates rows + 1
 * offsets, which a 60-byte input may declare as 2^31. */
#define LARGEST_CONVERTED_DIMENSION 100000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const ts_dtype dtypes[2] = {TS_FLOAT64, TS_FLOAT32};
  for (int d = 0; d < 2; d++) {
    ts_coo *coo = NULL;
    ts_mm_info info;
    if (ts_mm_read_memory(NULL, (const char *)data, size, dtypes[d], &coo, &info) != TS_SUCCESS) {
      if (coo)
        abort(); /* a failed read returns no matrix */
      continue;
    }
    if (!coo || coo->nnz != info.entries || ts_coo_check(NULL, coo) != TS_SUCCESS)
      abort();
    if (coo->rows <= LARGEST_CONVERTED_DIMENSION && coo->cols <= LARGEST_CONVERTED_DIMENSION) {
      ts_csr *csr = NULL;
      if (ts_csr_from_coo(NULL, coo, TS_DUPLICATES_SUM, &csr) == TS_SUCCESS) {
        if (ts_csr_check(NULL, csr) != TS_SUCCESS)
          abort();
        ts_csr_destroy(csr);
      }
    }
    ts_coo_destroy(coo);
  }
  return 0;
}
