/* The context's promises: a thread count past TS_MAX_THREADS is refused
 * (and the limit itself runs); AUTO says why it fell back to the CPU, in the
 * same words a forced CUDA context fails with, and the words match what this
 * machine has (libcuda loadable or not, tried here with dlopen); objects keep
 * their context alive, so plans, LU objects and buffers used after
 * ts_context_destroy give the right answers (naive SpMV and a dense solve
 * are the references) and free everything (ASan, valgrind). */
#include "internal.h"
#include "test_common.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>

static void test_thread_limit(void) {
  const int refused[] = {TS_MAX_THREADS + 1, 1 << 30, INT_MAX, -1};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    ts_context_options options = {0};
    options.backend = TS_BACKEND_CPU;
    options.num_threads = refused[i];
    ts_context *ctx = (ts_context *)&options;
    CHECK_STATUS(NULL, ts_context_create(&ctx, &options), TS_ERROR_INVALID_ARGUMENT);
    CHECK(ctx == NULL && strstr(ts_last_error(NULL), "num_threads") != NULL);
  }
  CHECK(strstr(ts_last_error(NULL), "negative") != NULL);
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  options.num_threads = 1 << 30;
  ts_context *ctx = NULL;
  CHECK_STATUS(NULL, ts_context_create(&ctx, &options), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(NULL), "TS_MAX_THREADS") != NULL);

  /* The limit itself works: a conversion large enough to run threaded. */
  options.num_threads = TS_MAX_THREADS;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  ts_coo *coo = NULL;
  const int64_t n = 1000, nnz = 300000;
  CHECK_OK(ctx, ts_coo_create(ctx, n, n, nnz, TS_FLOAT64, &coo));
  for (int64_t k = 0; k < nnz; k++) {
    coo->row_idx[k] = (int32_t)(k * 7919 % n);
    coo->col_idx[k] = (int32_t)(k * 104729 % n);
    ((double *)coo->values)[k] = 1.0;
  }
  coo->nnz = nnz;
  ts_csr *csr = NULL;
  CHECK_OK(ctx, ts_csr_from_coo(ctx, coo, TS_DUPLICATES_SUM, &csr));
  double total = 0;
  for (int64_t k = 0; csr && k < csr->nnz; k++)
    total += ((double *)csr->values)[k];
  CHECK(csr && total == (double)nnz);
  ts_csr_destroy(csr);
  ts_coo_destroy(coo);
  ts_context_destroy(ctx);
}

static bool starts_with(const char *text, const char *start) { return strncmp(text, start, strlen(start)) == 0; }

static void test_fallback_reason(void) {
  CHECK(ts_context_fallback_reason(NULL) == NULL);
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  ts_context *cpu = NULL;
  CHECK_OK(NULL, ts_context_create(&cpu, &options));
  CHECK(ts_context_fallback_reason(cpu) == NULL); /* asked for the CPU: no fallback */
  ts_context_destroy(cpu);

  options.backend = TS_BACKEND_CUDA;
  ts_context *cuda = NULL;
  ts_status forced = ts_context_create(&cuda, &options);
  char forced_message[1024];
  snprintf(forced_message, sizeof forced_message, "%s", ts_last_error(NULL));
  ts_context *automatic = NULL;
  CHECK_OK(NULL, ts_context_create(&automatic, NULL));
  const char *reason = ts_context_fallback_reason(automatic);
  if (forced == TS_SUCCESS) {
    CHECK(ts_context_backend(automatic) == TS_BACKEND_CUDA && reason == NULL);
    ts_context_destroy(cuda);
  } else {
    CHECK(forced == TS_ERROR_NO_DEVICE && cuda == NULL);
    CHECK(ts_context_backend(automatic) == TS_BACKEND_CPU);
    CHECK_MSG(reason != NULL && strcmp(reason, forced_message) == 0, "fallback '%s', forced '%s'",
              reason ? reason : "(null)", forced_message);
    reason = reason ? reason : "";
    bool known = starts_with(reason, "no NVIDIA driver found") ||
                 starts_with(reason, "tessera was built without CUDA") ||
                 starts_with(reason, "NVIDIA driver found (CUDA ") || starts_with(reason, "the NVIDIA driver ") ||
                 starts_with(reason, "CUDA device ");
    CHECK_MSG(known, "fallback reason '%s' is not one of the documented forms", reason);
    /* Never the runtime's "insufficient driver" text for a missing driver. */
    CHECK(strstr(reason, "insufficient") == NULL);
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!driver) {
      CHECK_MSG(starts_with(reason, "no NVIDIA driver found") || starts_with(reason, "tessera was built without CUDA"),
                "no libcuda here, yet the reason is '%s'", reason);
    } else {
      CHECK_MSG(!starts_with(reason, "no NVIDIA driver found"), "libcuda loads, yet the reason is '%s'", reason);
      dlclose(driver);
    }
    printf("AUTO fell back to the CPU: %s\n", reason);
    /* A device number past the last is named as such. */
    options.device = 1000;
    CHECK_STATUS(NULL, ts_context_create(&cuda, &options), TS_ERROR_NO_DEVICE);
  }
  ts_context_destroy(automatic);
}

