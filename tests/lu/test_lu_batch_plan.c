/* The GPU batch's plan and per-lane code, run on the host: the plan built
 * from the patterns' analyses (tables, update map, tickets) is executed
 * ticket by ticket with the kernels' own per-lane functions
 * (batch_kernels.h) on interleaved values, in the order the GPU's launches
 * follow (values interleaved, factorization, L and U solves, residual,
 * refinement decisions), and every ticket's dependencies are checked to come
 * before it. Each member's factors, solution, backward error and refinement
 * steps must equal the single-system LU's bit for bit, for several member
 * widths (1, 2, 8, 32 members per warp and the rule), with and without the
 * update map, for uniform and mixed batches, float factors, and members with
 * tiny pivots (which the GPU marks for the host), with odd columns
 * accumulated in a separate stage as the device's shared memory holds them.
 * What this does not run:
 * the device's lane split (S > 1), its atomics, waits and memory fences. */
#include "test_lu_batch_common.h"

#include <float.h>

static ts_context *ctx;
/* The plan's switch that keeps every dependency in the wait lists. */
static int full_waits;
/* The plan's switch of the L solve's tail (0 the plan's model, > 0 that
 * many rows, < 0 none). */
static int tail_rows;
/* Lanes whose tails the emulation solved, and (group, column) pairs of the
 * factorization's tails it factored (so that the tails' checks ran). */
static int64_t tail_lanes, factor_tail_columns, head_lanes;

/* The device's arrays, on the host. */
typedef struct emulated {
  tsi_lu_batch_plan plan;
  tsi_lu_batch_args args;
  double *values, *a_values, *narrow;
  unsigned long long *max_bits;
  int32_t *perturbed, *bad;
  char *done;    /* a ticket's column or row finished, per (group, index) */
  double *stage; /* the device's shared accumulator of a column (odd columns use it), NaN between uses */
} emulated;

static const tsi_lu_batch_pattern_gpu *pattern_of_column(const emulated *e, int32_t column) {
  return &e->plan.pattern[e->plan.col_pattern[column]];
}

/* The caller's member-major values interleaved (pad lanes zero), and max
 * |M| per lane, as the device's transpose does. */
static void interleave_values(emulated *e, const double *user) {
  for (int64_t p = 0; p < e->plan.pattern_count; p++) {
    const tsi_lu_batch_pattern_gpu *P = &e->plan.pattern[p];
    for (int64_t lane = 0; lane < (int64_t)P->groups * P->width; lane++) {
      const int64_t g = lane / P->width, b = lane % P->width;
      double max_abs = 0.0;
      for (int64_t k = 0; k < P->nnz_a; k++) {
        const double v = lane < P->members ? user[P->user_value_base + lane * P->nnz_a + k] : 0.0;
        e->a_values[P->a_value_base + (g * P->nnz_a + k) * P->width + b] = v;
        const double scaled = fabs(tsi_batch_mul(tsi_batch_mul(e->plan.entry_row_scale[P->a_base + k], v),
                                                 e->plan.entry_col_scale[P->a_base + k]));
        if (scaled > max_abs)
          max_abs = scaled;
      }
      e->max_bits[P->lane_base + lane] = tsi_batch_double_bits(max_abs);
    }
  }
}

/* The accumulators of a pattern's rows t0 .. n - 1 solved by columns (an L
 * solve's tail, a U solve's head), or NULL where it has none (or on a
 * failed allocation, which fails the test). */
static double *column_rows_accumulators(const tsi_lu_batch_pattern_gpu *P, int64_t t0) {
  CHECK(t0 >= 0 && t0 <= P->n && P->n - t0 <= TSI_LU_BATCH_TAIL_MAX);
  if (t0 >= P->n || t0 < 0)
    return NULL;
  double *own = malloc((size_t)(P->n - t0) * sizeof(double));
  CHECK(own != NULL);
  return own;
}

/* The U solve's heads before its tickets, as the device's head launch runs
 * them: each lane's head solved by columns from the last with its rows and
 * each column's entries shared among three threads (run one after another
 * here); the heads' rows then marked done. */
