/* tessera solve: solve A x = b (or A^T x = b, A^H x = b) by sparse LU with
 * iterative refinement, in real or complex double, and print the phase
 * times, the factor statistics and the backward error. */
#include "cli_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char solve_help[] =
    "Usage: tessera solve A.mtx [B.mtx] [options]\n"
    "\n"
    "Solve A X = B by sparse LU: analysis (maximum-product matching with\n"
    "scaling, fill-reducing ordering, symbolic factorization, levels of the\n"
    "column dependencies), numeric factorization, triangular solves, and\n"
    "iterative refinement with the residual in double. A must be square\n"
    "(symmetric storage is expanded). Without B, b = A * ones (so x = ones).\n"
    "B may hold several columns (right-hand sides). '-' as A or B reads\n"
    "standard input. A complex A or B (Matrix Market field complex, hermitian\n"
    "storage included) makes the system complex: it is factored and solved in\n"
    "complex double (complex float factors with --precision single), a real A\n"
    "taken as complex with imaginary parts 0, and X is complex.\n"
    "\n"
    "Prints the phase times (matching, ordering, symbolic, levelize, factor,\n"
    "solve), n, nnz(A), nnz(L) (unit diagonal included), nnz(U), the fill ratio\n"
    "nnz(L+U)/nnz(A), flops, levels and the widest level, the symbolic phase's\n"
    "chunks, the peak GPU memory, perturbed pivots, refinement steps, whether\n"
    "the solve fell back to partial pivoting, the 1-norm condition estimate\n"
    "(Hager and Higham, a lower bound, as klu_condest; and the scaled\n"
    "matrix's, where the singularity rule made one), the reciprocal pivot\n"
    "growth (as klu_rgrowth), the residual norm |b - Ax|_inf, the solution\n"
    "norm |x|_inf and the normwise backward error\n"
    "|b - Ax|_inf / (|A|_inf |x|_inf + |b|_inf) (the largest over B's columns).\n"
    "\n"
    "Options:\n"
    "  --backend auto|cpu|cuda     where the LU runs (default auto: the GPU when\n"
    "                              one is usable and the factorization large enough;\n"
    "                              cuda: the factorization and solves on the GPU\n"
    "                              whatever the size; matching, ordering, the\n"
    "                              symbolic factorization and the levels stay on\n"
    "                              the host)\n"
    "  --symbolic-backend auto|cpu|cuda\n"
    "                              where the symbolic factorization runs (default\n"
    "                              auto: the host); cuda: on the GPU, out of core\n"
    "                              in chunks that fit --symbolic-budget\n"
    "  --symbolic-budget BYTES     memory for the symbolic phase's intermediates\n"
    "                              (GPU memory with --symbolic-backend cuda;\n"
    "                              default: automatic); small values force many\n"
    "                              chunks\n"
    "  --levelize-backend auto|cpu|cuda\n"
    "                              where the levels are found (default auto: the\n"
    "                              host); cuda: one cooperative kernel on the GPU\n"
    "  --precision single|double   precision of the factors (default double);\n"
    "                              refinement is in double either way\n"
    "  --ordering auto|amd|colamd|natural|nd\n"
    "                              fill-reducing ordering (default auto: AMD on\n"
    "                              A+A^T, or nd where it promises less work; nd:\n"
    "                              METIS nested dissection of A+A^T, less fill on\n"
    "                              large meshes, more on circuits)\n"
    "  --amd-dense X               AMD's dense rows: more than max(16, X sqrt(n))\n"
    "                              entries, ordered last (default 10, AMD's;\n"
    "                              negative: none); lower is a faster ordering\n"
    "                              with a few long rows, at some fill\n"
    "  --pivoting auto|static|partial\n"
    "                              how the pivots are chosen (default auto: static\n"
    "                              pivots from the matching, replaced by partial\n"
    "                              pivoting where the factorization has to perturb\n"
    "                              one, on the host); partial: threshold partial\n"
    "                              pivoting on A's values, as KLU (real systems)\n"
    "  --no-matching               no matching and scaling (A's diagonal is used)\n"
    "  --no-perturbation           a tiny pivot is an error (exit 1) instead of\n"
    "                              being perturbed\n"
    "  --refine N                  at most N refinement steps (default 30; 0: none)\n"
    "  --transpose                 solve A^T X = B\n"
    "  --conj-transpose            solve A^H X = B (the conjugate transpose; the\n"
    "                              same as --transpose for a real system)\n"
    "  -o, --output FILE           write X as Matrix Market (n x columns of B,\n"
    "                              field complex for a complex system);\n"
    "                              '-': on standard output, the report then on\n"
    "                              stderr; never onto A or B\n" CLI_HELP_OUTPUT_OPTIONS "\n"
    "Singular matrices: the structurally singular ones are refused with their\n"
    "structural rank; a matrix the LU finds numerically singular (a pivot\n"
    "without a usable value, or perturbed pivots with a condition estimate\n"
    "above 1/eps, of A and of the matrix as the analysis scaled it, or a\n"
    "backward error that refinement cannot bring to 1e-14)\n"
    "ends with one line naming the column (from 1, as in the file) and the\n"
    "condition estimate. A result that stands but had perturbed pivots, fell\n"
    "back to partial pivoting, or has a condition estimate above 1/sqrt(eps)\n"
    "prints a 'warning:' line on stderr and exits 0. With --json, a failure\n"
    "after the command line is read still prints a JSON object (status,\n"
    "message, column, condest, perturbed_pivots).\n"
    "\n"
    "Exit status: 0 on success (warnings included), 1 on an error (unreadable\n"
    "file, singular matrix), 2 for a bad command line, 130 when cancelled.\n";

