/* LU on every square corpus matrix against SuiteSparse KLU (default
 * settings; UMFPACK as a second opinion where KLU finds the matrix
 * singular): b = A * ones; where KLU factors without a singular status,
 * tessera's backward error after refinement must be <= 1e-14 and its
 * solution must agree with KLU's within condest * max(eps, both backward
 * errors) * 10; where KLU finds a structural rank below n, tessera must
 * report the same rank; where KLU finds it numerically singular with a
 * perfect matching, tessera must give the singular status too. Each matrix
 * twice: the default pivoting (AUTO) and partial pivoting asked for
 * (TS_LU_PIVOTING_PARTIAL, whose factorizations must then perturb no
 * pivot where KLU factors). Prints the classification table (and writes it as
 * Markdown to the file named by TESSERA_LU_TABLE when set). */
#include "test_lu_numeric_common.h"

#ifndef TESSERA_TEST_HAVE_KLU

int main(void) { return test_skip("built without SuiteSparse KLU and UMFPACK (the reference solvers)"); }

#else

#include <float.h>
#include <klu.h>
#include <umfpack.h>

/* Matrices whose fill under AMD passes this many entries are left out (the
 * dense-ish graphs of the corpus): their LU takes minutes, in KLU too. */
#define FILL_LIMIT 3000000

#define BERR_GOAL 1e-14

typedef struct result {
  char name[256 + 32]; /* the manifest's name and " (partial pivoting)" */
  int64_t n, nnz;
  char reference[32]; /* "KLU", "KLU singular", "UMFPACK", ... */
  double rcond, condest, reference_berr;
  char tessera[48]; /* "ok", "structurally singular (rank r)", ... */
  double berr;
  int steps;
  int64_t perturbed;
  double forward_diff, forward_allowed;
  const char *verdict; /* "pass", "FAIL", "skipped" */
  char note[256];
} result;

static ts_context *ctx;

/* tessera with the default options (double factors, AMD) and `pivoting`:
 * analyze, factor, solve; the status of the first failing phase, else the
 * factor's. */
static ts_status tessera_solve(const ts_csr *a, ts_lu_pivoting pivoting, const double *b, double *x,
                               ts_lu_stats *stats) {
  ts_lu_options options = lu_test_options();
  options.pivoting = pivoting;
  ts_lu *lu = NULL;
  memset(stats, 0, sizeof *stats);
  ts_status status = ts_lu_create(ctx, &options, &lu);
  if (status == TS_SUCCESS)
    status = ts_lu_analyze(lu, a);
  if (status == TS_SUCCESS)
    status = ts_lu_factor(lu, a);
  if (!TS_IS_ERROR(status)) {
    ts_status solved = ts_lu_solve(lu, TS_OP_NONE, 1, b, a->rows, x, a->rows);
    CHECK_MSG(solved == TS_SUCCESS, "%s", ts_last_error(ctx));
  }
  if (lu)
    ts_lu_get_stats(lu, stats);
  ts_lu_destroy(lu);
  return status;
}

/* A general double CSR matrix from a corpus file (symmetric storage expanded). */
static ts_csr *read_matrix(const char *dir, const char *name) {
  ts_csr *csr = test_read_general(ctx, dir, name);
  CHECK_MSG(csr != NULL, "%s: %s", name, ts_last_error(ctx));
  return csr;
}

/* KLU, then UMFPACK if KLU finds the matrix singular. x gets the reference
 * solution when one was found (returns 1), else 0. */
static int reference_solve(const ts_csr *a, const double *b, double *x, result *r, int *structural_rank) {
  int n = (int)a->rows, found = 0;
  ts_csc *csc = NULL;
  int *col_ptr = malloc((size_t)(n + 1) * sizeof *col_ptr);
  CHECK_OK(ctx, ts_csc_from_csr(ctx, a, &csc));
  for (int j = 0; j <= n; j++)
    col_ptr[j] = (int)csc->col_ptr[j];
  int *row_idx = csc->row_idx;
  double *values = (double *)csc->values;

  klu_common common;
  klu_defaults(&common);
  klu_symbolic *symbolic = klu_analyze(n, col_ptr, row_idx, &common);
  klu_numeric *numeric = symbolic ? klu_factor(col_ptr, row_idx, values, symbolic, &common) : NULL;
  *structural_rank = symbolic ? common.structural_rank : -1;
  r->rcond = r->condest = NAN;
  if (numeric && common.status == KLU_OK) {
    klu_rcond(symbolic, numeric, &common);
    klu_condest(col_ptr, values, symbolic, numeric, &common);
    r->rcond = common.rcond;
    r->condest = common.condest;
    memcpy(x, b, (size_t)n * sizeof *x);
    klu_solve(symbolic, numeric, n, 1, x, &common);
    snprintf(r->reference, sizeof r->reference, "KLU");
    found = 1;
  } else {
    snprintf(r->reference, sizeof r->reference, "KLU %s",
             common.status == KLU_SINGULAR ? "singular" : (common.status == KLU_OK ? "no factors" : "error"));
  }
  klu_free_numeric(&numeric, &common);
  klu_free_symbolic(&symbolic, &common);

  if (!found) {
    /* UMFPACK: threshold partial pivoting; a singular warning still leaves factors. */
    double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
    void *usymbolic = NULL, *unumeric = NULL;
    umfpack_di_defaults(control);
    int status = umfpack_di_symbolic(n, n, col_ptr, row_idx, values, &usymbolic, control, info);
    if (status == UMFPACK_OK)
      status = umfpack_di_numeric(col_ptr, row_idx, values, usymbolic, &unumeric, control, info);
    if (status == UMFPACK_OK) {
      status = umfpack_di_solve(UMFPACK_A, col_ptr, row_idx, values, x, b, unumeric, control, info);
      r->rcond = info[UMFPACK_RCOND];
      if (status == UMFPACK_OK) {
        snprintf(r->reference + strlen(r->reference), sizeof r->reference - strlen(r->reference), "; UMFPACK");
        found = 2;
      }
    } else {
      snprintf(r->reference + strlen(r->reference), sizeof r->reference - strlen(r->reference), "; UMFPACK %s",
               status == UMFPACK_WARNING_singular_matrix ? "singular" : "error");
    }
    umfpack_di_free_numeric(&unumeric);
    umfpack_di_free_symbolic(&usymbolic);
  }
  ts_csc_destroy(csc);
  free(col_ptr);
  return found;
}

