/* The singularity verdicts of tessera's LU beside SuiteSparse KLU's on every
 * square corpus matrix: KLU (defaults, one thread) factors it, finds it
 * numerically singular (a zero pivot under partial pivoting; its column), or
 * structurally singular (its maximum transversal's rank); tessera (default
 * options, on the CPU or the GPU) analyzes and factors it and, where it
 * factors, estimates the condition number and the pivot growth and solves
 * with a random b (the backward error |b - Ax|_inf / (|A|_inf |x|_inf +
 * |b|_inf) computed here in double, and |x|_inf). The last column says
 * whether the two agree: both singular (either kind), or both solving.
 * Pattern files are read with every value 1, as KLU's users read them.
 *
 * Usage: lu_singularity [options]
 *   --matrices DIR      corpus folder with MANIFEST.tsv (default: TESSERA_MATRICES)
 *   --only LIST         keep matrices whose name contains one of these comma-separated words
 *   --skip LIST         leave out matrices whose name is one of these (comma-separated)
 *   --backend cpu|cuda  where tessera factors (default cpu)
 *   --float             tessera with single-precision factors (refinement in double)
 *   --md FILE           also write the Markdown table (it is printed on stdout anyway) */
#include "tessera.h"
#include "tsb.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TESSERA_BENCH_HAVE_KLU
#include <klu.h>

typedef struct options {
  const char *matrices, *only, *skip, *md;
  ts_backend backend;
  int float_factors;
} options;

/* One side's verdict. */
enum verdict { SOLVES, NUMERICALLY_SINGULAR, STRUCTURALLY_SINGULAR, OTHER_ERROR };

typedef struct klu_result {
  enum verdict verdict;
  int64_t column, rank; /* singular column (0-based), structural rank */
  double condest;
} klu_result;

typedef struct tessera_result {
  enum verdict verdict;
  ts_status status;
  ts_lu_stats stats;
  double condest, rgrowth, berr, x_norm;
  char message[512];
} tessera_result;

static ts_context *ctx;

/* Whether one of the comma-separated words of list equals name (exact) or
 * occurs in it. */
static bool listed(const char *list, const char *name, bool exact) {
  for (const char *p = list; p && *p;) {
    size_t length = strcspn(p, ",");
    char word[256];
    snprintf(word, sizeof word, "%.*s", (int)(length < sizeof word - 1 ? length : sizeof word - 1), p);
    if (length > 0 && (exact ? strcmp(name, word) == 0 : strstr(name, word) != NULL))
      return true;
    p += length + (p[length] == ',');
  }
  return false;
}

static ts_csr *read_general(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.mtx", dir, name);
  ts_coo *coo = NULL, *general = NULL;
  ts_csr *csr = NULL;
  if (ts_mm_read(ctx, path, TS_FLOAT64, &coo, NULL) == TS_SUCCESS &&
      ts_coo_expand_symmetric(ctx, coo, &general) == TS_SUCCESS)
    (void)ts_csr_from_coo(ctx, general, TS_DUPLICATES_SUM, &csr);
  ts_coo_destroy(coo);
  ts_coo_destroy(general);
  return csr;
}

static void run_klu(const ts_csr *a, klu_result *r) {
  const int n = (int)a->rows;
  ts_csc *csc = NULL;
  int *col_ptr = malloc((size_t)(n + 1) * sizeof *col_ptr);
  r->verdict = OTHER_ERROR;
  r->column = -1;
  r->rank = -1;
  r->condest = NAN;
  if (!col_ptr || ts_csc_from_csr(ctx, a, &csc) != TS_SUCCESS) {
    free(col_ptr);
    return;
  }
  for (int j = 0; j <= n; j++)
    col_ptr[j] = (int)csc->col_ptr[j];
  klu_common common;
  klu_defaults(&common);
  klu_symbolic *symbolic = klu_analyze(n, col_ptr, csc->row_idx, &common);
  klu_numeric *numeric = symbolic ? klu_factor(col_ptr, csc->row_idx, csc->values, symbolic, &common) : NULL;
  if (symbolic) {
    r->rank = common.structural_rank;
    if (common.structural_rank < n) {
      r->verdict = STRUCTURALLY_SINGULAR;
    } else if (common.status == KLU_SINGULAR) {
      r->verdict = NUMERICALLY_SINGULAR;
      r->column = common.singular_col;
    } else if (numeric && common.status == KLU_OK) {
      r->verdict = SOLVES;
      if (klu_condest(col_ptr, csc->values, symbolic, numeric, &common))
        r->condest = common.condest;
    }
  }
  klu_free_numeric(&numeric, &common);
  klu_free_symbolic(&symbolic, &common);
  ts_csc_destroy(csc);
  free(col_ptr);
}

