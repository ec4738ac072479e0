/* x = op(A)^{-1} rhs through the factors the solves use, without
 * refinement: the partial-pivoting fallback's when it replaced the static
 * factors, else the GPU's when they are there, else the host's. */
#include "lu/solve/solve_internal.h"

ts_status tsi_lu_apply_inverse(ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y) {
  if (lu->pivoted) {
    tsi_lu_pivoted_apply(lu, op, rhs, x, y);
    return TS_SUCCESS;
  }
  if (tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_SOLVE))
    return tsi_lu_cuda_apply_inverse(lu, op, 1, rhs, lu->n, x, lu->n);
  tsi_lu_apply_inverse_cpu(lu, op, rhs, x, y);
  return TS_SUCCESS;
}

ts_status tsi_lu_apply_inverse_norms(ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y,
                                     tsi_lu_solve_norms *norms) {
  norms->known = false;
  if (lu->pivoted || op != TS_OP_NONE || tsi_lu_runs_on_gpu(lu, TSI_LU_PHASE_SOLVE))
    return tsi_lu_apply_inverse(lu, op, rhs, x, y);
  tsi_lu_apply_inverse_cpu_norms(lu, rhs, x, y, norms);
  return TS_SUCCESS;
}
