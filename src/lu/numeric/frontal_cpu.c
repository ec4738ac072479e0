/* The multifrontal factorization on the host (Duff and Reid, ACM TOMS 9(3),
 * 1983; fronts from symbolic/fronts.c): M scattered into the fronts, then
 * level by level each front takes its children's contribution blocks
 * (extend-add, children in ascending order) and eliminates its pivots,
 * leaving its Schur complement in place as its own contribution block.
 * Static pivoting as on the other paths: a tiny pivot is replaced by
 * sign * sqrt(eps) max|M| (Li and Demmel, SuperLU_DIST's GESP), counted,
 * or stops the factorization after its level when perturbation is off.
 *
 * The arithmetic is fixed entry for entry, so that GPU kernels can give
 * the same bits: a front of at most TSI_LU_FRONT_SMALL rows
 * is eliminated one pivot at a time (x - l * u, each operation rounded);
 * a larger one by panels of TSI_LU_FRONT_PANEL pivots (the diagonal block
 * one pivot at a time, the panels below and to the right by substitution
 * along each row or column, then the trailing block less the sum of the
 * panel's products, summed in pivot order from 0: Dongarra, Duff, Sorensen
 * and van der Vorst, "Numerical Linear Algebra for High-Performance
 * Computers", 1998, chapter 5). No fused multiply-adds. */
#include "lu/numeric/numeric_internal.h"
#include "lu/symbolic/symbolic_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

enum { KIND_OK = 0, KIND_PERTURBED = 1, KIND_SINGULAR = 2, KIND_NOT_FINITE = 3 };

typedef struct pivot_rule {
  double tiny, replacement;
  bool perturb;
} pivot_rule;

static int classify(double *pivot, const pivot_rule *rule) {
  const double p = *pivot;
  if (!isfinite(p))
    return KIND_NOT_FINITE;
  if (fabs(p) < rule->tiny || p == 0.0) {
    if (!rule->perturb)
      return KIND_SINGULAR;
    *pivot = p < 0.0 ? -rule->replacement : rule->replacement;
    return KIND_PERTURBED;
  }
  return KIND_OK;
}

/* One front's view: its values (f x f, column-major), its index list, the
 * pivot kinds of the factorization (indexed by column of M). */
typedef struct front_view {
  double *v;
  int64_t f, p;
  const int32_t *index;
  signed char *kind;
  const pivot_rule *rule;
} front_view;

#define AT(F, i, j) ((F)->v[(i) + (j) * (F)->f])

/* Pivots [first, last) one at a time, the updates reaching rows and columns
 * below `end`. */
static void eliminate(const front_view *F, int64_t first, int64_t last, int64_t end) {
  for (int64_t k = first; k < last; k++) {
    double pivot = AT(F, k, k);
    F->kind[F->index[k]] = (signed char)classify(&pivot, F->rule);
    AT(F, k, k) = pivot;
    for (int64_t i = k + 1; i < end; i++)
      AT(F, i, k) = AT(F, i, k) / pivot;
    for (int64_t j = k + 1; j < end; j++) {
      const double u = AT(F, k, j);
      double *column = &AT(F, 0, j);
      const double *l = &AT(F, 0, k);
      for (int64_t i = k + 1; i < end; i++)
        column[i] = column[i] - l[i] * u;
    }
  }
}

/* Four doubles, GCC's and Clang's vector extension: the loops below are
 * vectorized across rows (entries), never across a sum's terms; loads and
 * stores go through memcpy (no alignment assumed). */
typedef double four_doubles __attribute__((vector_size(4 * sizeof(double))));

/* Panel [k0, k0 + w): rows [r0, r1) below its diagonal block solved
 * against U11 (row i of L21 = row i of A21 U11^{-1}), four rows at a time
 * held in a register: entry (i, c) still takes its products s = 0, ...,
 * c - 1 in order, each subtracted, then the division. */
static inline __attribute__((always_inline)) void lower_panel_of(const front_view *F, int64_t k0, int64_t w, int64_t r0,
                                                                 int64_t r1) {
  const int64_t full = r0 + (r1 - r0) / 4 * 4;
  for (int64_t c = 0; c < w; c++) {
    double *column = &AT(F, 0, k0 + c);
    const double *u = &AT(F, k0, k0 + c);
    const double pivot = u[c];
    for (int64_t i = r0; i < full; i += 4) {
      four_doubles v;
      memcpy(&v, &column[i], sizeof v);
      for (int64_t s = 0; s < c; s++) {
        four_doubles l;
        memcpy(&l, &AT(F, i, k0 + s), sizeof l);
        const four_doubles x = {u[s], u[s], u[s], u[s]};
        v = v - l * x;
      }
      const four_doubles d = {pivot, pivot, pivot, pivot};
      v = v / d;
      memcpy(&column[i], &v, sizeof v);
    }
    for (int64_t i = full; i < r1; i++) {
      double v = column[i];
      for (int64_t s = 0; s < c; s++)
        v = v - AT(F, i, k0 + s) * u[s];
      column[i] = v / pivot;
    }
  }
}