static void run_tessera(const options *o, const ts_csr *a, tessera_result *r) {
  const int64_t n = a->rows;
  ts_lu_options lu_options;
  memset(&lu_options, 0, sizeof lu_options);
  lu_options.backend = o->backend;
  lu_options.float_factors = o->float_factors;
  memset(r, 0, sizeof *r);
  r->condest = r->rgrowth = r->berr = r->x_norm = NAN;
  ts_lu *lu = NULL;
  ts_status status = ts_lu_create(ctx, &lu_options, &lu);
  if (status == TS_SUCCESS)
    status = ts_lu_analyze(lu, a);
  if (status == TS_SUCCESS)
    status = ts_lu_factor(lu, a);
  r->status = status;
  if (TS_IS_ERROR(status))
    snprintf(r->message, sizeof r->message, "%s", ts_last_error(ctx));
  if (!TS_IS_ERROR(status)) {
    (void)ts_lu_condest(lu, &r->condest);
    (void)ts_lu_rgrowth(lu, &r->rgrowth);
    double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    unsigned long long state = 12345;
    for (int64_t i = 0; b && i < n; i++) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      b[i] = (double)(state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    }
    ts_status solved = b && x ? ts_lu_solve(lu, TS_OP_NONE, 1, b, n, x, n) : TS_ERROR_OUT_OF_MEMORY;
    if (solved == TS_SUCCESS) {
      r->berr = tsb_backward_error(a, x, b);
      r->x_norm = 0.0;
      for (int64_t i = 0; i < n; i++)
        r->x_norm = fmax(r->x_norm, fabs(x[i]));
    } else {
      r->status = solved;
      snprintf(r->message, sizeof r->message, "solve: %s", ts_last_error(ctx));
    }
    free(b);
    free(x);
  }
  if (lu)
    ts_lu_get_stats(lu, &r->stats);
  ts_lu_destroy(lu);
  r->verdict = r->status == TS_ERROR_STRUCTURALLY_SINGULAR  ? STRUCTURALLY_SINGULAR
               : r->status == TS_ERROR_NUMERICALLY_SINGULAR ? NUMERICALLY_SINGULAR
               : TS_IS_ERROR(r->status)                     ? OTHER_ERROR
                                                            : SOLVES;
}

static void klu_cell(tsb_table *t, const klu_result *k) {
  switch (k->verdict) {
  case SOLVES:
    tsb_table_cell(t, "factors");
    break;
  case NUMERICALLY_SINGULAR:
    tsb_table_cell(t, "singular (column %lld)", (long long)k->column + 1);
    break;
  case STRUCTURALLY_SINGULAR:
    tsb_table_cell(t, "structurally singular (rank %lld)", (long long)k->rank);
    break;
  default:
    tsb_table_cell(t, "error");
  }
}

static void tessera_cell(tsb_table *t, const tessera_result *r) {
  switch (r->verdict) {
  case SOLVES:
    if (r->status == TS_SUCCESS)
      tsb_table_cell(t, "solves%s", r->stats.partial_pivoting ? " (partial pivoting)" : "");
    else
      tsb_table_cell(t, "solves, warning (%lld perturbed%s)", (long long)r->stats.perturbed_pivots,
                     r->stats.partial_pivoting ? ", partial pivoting" : "");
    break;
  case NUMERICALLY_SINGULAR:
    tsb_table_cell(t, "singular (column %lld)", (long long)r->stats.singular_column + 1);
    break;
  case STRUCTURALLY_SINGULAR:
    tsb_table_cell(t, "structurally singular (rank %lld)", (long long)r->stats.structural_rank);
    break;
  default:
    tsb_table_cell(t, "%s", ts_status_string(r->status));
  }
}

static const char *agreement(const klu_result *k, const tessera_result *r) {
  if (k->verdict == OTHER_ERROR || r->verdict == OTHER_ERROR)
    return "error";
  bool klu_singular = k->verdict != SOLVES, tessera_singular = r->verdict != SOLVES;
  if (klu_singular != tessera_singular)
    return "DISAGREE";
  if (k->verdict == STRUCTURALLY_SINGULAR && r->verdict == STRUCTURALLY_SINGULAR)
    return k->rank == r->stats.structural_rank ? "agree" : "agree (other rank)";
  return "agree";
}

static void cell_number(tsb_table *t, double value) {
  if (isnan(value))
    tsb_table_cell(t, "-");
  else
    tsb_table_cell(t, "%.2e", value);
}