static const char *const ordering_choices[] = {"auto", "amd", "colamd", "natural", "nd", NULL}; /* = ts_lu_ordering */
static const char *const pivoting_choices[] = {"auto", "static", "partial", NULL};              /* = ts_lu_pivoting */
static const char *const file_names[] = {"A", "B"};

/* Dense column-major B (n x *nrhs) from a Matrix Market file, as (re, im)
 * pairs of double whatever the file holds (imaginary parts 0 from a real
 * file; *complex_file says which); entries of a sparse file that are not
 * stored are zero, duplicates are summed. */
static ts_status read_rhs(ts_context *ctx, const char *path, int64_t n, double **b, int64_t *nrhs, bool *complex_file) {
  ts_csr *general = NULL;
  ts_mm_info info;
  ts_status status = cli_mm_read_csr(ctx, path, TS_COMPLEX128, &general, &info);
  if (status != TS_SUCCESS)
    return status;
  *complex_file = info.field == TS_MM_COMPLEX;
  if (general->rows != n || general->cols < 1) {
    cli_set_error("%s is %lld x %lld; a right-hand side needs %lld rows and at least one column",
                  cli_path_label(path, false), (long long)general->rows, (long long)general->cols, (long long)n);
    status = TS_ERROR_INVALID_ARGUMENT;
    goto cleanup;
  }
  *nrhs = general->cols;
  *b = calloc((size_t)(2 * n * general->cols), sizeof(double));
  if (!*b) {
    cli_set_error("no memory for a %lld x %lld right-hand side", (long long)n, (long long)general->cols);
    status = TS_ERROR_OUT_OF_MEMORY;
    goto cleanup;
  }
  const double *values = (const double *)general->values;
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = general->row_ptr[i]; k < general->row_ptr[i + 1]; k++) {
      const int64_t at = (int64_t)general->col_idx[k] * n + i;
      (*b)[2 * at] = values[2 * k];
      (*b)[2 * at + 1] = values[2 * k + 1];
    }
cleanup:
  ts_csr_destroy(general);
  return status;
}

/* X (n x nrhs, column-major; (re, im) pairs when @p parts is 2) as a
 * coordinate Matrix Market file, field real or complex. */
static ts_status write_solution(ts_context *ctx, const char *path, const double *x, int64_t n, int64_t nrhs,
                                int64_t parts) {
  ts_coo *coo = NULL;
  ts_status status = ts_coo_create(ctx, n, nrhs, n * nrhs, parts == 2 ? TS_COMPLEX128 : TS_FLOAT64, &coo);
  if (status != TS_SUCCESS)
    return status;
  for (int64_t j = 0; j < nrhs; j++)
    for (int64_t i = 0; i < n; i++) {
      int64_t k = j * n + i;
      coo->row_idx[k] = (int32_t)i;
      coo->col_idx[k] = (int32_t)j;
      for (int64_t part = 0; part < parts; part++)
        ((double *)coo->values)[k * parts + part] = x[k * parts + part];
    }
  coo->nnz = n * nrhs;
  status = cli_mm_write_coo(ctx, path, coo, NULL);
  ts_coo_destroy(coo);
  return status;
}

