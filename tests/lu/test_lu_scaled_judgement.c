/* The singularity policy judges the scaled matrix M when A's own condition
 * is beyond 1/eps (tessera/lu.h, "Singular matrices"): a matrix whose rows
 * and columns are in other units (A = D_r A0 D_c, A0 well conditioned) and
 * whose factors trip the policy's trigger (a perturbed static pivot, or a
 * small partial pivot) is solved, with every pivoting, to A0's accuracy in
 * each component; a singular A0, or one beyond 1/eps itself, stays singular
 * under any such scaling. References: the solution x0 the right-hand side
 * was made from (componentwise relative error, which a diagonal scaling
 * leaves unchanged) and the componentwise backward error recomputed here. */
#include "test_lu_scaled_judgement.h"

int main(void) {
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  scaled_judgement_cases();
  ts_context_destroy(ctx);
  return test_finish();
}