/* Column j right of it solved against the unit L11, by columns of L11:
 * entry r still takes its products s = 0, ..., r - 1 in order. */
static inline __attribute__((always_inline)) void upper_panel_of(const front_view *F, int64_t k0, int64_t w,
                                                                 int64_t j) {
  double *column = &AT(F, k0, j);
  for (int64_t s = 0; s < w; s++) {
    const double u = column[s];
    const double *l = &AT(F, k0, k0 + s);
    for (int64_t r = s + 1; r < w; r++)
      column[r] = column[r] - l[r] * u;
  }
}

/* The trailing update's register tile: sums of TILE_COLUMNS columns of
 * 4 * vectors rows held in registers over the panel's pivots (a GEMM
 * micro-kernel: Goto and van de Geijn, ACM TOMS 34(3), 2008), vectorized
 * across the tile's rows, never across the pivots: each entry's sum starts
 * from 0, adds its products in pivot order, and is then subtracted, the
 * arithmetic of the GPU's tiles. */
enum { TILE_COLUMNS = 4, TILE_MOST_VECTORS = 2 };

static inline __attribute__((always_inline)) void trailing_tile_of(const front_view *F, int64_t k0, int64_t w,
                                                                   int64_t i0, int64_t j0, int vectors) {
  four_doubles sum[TILE_MOST_VECTORS][TILE_COLUMNS];
  for (int v = 0; v < vectors; v++)
    for (int jj = 0; jj < TILE_COLUMNS; jj++)
      sum[v][jj] = (four_doubles){0.0, 0.0, 0.0, 0.0};
  for (int64_t s = 0; s < w; s++) {
    four_doubles l[TILE_MOST_VECTORS];
    for (int v = 0; v < vectors; v++)
      memcpy(&l[v], &AT(F, i0 + 4 * (int64_t)v, k0 + s), sizeof l[v]);
    for (int jj = 0; jj < TILE_COLUMNS; jj++) {
      const double x = AT(F, k0 + s, j0 + jj);
      const four_doubles u = {x, x, x, x};
      for (int v = 0; v < vectors; v++)
        sum[v][jj] = sum[v][jj] + l[v] * u;
    }
  }
  for (int jj = 0; jj < TILE_COLUMNS; jj++)
    for (int v = 0; v < vectors; v++) {
      four_doubles a;
      double *at = &AT(F, i0 + 4 * (int64_t)v, j0 + jj);
      memcpy(&a, at, sizeof a);
      a = a - sum[v][jj];
      memcpy(at, &a, sizeof a);
    }
}

/* The kernels of any x86-64 (SSE2; the tile 4 rows, eight registers of
 * sums). */
static void lower_panel_base(const front_view *F, int64_t k0, int64_t w, int64_t r0, int64_t r1) {
  lower_panel_of(F, k0, w, r0, r1);
}
static void upper_panel_base(const front_view *F, int64_t k0, int64_t w, int64_t j) { upper_panel_of(F, k0, w, j); }
static void trailing_tile_4(const front_view *F, int64_t k0, int64_t w, int64_t i0, int64_t j0) {
  trailing_tile_of(F, k0, w, i0, j0, 1);
}

/* With AVX2, the same kernels in 4-wide registers, the tile 8 rows (eight
 * registers of sums, as many independent additions as the adders need in
 * flight). AVX2 brings no fused multiply-add (that is the FMA extension,
 * not enabled here), so the bits are the SSE2 kernels'. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define WIDE_KERNELS __attribute__((target("avx2")))
static bool wide_kernels(void) { return __builtin_cpu_supports("avx2"); }
#else
#define WIDE_KERNELS
static bool wide_kernels(void) { return false; }
#endif
WIDE_KERNELS static void lower_panel_wide(const front_view *F, int64_t k0, int64_t w, int64_t r0, int64_t r1) {
  lower_panel_of(F, k0, w, r0, r1);
}
WIDE_KERNELS static void upper_panel_wide(const front_view *F, int64_t k0, int64_t w, int64_t j) {
  upper_panel_of(F, k0, w, j);
}
WIDE_KERNELS static void trailing_tile_8(const front_view *F, int64_t k0, int64_t w, int64_t i0, int64_t j0) {
  trailing_tile_of(F, k0, w, i0, j0, 2);
}

/* A partial tile at the block's edges, the same arithmetic entry by entry
 * (acc holds `rows` doubles). */