/* Above this condition estimate (1/sqrt(eps)) about half of double's digits
 * of x may be lost: the result stands, with a warning. Above 1/eps the
 * library reports the matrix singular (tessera/lu.h). */
static double warning_condest(void) { return 1.0 / sqrt(DBL_EPSILON); }

/* The one line of a numerically singular verdict: the library's message
 * with its column (numbered from 0, tessera/lu.h) numbered as the file
 * does, from 1, and the condition estimate. */
static void singular_message(const ts_context *ctx, const ts_lu_stats *stats, char *message, size_t size) {
  const char *detail = ts_last_error(ctx);
  char from_zero[64];
  snprintf(from_zero, sizeof from_zero, "column %lld (from 0)", (long long)stats->singular_column);
  const char *at = stats->singular_column >= 0 ? strstr(detail, from_zero) : NULL;
  int used;
  if (at)
    used = snprintf(message, size, "%.*scolumn %lld (from 1)%s", (int)(at - detail), detail,
                    (long long)stats->singular_column + 1, at + strlen(from_zero));
  else if (stats->singular_column >= 0)
    used = snprintf(message, size, "%s (column %lld, from 1)", detail, (long long)stats->singular_column + 1);
  else
    used = snprintf(message, size, "%s", detail);
  if (used < 0 || (size_t)used >= size)
    return;
  if (stats->condest > 0.0)
    snprintf(message + used, size - (size_t)used, "; condition estimate %.2e", stats->condest);
  else
    snprintf(message + used, size - (size_t)used, "; no condition estimate (the factorization stopped there)");
}

/* The warning of a result that stands but deserves doubt, or "" for none:
 * perturbed pivots, the partial-pivoting fallback, a large condition
 * estimate. */
static void result_warning(const ts_lu_stats *stats, char *warning, size_t size) {
  size_t used = 0;
  warning[0] = '\0';
  if (stats->perturbed_pivots > 0 && used < size)
    used += (size_t)snprintf(warning + used, size - used,
                             "%lld pivot%s perturbed (%s pivoting); the solution passed the singularity checks",
                             (long long)stats->perturbed_pivots, stats->perturbed_pivots == 1 ? " was" : "s were",
                             stats->pivoting == TS_LU_PIVOTING_PARTIAL ? "partial" : "static");
  if (stats->partial_pivoting && used < size)
    used +=
        (size_t)snprintf(warning + used, size - used, "%sthe solve fell back to partial pivoting", used ? "; " : "");
  /* Factors that stood on the scaled matrix's condition: x's digits, each
   * in its column's units, follow that one. */
  if (stats->scaled_condest > 0.0 && stats->condest > warning_condest() && used < size) {
    const double scaled = stats->scaled_condest;
    if (scaled <= warning_condest())
      snprintf(warning + used, size - used,
               "%scondition estimate %.2e, of the scaled matrix only %.2e: the rows and columns are in other units",
               used ? "; " : "", stats->condest, scaled);
    else
      snprintf(warning + used, size - used,
               "%scondition estimate %.2e, of the scaled matrix %.2e: about %.0f digits of x, each in its column's "
               "units, may be lost",
               used ? "; " : "", stats->condest, scaled, floor(log10(scaled)));
    return;
  }
  /* Double carries about 16 digits: past 1e16 none of x's may be right. */
  if (stats->condest > warning_condest() && used < size) {
    if (isfinite(stats->condest) && stats->condest < 1e16)
      snprintf(warning + used, size - used,
               "%scondition estimate %.2e, above 1/sqrt(eps) = %.2e: about %.0f digits of x may be lost",
               used ? "; " : "", stats->condest, warning_condest(), floor(log10(stats->condest)));
    else
      snprintf(warning + used, size - used, "%scondition estimate %.2e: x may have no correct digit", used ? "; " : "",
               stats->condest);
  }
}