static void run_upper_heads(emulated *e, double *y, double *const *out, double *const *base) {
  const tsi_lu_batch_plan *plan = &e->plan;
  enum { THREADS = 3 };
  for (int64_t p = 0; p < plan->pattern_count; p++) {
    const tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
    const int64_t t0 = P->upper_head;
    double *own = column_rows_accumulators(P, t0);
    if (!own)
      continue;
    for (int64_t g = 0; g < P->groups; g++) {
      for (int b = 0; b < P->width; b++) {
        const int64_t lane = P->lane_base + g * P->width + b;
        const double *v = e->values + P->value_base + tsi_lu_batch_offset(P, g, b, P->lu_nnz);
        const int64_t vo = P->vector_base + tsi_lu_batch_offset(P, g, b, P->n);
        tsi_lu_batch_head_entries ahead[THREADS];
        for (int t = 0; t < THREADS; t++) {
          tsi_lu_batch_upper_head_load(&e->args, P, P->n - 1, v, t, THREADS, &ahead[t]);
          tsi_lu_batch_upper_head_rows(P, y + vo, own, t, THREADS);
        }
        for (int64_t j = P->n - 1; j >= t0; j--)
          for (int t = 0; t < THREADS; t++) {
            tsi_lu_batch_head_entries next;
            tsi_lu_batch_upper_head_load(&e->args, P, j - 1, v, t, THREADS, &next);
            tsi_lu_batch_upper_head_column(&e->args, P, j, v, own, y + vo, out[lane] + vo,
                                           base ? base[lane] + vo : NULL, t, THREADS, &ahead[t]);
            ahead[t] = next;
          }
        head_lanes++;
      }
      for (int64_t i = t0; i < P->n; i++)
        e->done[P->flag_base + g * P->n + i] = 1;
    }
    free(own);
  }
}

/* Run one schedule's tickets; `what` 0 factorization, 1 L solve, 2 U solve.
 * Each ticket's dependencies must be done before it. */
static void run_tickets(emulated *e, int what, double *const *rhs, double *y, double *const *out, double *const *base) {
  const tsi_lu_batch_plan *plan = &e->plan;
  const int64_t count = what == 0 ? plan->factor_tickets : what == 1 ? plan->lower_tickets : plan->upper_tickets;
  const int32_t *tickets = what == 0 ? plan->factor_ticket : what == 1 ? plan->lower_ticket : plan->upper_ticket;
  memset(e->done, 0, (size_t)(plan->flags > 0 ? plan->flags : 1));
  /* The solves load each row's head before its wait: here every head
   * before any row runs (heads must read only what is final at the start). */
  tsi_lu_batch_row *heads = NULL;
  if (what != 0) {
    heads = calloc((size_t)(plan->vector_values > 0 ? plan->vector_values : 1), sizeof *heads);
    CHECK(heads != NULL);
    if (!heads)
      return;
    for (int64_t p = 0; p < plan->pattern_count; p++) {
      const tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
      for (int64_t g = 0; g < P->groups; g++)
        for (int b = 0; b < P->width; b++) {
          const int64_t lane = P->lane_base + g * P->width + b;
          const double *v = e->values + P->value_base + tsi_lu_batch_offset(P, g, b, P->lu_nnz);
          const int64_t vo = P->vector_base + tsi_lu_batch_offset(P, g, b, P->n);
          for (int64_t k = 0; k < P->n; k++) {
            if (what == 1)
              tsi_lu_batch_lower_head(&e->args, P, k, v, rhs[lane] + vo, &heads[vo + k * P->width]);
            else
              tsi_lu_batch_upper_head(&e->args, P, k, v, y + vo, base ? base[lane] + vo : NULL,
                                      &heads[vo + k * P->width]);
          }
        }
    }
  }
  if (what == 2)
    run_upper_heads(e, y, out, base);
  int64_t late = 0;
  int64_t covered = 0, processed = 0;
  for (int64_t t = 0; t < count; t++) {
    const int32_t column = tickets[2 * t];
    const tsi_lu_batch_pattern_gpu *P = pattern_of_column(e, column);
    const int64_t k = column - P->col_base;
    /* The factorization's ticket is one of its groups; a solve's a run of
     * 32 / width groups of the layout (tsi_lu_batch_ticket_groups). */
    const int32_t per = what == 0 ? 1 : 32 / P->width;
    for (int64_t g = (int64_t)tickets[2 * t + 1] * per; g < (int64_t)(tickets[2 * t + 1] + 1) * per; g++) {
      if (g >= (what == 0 ? P->factor_groups : P->groups))
        break;
      const char *done = e->done + P->flag_base + g * P->n;
      if (what == 0) {
        for (int64_t q = plan->col_ptr[P->ptr_base + k]; q < plan->diag_pos[P->col_base + k]; q++)
          late += !done[plan->row_idx[P->lu_base + q]];
      } else if (what == 1) {
        for (int64_t x = plan->lrow_ptr[P->ptr_base + k]; x < plan->lrow_ptr[P->ptr_base + k + 1]; x++)
          late += !done[plan->lrow_col[P->lrow_base + x]];
      } else {
        for (int64_t x = plan->urow_ptr[P->ptr_base + k]; x < plan->urow_ptr[P->ptr_base + k + 1]; x++)
          late += !done[plan->urow_col[P->urow_base + x]];
      }
      for (int b = 0; b < (what == 0 ? P->factor_width : P->width); b++) {
        const int64_t lane = P->lane_base + g * P->width + b;
        const double *v = e->values + P->value_base + tsi_lu_batch_offset(P, g, b, P->lu_nnz);
        const int64_t vo = P->vector_base + tsi_lu_batch_offset(P, g, b, P->n);
        if (what == 0)
          tsi_lu_batch_column(&e->args, P, k, g, b, 0, 1, k % 2 ? e->stage + b : NULL);
        else if (what == 1)
          tsi_lu_batch_lower_finish(&e->args, P, k, v, &heads[vo + k * P->width], y + vo);
        else
          tsi_lu_batch_upper_finish(&e->args, P, k, v, &heads[vo + k * P->width], y + vo, out[lane] + vo, base != NULL);
      }
      covered += !e->done[P->flag_base + g * P->n + k];
      processed++;
      e->done[P->flag_base + g * P->n + k] = 1;
    }
  }
  int64_t pairs = 0;
  for (int64_t p = 0; p < plan->pattern_count; p++)
    pairs += (what == 0   ? plan->pattern[p].factor_tail
              : what == 1 ? plan->pattern[p].lower_tail
                          : plan->pattern[p].upper_head) *
             (what == 0 ? plan->pattern[p].factor_groups : plan->pattern[p].groups);
  CHECK_MSG(covered == pairs && processed == pairs, "schedule %d: %lld of %lld (column, group) pairs covered, %lld run",
            what, (long long)covered, (long long)pairs, (long long)processed);
  CHECK_MSG(late == 0, "schedule %d: %lld dependencies come after their ticket", what, (long long)late);
  free(heads);
}

