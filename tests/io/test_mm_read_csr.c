/* ts_mm_read_csr: a Matrix Market file as a general CSR. Each case is a
 * small file whose dense matrix is written out by hand (the reference):
 * symmetric, skew-symmetric and hermitian storage expanded, pattern and
 * integer fields, duplicates summed in file order, and sums past the range
 * of the value type refused with the file, the place and the entries. */
#include "mm_test_util.h"

static ts_context *ctx;

static const char *write_case(const char *name, const char *text) {
  static char path[4400];
  const char *tmp = getenv("TESSERA_TEST_TMP");
  snprintf(path, sizeof path, "%s/%s", tmp && *tmp ? tmp : ".", name);
  CHECK(mm_test_write_file(path, text, strlen(text)));
  return path;
}

/* The CSR equals the dense n x m reference: same stored places (the places
 * listed non-zero in `stored`), same values. */
static void expect_dense(const char *what, const ts_csr *csr, int n, int m, const double *dense, const int *stored,
                         ts_dtype dtype) {
  CHECK_MSG(csr != NULL, "%s: no matrix (%s)", what, ts_last_error(ctx));
  if (!csr)
    return;
  CHECK_MSG(csr->rows == n && csr->cols == m && csr->symmetry == TS_GENERAL && csr->dtype == dtype, "%s: shape or tags",
            what);
  CHECK(ts_csr_check(NULL, csr) == TS_SUCCESS);
  int64_t places = 0;
  for (int k = 0; k < n * m; k++)
    places += stored[k] != 0;
  CHECK_MSG(csr->nnz == places, "%s: %lld entries, want %lld", what, (long long)csr->nnz, (long long)places);
  for (int64_t i = 0; i < csr->rows; i++)
    for (int64_t k = csr->row_ptr[i]; k < csr->row_ptr[i + 1]; k++) {
      int j = csr->col_idx[k];
      double v = dtype == TS_FLOAT32 ? (double)((float *)csr->values)[k] : ((double *)csr->values)[k];
      double want = dtype == TS_FLOAT32 ? (double)(float)dense[i * m + j] : dense[i * m + j];
      CHECK_MSG(stored[i * m + j] && v == want, "%s: (%lld, %d) = %g, want %g", what, (long long)i, j, v, want);
    }
}