/* With --json, a failure still gives one JSON object on stdout. */
static void print_error_json(const char *path, ts_status status, const char *message, const ts_lu_stats *stats) {
  cli_json out;
  cli_json_begin(&out, stdout);
  cli_json_text(&out, "command", "solve");
  cli_json_text(&out, "file", path);
  cli_json_text(&out, "status", status == TS_ERROR_CANCELLED ? "cancelled" : ts_status_string(status));
  cli_json_text(&out, "message", status == TS_ERROR_CANCELLED ? "cancelled" : message);
  if (stats && stats->singular_column >= 0)
    cli_json_int(&out, "column", stats->singular_column + 1);
  else
    cli_json_null(&out, "column");
  if (stats && stats->condest > 0.0)
    cli_json_real(&out, "condest", stats->condest);
  else
    cli_json_null(&out, "condest");
  if (stats)
    cli_json_int(&out, "perturbed_pivots", stats->perturbed_pivots);
  else
    cli_json_null(&out, "perturbed_pivots");
  if (stats && status == TS_ERROR_STRUCTURALLY_SINGULAR)
    cli_json_int(&out, "structural_rank", stats->structural_rank);
  cli_json_null(&out, "warning");
  cli_json_end(&out);
}

/* The names of an operation: the report's equation, the rhs line's
 * operator and the JSON's word. */
static const char *operation_equation(ts_operation op) {
  return op == TS_OP_CONJ_TRANSPOSE ? "A^H x = b" : op == TS_OP_TRANSPOSE ? "A^T x = b" : "A x = b";
}
static const char *operation_matrix(ts_operation op) {
  return op == TS_OP_CONJ_TRANSPOSE ? "A^H" : op == TS_OP_TRANSPOSE ? "A^T" : "A";
}
static const char *operation_json(ts_operation op) {
  return op == TS_OP_CONJ_TRANSPOSE ? "conj_transpose" : op == TS_OP_TRANSPOSE ? "transpose" : "none";
}

/* b = op(A) * ones, so that x = ones; (re, im) pairs when @p parts is 2. */
static void product_with_ones(const ts_csr *a, ts_operation op, int64_t parts, double *b) {
  const double *v = (const double *)a->values;
  const double conjugate = op == TS_OP_CONJ_TRANSPOSE ? -1.0 : 1.0;
  for (int64_t i = 0; i < a->rows; i++)
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      const int64_t at = (op == TS_OP_NONE ? i : a->col_idx[e]) * parts;
      b[at] += v[e * parts];
      if (parts == 2)
        b[at + 1] += conjugate * v[e * parts + 1];
    }
}

/* The first entries of x for the report: "1 -1 2" or "1+2i -0.5-1i". */
static void first_entries(const double *x, int64_t n, int64_t parts, char *text, size_t size) {
  size_t used = 0;
  text[0] = '\0';
  for (int64_t i = 0; i < n && i < 3 && used < size; i++) {
    int wrote = parts == 2 ? snprintf(text + used, size - used, "%s%.6g%+.6gi", i ? " " : "", x[2 * i], x[2 * i + 1])
                           : snprintf(text + used, size - used, "%s%.6g", i ? " " : "", x[i]);
    if (wrote < 0)
      return;
    used += (size_t)wrote;
  }
}