/* The factorization's tails after its tickets, as the device's tail launch
 * runs them (a member's columns in order, after every column before the
 * tail; the lanes of a block as one here): each column's dependencies must
 * be done. */
static void run_factor_tails(emulated *e) {
  const tsi_lu_batch_plan *plan = &e->plan;
  for (int64_t p = 0; p < plan->pattern_count; p++) {
    const tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
    CHECK(P->factor_tail >= 0 && P->factor_tail <= P->n);
    for (int64_t g = 0; g < P->factor_groups; g++) {
      char *done = e->done + P->flag_base + g * P->n;
      for (int64_t k = P->factor_tail; k < P->n; k++) {
        int64_t late = 0;
        for (int64_t q = plan->col_ptr[P->ptr_base + k]; q < plan->diag_pos[P->col_base + k]; q++)
          late += !done[plan->row_idx[P->lu_base + q]];
        CHECK_MSG(late == 0, "pattern %lld, group %lld: tail column %lld before %lld of its columns", (long long)p,
                  (long long)g, (long long)k, (long long)late);
        for (int b = 0; b < P->factor_width; b++)
          tsi_lu_batch_column(&e->args, P, k, g, b, 0, 1, k % 2 ? e->stage + b : NULL);
        done[k] = 1;
        factor_tail_columns++;
      }
    }
  }
}

/* The L solve's tails after its tickets, as the device's tail launch runs
 * them: every row before the tail done, each lane's tail solved by columns
 * with its rows and each column's entries shared among TAIL_THREADS threads
 * (run one after another here), each column's first entries loaded the
 * column before. */