static int run(const options *o, int argc, char **argv) {
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", o->matrices);
  FILE *manifest = fopen(path, "r");
  if (!manifest) {
    fprintf(stderr, "lu_singularity: no %s\n", path);
    return 1;
  }
  static const char *const columns[] = {"matrix",
                                        "n",
                                        "nnz",
                                        "KLU",
                                        "KLU condest",
                                        "tessera",
                                        "perturbed pivots",
                                        "tessera condest",
                                        "rgrowth",
                                        "berr (random b)",
                                        "|x|_inf",
                                        "verdicts"};
  tsb_table *table = tsb_table_create((int)(sizeof columns / sizeof columns[0]), columns);
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "tessera", "%s backend, %s factors, default options",
                   o->backend == TS_BACKEND_CUDA ? "GPU" : "CPU", o->float_factors ? "single-precision" : "double");
  int counts[2][2] = {{0, 0}, {0, 0}}; /* [KLU singular][agree] */
  char line[8192];
  while (fgets(line, sizeof line, manifest)) {
    char name[256];
    long long rows, cols;
    if (sscanf(line, "%255s %lld %lld", name, &rows, &cols) != 3 || rows != cols)
      continue; /* the header, or not square */
    if ((o->only && !listed(o->only, name, false)) || listed(o->skip, name, true))
      continue;
    ts_csr *a = read_general(o->matrices, name);
    if (!a) {
      fprintf(stderr, "lu_singularity: %s: %s\n", name, ts_last_error(ctx));
      continue;
    }
    double start = tsb_wall_seconds();
    klu_result k;
    tessera_result r;
    run_klu(a, &k);
    run_tessera(o, a, &r);
    const char *agree = agreement(&k, &r);
    fprintf(stderr, "[%6.1f s] %-20s %s%s%s\n", tsb_wall_seconds() - start, name, agree, r.message[0] ? ": " : "",
            r.message);
    if (k.verdict != OTHER_ERROR)
      counts[k.verdict != SOLVES][strncmp(agree, "agree", 5) == 0]++;
    tsb_table_cell(table, "%s", name);
    tsb_table_cell(table, "%lld", (long long)a->rows);
    tsb_table_cell(table, "%lld", (long long)a->nnz);
    klu_cell(table, &k);
    cell_number(table, k.condest);
    tessera_cell(table, &r);
    tsb_table_cell(table, "%lld", (long long)r.stats.perturbed_pivots);
    cell_number(table, r.condest);
    cell_number(table, r.rgrowth);
    cell_number(table, r.berr);
    cell_number(table, r.x_norm);
    tsb_table_cell(table, "%s", agree);
    ts_csr_destroy(a);
  }
  fclose(manifest);
  tsb_metadata_set(&meta, "summary",
                   "KLU factors %d matrices, tessera agrees on %d; KLU finds %d singular, tessera agrees on %d",
                   counts[0][0] + counts[0][1], counts[0][1], counts[1][0] + counts[1][1], counts[1][1]);
  tsb_table_print_markdown(table, &meta, stdout);
  int rc = 0;
  if (o->md) {
    FILE *out = tsb_make_parent_dirs(o->md) == 0 ? fopen(o->md, "w") : NULL;
    if (out) {
      tsb_table_print_markdown(table, &meta, out);
      fclose(out);
    } else {
      fprintf(stderr, "lu_singularity: cannot write %s\n", o->md);
      rc = 1;
    }
  }
  tsb_table_destroy(table);
  return rc;
}

int main(int argc, char **argv) {
  options o = {getenv("TESSERA_MATRICES"), NULL, NULL, NULL, TS_BACKEND_CPU, 0};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(arg, "--matrices") == 0 && has_value)
      o.matrices = argv[++i];
    else if (strcmp(arg, "--only") == 0 && has_value)
      o.only = argv[++i];
    else if (strcmp(arg, "--skip") == 0 && has_value)
      o.skip = argv[++i];
    else if (strcmp(arg, "--md") == 0 && has_value)
      o.md = argv[++i];
    else if (strcmp(arg, "--backend") == 0 && has_value && strcmp(argv[i + 1], "cpu") == 0)
      o.backend = TS_BACKEND_CPU, i++;
    else if (strcmp(arg, "--backend") == 0 && has_value && strcmp(argv[i + 1], "cuda") == 0)
      o.backend = TS_BACKEND_CUDA, i++;
    else if (strcmp(arg, "--float") == 0)
      o.float_factors = 1;
    else {
      fprintf(stderr, "lu_singularity: unknown argument '%s' (see the comment at the top of bench/lu_singularity.c)\n",
              arg);
      return 2;
    }
  }
  if (!o.matrices) {
    fprintf(stderr, "lu_singularity: no corpus (--matrices DIR or TESSERA_MATRICES)\n");
    return 2;
  }
  ts_context_options context_options;
  memset(&context_options, 0, sizeof context_options);
  context_options.backend = o.backend;
  if (ts_context_create(&ctx, &context_options) != TS_SUCCESS) {
    fprintf(stderr, "lu_singularity: %s\n", ts_last_error(NULL));
    return 1;
  }
  int rc = run(&o, argc, argv);
  ts_context_destroy(ctx);
  return rc;
}

#else

int main(void) {
  fprintf(stderr, "lu_singularity: built without SuiteSparse KLU, the reference it compares with\n");
  return 1;
}

#endif
