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

/* Vectors here are n doubles, or n (re, im) pairs of doubles (2n doubles)
 * when lu->complex_values; "n values" counts either. Complex values take
 * op = TS_OP_CONJ_TRANSPOSE too. */

/* x = op(A)^{-1} rhs through the factors the solves use (apply_inverse.c):
 * the partial-pivoting fallback's, the GPU's or the host's; y is n values
 * of host scratch. No refinement. */
ts_status tsi_lu_apply_inverse(ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y);

/* The norms of b and x of op(A) x = b that the residual's measures need
 * (tsi_lu_residual_measures), taken by the host's solve of A x = b in its
 * passes that scale and permute b and x; the same figures, bit for bit, as
 * the residual's own pass over b and x would take. */
typedef struct tsi_lu_solve_norms {
  bool known;      /* false: the residual takes them itself */
  bool finite;     /* every entry of x finite */
  double x_norm;   /* |x|_inf */
  double x_scaled; /* |Dc^{-1} x|_inf */
  double b_norm;   /* |b|_inf */
  double b_scaled; /* |Dr b|_inf */
} tsi_lu_solve_norms;

/* tsi_lu_apply_inverse, and where the host solves A x = b, the norms of b
 * and x (norms->known; else norms->known is false). */
ts_status tsi_lu_apply_inverse_norms(ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y,
                                     tsi_lu_solve_norms *norms);

/* The larger of a norm so far and a magnitude, ignoring a NaN magnitude; a
 * plain comparison, since fmax is a library call here, a visible part of a
 * solve's profile. */
static inline double tsi_lu_larger(double norm, double magnitude) { return magnitude > norm ? magnitude : norm; }

/* The larger of a maximum so far and num / den (den > 0), dividing only
 * when the ratio can be larger: most rows of a solve are not the largest. */
static inline double tsi_lu_larger_ratio(double norm, double num, double den) {
  return num > norm * den ? num / den : norm;
}

/* ---- iterative refinement of one right-hand side (refine.c) ---------------------- */

/* What the residual r = b - op(A) x says about x (every figure +infinity
 * when x or r is not finite). */
typedef struct tsi_lu_residual_measures {
  /* |r|_inf / (|op(A)|_inf |x|_inf + |b|_inf): the normwise backward error,
   * evaluated so that the denominator's product cannot overflow. */
  double normwise;
  /* The same for the scaled system the factors are of: with M = P Dr A Dc Q,
   * |Dr r|_inf / (|M|_inf |Dc^{-1} x|_inf + |Dr b|_inf) for A x = b (Dc and
   * Dr swapped for A^T x = b). On a matrix whose rows and columns span
   * hundreds of decades, |A|_inf |x|_inf dwarfs every residual and the
   * first figure is tiny even for a wrong x; the matching's scaling
   * equilibrates the system, and this one is not. */
  double scaled;
  /* max_i |r_i| / (|op(A)| |x| + |b|)_i, the componentwise backward error
   * (Oettli and Prager 1964; a row whose residual is exactly 0 counts 0, one
   * whose denominator is near underflow is guarded as in LAPACK's xGERFS):
   * invariant under any scaling of the rows and columns. Sparse right-hand
   * sides can hold it near 1 (rows whose few terms cancel), so it only
   * polishes: see tsi_lu_refine. */
  double componentwise;
  double residual_norm; /* |r|_inf */
  double solution_norm; /* |x|_inf */
} tsi_lu_residual_measures;

/* What stays fixed over the refinement of a solve. */
typedef struct tsi_lu_refine_setup {
  double a_norm;    /* |op(A)|_inf: A's row sums' maximum, or its column sums' for A^T */
  double m_norm;    /* |op(M)|_inf, the same of the scaled matrix */
  int max_steps;    /* refinement steps at most (0: none) */
  double tolerance; /* stop once both backward errors are at most this */
  bool check;       /* form the residual (else: one solve, no backward errors) */
} tsi_lu_refine_setup;

/* r = b - op(A) x from the values last factored, and its measures;
 * magnitude is n doubles of scratch (the moduli of complex values). The
 * norms of b and x are taken from `norms` where known (NULL: not). */
void tsi_lu_residual(const ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, const double *b,
                     const double *x, const tsi_lu_solve_norms *norms, double *r, double *magnitude,
                     tsi_lu_residual_measures *measures);

/* x = op(A)^{-1} b through the factors (unless solved: x holds it already),
 * then refined while the larger normwise backward error is above the
 * tolerance and each step at least halves it; then, while the componentwise
 * one is above TSI_LU_POLISH_THRESHOLD, while each step halves that one
 * (the normwise ones staying within the tolerance). Work is 4n values. The
 * measures of the x returned, and the steps taken. */