enum { TAIL_THREADS = 3 };
static void run_lower_tails(emulated *e, double *const *rhs, double *y) {
  const int threads = TAIL_THREADS;
  tsi_lu_batch_tail_entries ahead[TAIL_THREADS];
  const tsi_lu_batch_plan *plan = &e->plan;
  for (int64_t p = 0; p < plan->pattern_count; p++) {
    const tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
    const int64_t t0 = P->lower_tail;
    double *own = column_rows_accumulators(P, t0);
    if (!own)
      continue;
    for (int64_t g = 0; g < P->groups; g++) {
      const char *done = e->done + P->flag_base + g * P->n;
      for (int64_t k = 0; k < t0; k++)
        CHECK_MSG(done[k], "pattern %lld, group %lld: row %lld before the tail not done", (long long)p, (long long)g,
                  (long long)k);
      for (int b = 0; b < P->width; b++) {
        const int64_t lane = P->lane_base + g * P->width + b;
        const double *v = e->values + P->value_base + tsi_lu_batch_offset(P, g, b, P->lu_nnz);
        const int64_t vo = P->vector_base + tsi_lu_batch_offset(P, g, b, P->n);
        for (int64_t i = 0; i < P->n - t0; i++)
          own[i] = NAN;
        tail_lanes++;
        for (int t = 0; t < threads; t++) {
          tsi_lu_batch_lower_tail_load(&e->args, P, t0, v, t, threads, &ahead[t]);
          tsi_lu_batch_lower_tail_rows(&e->args, P, v, rhs[lane] + vo, y + vo, own, t, threads);
        }
        for (int64_t j = t0; j < P->n; j++)
          for (int t = 0; t < threads; t++) {
            tsi_lu_batch_tail_entries next;
            tsi_lu_batch_lower_tail_load(&e->args, P, j + 1, v, t, threads, &next);
            tsi_lu_batch_lower_tail_column(&e->args, P, j, v, own, y + vo, t, threads, &ahead[t]);
            ahead[t] = next;
          }
      }
    }
    free(own);
  }
}

/* Every schedule's wait lists imply every dependency: for each index, the
 * indices reachable through the wait lists from its own include all its
 * dependencies, and the lists are parts of the dependencies. */
static void check_waits(const tsi_lu_batch_plan *plan) {
  for (int64_t p = 0; p < plan->pattern_count; p++) {
    const tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
    const int64_t n = P->n;
    int64_t *reached = malloc((size_t)(n + 1) * sizeof(int64_t));
    int32_t *stack = malloc((size_t)(n + 1) * sizeof(int32_t));
    CHECK(reached && stack);
    if (!reached || !stack) {
      free(reached);
      free(stack);
      return;
    }
    int64_t full = 0, kept = 0;
    for (int w = 0; w < 3; w++) {
      const int64_t *col_ptr = plan->col_ptr + P->ptr_base;
      const int64_t *lrow = plan->lrow_ptr + P->ptr_base, *urow = plan->urow_ptr + P->ptr_base;
      const int64_t *begin = w == 0 ? col_ptr : w == 1 ? lrow : urow;
      const int64_t *end = w == 0 ? plan->diag_pos + P->col_base : w == 1 ? lrow + 1 : urow + 1;
      const int32_t *deps = w == 0   ? plan->row_idx + P->lu_base
                            : w == 1 ? plan->lrow_col + P->lrow_base
                                     : plan->urow_col + P->urow_base;
      const int64_t *wait_ptr = plan->wait_ptr[w] + P->ptr_base;
      const int32_t *wait = plan->wait_idx[w];
      for (int64_t i = 0; i < n; i++)
        reached[i] = -1;
      for (int64_t i = 0; i < n; i++) {
        int64_t top = 0;
        for (int64_t q = wait_ptr[i]; q < wait_ptr[i + 1]; q++) {
          bool listed = false;
          for (int64_t d = begin[i]; d < end[i] && !listed; d++)
            listed = deps[d] == wait[q];
          CHECK_MSG(listed, "schedule %d, index %lld: waits on %d, not a dependency", w, (long long)i, wait[q]);
          if (reached[wait[q]] != i) {
            reached[wait[q]] = i;
            stack[top++] = wait[q];
          }
        }
        while (top > 0) {
          const int32_t j = stack[--top];
          for (int64_t q = wait_ptr[j]; q < wait_ptr[j + 1]; q++)
            if (reached[wait[q]] != i) {
              reached[wait[q]] = i;
              stack[top++] = wait[q];
            }
        }
        for (int64_t d = begin[i]; d < end[i]; d++)
          CHECK_MSG(reached[deps[d]] == i, "schedule %d, index %lld: dependency %d not implied by its waits", w,
                    (long long)i, deps[d]);
        full += end[i] - begin[i];
        kept += wait_ptr[i + 1] - wait_ptr[i];
      }
    }
    CHECK(full_waits ? kept == full : kept <= full);
    free(reached);
    free(stack);
  }
}

/* Emulate the GPU batch: factor and solve; compare each member that the GPU
 * keeps (no pivot replaced, none bad) with its single reference bitwise,
 * and check that the others are marked for the host. */
