/* Matrices for the benchmarks: a corpus matrix read as a general CSR, a copy
 * in another value type, the names a corpus manifest lists. */
#include "tsb.h"

#include <stdlib.h>
#include <string.h>

ts_status tsb_read_corpus(ts_context *ctx, const char *dir, const char *name, ts_csr **a) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.mtx", dir, name);
  FILE *probe = fopen(path, "r");
  if (probe)
    fclose(probe);
  else
    snprintf(path, sizeof path, "%s/%s.mtx.gz", dir, name);
  return ts_mm_read_csr(ctx, path, TS_FLOAT64, a, NULL);
}

ts_status tsb_csr_convert(ts_context *ctx, const ts_csr *a, ts_dtype dtype, ts_csr **out) {
  ts_status st = ts_csr_create(ctx, a->rows, a->cols, a->nnz, dtype, out);
  if (st != TS_SUCCESS)
    return st;
  memcpy((*out)->row_ptr, a->row_ptr, (size_t)(a->rows + 1) * sizeof(int64_t));
  if (a->nnz > 0)
    memcpy((*out)->col_idx, a->col_idx, (size_t)a->nnz * sizeof(int32_t));
  for (int64_t k = 0; k < a->nnz; k++) {
    double v = a->dtype == TS_FLOAT32 ? (double)((const float *)a->values)[k] : ((const double *)a->values)[k];
    if (dtype == TS_FLOAT32)
      ((float *)(*out)->values)[k] = (float)v;
    else
      ((double *)(*out)->values)[k] = v;
  }
  return TS_SUCCESS;
}

int tsb_corpus_names(const char *dir, char (*names)[128], int max) {
  char path[4096], line[8192];
  int count = 0;
  if (!dir)
    return 0;
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *manifest = fopen(path, "r");
  while (manifest && count < max && fgets(line, sizeof line, manifest)) {
    char name[128];
    if (sscanf(line, "%127[^\t]", name) == 1 && strcmp(name, "name") != 0)
      memcpy(names[count++], name, sizeof name);
  }
  if (manifest)
    fclose(manifest);
  return count;
}