static void trailing_edge(const front_view *F, int64_t k0, int64_t w, int64_t i0, int64_t rows, int64_t j0,
                          int64_t columns, double *acc) {
  for (int64_t jj = 0; jj < columns; jj++) {
    for (int64_t ii = 0; ii < rows; ii++)
      acc[ii] = 0.0;
    for (int64_t s = 0; s < w; s++) {
      const double u = AT(F, k0 + s, j0 + jj);
      const double *l = &AT(F, i0, k0 + s);
      for (int64_t ii = 0; ii < rows; ii++)
        acc[ii] = acc[ii] + l[ii] * u;
    }
    double *column = &AT(F, i0, j0 + jj);
    for (int64_t ii = 0; ii < rows; ii++)
      column[ii] = column[ii] - acc[ii];
  }
}

/* Columns [j0, j0 + columns) of the trailing block less the panel's
 * products, by tiles of tile_rows (4 or 8) rows. */
static void trailing_columns(const front_view *F, int64_t k0, int64_t w, int64_t j0, int64_t columns, int tile_rows,
                             double *acc) {
  const int64_t begin = k0 + w, f = F->f;
  const int64_t full_rows = begin + (f - begin) / tile_rows * tile_rows;
  if (columns == TILE_COLUMNS)
    for (int64_t i0 = begin; i0 < full_rows; i0 += tile_rows) {
      if (tile_rows == 8)
        trailing_tile_8(F, k0, w, i0, j0);
      else
        trailing_tile_4(F, k0, w, i0, j0);
    }
  else if (full_rows > begin)
    trailing_edge(F, k0, w, begin, full_rows - begin, j0, columns, acc);
  if (full_rows < f)
    trailing_edge(F, k0, w, full_rows, f - full_rows, j0, columns, acc);
}

/* Rows of the lower panel a task takes: a block that stays in the first
 * cache level over the panel's columns. */
enum { LOWER_PANEL_ROWS = 64 };

/* The front's pivots by panels; the panels' rows and columns and the
 * trailing columns shared over `threads` (each entry's arithmetic is fixed,
 * so the threads change no bit). acc is threads * f doubles. */
static void eliminate_by_panels(const front_view *F, int threads, double *acc) {
  const int64_t f = F->f;
  const bool wide = wide_kernels();
  const int tile_rows = wide ? 8 : 4;
  for (int64_t k0 = 0; k0 < F->p; k0 += TSI_LU_FRONT_PANEL) {
    const int64_t w = F->p - k0 < TSI_LU_FRONT_PANEL ? F->p - k0 : TSI_LU_FRONT_PANEL;
    const int64_t begin = k0 + w, rest = f - begin;
    eliminate(F, k0, begin, begin);
    /* Threads only for a panel step of enough work: each step costs a
     * fork and two barriers, a time slice each when a thread of the team
     * waits for a busy core. */
    const int team = (double)rest * (double)rest * (double)w * 2.0 >= TSI_LU_FRONT_PARALLEL_FLOPS ? threads : 1;
    const int64_t row_blocks = (rest + LOWER_PANEL_ROWS - 1) / LOWER_PANEL_ROWS;
    const int64_t column_blocks = (rest + TILE_COLUMNS - 1) / TILE_COLUMNS;
#pragma omp parallel num_threads(team) if (team > 1)
    {
#pragma omp for schedule(static) nowait
      for (int64_t b = 0; b < row_blocks; b++) {
        const int64_t r0 = begin + b * LOWER_PANEL_ROWS;
        const int64_t r1 = r0 + LOWER_PANEL_ROWS < f ? r0 + LOWER_PANEL_ROWS : f;
        if (wide)
          lower_panel_wide(F, k0, w, r0, r1);
        else
          lower_panel_base(F, k0, w, r0, r1);
      }
#pragma omp for schedule(static)
      for (int64_t j = begin; j < f; j++) {
        if (wide)
          upper_panel_wide(F, k0, w, j);
        else
          upper_panel_base(F, k0, w, j);
      }
      double *mine = acc;
#ifdef _OPENMP
      mine += (int64_t)omp_get_thread_num() * f;
#endif
#pragma omp for schedule(static)
      for (int64_t b = 0; b < column_blocks; b++) {
        const int64_t j0 = begin + b * TILE_COLUMNS;
        trailing_columns(F, k0, w, j0, f - j0 < TILE_COLUMNS ? f - j0 : TILE_COLUMNS, tile_rows, mine);
      }
    }
  }
}