static void emulate(const char *what, const ts_lu_options *options, int64_t patterns, const ts_csr *const *mats,
                    const int64_t *counts, int width, int no_map, double spread, unsigned long long seed,
                    const double *given_values) {
  ts_lu_batch *batch = batch_test_create(ctx, options, patterns, mats, counts, width, no_map);
  if (!batch)
    return;
  batch->switches.full_waits = full_waits;
  batch->switches.tail_rows = tail_rows;
  emulated e;
  memset(&e, 0, sizeof e);
  CHECK_OK(ctx, tsi_lu_batch_plan_build(batch, &e.plan));
  tsi_lu_batch_plan *plan = &e.plan;
  CHECK(!no_map ? plan->map != NULL : plan->map == NULL);
  check_waits(plan);
  for (int64_t p = 0; p < patterns; p++) {
    const tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
    CHECK(width == 0 || P->factor_width == (width < P->width ? width : P->width));
    CHECK(P->width >= 1 && P->width <= 32 && (P->width & (P->width - 1)) == 0);
    CHECK(P->factor_width >= 1 && P->width % P->factor_width == 0);
    CHECK((int64_t)P->factor_groups * P->factor_width == (int64_t)P->groups * P->width);
    CHECK((int64_t)P->groups * P->width >= P->members && (int64_t)(P->groups - 1) * P->width < P->members);
  }
  e.values = calloc((size_t)plan->factor_values + 1, sizeof(double));
  e.narrow = malloc((size_t)(plan->narrow_values + 1) * sizeof(double));
  CHECK(e.narrow != NULL);
  for (int64_t i = 0; e.narrow && i <= plan->narrow_values; i++)
    e.narrow[i] = NAN;
  e.a_values = calloc((size_t)plan->a_values + 1, sizeof(double));
  e.max_bits = calloc((size_t)plan->lanes + 1, sizeof *e.max_bits);
  e.perturbed = calloc((size_t)plan->lanes + 1, sizeof *e.perturbed);
  e.bad = calloc((size_t)plan->lanes + 1, sizeof *e.bad);
  e.done = calloc((size_t)plan->flags + 1, 1);
  int64_t longest = 0;
  for (int64_t c = 0; c < plan->columns; c++) {
    const tsi_lu_batch_pattern_gpu *P = pattern_of_column(&e, (int32_t)c);
    const int64_t k = c - P->col_base, length = plan->col_ptr[P->ptr_base + k + 1] - plan->col_ptr[P->ptr_base + k];
    longest = length > longest ? length : longest;
  }
  e.stage = malloc((size_t)(longest * 32 + 1) * sizeof(double));
  CHECK(e.stage != NULL);
  for (int64_t i = 0; i < longest * 32 + 1; i++)
    e.stage[i] = NAN;
  tsi_lu_batch_args *a = &e.args;
  a->pattern = plan->pattern;
  a->pattern_count = plan->pattern_count;
  a->col_ptr = plan->col_ptr;
  a->map_ptr = plan->map_ptr;
  a->a_row_ptr = plan->a_row_ptr;
  a->lrow_ptr = plan->lrow_ptr;
  a->urow_ptr = plan->urow_ptr;
  a->diag_pos = plan->diag_pos;
  a->row_perm = plan->row_perm;
  a->col_perm = plan->col_perm;
  a->col_pattern = plan->col_pattern;
  a->row_idx = plan->row_idx;
  a->source = plan->source;
  a->a_col = plan->a_col;
  a->lrow_col = plan->lrow_col;
  a->urow_col = plan->urow_col;
  a->map = plan->map;
  a->lrow_pos = plan->lrow_pos;
  a->urow_pos = plan->urow_pos;
  a->row_scale = plan->row_scale;
  a->col_scale = plan->col_scale;
  a->entry_row_scale = plan->entry_row_scale;
  a->entry_col_scale = plan->entry_col_scale;
  a->values = e.values;
  a->narrow = e.narrow;
  a->a_values = e.a_values;
  a->max_bits = e.max_bits;
  a->perturbed = e.perturbed;
  a->bad = e.bad;
  a->threshold = batch->options.pivot_threshold;
  a->root_eps = sqrt(batch->options.float_factors ? (double)FLT_EPSILON : DBL_EPSILON);
  a->perturb = !batch->options.no_perturbation;
  a->single = batch->options.float_factors;

  double *values = given_values ? NULL : batch_test_values(patterns, mats, counts, spread, seed);
  const double *user = given_values ? given_values : values;
  interleave_values(&e, user);
  run_tickets(&e, 0, NULL, NULL, NULL, NULL);
  run_factor_tails(&e);
  /* Narrow patterns: the factors spread into the solves' layout. */
  for (int64_t p = 0; p < patterns; p++) {
    const tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
    CHECK((P->narrow_base >= 0) == (P->factor_width < P->width));
    for (int64_t g = 0; P->narrow_base >= 0 && g < P->groups; g++)
      for (int64_t q = 0; q < P->lu_nnz; q++)
        tsi_lu_batch_spread_position(a, P, g, q);
  }

  /* The solve: b interleaved, then the refinement loop of the GPU path. */
  const int64_t vv = plan->vector_values + 1, lanes = plan->lanes;
  double *b_user = batch_test_rhs(batch->rows, seed + 1);
  double *b_il = calloc((size_t)vv, sizeof(double)), *y = calloc((size_t)vv, sizeof(double));
  double *xs[2] = {calloc((size_t)vv, sizeof(double)), calloc((size_t)vv, sizeof(double))};
  double *rs[2] = {calloc((size_t)vv, sizeof(double)), calloc((size_t)vv, sizeof(double))};
  double **rhs = calloc((size_t)lanes + 1, sizeof *rhs), **out = calloc((size_t)lanes + 1, sizeof *out);
  double **base = calloc((size_t)lanes + 1, sizeof *base);
  tsi_lu_batch_refine_state *state = calloc((size_t)lanes + 1, sizeof *state);
  for (int64_t p = 0; p < patterns; p++) {
    const tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
    for (int64_t lane = 0; lane < P->members; lane++)
      for (int64_t i = 0; i < P->n; i++)
        b_il[P->vector_base + ((lane / P->width) * P->n + i) * P->width + lane % P->width] =
            b_user[P->user_vector_base + lane * P->n + i];
  }
  const int max_steps = batch->options.refine_max_steps < 0 ? 0 : batch->options.refine_max_steps;
  for (int step = 0;; step++) {
    for (int64_t l = 0; l < lanes; l++) {
      const int cur = state[l].cur;
      rhs[l] = step == 0 ? b_il : rs[cur];
      out[l] = step == 0 ? xs[0] : xs[1 - cur];
      base[l] = step == 0 ? NULL : xs[cur];
    }
    run_tickets(&e, 1, rhs, y, NULL, NULL);
    run_lower_tails(&e, rhs, y);
    run_tickets(&e, 2, NULL, y, out, step == 0 ? NULL : base);
    int64_t active = 0;
    for (int64_t p = 0; p < patterns; p++) {
      const tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
      for (int64_t lane = 0; lane < (int64_t)P->groups * P->width; lane++) {
        const int64_t l = P->lane_base + lane, g = lane / P->width;
        const int b = (int)(lane % P->width), cur = step == 0 ? 0 : 1 - state[l].cur;
        const int64_t vo = P->vector_base + tsi_lu_batch_offset(P, g, b, P->n);
        const double *av = e.a_values + P->a_value_base + tsi_lu_batch_offset(P, g, b, P->nnz_a);
        double norms[TSI_LU_BATCH_NORMS] = {0};
        int finite = 1;
        for (int64_t i = 0; i < P->n; i++) {
          tsi_lu_batch_row_norms rn = tsi_lu_batch_residual_row(a, P, i, av, b_il + vo, xs[cur] + vo, rs[cur] + vo);
          for (int q = 0; q < TSI_LU_BATCH_NORMS; q++)
            norms[q] = fmax(norms[q], rn.share[q]);
          finite = finite && rn.finite;
        }
        tsi_lu_batch_refine_decide(&state[l], tsi_lu_batch_measure(norms, finite), step == 0, max_steps,
                                   batch->options.refine_tolerance);
        if (e.bad[l] || e.perturbed[l] || lane >= P->members)
          state[l].active = 0;
        active += state[l].active;
      }
    }
    if (active == 0)
      break;
  }

  /* Each member against its single reference. */
  for (int64_t p = 0; p < patterns; p++) {
    const tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
    for (int64_t lane = 0; lane < P->members; lane++) {
      const int64_t l = P->lane_base + lane, g = lane / P->width, b = lane % P->width;
      batch_single s;
      batch_test_single(ctx, options, mats[p], user + P->user_value_base + lane * P->nnz_a,
                        b_user + P->user_vector_base + lane * P->n, &s);
      const int kept = !e.bad[l] && !e.perturbed[l];
      /* A member kept on the device is one the single LU factors without a
       * warning; one handed to the host is not, or has a small pivot whose
       * factors the host's singularity policy judges (and may keep). */
      const int small = (e.bad[l] & TSI_LU_BATCH_SMALL_PIVOT) != 0;
      CHECK_MSG(kept ? s.factor_status == TS_SUCCESS : s.factor_status != TS_SUCCESS || small,
                "%s pattern %lld member %lld: kept %d, single %s", what, (long long)p, (long long)lane, kept,
                ts_status_string(s.factor_status));
      CHECK_MSG(e.perturbed[l] == s.stats.perturbed_pivots || e.bad[l], "%s: %d perturbed pivots, single %lld", what,
                e.perturbed[l], (long long)s.stats.perturbed_pivots);
      if (kept && s.factor_status == TS_SUCCESS) {
        int same = 1;
        for (int64_t q = 0; q < P->lu_nnz && same; q++) {
          const double v = e.values[P->value_base + (g * P->lu_nnz + q) * P->width + b];
          same = memcmp(&v, &s.factors[q], sizeof v) == 0;
        }
        CHECK_MSG(same, "%s pattern %lld member %lld: factors differ from the single LU", what, (long long)p,
                  (long long)lane);
        const double *x = xs[state[l].cur] + P->vector_base;
        same = 1;
        for (int64_t i = 0; i < P->n && same; i++)
          same = memcmp(&x[(g * P->n + i) * P->width + b], &s.x[i], sizeof(double)) == 0;
        CHECK_MSG(same, "%s pattern %lld member %lld: x differs from the single solve", what, (long long)p,
                  (long long)lane);
        CHECK_MSG(state[l].measures.normwise == s.stats.backward_error &&
                      state[l].measures.scaled == s.stats.scaled_backward_error &&
                      state[l].measures.componentwise == s.stats.componentwise_backward_error &&
                      state[l].steps == s.stats.refinement_steps,
                  "%s pattern %lld member %lld: errors %.3e %.3e %.3e in %d steps, single %.3e %.3e %.3e in %d", what,
                  (long long)p, (long long)lane, state[l].measures.normwise, state[l].measures.scaled,
                  state[l].measures.componentwise, state[l].steps, s.stats.backward_error,
                  s.stats.scaled_backward_error, s.stats.componentwise_backward_error, s.stats.refinement_steps);
      }
      batch_single_free(&s);
    }
  }
  free(values);
  free(b_user);
  free(b_il);
  free(y);
  free(xs[0]);
  free(xs[1]);
  free(rs[0]);
  free(rs[1]);
  free(rhs);
  free(out);
  free(base);
  free(state);
  free(e.values);
  free(e.narrow);
  free(e.a_values);
  free(e.max_bits);
  free(e.perturbed);
  free(e.bad);
  free(e.done);
  free(e.stage);
  tsi_lu_batch_plan_free(plan);
  ts_lu_batch_destroy(batch);
}