ts_status tsi_lu_refine(ts_lu *lu, const tsi_lu_refine_setup *setup, ts_operation op, const double *b, double *x,
                        bool solved, double *work, tsi_lu_residual_measures *measures, int *steps);

/* ---- triangular solves ------------------------------------------------------------ */

/* x = op(A)^{-1} rhs through the host's factors (lu_values or
 * lu_values_f32); y is n values of scratch. Values are doubles, or (re, im)
 * pairs of doubles when lu->complex_values (here and below); op may be
 * TS_OP_CONJ_TRANSPOSE for complex values. */
void tsi_lu_apply_inverse_cpu(const ts_lu *lu, ts_operation op, const double *rhs, double *x, double *y);
/* The same for A x = b, with the norms of b and x (tsi_lu_solve_norms). */
void tsi_lu_apply_inverse_cpu_norms(const ts_lu *lu, const double *rhs, double *x, double *y,
                                    tsi_lu_solve_norms *norms);

/* x = op(A)^{-1} rhs for nrhs columns (host arrays, leading dimensions ldr
 * and ldx) through the factors on the device (TS_ERROR_UNSUPPORTED in a
 * build without CUDA). */
ts_status tsi_lu_cuda_apply_inverse(ts_lu *lu, ts_operation op, int64_t nrhs, const double *rhs, int64_t ldr, double *x,
                                    int64_t ldx);

/* x = op(A)^{-1} rhs for one column, rhs and x on the device (n values
 * each; they may be the same array), enqueued on the context's stream. */
ts_status tsi_lu_cuda_apply_inverse_device(ts_lu *lu, ts_operation op, const double *rhs, double *x);

/* The residual's maxima on the device (refine_cuda.cu), in this order. */
enum {
  TSI_LU_REFINE_X,             /* |x|_inf */
  TSI_LU_REFINE_X_SCALED,      /* |Dc^{-1} x|_inf */
  TSI_LU_REFINE_B,             /* |b|_inf */
  TSI_LU_REFINE_B_SCALED,      /* |Dr b|_inf */
  TSI_LU_REFINE_R,             /* |r|_inf */
  TSI_LU_REFINE_R_SCALED,      /* |Dr r|_inf */
  TSI_LU_REFINE_COMPONENTWISE, /* max_i |r_i| / (|A| |x| + |b|)_i */
  TSI_LU_REFINE_NOT_FINITE,    /* nonzero when an entry of x is not finite */
  TSI_LU_REFINE_B_BAD          /* n - i for the first row i whose b_i is not finite, 0 if none */
};

/* The measures (tsi_lu_residual's) from the maxima of a residual of
 * A x = b (refine.c's evaluation of the backward errors). */
void tsi_lu_measures_from_maxima(const tsi_lu_refine_setup *setup, const double *maxima, bool x_finite,
                                 tsi_lu_residual_measures *measures);

/* tsi_lu_refine for real values, A x = b, the factors on the device, with
 * the residual formed there: b and x (n values) on the host, or on the
 * device with device_vectors (then a b that is not finite is refused here,
 * naming its row, and x is written on the stream without a
 * synchronisation); one synchronisation for the first solve's residual and
 * one per refinement step (TS_ERROR_UNSUPPORTED in a build without CUDA). */
ts_status tsi_lu_cuda_refine(ts_lu *lu, const tsi_lu_refine_setup *setup, const double *b, double *x,
                             bool device_vectors, tsi_lu_residual_measures *measures, int *steps);

/* ts_lu_solve's work for b and x in device memory (solve.c): the caller
 * has checked the arguments and that the device path applies (factors on
 * the GPU without perturbed pivots or the fallback, real values, A x = b,
 * checked solves). */
ts_status tsi_lu_solve_device(ts_lu *lu, int64_t nrhs, const double *b, int64_t ldb, double *x, int64_t ldx);

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

/* The solves through the fronts' dense blocks (solve_fronts_cuda.cu):
 * whether they serve op on these factors (the fronts made them on the GPU,
 * real values in double, op(A) = A, the column solves not asked for by a
 * switch), and y = U^{-1} L^{-1} y for nrhs columns of n on the device,
 * enqueued on stream. */
bool tsi_lu_front_solve_applies(const ts_lu *lu, const tsi_lu_device *dev, ts_operation op);
ts_status tsi_lu_front_solve(ts_lu *lu, tsi_lu_device *dev, int64_t nrhs, double *y, void *stream);

#ifdef __cplusplus
}
#endif

#endif