/* Objects made with a context work after ts_context_destroy, in any order. */
static void test_lifetime(void) {
  const int n = 200;
  ts_context_options options = {0};
  options.backend = TS_BACKEND_AUTO; /* the GPU where there is one */
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  /* A diagonally dominant tridiagonal matrix. */
  ts_csr *a = NULL;
  CHECK_OK(ctx, ts_gen_banded(ctx, n, 1, 1, 7, TS_FLOAT64, &a));
  ts_spmv_plan *plan = NULL;
  ts_lu *lu = NULL;
  ts_sort_plan *sort = NULL;
  ts_sort_options sort_options = {0};
  sort_options.key = TS_SORT_KEY_UINT32;
  sort_options.max_n = 16;
  ts_buffer *x = NULL, *y = NULL;
  CHECK_OK(ctx, ts_spmv_plan_create(ctx, a, &plan));
  ts_lu_options lu_options = {0};
  lu_options.ordering = TS_LU_ORDER_NATURAL; /* needs no SuiteSparse */
  CHECK_OK(ctx, ts_lu_create(ctx, &lu_options, &lu));
  CHECK_OK(ctx, ts_sort_plan_create(ctx, &sort_options, &sort));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)n * sizeof(double), &x));
  CHECK_OK(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)n * sizeof(double), &y));
  double *host_x = malloc((size_t)n * sizeof(double)), *host_y = malloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; i++)
    host_x[i] = 1.0 + i % 5;
  CHECK_OK(ctx, ts_buffer_upload(ctx, x, 0, host_x, (size_t)n * sizeof(double)));

  ts_context_destroy(ctx); /* the objects still hold it */

  /* SpMV through the plan, against a naive product. */
  CHECK_OK(NULL, ts_spmv_execute(plan, 1.0, x, 0.0, y));
  ts_context *kept = tsi_buffer_context(y);
  CHECK(kept == ctx && ts_context_backend(kept) != TS_BACKEND_AUTO);
  CHECK_OK(kept, ts_buffer_download(kept, y, 0, host_y, (size_t)n * sizeof(double)));
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double sum = 0;
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
      sum += ((double *)a->values)[k] * host_x[a->col_idx[k]];
    worst = fmax(worst, fabs(sum - host_y[i]));
  }
  CHECK_MSG(worst <= 1e-12, "SpMV after ts_context_destroy: error %g", worst);
  ts_spmv_plan_destroy(plan);

  /* The LU: solve A z = y, which must give back x. */
  CHECK_OK(NULL, ts_lu_analyze(lu, a));
  CHECK_OK(NULL, ts_lu_factor(lu, a));
  double *z = malloc((size_t)n * sizeof(double));
  CHECK_OK(NULL, ts_lu_solve(lu, TS_OP_NONE, 1, host_y, n, z, n));
  worst = 0;
  for (int i = 0; i < n; i++)
    worst = fmax(worst, fabs(z[i] - host_x[i]));
  CHECK_MSG(worst <= 1e-10, "LU solve after ts_context_destroy: error %g", worst);
  free(z);

  /* Destroy the rest in a scrambled order; the last one frees the context. */
  ts_buffer_destroy(x);
  ts_lu_destroy(lu);
  ts_sort_plan_destroy(sort);
  ts_buffer_destroy(y);
  ts_csr_destroy(a);
  free(host_x);
  free(host_y);
}

int main(void) {
  test_thread_limit();
  test_fallback_reason();
  test_lifetime();
  return test_finish();
}