/* The plan's models of the paths pick no tail where nothing waits (a
 * diagonal matrix: every row and column on its own), a tail where
 * everything waits (a dense matrix: each row and column needs the one
 * before, and the rows are long), and a tail no longer than the most the
 * kernels take. */
static void check_tail_models(void) {
  enum { DIAGONAL = 300, DENSE = 48 };
  const size_t entries = (size_t)DENSE * DENSE;
  int32_t *rows = malloc(entries * sizeof(int32_t)), *cols = malloc(entries * sizeof(int32_t));
  double *values = malloc(entries * sizeof(double));
  CHECK(rows && cols && values);
  if (!rows || !cols || !values) {
    free(rows);
    free(cols);
    free(values);
    return;
  }
  for (int32_t i = 0; i < DIAGONAL; i++) {
    rows[i] = cols[i] = i;
    values[i] = 2.0 + i;
  }
  ts_csr *diagonal = lu_test_csr(ctx, DIAGONAL, DIAGONAL, rows, cols, values);
  for (int32_t k = 0; k < DENSE * DENSE; k++) {
    rows[k] = k / DENSE;
    cols[k] = k % DENSE;
    values[k] = rows[k] == cols[k] ? 4.0 * DENSE : 1.0 / (1.0 + k % 7);
  }
  ts_csr *dense = lu_test_csr(ctx, DENSE, (int64_t)entries, rows, cols, values);
  const int64_t counts[2] = {64, 64};
  ts_lu_options options = lu_test_options();
  ts_lu_batch *batch = batch_test_create(ctx, &options, 2, (const ts_csr *const[]){diagonal, dense}, counts, 0, 0);
  tsi_lu_batch_plan plan;
  if (batch && tsi_lu_batch_plan_build(batch, &plan) == TS_SUCCESS) {
    const tsi_lu_batch_pattern_gpu *D = &plan.pattern[0], *F = &plan.pattern[1];
    CHECK_MSG(D->lower_tail == D->n && D->factor_tail == D->n, "diagonal: tails from %lld and %lld of %lld",
              (long long)D->lower_tail, (long long)D->factor_tail, (long long)D->n);
    CHECK_MSG(F->lower_tail < F->n && F->factor_tail < F->n, "dense: tails from %lld and %lld of %lld",
              (long long)F->lower_tail, (long long)F->factor_tail, (long long)F->n);
    CHECK(F->n - F->lower_tail <= TSI_LU_BATCH_TAIL_MAX && F->n - F->factor_tail <= TSI_LU_BATCH_TAIL_MAX);
    tsi_lu_batch_plan_free(&plan);
  }
  ts_lu_batch_destroy(batch);
  ts_csr_destroy(diagonal);
  ts_csr_destroy(dense);
  free(rows);
  free(cols);
  free(values);
}