/* Front s: its children's contribution blocks added, then its pivots
 * eliminated. */
/* NOLINTNEXTLINE(readability-non-const-parameter): kind is written through the view F */
static void factor_front(const tsi_lu_fronts *fr, double *values, int64_t s, signed char *kind, const pivot_rule *rule,
                         int threads, double *acc) {
  const int64_t f = fr->size[s];
  double *v = values + fr->offset[s];
  for (int64_t c = fr->child_ptr[s]; c < fr->child_ptr[s + 1]; c++) {
    const int32_t child = fr->children[c];
    const int64_t fc = fr->size[child], pc = fr->pivots[child];
    const double *cv = values + fr->offset[child];
    const int32_t *relative = fr->relative + fr->index_ptr[child];
    for (int64_t b = pc; b < fc; b++) {
      double *target = v + (int64_t)relative[b] * f;
      const double *source = cv + b * fc;
      for (int64_t a = pc; a < fc; a++)
        target[relative[a]] = target[relative[a]] + source[a];
    }
  }
  const front_view F = {v, f, fr->pivots[s], fr->index + fr->index_ptr[s], kind, rule};
  if (f <= TSI_LU_FRONT_SMALL)
    eliminate(&F, 0, F.p, f);
  else
    eliminate_by_panels(&F, threads, acc);
}

/* M = P Dr A Dc Q into the (zeroed) fronts; returns max |M|. */
static double scatter(const ts_lu *lu, const tsi_lu_fronts *fr, double *values, int threads) {
  double max_abs = 0.0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : max_abs)
  for (int64_t i = 0; i < lu->n; i++) {
    for (int64_t e = lu->a_row_ptr[i]; e < lu->a_row_ptr[i + 1]; e++) {
      const double v = lu->row_scale[i] * lu->a_values[e] * lu->col_scale[lu->a_col_idx[e]];
      values[fr->lu_to_front[lu->a_to_lu[e]]] = v;
      max_abs = fabs(v) > max_abs ? fabs(v) : max_abs;
    }
  }
  return max_abs;
}

