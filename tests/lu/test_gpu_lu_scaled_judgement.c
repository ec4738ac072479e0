/* The singularity policy on matrices whose rows and columns are in other
 * units (test_lu_scaled_judgement.c's cases) with the factorizations and
 * solves on the GPU: the judgement's refined solves run through the GPU's
 * factors (AUTO keeps static pivots on a CUDA context; PARTIAL's analysis
 * runs on the host, its factors on the GPU). */
#include "test_lu_scaled_judgement.h"

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CUDA;
  if (ts_context_create(&ctx, &copts) != TS_SUCCESS)
    return test_skip("no usable CUDA device");
  scaled_backend = TS_BACKEND_CUDA;
  scaled_judgement_cases();
  ts_context_destroy(ctx);
  return test_finish();
}