static int run_solve(int argc, char **argv) {
  int backend = TS_BACKEND_AUTO, precision = TS_FLOAT64, ordering = TS_LU_ORDER_AUTO, pivoting = TS_LU_PIVOTING_AUTO;
  int symbolic_backend = TS_BACKEND_AUTO, levelize_backend = TS_BACKEND_AUTO;
  int64_t symbolic_budget = 0;
  double amd_dense = 0.0;
  bool no_matching = false, no_perturbation = false, transpose = false, conj_transpose = false;
  cli_output_flags output_flags = {0};
  int64_t refine = 30;
  const char *output = NULL;
  cli_option options[] = {
      {.name = "--backend", .kind = CLI_CHOICE, .target = &backend, .choices = cli_backend_choices},
      {.name = "--symbolic-backend", .kind = CLI_CHOICE, .target = &symbolic_backend, .choices = cli_backend_choices},
      {.name = "--symbolic-budget", .kind = CLI_INT, .target = &symbolic_budget, .imin = 1, .imax = INT64_MAX},
      {.name = "--levelize-backend", .kind = CLI_CHOICE, .target = &levelize_backend, .choices = cli_backend_choices},
      {.name = "--precision", .kind = CLI_CHOICE, .target = &precision, .choices = cli_precision_choices},
      {.name = "--ordering", .kind = CLI_CHOICE, .target = &ordering, .choices = ordering_choices},
      {.name = "--amd-dense", .kind = CLI_REAL, .target = &amd_dense, .rmin = -1000.0, .rmax = 1000.0},
      {.name = "--pivoting", .kind = CLI_CHOICE, .target = &pivoting, .choices = pivoting_choices},
      {.name = "--no-matching", .kind = CLI_FLAG, .target = &no_matching},
      {.name = "--no-perturbation", .kind = CLI_FLAG, .target = &no_perturbation},
      {.name = "--refine", .kind = CLI_INT, .target = &refine, .imin = 0, .imax = 1000},
      {.name = "--transpose", .kind = CLI_FLAG, .target = &transpose},
      {.name = "--conj-transpose", .kind = CLI_FLAG, .target = &conj_transpose},
      {.name = "--output", .short_name = 'o', .kind = CLI_TEXT, .target = &output},
      CLI_OUTPUT_OPTIONS(output_flags),
  };
  const cli_syntax syntax = {"solve", solve_help, options, CLI_COUNT(options), file_names, 1, 2};
  const char *paths[2] = {NULL, NULL};
  int path_count = 0;
  int rc = cli_parse(&syntax, argc, argv, paths, &path_count);
  if (rc == CLI_HELP_SHOWN)
    return CLI_EXIT_OK;
  if (rc != 0)
    return rc;
  rc = cli_check_paths("solve", paths, path_count, &output, 1, output_flags.json);
  if (rc != 0)
    return rc;
  if (transpose && conj_transpose)
    return cli_usage_error("solve", "--transpose and --conj-transpose exclude each other");
  const ts_operation op = conj_transpose ? TS_OP_CONJ_TRANSPOSE : transpose ? TS_OP_TRANSPOSE : TS_OP_NONE;
  /* With X on stdout, the report goes to stderr. */
  FILE *report = cli_is_stdio(output) ? stderr : stdout;

  ts_context *ctx = NULL;
  cli_matrix matrix = {0};
  cli_progress progress;
  ts_lu *lu = NULL;
  double *b = NULL, *x = NULL;
  int64_t nrhs = 1;
  bool complex_rhs = false;
  ts_status status = cli_context_create((ts_backend)backend, &ctx);
  if (status != TS_SUCCESS)
    return cli_library_error(NULL, status);
  status = cli_progress_attach(ctx, &progress, &output_flags);
  if (status != TS_SUCCESS)
    goto cleanup;
  status = cli_matrix_read_numeric(ctx, &progress, paths[0], &matrix);
  if (status != TS_SUCCESS)
    goto cleanup;
  const int64_t n = matrix.csr->rows;
  if (matrix.csr->rows != matrix.csr->cols) {
    cli_set_error("%s is %lld x %lld: the LU needs a square matrix (not square)", cli_path_label(paths[0], false),
                  (long long)matrix.csr->rows, (long long)matrix.csr->cols);
    status = TS_ERROR_INVALID_ARGUMENT;
    goto cleanup;
  }
  if (path_count == 2) {
    status = read_rhs(ctx, paths[1], n, &b, &nrhs, &complex_rhs);
    if (status != TS_SUCCESS)
      goto cleanup;
    /* A complex B makes the system complex; a real system keeps the real
     * parts of B, stored as pairs by read_rhs, in place. */
    if (complex_rhs)
      status = cli_csr_convert_values(ctx, &matrix.csr, TS_COMPLEX128);
    else if (matrix.csr->dtype != TS_COMPLEX128)
      for (int64_t k = 0; k < n * nrhs; k++)
        b[k] = b[2 * k];
    if (status != TS_SUCCESS)
      goto cleanup;
  }
  const ts_csr *a = matrix.csr;
  const bool complex_system = a->dtype == TS_COMPLEX128;
  const int64_t parts = complex_system ? 2 : 1; /* doubles per entry of b and x */
  if (path_count == 1) {
    b = calloc((size_t)(n > 0 ? n * parts : 1), sizeof *b);
    if (!b) {
      cli_set_error("no memory for b (%lld entries)", (long long)n);
      status = TS_ERROR_OUT_OF_MEMORY;
      goto cleanup;
    }
    product_with_ones(a, op, parts, b);
  }
  x = calloc((size_t)(n * nrhs > 0 ? n * nrhs * parts : 1), sizeof *x);
  if (!x) {
    cli_set_error("no memory for x (%lld entries)", (long long)(n * nrhs));
    status = TS_ERROR_OUT_OF_MEMORY;
    goto cleanup;
  }

  ts_lu_options lu_options;
  memset(&lu_options, 0, sizeof lu_options);
  /* An explicit --backend cuda means the GPU, as the help says; auto lets the
   * LU keep a small factorization on the host. */
  lu_options.backend = (ts_backend)backend;
  lu_options.ordering = (ts_lu_ordering)ordering;
  lu_options.amd_dense = amd_dense;
  lu_options.pivoting = (ts_lu_pivoting)pivoting;
  lu_options.no_matching = no_matching;
  lu_options.no_perturbation = no_perturbation;
  lu_options.float_factors = precision == TS_FLOAT32;
  lu_options.refine_max_steps = refine == 0 ? -1 : (int)refine;
  lu_options.symbolic_backend = (ts_backend)symbolic_backend;
  lu_options.symbolic_memory_budget = symbolic_budget;
  lu_options.levelize_backend = (ts_backend)levelize_backend;
  status = ts_lu_create(ctx, &lu_options, &lu);
  if (status != TS_SUCCESS)
    goto cleanup;
  cli_progress_begin(&progress, "analyzing");
  status = ts_lu_analyze(lu, a);
  status = cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  cli_progress_begin(&progress, "factoring");
  status = ts_lu_factor(lu, a);
  status = cli_progress_end(&progress, status);
  if (TS_IS_ERROR(status))
    goto cleanup;
  cli_progress_begin(&progress, "solving");
  status = ts_lu_solve(lu, op, nrhs, b, n > 0 ? n : 1, x, n > 0 ? n : 1);
  status = cli_progress_end(&progress, status);
  if (status != TS_SUCCESS)
    goto cleanup;
  ts_lu_stats stats;
  status = ts_lu_get_stats(lu, &stats);
  if (status != TS_SUCCESS)
    goto cleanup;
  /* The singularity policy estimated the condition where pivots were
   * perturbed; otherwise estimate it now. */
  if (!(stats.condest > 0.0)) {
    cli_progress_begin(&progress, "estimating the condition");
    status = cli_progress_end(&progress, ts_lu_condest(lu, &stats.condest));
    if (status != TS_SUCCESS)
      goto cleanup;
  }
  status = ts_lu_rgrowth(lu, &stats.rgrowth);
  if (status != TS_SUCCESS)
    goto cleanup;
  char warning[512];
  result_warning(&stats, warning, sizeof warning);
  if (warning[0])
    fprintf(stderr, "warning: %s\n", warning);
  if (output) {
    cli_progress_begin(&progress, "writing");
    status = write_solution(ctx, output, x, n, nrhs, parts);
    status = cli_progress_end(&progress, status);
    if (status != TS_SUCCESS)
      goto cleanup;
  }

  const ts_backend resolved = ts_context_backend(ctx);
  /* The phases that follow the context (AUTO) run on its backend; the
   * symbolic phase and the levels run on the host unless asked. */
  const ts_backend symbolic_ran = symbolic_backend == TS_BACKEND_CUDA ? TS_BACKEND_CUDA : TS_BACKEND_CPU;
  const ts_backend levelize_ran = levelize_backend == TS_BACKEND_CUDA ? TS_BACKEND_CUDA : TS_BACKEND_CPU;
  const int64_t lu_nnz = stats.nnz_l + stats.nnz_u - stats.n; /* the diagonal once */
  const double fill_ratio = a->nnz > 0 ? (double)lu_nnz / (double)a->nnz : 0.0;
  const char *precision_name = precision == TS_FLOAT32 ? "single" : "double";
  if (output_flags.json) {
    cli_json out;
    cli_json_begin(&out, stdout);
    cli_json_text(&out, "command", "solve");
    cli_json_text(&out, "file", paths[0]);
    cli_json_text(&out, "rhs", path_count == 2 ? paths[1] : "A*ones");
    cli_json_int(&out, "nrhs", nrhs);
    cli_json_text(&out, "values", complex_system ? "complex" : "real");
    cli_json_text(&out, "backend", ts_backend_name(resolved));
    cli_fallback_json(&out, ctx);
    cli_json_text(&out, "lu_backend", ts_backend_name(stats.factor_backend));
    cli_json_text(&out, "symbolic_backend", ts_backend_name(symbolic_ran));
    cli_json_text(&out, "levelize_backend", ts_backend_name(levelize_ran));
    cli_json_text(&out, "factor_precision", precision_name);
    cli_json_text(&out, "ordering",
                  ordering_choices[stats.ordering != TS_LU_ORDER_AUTO ? (int)stats.ordering : ordering]);
    cli_json_text(&out, "ordering_asked", ordering_choices[ordering]);
    cli_json_bool(&out, "matching", !no_matching);
    cli_json_text(&out, "pivoting", pivoting_choices[stats.pivoting]);
    cli_json_bool(&out, "perturbation", !no_perturbation);
    cli_json_text(&out, "operation", operation_json(op));
    cli_json_int(&out, "n", stats.n);
    cli_json_int(&out, "nnz_a", stats.nnz_a);
    cli_json_int(&out, "nnz_l", stats.nnz_l);
    cli_json_int(&out, "nnz_u", stats.nnz_u);
    cli_json_real(&out, "fill_ratio", fill_ratio);
    cli_json_real(&out, "flops", stats.flops);
    cli_json_int(&out, "levels", stats.levels);
    cli_json_int(&out, "max_level_size", stats.max_level_size);
    cli_json_int(&out, "symbolic_chunks", stats.symbolic_chunks);
    cli_json_int(&out, "peak_device_bytes", stats.peak_device_bytes);
    cli_json_int(&out, "perturbed_pivots", stats.perturbed_pivots);
    cli_json_int(&out, "partial_pivoting", stats.partial_pivoting);
    cli_json_int(&out, "refinement_steps", stats.refinement_steps);
    cli_json_real(&out, "backward_error", stats.backward_error);
    cli_json_real(&out, "scaled_backward_error", stats.scaled_backward_error);
    cli_json_real(&out, "residual_norm", stats.residual_norm);
    cli_json_real(&out, "solution_norm", stats.solution_norm);
    cli_json_real(&out, "condest", stats.condest);
    cli_json_real(&out, "scaled_condest", stats.scaled_condest);
    cli_json_real(&out, "rgrowth", stats.rgrowth);
    cli_json_text(&out, "status", "success");
    if (warning[0])
      cli_json_text(&out, "warning", warning);
    else
      cli_json_null(&out, "warning");
    cli_json_object(&out, "seconds");
    cli_json_real(&out, "read", matrix.read_seconds);
    cli_json_real(&out, "matching", stats.time_matching);
    cli_json_real(&out, "ordering", stats.time_ordering);
    cli_json_real(&out, "symbolic", stats.time_symbolic);
    cli_json_real(&out, "levelize", stats.time_levelize);
    cli_json_real(&out, "factor", stats.time_factor);
    cli_json_real(&out, "solve", stats.time_solve);
    cli_json_close(&out);
    cli_json_end(&out);
  } else {
    cli_line(report, "file", "%s", cli_path_label(paths[0], false));
    cli_line(report, "n", "%lld", (long long)stats.n);
    cli_line(report, "nnz(A)", "%lld", (long long)stats.nnz_a);
    cli_line(report, "values", "%s",
             complex_system ? (matrix.header.field == TS_MM_COMPLEX ? "complex" : "complex (A real, B complex)")
                            : "real");
    if (path_count == 2)
      cli_line(report, "rhs", "%s (%lld column%s%s)", cli_path_label(paths[1], false), (long long)nrhs,
               nrhs == 1 ? "" : "s", complex_system && !complex_rhs ? ", real" : "");
    else
      cli_line(report, "rhs", "%s * ones", operation_matrix(op));
    if (resolved == TS_BACKEND_CUDA)
      cli_line(report, "backend",
               "cuda (factorization and solves on the %s; symbolic factorization on the %s, "
               "levels on the %s; matching and ordering on the host)",
               stats.factor_backend == TS_BACKEND_CUDA ? "GPU" : "host",
               symbolic_ran == TS_BACKEND_CUDA ? "GPU" : "host", levelize_ran == TS_BACKEND_CUDA ? "GPU" : "host");
    else
      cli_line(report, "backend", "%s", ts_backend_name(resolved));
    cli_fallback_print(report, ctx);
    cli_line(report, "factor precision", "%s", precision_name);
    cli_line(report, "ordering", "%s%s",
             ordering_choices[stats.ordering != TS_LU_ORDER_AUTO ? (int)stats.ordering : ordering],
             ordering == TS_LU_ORDER_AUTO ? " (auto)" : "");
    cli_line(report, "matching", "%s", no_matching ? "off" : "maximum product, with scaling");
    cli_line(report, "pivoting", "%s",
             stats.pivoting == TS_LU_PIVOTING_PARTIAL ? "partial (threshold 1e-3, chosen from the values)"
             : no_matching                            ? "static (A's diagonal, in the ordering's order)"
                                                      : "static (the matching's)");
    cli_line(report, "operation", "%s", operation_equation(op));
    cli_line(report, "nnz(L)", "%lld (unit diagonal included)", (long long)stats.nnz_l);
    cli_line(report, "nnz(U)", "%lld", (long long)stats.nnz_u);
    cli_line(report, "fill ratio", "%.3f (nnz(L+U) = %lld)", fill_ratio, (long long)lu_nnz);
    cli_line(report, "flops", "%.4g", stats.flops);
    cli_line(report, "levels", "%lld", (long long)stats.levels);
    cli_line(report, "max level size", "%lld", (long long)stats.max_level_size);
    cli_line(report, "symbolic chunks", "%lld", (long long)stats.symbolic_chunks);
    if (resolved == TS_BACKEND_CUDA)
      cli_line(report, "peak GPU memory", "%.1f MiB", (double)stats.peak_device_bytes / (1024.0 * 1024.0));
    cli_line(report, "perturbed pivots", "%lld", (long long)stats.perturbed_pivots);
    cli_line(report, "time matching", "%.4f s", stats.time_matching);
    cli_line(report, "time ordering", "%.4f s", stats.time_ordering);
    cli_line(report, "time symbolic", "%.4f s", stats.time_symbolic);
    cli_line(report, "time levelize", "%.4f s", stats.time_levelize);
    cli_line(report, "time factor", "%.4f s", stats.time_factor);
    cli_line(report, "time solve", "%.4f s", stats.time_solve);
    cli_line(report, "refinement steps", "%d", stats.refinement_steps);
    if (stats.partial_pivoting)
      cli_line(report, "partial pivoting", "yes: the solve fell back to partially pivoted factors on the host");
    cli_line(report, "condition estimate", "%.2e (1-norm, a lower bound)", stats.condest);
    if (stats.scaled_condest > 0.0)
      cli_line(report, "scaled condition", "%.2e (of the matrix as the analysis scaled it)", stats.scaled_condest);
    cli_line(report, "pivot growth", "%.3g (reciprocal: near 1 is stable)", stats.rgrowth);
    cli_line(report, "residual norm", "%.2e (|b - Ax|_inf)", stats.residual_norm);
    cli_line(report, "solution norm", "%.2e (|x|_inf)", stats.solution_norm);
    cli_line(report, "backward error", "%.2e", stats.backward_error);
    if (n > 0) {
      char first[160];
      first_entries(x, n, parts, first, sizeof first);
      cli_line(report, "x (first entries)", "%s", first);
    }
    if (output)
      cli_line(report, "solution written", "%s", cli_path_label(output, true));
  }

cleanup:
  if (status != TS_SUCCESS && !TS_IS_ERROR(status))
    status = TS_SUCCESS; /* perturbed pivots: reported in the statistics */
  if (status != TS_SUCCESS) {
    ts_lu_stats failed;
    const bool have_stats = lu && ts_lu_get_stats(lu, &failed) == TS_SUCCESS;
    if (have_stats && status == TS_ERROR_NUMERICALLY_SINGULAR) {
      char message[1024];
      singular_message(ctx, &failed, message, sizeof message);
      cli_set_error("%s", message);
    }
    if (output_flags.json)
      print_error_json(paths[0], status, cli_error_message(ctx), have_stats ? &failed : NULL);
    rc = cli_library_error(ctx, status);
  }
  ts_lu_destroy(lu);
  free(b);
  free(x);
  cli_matrix_release(&matrix);
  ts_context_destroy(ctx);
  return rc;
}

const cli_command cli_command_solve = {
    .name = "solve",
    .summary = "solve A x = b by sparse LU with iterative refinement",
    .help = solve_help,
    .run = run_solve,
};