ts_status tsi_lu_frontal_cpu(ts_lu *lu, const char *caller) {
  tsi_lu_fronts *fr = NULL;
  ts_status st = tsi_lu_fronts_get(lu, &fr);
  if (st != TS_SUCCESS)
    return st;
  tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
  if (!ws)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU numeric phase: no memory for the workspace");
  const int64_t n = lu->n, storage = fr->offset[fr->count];
  const bool single = lu->options.float_factors != 0;
  /* Threads only where the work pays for them and only as many as find a
   * free core (a team member the scheduler sets aside stalls the others at
   * every barrier). */
  const int threads = tsi_lu_host_threads(lu, TSI_LU_WORK_FACTOR, fr->flops);
  if (!ws->fronts || ws->front_values != storage) {
    free(ws->fronts);
    ws->front_values = 0;
    ws->fronts = tsi_malloc_array(storage > 0 ? storage : 1, sizeof(double));
    if (!ws->fronts)
      return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU numeric phase: no memory for %lld front entries",
                       (long long)storage);
    ws->front_values = storage;
  }
  const int64_t count = lu->lu_nnz > 0 ? lu->lu_nnz : 1;
  if (single) {
    free(lu->lu_values);
    lu->lu_values = NULL;
    if (!lu->lu_values_f32)
      lu->lu_values_f32 = tsi_malloc_array(count, sizeof(float));
  } else {
    free(lu->lu_values_f32);
    lu->lu_values_f32 = NULL;
    if (!lu->lu_values)
      lu->lu_values = tsi_malloc_array(count, sizeof(double));
  }
  signed char *kind = tsi_calloc_array(n > 0 ? n : 1, 1);
  int32_t *level_of = tsi_malloc_array(n > 0 ? n : 1, sizeof(int32_t));
  double *acc = tsi_malloc_array((int64_t)threads * (fr->max_size > 0 ? fr->max_size : 1), sizeof(double));
  if ((single ? !lu->lu_values_f32 : !lu->lu_values) || !kind || !level_of || !acc) {
    st = tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU numeric phase: no memory for the factors (%lld entries)",
                   (long long)lu->lu_nnz);
    goto cleanup;
  }
  st = tsi_lu_compute_norms(lu, ws);
  if (st != TS_SUCCESS)
    goto cleanup;
  double *values = ws->fronts;
  memset(values, 0, (size_t)storage * sizeof(double));
  const double max_abs = scatter(lu, fr, values, threads);
  const double threshold = tsi_lu_pivot_threshold(lu);
  const double root_eps = sqrt(single ? (double)FLT_EPSILON : DBL_EPSILON);
  if (single && max_abs > FLT_MAX) {
    st = tsi_error(lu->ctx, TS_ERROR_OVERFLOW,
                   "LU factorization: the scaled matrix holds %.3g, beyond single precision's range; factor in "
                   "double, or with the matching's scaling",
                   max_abs);
    goto cleanup;
  }
  const pivot_rule rule = {threshold * max_abs, fmax(root_eps, threshold) * (max_abs > 0.0 ? max_abs : 1.0),
                           !lu->options.no_perturbation};
  for (int64_t l = 0; l < fr->levels; l++)
    for (int64_t s = fr->level_ptr[l]; s < fr->level_ptr[l + 1]; s++)
      for (int64_t a = 0; a < fr->pivots[s]; a++)
        level_of[fr->index[fr->index_ptr[s] + a]] = (int32_t)l;

  /* Level by level: a level's fronts over the threads when there are
   * enough of them and of their flops, else one after another with the
   * threads inside the large fronts' panel steps. */
  int64_t done = 0;
  for (int64_t l = 0; l < fr->levels; l++) {
    st = tsi_progress(lu->ctx, done, n);
    if (st != TS_SUCCESS)
      goto cleanup;
    const int64_t first = fr->level_ptr[l], last = fr->level_ptr[l + 1];
    double level_flops = 0.0;
    for (int64_t s = first; s < last; s++)
      level_flops += 2.0 * (double)fr->pivots[s] * (double)fr->size[s] * (double)fr->size[s];
    if (threads > 1 && last - first >= threads && level_flops >= TSI_LU_FRONT_PARALLEL_FLOPS) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
      for (int64_t s = first; s < last; s++) {
        int thread = 0;
#ifdef _OPENMP
        thread = omp_get_thread_num();
#endif
        factor_front(fr, values, s, kind, &rule, 1, acc + (int64_t)thread * fr->max_size);
      }
    } else {
      for (int64_t s = first; s < last; s++)
        factor_front(fr, values, s, kind, &rule, threads, acc);
    }
    bool stop = false;
    for (int64_t s = first; s < last; s++) {
      done += fr->pivots[s];
      for (int64_t a = 0; a < fr->pivots[s]; a++) {
        const int outcome = (unsigned char)kind[fr->index[fr->index_ptr[s] + a]];
        stop = stop || outcome == KIND_SINGULAR || outcome == KIND_NOT_FINITE;
      }
    }
    if (stop)
      break; /* as the column paths: the factors of later levels are not needed */
  }

  /* The factors into the pattern of L + U, column by column, with the
   * pivot check's largest |L| and |U| as stored (maxima: no bit depends on
   * the threads). */
  double max_l = 0.0, max_u = 0.0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : max_l, max_u)
  for (int64_t k = 0; k < n; k++) {
    for (int64_t p = lu->lu_col_ptr[k]; p < lu->lu_col_ptr[k + 1]; p++) {
      const double v = values[fr->lu_to_front[p]];
      const double stored = single ? (double)(lu->lu_values_f32[p] = (float)v) : (lu->lu_values[p] = v);
      if (p <= lu->diag_pos[k])
        max_u = fabs(stored) > max_u ? fabs(stored) : max_u;
      else
        max_l = fabs(stored) > max_l ? fabs(stored) : max_l;
    }
  }
  lu->stats.flops = fr->flops;
  lu->stats.factor_threads = threads;
  st = tsi_lu_pivot_outcome(lu, kind, level_of, rule.tiny, threshold, caller);
  const double reference = max_abs > 0.0 ? max_abs : 1.0;
  lu->pivot_now = (tsi_lu_pivot_quality){.perturbed = lu->stats.perturbed_pivots,
                                         .max_multiplier = max_l,
                                         .growth = max_u / reference,
                                         .max_m = reference};
cleanup:
  free(kind);
  free(level_of);
  free(acc);
  return st;
}
