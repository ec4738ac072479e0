/* Which fill-reducing orderings this build of tessera has: SuiteSparse AMD
 * and COLAMD are optional, and without them ts_lu_analyze answers
 * TS_ERROR_UNSUPPORTED for TS_LU_ORDER_AMD or TS_LU_ORDER_COLAMD. The LU
 * tests ask here, skip (visibly) what needs a missing ordering, and run the
 * rest in the natural order. */
#ifndef TESSERA_TEST_LU_ORDERINGS_H
#define TESSERA_TEST_LU_ORDERINGS_H

#include "test_common.h"

static inline const char *lu_test_ordering_name(ts_lu_ordering ordering) {
  return ordering == TS_LU_ORDER_AMD ? "AMD" : ordering == TS_LU_ORDER_COLAMD ? "COLAMD" : "natural";
}

/* Whether the build has the ordering: the analysis of a 1 x 1 matrix reaches
 * the ordering step, which refuses an ordering the build lacks. */
static inline int lu_test_have_ordering(ts_lu_ordering ordering) {
  static int known[3] = {-1, -1, -1};
  int slot = (int)ordering;
  if (slot < 0 || slot > 2)
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
  printf("SKIPPED (part): %s: built without SuiteSparse %s\n", part, lu_test_ordering_name(ordering));
  return 1;
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
