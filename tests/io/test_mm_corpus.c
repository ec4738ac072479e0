/* Every matrix of the test corpus (MANIFEST.tsv): read with the declared
 * shape, entry count, symmetry and field; written and read back with the
 * same indices and bit-identical values; read as float too. */
#include "test_common.h"

#include <stdbool.h>

static const char *field_name(ts_mm_field field) {
  switch (field) {
  case TS_MM_REAL:
    return "real";
  case TS_MM_INTEGER:
    return "integer";
  case TS_MM_PATTERN:
    return "pattern";
  case TS_MM_COMPLEX:
    return "complex";
  }
  return "?";
}

static void check_matrix(ts_context *ctx, const char *dir, const char *tmp, const char *name, long long rows,
                         long long cols, long long nnz, const char *symmetry, const char *field) {
  char path[4096], copy[4096];
  snprintf(path, sizeof path, "%s/%s.mtx", dir, name);
  snprintf(copy, sizeof copy, "%s/test_mm_corpus_copy.mtx", tmp);

  ts_mm_info header;
  CHECK_OK(ctx, ts_mm_read_info(ctx, path, &header));
  ts_coo *coo = NULL;
  ts_mm_info info;
  ts_status st = ts_mm_read(ctx, path, TS_FLOAT64, &coo, &info);
  CHECK_MSG(st == TS_SUCCESS, "%s: %s", name, ts_last_error(ctx));
  if (st != TS_SUCCESS)
    return;
  CHECK_MSG(coo->rows == rows && coo->cols == cols && coo->nnz == nnz,
            "%s: %lld x %lld, %lld entries; manifest %lld x %lld, %lld", name, (long long)coo->rows,
            (long long)coo->cols, (long long)coo->nnz, rows, cols, nnz);
  CHECK_MSG(strcmp(ts_symmetry_name(coo->symmetry), symmetry) == 0 && strcmp(field_name(info.field), field) == 0,
            "%s: %s %s; manifest %s %s", name, ts_symmetry_name(coo->symmetry), field_name(info.field), symmetry,
            field);
  CHECK_MSG(header.rows == info.rows && header.cols == info.cols && header.entries == info.entries &&
                header.field == info.field && header.symmetry == info.symmetry && header.format == info.format,
            "%s: ts_mm_read_info disagrees with ts_mm_read", name);
  CHECK_OK(ctx, ts_coo_check(ctx, coo));

  /* Write (keeping the field) and read back: the same entries, bit for bit. */
  ts_mm_write_options options = {info.field, 0};
  CHECK_OK(ctx, ts_mm_write_coo(ctx, copy, coo, &options));
  ts_coo *back = NULL;
  st = ts_mm_read(ctx, copy, TS_FLOAT64, &back, NULL);
  CHECK_MSG(st == TS_SUCCESS, "%s copy: %s", name, ts_last_error(ctx));
  if (back) {
    bool same =
        back->rows == coo->rows && back->cols == coo->cols && back->nnz == coo->nnz && back->symmetry == coo->symmetry;
    same = same && memcmp(back->row_idx, coo->row_idx, (size_t)coo->nnz * sizeof(int32_t)) == 0 &&
           memcmp(back->col_idx, coo->col_idx, (size_t)coo->nnz * sizeof(int32_t)) == 0 &&
           memcmp(back->values, coo->values, (size_t)coo->nnz * sizeof(double)) == 0;
    CHECK_MSG(same, "%s: the written copy reads back different", name);
  }
  ts_coo_destroy(back);
  remove(copy);

  /* As float: the same entries, each value the double one rounded. */
  ts_coo *single = NULL;
  st = ts_mm_read(ctx, path, TS_FLOAT32, &single, NULL);
  CHECK_MSG(st == TS_SUCCESS, "%s as float: %s", name, ts_last_error(ctx));
  if (single) {
    bool same = single->nnz == coo->nnz && single->dtype == TS_FLOAT32 &&
                memcmp(single->row_idx, coo->row_idx, (size_t)coo->nnz * sizeof(int32_t)) == 0;
    for (int64_t k = 0; same && k < coo->nnz; k++) {
      double v = ((double *)coo->values)[k];
      float f = ((float *)single->values)[k];
      same = f == (float)v && fabs((double)f - v) <= 1e-7 * fabs(v) + 1e-38;
    }
    CHECK_MSG(same, "%s: float values differ", name);
  }
  ts_coo_destroy(single);
  ts_coo_destroy(coo);
}

int main(void) {
  const char *dir = test_matrices_dir();
  if (!dir)
    return test_skip("TESSERA_MATRICES (the Matrix Market corpus) is absent");
  const char *tmp = getenv("TESSERA_TEST_TMP");
  if (!tmp || !*tmp)
    tmp = ".";
  char manifest_path[4096];
  snprintf(manifest_path, sizeof manifest_path, "%s/MANIFEST.tsv", dir);
  FILE *manifest = fopen(manifest_path, "r");
  if (!manifest)
    return test_skip("MANIFEST.tsv cannot be opened");

  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  char line[8192];
  int matrices = 0;
  bool header = true;
  while (fgets(line, sizeof line, manifest)) {
    if (header) { /* name rows cols nnz symmetry field ... */
      header = false;
      CHECK(strncmp(line, "name\trows\tcols\tnnz\tsymmetry\tfield", 33) == 0);
      continue;
    }
    char name[256], symmetry[64], field[64];
    long long rows, cols, nnz;
    if (sscanf(line, "%255[^\t]\t%lld\t%lld\t%lld\t%63[^\t]\t%63[^\t\n]", name, &rows, &cols, &nnz, symmetry, field) !=
        6)
      continue;
    check_matrix(ctx, dir, tmp, name, rows, cols, nnz, symmetry, field);
    matrices++;
  }
  fclose(manifest);
  CHECK(matrices > 0);
  printf("%d corpus matrices read, written and read back\n", matrices);
  ts_context_destroy(ctx);
  return test_finish();
}