static void run_matrix(const char *dir, const char *name, ts_lu_pivoting pivoting, result *r) {
  memset(r, 0, sizeof *r);
  snprintf(r->name, sizeof r->name, "%s%s", name, pivoting == TS_LU_PIVOTING_PARTIAL ? " (partial pivoting)" : "");
  r->verdict = "pass";
  r->berr = r->reference_berr = r->forward_diff = r->forward_allowed = NAN;
  ts_csr *a = read_matrix(dir, name);
  if (!a) {
    r->verdict = "FAIL";
    return;
  }
  r->n = a->rows;
  r->nnz = a->nnz;
  int64_t fill = 0;
  if (ts_csr_fill_estimate(ctx, a, &fill, NULL) == TS_SUCCESS && fill > FILL_LIMIT) {
    r->verdict = "skipped";
    snprintf(r->note, sizeof r->note, "AMD fill estimate %lld > %d", (long long)fill, FILL_LIMIT);
    ts_csr_destroy(a);
    return;
  }
  int64_t n = a->rows;
  double *ones = malloc((size_t)n * sizeof *ones), *b = malloc((size_t)n * sizeof *b);
  double *x = malloc((size_t)n * sizeof *x), *x_ref = malloc((size_t)n * sizeof *x_ref);
  for (int64_t i = 0; i < n; i++)
    ones[i] = 1.0;
  lu_test_multiply(a, 0, ones, b);

  int klu_rank = -1;
  int found = reference_solve(a, b, x_ref, r, &klu_rank);
  if (found)
    r->reference_berr = lu_test_backward_error(a, 0, x_ref, b);

  ts_lu_stats stats;
  ts_status status = tessera_solve(a, pivoting, b, x, &stats);
  r->perturbed = stats.perturbed_pivots;
  if (status == TS_ERROR_STRUCTURALLY_SINGULAR) {
    snprintf(r->tessera, sizeof r->tessera, "structurally singular (rank %lld)", (long long)stats.structural_rank);
  } else if (TS_IS_ERROR(status)) {
    snprintf(r->tessera, sizeof r->tessera, "%s", ts_status_string(status));
  } else {
    r->berr = lu_test_backward_error(a, 0, x, b);
    r->steps = stats.refinement_steps;
    snprintf(r->tessera, sizeof r->tessera, "%s", status == TS_SUCCESS ? "ok" : "ok, perturbed");
  }

  if (found == 1) {
    /* KLU factored it: tessera must solve it to the goal and agree with KLU. */
    if (!(r->berr <= BERR_GOAL)) {
      r->verdict = "FAIL";
      snprintf(r->note, sizeof r->note, "backward error above %.0e", BERR_GOAL);
    }
    if (pivoting == TS_LU_PIVOTING_PARTIAL && (stats.pivoting != TS_LU_PIVOTING_PARTIAL ||
                                               stats.perturbed_pivots != 0 || !(stats.max_multiplier <= 1.001e3))) {
      r->verdict = "FAIL";
      snprintf(r->note, sizeof r->note, "partial pivoting: pivoting %d, %lld perturbed pivots, max |L| %.3g",
               (int)stats.pivoting, (long long)stats.perturbed_pivots, stats.max_multiplier);
    }
    if (!isnan(r->berr)) {
      double diff = 0.0, scale = 0.0;
      for (int64_t i = 0; i < n; i++) {
        diff = fmax(diff, fabs(x[i] - x_ref[i]));
        scale = fmax(scale, fabs(x_ref[i]));
      }
      r->forward_diff = scale > 0.0 ? diff / scale : diff;
      r->forward_allowed = 10.0 * r->condest * fmax(DBL_EPSILON, r->berr + r->reference_berr);
      if (!(r->forward_diff <= r->forward_allowed)) {
        r->verdict = "FAIL";
        snprintf(r->note, sizeof r->note, "solutions differ by %.2g (allowed %.2g)", r->forward_diff,
                 r->forward_allowed);
      }
    }
  } else if (klu_rank >= 0 && klu_rank < n) {
    /* Structurally singular for KLU's maximum transversal: the same rank. */
    if (status != TS_ERROR_STRUCTURALLY_SINGULAR || stats.structural_rank != klu_rank) {
      r->verdict = "FAIL";
      snprintf(r->note, sizeof r->note, "KLU structural rank %d, tessera %s", klu_rank, r->tessera);
    } else {
      snprintf(r->note, sizeof r->note, "structural rank %d (KLU agrees)", klu_rank);
    }
  } else if (status == TS_ERROR_STRUCTURALLY_SINGULAR) {
    /* KLU's maximum transversal counts explicit zeros; tessera's matching
     * works on the nonzero values, so only explicit zeros explain this. */
    int64_t explicit_zeros = 0;
    for (int64_t e = 0; e < a->nnz; e++)
      explicit_zeros += ((const double *)a->values)[e] == 0.0;
    if (explicit_zeros == 0) {
      r->verdict = "FAIL";
      snprintf(r->note, sizeof r->note, "KLU structural rank n, tessera %s without explicit zeros", r->tessera);
    } else {
      snprintf(r->note, sizeof r->note,
               "numerically singular for KLU; %lld explicit zeros, which tessera's matching leaves out",
               (long long)explicit_zeros);
    }
  } else if (status != TS_ERROR_NUMERICALLY_SINGULAR) {
    /* The singularity policy: what KLU calls singular, tessera must too. */
    r->verdict = "FAIL";
    snprintf(r->note, sizeof r->note, "numerically singular for KLU, tessera %s", r->tessera);
  } else {
    snprintf(r->note, sizeof r->note, "numerically singular for KLU and tessera (column %lld from 0)%s",
             (long long)stats.singular_column, found == 2 ? "; UMFPACK solved it" : "");
  }
  if (strcmp(r->verdict, "FAIL") == 0) {
    test_failed++;
    fprintf(stderr, "%s: %s (KLU: %s; tessera: %s, berr %.3g)\n", name, r->note, r->reference, r->tessera, r->berr);
  } else {
    test_passed++;
  }
  ts_csr_destroy(a);
  free(ones);
  free(b);
  free(x);
  free(x_ref);
}