static void test_expansions(void) {
  for (int d = 0; d < 2; d++) {
    ts_dtype dtype = d ? TS_FLOAT32 : TS_FLOAT64;
    ts_csr *csr = NULL;
    ts_mm_info info;
    /* Symmetric: the lower triangle mirrored; the diagonal once. */
    const char *path = write_case("test_mm_read_csr_sym.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                                                              "3 3 4\n1 1 2\n2 1 -1\n3 2 0.5\n3 3 7\n");
    CHECK_OK(ctx, ts_mm_read_csr(ctx, path, dtype, &csr, &info));
    {
      double dense[] = {2, -1, 0, -1, 0, 0.5, 0, 0.5, 7};
      int stored[] = {1, 1, 0, 1, 0, 1, 0, 1, 1};
      expect_dense("symmetric", csr, 3, 3, dense, stored, dtype);
      CHECK(info.symmetry == TS_SYMMETRIC && info.entries == 4);
    }
    ts_csr_destroy(csr);
    /* Skew-symmetric: mirrored with the sign changed. */
    path = write_case("test_mm_read_csr_skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                                                   "3 3 2\n2 1 3\n3 1 -0.25\n");
    CHECK_OK(ctx, ts_mm_read_csr(ctx, path, dtype, &csr, NULL));
    {
      double dense[] = {0, -3, 0.25, 3, 0, 0, -0.25, 0, 0};
      int stored[] = {0, 1, 1, 1, 0, 0, 1, 0, 0};
      expect_dense("skew-symmetric", csr, 3, 3, dense, stored, dtype);
    }
    ts_csr_destroy(csr);
    /* Pattern, symmetric: every stored entry 1, duplicates summed (2). */
    path = write_case("test_mm_read_csr_pattern.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                                      "2 2 3\n2 1\n2 2\n2 1\n");
    CHECK_OK(ctx, ts_mm_read_csr(ctx, path, dtype, &csr, &info));
    {
      double dense[] = {0, 2, 2, 1};
      int stored[] = {0, 1, 1, 1};
      expect_dense("pattern with a duplicate", csr, 2, 2, dense, stored, dtype);
      CHECK(info.field == TS_MM_PATTERN);
    }
    ts_csr_destroy(csr);
    /* General with duplicates in file order and an explicit zero kept;
     * gzip through the same call. */
    const char *text = "%%MatrixMarket matrix coordinate integer general\n2 3 5\n2 3 4\n1 1 0\n2 3 -6\n1 2 1\n2 3 1\n";
    mm_bytes gz = mm_test_gzip(text, strlen(text));
    const char *tmp = getenv("TESSERA_TEST_TMP");
    char gz_path[4400];
    snprintf(gz_path, sizeof gz_path, "%s/test_mm_read_csr_dup.mtx.gz", tmp && *tmp ? tmp : ".");
    CHECK(mm_test_write_file(gz_path, gz.data, gz.size));
    free(gz.data);
    CHECK_OK(ctx, ts_mm_read_csr(ctx, gz_path, dtype, &csr, NULL));
    {
      double dense[] = {0, 1, 0, 0, 0, -1};
      int stored[] = {1, 1, 0, 0, 0, 1};
      expect_dense("general with duplicates", csr, 2, 3, dense, stored, dtype);
    }
    ts_csr_destroy(csr);
  }
}

/* A sum past the largest value is refused, naming file, place and entries;
 * the same sum within range (double) is kept. */
static void test_nonfinite_sums(void) {
  const char *path = write_case("test_mm_read_csr_inf.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                                            "4 4 4\n1 1 1\n3 2 1e308\n2 2 5\n3 2 1e308\n");
  ts_csr *csr = (ts_csr *)&csr;
  CHECK_STATUS(ctx, ts_mm_read_csr(ctx, path, TS_FLOAT64, &csr, NULL), TS_ERROR_INVALID_MATRIX);
  CHECK(csr == NULL);
  const char *message = ts_last_error(ctx);
  CHECK_MSG(strstr(message, path) && strstr(message, "(3, 2)") && strstr(message, "entries 2 and 4") &&
                strstr(message, "double"),
            "message: %s", message);
  /* In single precision 1e30 + 1e30 is fine, 3e38 + 3e38 is not. */
  path = write_case("test_mm_read_csr_inf_float.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                                                      "3 3 4\n2 1 1e30\n2 1 1e30\n3 1 3e38\n3 1 3e38\n");
  CHECK_STATUS(ctx, ts_mm_read_csr(ctx, path, TS_FLOAT32, &csr, NULL), TS_ERROR_INVALID_MATRIX);
  message = ts_last_error(ctx);
  CHECK_MSG(strstr(message, "(3, 1)") && strstr(message, "entries 3 and 4") && strstr(message, "float"), "message: %s",
            message);
  CHECK_OK(ctx, ts_mm_read_csr(ctx, path, TS_FLOAT64, &csr, NULL));
  {
    double dense[] = {0, 2e30, 6e38, 2e30, 0, 0, 6e38, 0, 0};
    int stored[] = {0, 1, 1, 1, 0, 0, 1, 0, 0};
    expect_dense("sums within double", csr, 3, 3, dense, stored, TS_FLOAT64);
  }
  ts_csr_destroy(csr);
  /* The conversion itself refuses it too (zero-based, the COO's entries). */
  ts_coo *coo = NULL;
  CHECK_OK(ctx, ts_mm_read(ctx, path, TS_FLOAT32, &coo, NULL));
  ts_coo *general = NULL;
  CHECK_OK(ctx, ts_coo_expand_symmetric(ctx, coo, &general));
  CHECK_STATUS(ctx, ts_csr_from_coo(ctx, general, TS_DUPLICATES_SUM, &csr), TS_ERROR_INVALID_MATRIX);
  CHECK(strstr(ts_last_error(ctx), "row 0, column 2") != NULL || strstr(ts_last_error(ctx), "row 2, column 0"));
  ts_coo_destroy(general);
  ts_coo_destroy(coo);
}

/* Errors of the reading step come through with the file named. */
static void test_errors(void) {
  ts_csr *csr = (ts_csr *)&csr;
  const char *path = write_case("test_mm_read_csr_bad.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                                            "2 2 2\n1 1 1\n3 1 1\n");
  CHECK_STATUS(ctx, ts_mm_read_csr(ctx, path, TS_FLOAT64, &csr, NULL), TS_ERROR_PARSE);
  CHECK(csr == NULL && strstr(ts_last_error(ctx), ":4: row index 3 out of range") != NULL);
  CHECK_STATUS(ctx, ts_mm_read_csr(ctx, "/nonexistent/x.mtx", TS_FLOAT64, &csr, NULL), TS_ERROR_IO);
  CHECK_STATUS(ctx, ts_mm_read_csr(ctx, path, (ts_dtype)7, &csr, NULL), TS_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ctx, ts_mm_read_csr_fd(ctx, -1, NULL, TS_FLOAT64, &csr, NULL), TS_ERROR_INVALID_ARGUMENT);
}

int main(void) {
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  test_expansions();
  test_nonfinite_sums();
  test_errors();
  ts_context_destroy(ctx);
  return test_finish();
}