int main(void) {
  ts_context_options copt;
  memset(&copt, 0, sizeof copt);
  copt.backend = TS_BACKEND_CPU;
  if (ts_context_create(&ctx, &copt) != TS_SUCCESS)
    return 1;
  ts_circuit_params params = ts_circuit_defaults(300);
  ts_csr *c = NULL, *l = NULL;
  CHECK_OK(ctx, ts_gen_circuit(ctx, &params, 3, TS_FLOAT64, &c));
  CHECK_OK(ctx, ts_gen_laplacian_2d(ctx, 14, 13, TS_FLOAT64, &l));
  ts_csr *r = lu_test_random(ctx, 150, 4, 0, 17);
  ts_lu_options options = lu_test_options();

  /* The L solve's tails: as the plan's model chooses, none, a few rows,
   * and every row (up to the most it takes). */
  const int tails[] = {0, -1, 7, 100000};
  const int widths[] = {0, 1, 2, 8, 32};
  for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
    tail_rows = tails[t];
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
      const int64_t count = 37;
      emulate("circuit", &options, 1, (const ts_csr *const[]){c}, &count, widths[w], 0, 0.2, 1 + w, NULL);
      const int64_t counts[3] = {5, 9, 3};
      emulate("mixed", &options, 3, (const ts_csr *const[]){c, l, r}, counts, widths[w], w == 2, 0.2, 10 + w, NULL);
    }
  }
  tail_rows = 0;
  check_tail_models();
  CHECK_MSG(tail_lanes > 0 && factor_tail_columns > 0 && head_lanes > 0,
            "no emulated batch had an L solve tail, a factorization tail or a U solve head");
  const int64_t count = 12;
  emulate("laplacian, no map", &options, 1, (const ts_csr *const[]){l}, &count, 0, 1, 0.3, 30, NULL);
  full_waits = 1;
  emulate("laplacian, full waits", &options, 1, (const ts_csr *const[]){l}, &count, 2, 0, 0.3, 32, NULL);
  full_waits = 0;
  ts_lu_options f32 = options;
  f32.float_factors = 1;
  emulate("float factors", &f32, 1, (const ts_csr *const[]){c}, &count, 8, 0, 0.2, 31, NULL);

  /* Members with a zero row: with perturbation on their pivots are
   * replaced, off they are singular; either way the GPU hands them over. */
  double *values = batch_test_values(1, (const ts_csr *const[]){c}, &count, 0.1, 40);
  for (int64_t e = c->row_ptr[5]; e < c->row_ptr[6]; e++)
    values[4 * c->nnz + e] = 0.0;
  for (int perturb = 0; perturb < 2; perturb++) {
    ts_lu_options o = options;
    o.no_perturbation = !perturb;
    emulate(perturb ? "zero row, perturbation" : "zero row, no perturbation", &o, 1, (const ts_csr *const[]){c}, &count,
            4, 0, 0.0, 41, values);
  }
  free(values);
  ts_csr_destroy(c);
  ts_csr_destroy(l);
  ts_csr_destroy(r);
  ts_context_destroy(ctx);
  return test_finish();
}
