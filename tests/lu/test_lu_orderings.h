/* Which fill-reducing orderings this build of tessera has: SuiteSparse AMD
 * and COLAMD, and METIS, are optional, and without them ts_lu_analyze answers
 * TS_ERROR_UNSUPPORTED for TS_LU_ORDER_AMD, TS_LU_ORDER_COLAMD or
 * TS_LU_ORDER_NESTED_DISSECTION. The LU
 * tests ask here, skip (visibly) what needs a missing ordering or fills in
 * too much without one, and run the rest in the natural order. */
#ifndef TESSERA_TEST_LU_ORDERINGS_H
#define TESSERA_TEST_LU_ORDERINGS_H

#include "test_common.h"

static inline const char *lu_test_ordering_name(ts_lu_ordering ordering) {
  return ordering == TS_LU_ORDER_AMD                 ? "AMD"
         : ordering == TS_LU_ORDER_COLAMD            ? "COLAMD"
         : ordering == TS_LU_ORDER_NESTED_DISSECTION ? "nested dissection"
                                                     : "natural";
}

/* Whether the build has the ordering: the analysis of a 1 x 1 matrix reaches
 * the ordering step, which refuses an ordering the build lacks. */
static inline int lu_test_have_ordering(ts_lu_ordering ordering) {
  static int known[5] = {-1, -1, -1, -1, -1};
  int slot = (int)ordering;
  if (slot < 0 || slot > 4)
    return 0;
  if (known[slot] >= 0)
    return known[slot];
  ts_csr *a = NULL;
  ts_lu *lu = NULL;
  ts_lu_options options;
  memset(&options, 0, sizeof options);
  options.ordering = ordering;
  ts_status status = ts_csr_create(NULL, 1, 1, 1, TS_FLOAT64, &a);
  if (status == TS_SUCCESS) {
    a->row_ptr[1] = 1;
    a->col_idx[0] = 0;
    ((double *)a->values)[0] = 2.0;
    status = ts_lu_create(NULL, &options, &lu);
  }
  if (status == TS_SUCCESS)
    status = ts_lu_analyze(lu, a);
  ts_lu_destroy(lu);
  ts_csr_destroy(a);
  if (status != TS_SUCCESS && status != TS_ERROR_UNSUPPORTED) {
    fprintf(stderr, "lu_test_have_ordering: analysis of a 1 x 1 matrix failed: %s\n", ts_last_error(NULL));
    return 0;
  }
  known[slot] = status == TS_SUCCESS;
  return known[slot];
}

/* Print the skip line of a part that needs `ordering` when the build lacks
 * it, and say so (1: skip the part). */
static inline int lu_test_skip_without(ts_lu_ordering ordering, const char *part) {
  if (lu_test_have_ordering(ordering))
    return 0;
  printf("SKIPPED (part): %s: built without %s (%s)\n", part,
         ordering == TS_LU_ORDER_NESTED_DISSECTION ? "METIS" : "SuiteSparse", lu_test_ordering_name(ordering));
  return 1;
}

/* Print the skip line of a part whose factors fill in far too much in the
 * natural order (seconds to minutes of work where AMD takes a fraction of
 * a second) when the build lacks AMD, and say so (1: skip it). */
static inline int lu_test_skip_unordered(const char *part) {
  if (lu_test_have_ordering(TS_LU_ORDER_AMD))
    return 0;
  printf("SKIPPED (part): %s: too much fill in the natural order (built without SuiteSparse AMD)\n", part);
  return 1;
}

/* ts_gen_circuit, with the dense nets (nodes 0 .. dense_nets-1) numbered
 * last in a build without SuiteSparse AMD: first, the natural order fills
 * every later row from them (a minute a factorization at 20000 rows); last,
 * where AMD orders them, they add a row and a column each. The same matrix
 * otherwise, symmetrically permuted. */
static inline ts_status lu_test_gen_circuit(ts_context *ctx, const ts_circuit_params *params, uint64_t seed,
                                            ts_dtype dtype, ts_csr **a) {
  static int noted = 0;
  ts_status st = ts_gen_circuit(ctx, params, seed, dtype, a);
  const int64_t n = params->n, d = params->dense_nets;
  if (st != TS_SUCCESS || d == 0 || lu_test_have_ordering(TS_LU_ORDER_AMD))
    return st;
  if (!noted)
    printf("note: generated circuits with their dense nets numbered last (built without SuiteSparse AMD: numbered "
           "first, they fill every later row in the natural order)\n");
  noted = 1;
  const ts_csr *g = *a;
  const size_t size = ts_dtype_size(dtype);
  ts_csr *r = NULL;
  st = ts_csr_create(ctx, n, n, g->nnz, dtype, &r);
  if (st == TS_SUCCESS) {
    r->symmetry = g->symmetry;
    r->row_ptr[0] = 0;
    int64_t k = 0;
    /* Row i is row (i + d) mod n; its columns at or above d (moved down by
     * d) come before those below d (moved to the end): both runs stay sorted. */
    for (int64_t i = 0; i < n; i++) {
      const int64_t row = (i + d) % n;
      for (int low = 0; low < 2; low++)
        for (int64_t e = g->row_ptr[row]; e < g->row_ptr[row + 1]; e++) {
          const int64_t c = g->col_idx[e];
          if ((c < d) != low)
            continue;
          r->col_idx[k] = (int32_t)(c < d ? c + n - d : c - d);
          memcpy((char *)r->values + (size_t)k * size, (const char *)g->values + (size_t)e * size, size);
          k++;
        }
      r->row_ptr[i + 1] = k;
    }
  }
  ts_csr_destroy(*a);
  *a = r;
  return st;
}

/* The default ordering (AMD) where the build has it, else the natural order,
 * saying so once. */
static inline ts_lu_ordering lu_test_fill_ordering(void) {
  static int noted = 0;
  if (lu_test_have_ordering(TS_LU_ORDER_AMD))
    return TS_LU_ORDER_AMD;
  if (!noted)
    printf("SKIPPED (part): the AMD ordering: built without SuiteSparse AMD; the natural order is used instead\n");
  noted = 1;
  return TS_LU_ORDER_NATURAL;
}

/* The default options (double factors, AMD, matching and perturbation on),
 * with the natural order in a build without SuiteSparse AMD: what a test
 * that needs only some fill-reducing ordering creates its LU with, in place
 * of NULL or zeroed options (which ask for AMD). */
static inline ts_lu_options lu_test_options(void) {
  ts_lu_options options;
  memset(&options, 0, sizeof options);
  options.ordering = lu_test_fill_ordering();
  return options;
}

#endif
