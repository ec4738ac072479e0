/* The solve phase (ts_lu_solve): x = op(A)^{-1} b through the factors, on
 * the host (solve_cpu.c) or, where the factorization left its factors on the
 * device, on the GPU (solve_cuda.cu), then iterative refinement on the host
 * (solve.c). */
#ifndef TESSERA_LU_SOLVE_INTERNAL_H
#define TESSERA_LU_SOLVE_INTERNAL_H

#include "lu/numeric/numeric_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x = op(A)^{-1} rhs through the host's factors (lu_values or
 * lu_values_f32); y is n values of scratch. Values are doubles, or (re, im)
 * pairs of doubles when lu->complex_values (here and below); op may be
 * TS_OP_CONJ_TRANSPOSE for complex values. */
void tsi_lu_apply_inverse_cpu(const ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y);

/* r = b - op(A) x for complex values, and the normwise backward error
 * (residual_complex.c): the complex counterpart of solve.c's residual. */
double tsi_lu_residual_complex(const ts_lu *lu, double a_norm, ts_operation op, const double *b, const double *x,
                               double *r);

/* x = op(A)^{-1} rhs for nrhs columns (host arrays, leading dimensions ldr
 * and ldx) through the factors on the device (TS_ERROR_UNSUPPORTED in a
 * build without CUDA). */
ts_status tsi_lu_cuda_apply_inverse(ts_lu *lu, ts_operation op, int64_t nrhs, const double *rhs, int64_t ldr, double *x,
                                    int64_t ldx);

/* The four triangular solves (L, U; U^T, L^T). */
enum { TSI_LU_SOLVE_LOWER = 0, TSI_LU_SOLVE_UPPER = 1, TSI_LU_SOLVE_UPPER_T = 2, TSI_LU_SOLVE_LOWER_T = 3 };

/* Fill pair[t]'s levels (host level_ptr, levels) and its rows in level
 * order into items[t] (n entries) for solve modes[t], t = 0, 1, on two
 * threads (solve_schedule_gpu.c); false when out of memory. Sets no error. */
bool tsi_lu_solve_levels(const ts_lu *lu, const int modes[2], tsi_lu_solve_schedule *pair[2], int32_t *items[2]);

/* The dense tail's rows of triangular solve `mode` (TSI_LU_SOLVE_*) on y
 * (nrhs columns of n, device), on the stream (a cudaStream_t), from
 * dev->tail_dense (solve_dense_tail_cuda.cu): for L and U^T after the
 * other rows, whose terms the tail's rows have already subtracted; for U
 * and L^T before them. */
void tsi_lu_dense_tail_solve(const tsi_lu_device *dev, int mode, int64_t nrhs, double *y, void *stream);

#ifdef __cplusplus
}
#endif

#endif
