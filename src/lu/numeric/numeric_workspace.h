/* What the CPU numeric phases keep between calls in lu->numeric_aux: dense
 * work vectors (one per thread) and norms of the matrix last factored. */
#ifndef TESSERA_LU_NUMERIC_WORKSPACE_H
#define TESSERA_LU_NUMERIC_WORKSPACE_H

#include "lu/lu_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsi_lu_numeric_workspace {
  int64_t n;           /* order the vectors were sized for */
  int factor_threads;  /* dense column vectors in factor_work */
  double *factor_work; /* factor_threads * n, all zero between columns */
  int solve_threads;   /* vector triples in solve_work */
  double *solve_work;  /* solve_threads * 3n: permuted vector, residual, correction */
  double a_norm_inf;   /* max row sum of |A| (values last factored, unscaled) */
  double a_norm_one;   /* max column sum of |A|; negative until a transposed solve asks for it */
} tsi_lu_numeric_workspace;

/* The workspace of lu, created (zeroed) on first use; NULL when out of memory. */
tsi_lu_numeric_workspace *tsi_lu_numeric_workspace_get(ts_lu *lu);

/* |A|_inf of the values being factored (lu->a_values), for the
 * refinement's backward error, into ws, |A|_1 marked unknown; both numeric
 * paths call it. */
ts_status tsi_lu_compute_norms(ts_lu *lu, tsi_lu_numeric_workspace *ws);
/* |A|_1 for a transposed solve's backward error, computed on first use
 * after each factorization (a scatter over the columns: 20 ms of every
 * 10^6-row netlist factorization on the H200's host when taken eagerly). */
ts_status tsi_lu_norm_one(ts_lu *lu, tsi_lu_numeric_workspace *ws, double *norm);

/* Threads a CPU phase of lu runs with: the context's setting, else OpenMP's. */
int tsi_lu_numeric_threads(const ts_lu *lu);

#ifdef __cplusplus
}
#endif

#endif