static void print_table(FILE *out, const result *results, int count) {
  fprintf(out, "| matrix | n | nnz | reference | KLU rcond | KLU condest | reference berr | tessera | tessera berr | "
               "refinement steps | perturbed pivots | result | note |\n");
  fprintf(out, "|---|---:|---:|---|---:|---:|---:|---|---:|---:|---:|---|---|\n");
  for (int k = 0; k < count; k++) {
    const result *r = &results[k];
    fprintf(out, "| %s | %lld | %lld | %s | %.2e | %.2e | %.2e | %s | %.2e | %d | %lld | %s | %s |\n", r->name,
            (long long)r->n, (long long)r->nnz, r->reference, r->rcond, r->condest, r->reference_berr, r->tessera,
            r->berr, r->steps, (long long)r->perturbed, r->verdict, r->note);
  }
}

int main(void) {
  const char *dir = test_matrices_dir();
  if (!dir)
    return test_skip("TESSERA_MATRICES does not name a corpus with MANIFEST.tsv");
  /* Natural-order fill on the larger corpus matrices would take minutes. */
  if (!lu_test_have_ordering(TS_LU_ORDER_AMD))
    return test_skip("the corpus against KLU: built without SuiteSparse AMD");
  ts_context_options copts = {0};
  copts.backend = TS_BACKEND_CPU;
  CHECK_OK(NULL, ts_context_create(&ctx, &copts));
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *manifest = fopen(path, "r");
  CHECK(manifest != NULL);
  result *results = NULL;
  int count = 0, capacity = 0;
  char line[8192];
  while (manifest && fgets(line, sizeof line, manifest)) {
    char name[256];
    long long rows, cols;
    if (sscanf(line, "%255s %lld %lld", name, &rows, &cols) != 3 || rows != cols)
      continue; /* the header, or not square */
    for (int partial = 0; partial < 2; partial++) {
      if (count == capacity) {
        capacity = capacity ? 2 * capacity : 64;
        results = realloc(results, (size_t)capacity * sizeof *results);
      }
      run_matrix(dir, name, partial ? TS_LU_PIVOTING_PARTIAL : TS_LU_PIVOTING_AUTO, &results[count]);
      count++;
    }
  }
  if (manifest)
    fclose(manifest);
  CHECK(count >= 10);
  print_table(stdout, results, count);
  const char *table_path = getenv("TESSERA_LU_TABLE");
  if (table_path && *table_path) {
    FILE *table = fopen(table_path, "w");
    CHECK_MSG(table != NULL, "cannot write %s", table_path);
    if (table) {
      print_table(table, results, count);
      fclose(table);
    }
  }
  free(results);
  ts_context_destroy(ctx);
  return test_finish();
}

#endif
