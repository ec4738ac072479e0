/* The GPU batch's plan, built on the host from the patterns' analyses: the
 * patterns' table (sizes, members per warp, the bases of each pattern's part
 * in the concatenated arrays and in the interleaved values), the
 * concatenated arrays themselves, the factorization's update map, and the
 * three dataflow schedules (factorization, L solve, U solve) as tickets. A
 * schedule lists (column or row, group) pairs level by level, the levels of
 * all patterns merged (level l of every pattern before level l + 1), so
 * every ticket's dependencies (same pattern, same group, earlier level)
 * come before it and the patterns' work overlaps. The schedules leave out
 * each pattern's tails (factor_tail, lower_tail: the last columns and rows)
 * and the U solve's head (upper_head: the rows it meets first), which
 * launches of their own run a block a member. */
#include "lu/batch/batch_internal.h"
#include "lu/solve/solve_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Update map entries of one factorization of lu's pattern: for each column
 * k, the entries of L(:, j) summed over j in U(:, k). */
static int64_t map_entries(const ts_lu *lu, int64_t *strict_u) {
  int64_t total = 0, u = 0;
  for (int64_t k = 0; k < lu->n; k++)
    for (int64_t p = lu->lu_col_ptr[k]; p < lu->diag_pos[k]; p++) {
      const int32_t j = lu->lu_row_idx[p];
      total += lu->lu_col_ptr[j + 1] - lu->diag_pos[j] - 1;
      u++;
    }
  *strict_u = u;
  return total;
}

/* Members per group of a pattern's layout: 32, or the next power of two
 * of a smaller count of members. */
static int32_t layout_width(int64_t members) {
  int32_t width = 1;
  while (width < TSI_LU_BATCH_WARP_MEMBERS && width < members)
    width *= 2;
  return width;
}

/* Members per warp of a pattern's factorization (a divisor of the layout's
 * width): the switch, else the rule of lu_tuning.h. */
static int32_t factor_width(const ts_lu_batch *batch, int32_t layout, double updates, int64_t steps) {
  if (batch->switches.width > 0)
    return batch->switches.width < layout ? batch->switches.width : layout;
  const double per_step = steps > 0 ? updates / (double)steps : 0.0;
  if (per_step <= TSI_LU_BATCH_LANE_UPDATES)
    return layout;
  return TSI_LU_BATCH_NARROW_MEMBERS < layout ? TSI_LU_BATCH_NARROW_MEMBERS : layout;
}

/* a += b * c into *out unless it passes the limit. */
static bool grow(int64_t *total, int64_t b, int64_t c) {
  int64_t product;
  if (tsi_mul_overflows(b, c, &product) || product > ((int64_t)1 << 62) - *total)
    return false;
  *total += product;
  return true;
}

/* A tail asked for by a switch: `count` rows or columns (at most
 * TSI_LU_BATCH_TAIL_MAX) > 0, none (n) otherwise. */
static int64_t asked_tail(int64_t n, int count) {
  const int64_t most = n < TSI_LU_BATCH_TAIL_MAX ? n : TSI_LU_BATCH_TAIL_MAX;
  return count > 0 ? n - (count < most ? count : most) : n;
}

/* Where the L solve's tail starts: the rows t0 .. n - 1 that one block a
 * member solves by columns after the dataflow has solved the rows before.
 * The dataflow's critical path is modelled in trips (a row costs one, plus
 * one per TSI_LU_BATCH_SOLVE_GROUP entries, after the rows it needs); the
 * tail costs the longest of its rows (their entries left of the tail, each
 * row on its own thread) plus TSI_LU_BATCH_TAIL_COLUMN_TRIPS a column, and
 * t0 minimises the path of the rows before it plus the tail's cost, over tails
 * of at most TSI_LU_BATCH_TAIL_MAX rows. `rows` > 0 asks for that many
 * rows instead (tests), < 0 for none; n when no tail pays. Returns -1 when
 * out of memory. */
static int64_t lower_tail(const ts_lu *lu, int rows) {
  const int64_t n = lu->n;
  if (rows != 0 || n < 2)
    return asked_tail(n, rows);
  double *start = tsi_calloc_array(n, sizeof(double)), *done = tsi_malloc_array(n, sizeof(double));
  int64_t *length = tsi_calloc_array(n, sizeof(int64_t));
  if (!start || !done || !length) {
    free(start);
    free(done);
    free(length);
    return -1;
  }
  for (int64_t j = 0; j < n; j++)
    for (int64_t q = lu->diag_pos[j] + 1; q < lu->lu_col_ptr[j + 1]; q++)
      length[lu->lu_row_idx[q]]++;
  const double group = TSI_LU_BATCH_SOLVE_GROUP;
  for (int64_t j = 0; j < n; j++) {
    done[j] = start[j] + 1.0 + ceil((double)length[j] / group);
    for (int64_t q = lu->diag_pos[j] + 1; q < lu->lu_col_ptr[j + 1]; q++)
      if (start[lu->lu_row_idx[q]] < done[j])
        start[lu->lu_row_idx[q]] = done[j];
  }
  /* start[t] becomes the path of the rows before t (a prefix maximum). */
  double before = 0.0;
  for (int64_t t = 0; t < n; t++) {
    const double d = done[t];
    start[t] = before;
    before = d > before ? d : before;
  }
  const double whole = before;
  double best = whole, longest_row = 0.0;
  int64_t t0 = n;
  for (int64_t t = n - 1; t >= 0 && n - t <= TSI_LU_BATCH_TAIL_MAX; t--) {
    const double row = 1.0 + ceil((double)length[t] / group);
    longest_row = row > longest_row ? row : longest_row;
    const double cost = start[t] + longest_row + TSI_LU_BATCH_TAIL_COLUMN_TRIPS * (double)(n - t);
    if (cost < best) {
      best = cost;
      t0 = t;
    }
  }
  free(start);
  free(done);
  free(length);
  return best < TSI_LU_BATCH_TAIL_GAIN * whole ? t0 : n;
}

/* The U solve's dataflow path in trips (as lower_tail's model: a row one,
 * plus one per TSI_LU_BATCH_SOLVE_GROUP entries, after the rows it needs,
 * which are later rows) when rows t0 .. n - 1 are solved before it starts;
 * length[i] holds row i's entries of U, done is workspace. */
static double upper_path(const ts_lu *lu, const int64_t *length, int64_t t0, double *done) {
  const int64_t n = lu->n;
  double path = 0.0;
  for (int64_t i = 0; i < n; i++)
    done[i] = 0.0; /* here: the latest finish of the rows row i needs */
  for (int64_t j = n - 1; j >= 0; j--) {
    const double finish = j >= t0 ? 0.0 : done[j] + 1.0 + ceil((double)length[j] / TSI_LU_BATCH_SOLVE_GROUP);
    path = finish > path ? finish : path;
    for (int64_t q = lu->lu_col_ptr[j]; q < lu->diag_pos[j]; q++) {
      const int32_t i = lu->lu_row_idx[q];
      done[i] = finish > done[i] ? finish : done[i];
    }
  }
  return path;
}

/* Where the U solve's head starts: the rows t0 .. n - 1 (the first the
 * back substitution meets; they need only each other) that one block a
 * member solves by columns before the dataflow solves the rest. Heads of
 * 16 rows and up, growing by half, are tried (at most
 * TSI_LU_BATCH_TAIL_MAX): the model's path of the rows before t0 plus
 * TSI_LU_BATCH_TAIL_COLUMN_TRIPS a column, against the dataflow's alone,
 * which it must cut by 1 - TSI_LU_BATCH_TAIL_GAIN. `rows` > 0 asks for
 * that many rows (tests), < 0 for none. Returns -1 when out of memory. */
static int64_t upper_head(const ts_lu *lu, int rows) {
  const int64_t n = lu->n;
  if (rows < 0 || n < 2)
    return n;
  if (rows > 0) {
    const int64_t most = n < TSI_LU_BATCH_TAIL_MAX ? n : TSI_LU_BATCH_TAIL_MAX;
    return n - (rows < most ? rows : most);
  }
  int64_t *length = tsi_calloc_array(n, sizeof(int64_t));
  double *done = tsi_malloc_array(n, sizeof(double));
  if (!length || !done) {
    free(length);
    free(done);
    return -1;
  }
  for (int64_t j = 0; j < n; j++)
    for (int64_t q = lu->lu_col_ptr[j]; q < lu->diag_pos[j]; q++)
      length[lu->lu_row_idx[q]]++;
  const double whole = upper_path(lu, length, n, done);
  double best = whole;
  int64_t t0 = n;
  for (int64_t h = 16; h <= TSI_LU_BATCH_TAIL_MAX && h < n; h += h / 2) {
    const double cost = upper_path(lu, length, n - h, done) + TSI_LU_BATCH_TAIL_COLUMN_TRIPS * (double)h;
    if (cost < best) {
      best = cost;
      t0 = n - h;
    }
  }
  free(length);
  free(done);
  return best < TSI_LU_BATCH_TAIL_GAIN * whole ? t0 : n;
}

/* Where the factorization's tail starts: the columns t0 .. n - 1 that one
 * block of TSI_LU_BATCH_FACTOR_TAIL_THREADS lanes a member factors one
 * after another after the dataflow has factored the columns before. The
 * model, in the dataflow's trips: a column there costs one, plus one a step
 * (a column j of U(:, k), whose updates wait for the step before), plus one
 * per TSI_LU_BATCH_UPDATE_GROUP updates a lane of its 32 / width; in the
 * tail TSI_LU_BATCH_FACTOR_TAIL_STEP a step and the updates shared by the
 * block's lanes, the columns one after another; a step of a column too long
 * for its stage in shared memory (the dataflow's, or the tail's larger one)
 * costs TSI_LU_BATCH_UNSTAGED_STEP times as much. t0 minimises the path of the
 * columns before it plus the tail's, over tails of at most
 * TSI_LU_BATCH_TAIL_MAX columns; n unless it cuts the path by
 * 1 - TSI_LU_BATCH_TAIL_GAIN. `columns` > 0 asks for that many columns
 * (tests), < 0 for none. Returns -1 when out of memory. */
static int64_t factor_tail(const ts_lu *lu, int32_t width, int columns) {
  const int64_t n = lu->n;
  if (columns != 0 || n < 2)
    return asked_tail(n, columns);
  double *done = tsi_malloc_array(n, sizeof(double)), *before = tsi_malloc_array(n, sizeof(double));
  double *tail_cost = tsi_malloc_array(n, sizeof(double));
  if (!done || !before || !tail_cost) {
    free(done);
    free(before);
    free(tail_cost);
    return -1;
  }
  const double flow_lanes = (double)TSI_LU_BATCH_UPDATE_GROUP * (32.0 / (double)width);
  const double tail_lanes = (double)TSI_LU_BATCH_UPDATE_GROUP * TSI_LU_BATCH_FACTOR_TAIL_THREADS;
  double path = 0.0;
  for (int64_t k = 0; k < n; k++) {
    double start = 0.0, updates = 0.0;
    const double steps = (double)(lu->diag_pos[k] - lu->lu_col_ptr[k]);
    for (int64_t q = lu->lu_col_ptr[k]; q < lu->diag_pos[k]; q++) {
      const int32_t j = lu->lu_row_idx[q];
      start = done[j] > start ? done[j] : start;
      updates += (double)(lu->lu_col_ptr[j + 1] - lu->diag_pos[j] - 1);
    }
    /* A step costs more where the column is accumulated in the factors
     * (too long for the stage in shared memory). */
    const double positions = (double)(lu->lu_col_ptr[k + 1] - lu->lu_col_ptr[k]) * width;
    const double flow_step = positions <= TSI_LU_BATCH_STAGE_DOUBLES ? 1.0 : TSI_LU_BATCH_UNSTAGED_STEP;
    const double tail_step = positions <= TSI_LU_BATCH_TAIL_STAGE_DOUBLES ? 1.0 : TSI_LU_BATCH_UNSTAGED_STEP;
    done[k] = start + 1.0 + flow_step * steps + ceil(updates / flow_lanes);
    tail_cost[k] = 1.0 + TSI_LU_BATCH_FACTOR_TAIL_STEP * tail_step * steps + ceil(updates / tail_lanes);
    before[k] = path;
    path = done[k] > path ? done[k] : path;
  }
  double best = path, serial = 0.0;
  int64_t t0 = n;
  for (int64_t t = n - 1; t >= 0 && n - t <= TSI_LU_BATCH_TAIL_MAX; t--) {
    serial += tail_cost[t];
    if (before[t] + serial < best) {
      best = before[t] + serial;
      t0 = t;
    }
  }
  free(done);
  free(before);
  free(tail_cost);
  return best < TSI_LU_BATCH_TAIL_GAIN * path ? t0 : n;
}

/* The table and the sizes of every concatenated array. */
static ts_status plan_table(ts_lu_batch *batch, tsi_lu_batch_plan *plan, int64_t *map_sizes, int64_t *steps) {
  const char *op = "LU batch on the GPU";
  plan->pattern_count = batch->pattern_count;
  plan->pattern = tsi_calloc_array(batch->pattern_count, sizeof *plan->pattern);
  if (!plan->pattern)
    return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no memory for the patterns' table", op);
  int64_t map_total = 0;
  for (int64_t p = 0; p < batch->pattern_count; p++) {
    map_sizes[p] = map_entries(batch->patterns[p].lu, &steps[p]);
    map_total += map_sizes[p];
  }
  const bool with_map = !batch->switches.no_map && map_total <= TSI_LU_BATCH_MAP_BYTES / (int64_t)sizeof(int32_t);
  plan->map_size = with_map ? map_total : 0;
  int64_t map_base = 0;
  for (int64_t p = 0; p < batch->pattern_count; p++) {
    const tsi_lu_batch_pattern *src = &batch->patterns[p];
    const ts_lu *lu = src->lu;
    tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
    if (src->members > INT32_MAX)
      return tsi_error(batch->ctx, TS_ERROR_OVERFLOW, "%s: pattern %lld has %lld members, past 2^31", op, (long long)p,
                       (long long)src->members);
    int64_t l_nnz = 0;
    for (int64_t k = 0; k < lu->n; k++)
      l_nnz += lu->lu_col_ptr[k + 1] - lu->diag_pos[k] - 1;
    const int32_t width = layout_width(src->members);
    const int32_t narrow = factor_width(batch, width, (double)map_sizes[p], steps[p]);
    const int64_t groups = (src->members + width - 1) / width, factor_groups = groups * (width / narrow);
    if (factor_groups > INT32_MAX || plan->columns + lu->n > INT32_MAX)
      return tsi_error(batch->ctx, TS_ERROR_OVERFLOW,
                       "%s: pattern %lld (%lld members, order %lld) passes the 32-bit schedules", op, (long long)p,
                       (long long)src->members, (long long)lu->n);
    P->n = lu->n;
    P->nnz_a = lu->nnz_a;
    P->lu_nnz = lu->lu_nnz;
    P->col_base = plan->columns;
    P->ptr_base = plan->ptrs;
    P->lu_base = plan->lu_nnz;
    P->a_base = plan->entries;
    P->lrow_base = plan->l_nnz;
    P->urow_base = plan->u_nnz;
    P->map_base = map_base;
    map_base += with_map ? map_sizes[p] : 0;
    P->flag_base = plan->flags;
    P->lane_base = plan->lanes;
    P->value_base = plan->factor_values;
    P->a_value_base = plan->a_values;
    P->vector_base = plan->vector_values;
    P->user_value_base = src->value_offset;
    P->user_vector_base = src->vector_offset;
    P->first_member = src->first_member;
    P->members = (int32_t)src->members;
    P->width = width;
    P->groups = (int32_t)groups;
    P->factor_width = narrow;
    P->factor_groups = (int32_t)factor_groups;
    P->narrow_base = narrow < width ? plan->narrow_values : -1;
    P->lower_tail = lower_tail(lu, batch->switches.tail_rows);
    if (P->lower_tail < 0)
      return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no memory for pattern %lld's solve model", op,
                       (long long)p);
    P->upper_head = upper_head(lu, batch->switches.upper_head < 0 ? -1 : batch->switches.tail_rows);
    if (P->upper_head < 0)
      return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no memory for pattern %lld's solve model", op,
                       (long long)p);
    P->factor_tail = factor_tail(lu, narrow, batch->switches.factor_tail < 0 ? -1 : batch->switches.tail_rows);
    if (P->factor_tail < 0)
      return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no memory for pattern %lld's factorization model", op,
                       (long long)p);
    const int64_t lanes = groups * width;
    plan->columns += lu->n;
    plan->ptrs += lu->n + 1;
    plan->lu_nnz += lu->lu_nnz;
    plan->entries += lu->nnz_a;
    plan->l_nnz += l_nnz;
    plan->u_nnz += lu->lu_nnz - l_nnz - lu->n;
    plan->lanes += lanes;
    if ((narrow < width && !grow(&plan->narrow_values, lanes, lu->lu_nnz)) ||
        !grow(&plan->flags, factor_groups, lu->n) || !grow(&plan->factor_values, lanes, lu->lu_nnz) ||
        !grow(&plan->a_values, lanes, lu->nnz_a) || !grow(&plan->vector_values, lanes, lu->n))
      return tsi_error(batch->ctx, TS_ERROR_OVERFLOW, "%s: pattern %lld's interleaved arrays overflow", op,
                       (long long)p);
  }
  return TS_SUCCESS;
}

/* Every concatenated array allocated; false when out of memory. */
static bool plan_allocate(tsi_lu_batch_plan *plan) {
  const int64_t ptrs = plan->ptrs > 0 ? plan->ptrs : 1, cols = plan->columns > 0 ? plan->columns : 1;
  const int64_t lu = plan->lu_nnz > 0 ? plan->lu_nnz : 1, entries = plan->entries > 0 ? plan->entries : 1;
  const int64_t l = plan->l_nnz > 0 ? plan->l_nnz : 1, u = plan->u_nnz > 0 ? plan->u_nnz : 1;
  plan->col_ptr = tsi_malloc_array(ptrs, sizeof(int64_t));
  plan->map_ptr = tsi_malloc_array(ptrs, sizeof(int64_t));
  plan->a_row_ptr = tsi_malloc_array(ptrs, sizeof(int64_t));
  plan->lrow_ptr = tsi_malloc_array(ptrs, sizeof(int64_t));
  plan->urow_ptr = tsi_malloc_array(ptrs, sizeof(int64_t));
  plan->diag_pos = tsi_malloc_array(cols, sizeof(int64_t));
  plan->row_perm = tsi_malloc_array(cols, sizeof(int32_t));
  plan->col_perm = tsi_malloc_array(cols, sizeof(int32_t));
  plan->row_scale = tsi_malloc_array(cols, sizeof(double));
  plan->col_scale = tsi_malloc_array(cols, sizeof(double));
  plan->col_pattern = tsi_malloc_array(cols, sizeof(int32_t));
  plan->row_idx = tsi_malloc_array(lu, sizeof(int32_t));
  plan->source = tsi_malloc_array(lu, sizeof(int32_t));
  plan->a_col = tsi_malloc_array(entries, sizeof(int32_t));
  plan->entry_row_scale = tsi_malloc_array(entries, sizeof(double));
  plan->entry_col_scale = tsi_malloc_array(entries, sizeof(double));
  plan->lrow_col = tsi_malloc_array(l, sizeof(int32_t));
  plan->lrow_pos = tsi_malloc_array(l, sizeof(int64_t));
  plan->urow_col = tsi_malloc_array(u, sizeof(int32_t));
  plan->urow_pos = tsi_malloc_array(u, sizeof(int64_t));
  plan->map = plan->map_size > 0 ? tsi_malloc_array(plan->map_size, sizeof(int32_t)) : NULL;
  return plan->col_ptr && plan->map_ptr && plan->a_row_ptr && plan->lrow_ptr && plan->urow_ptr && plan->diag_pos &&
         plan->row_perm && plan->col_perm && plan->row_scale && plan->col_scale && plan->col_pattern && plan->row_idx &&
         plan->source && plan->a_col && plan->entry_row_scale && plan->entry_col_scale && plan->lrow_col &&
         plan->lrow_pos && plan->urow_col && plan->urow_pos && (plan->map_size == 0 || plan->map);
}

/* Pattern p's update map: for column k, for j in U(:, k) in increasing
 * order, for each position of L(:, j), the offset from col_ptr[k] of the
 * position of its row in column k (`where`: n entries of scratch, -1
 * between columns). */
static void fill_map(const ts_lu *lu, const int64_t *map_ptr, int32_t *map, int64_t *where) {
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos;
  const int32_t *rows = lu->lu_row_idx;
  for (int64_t k = 0; k < lu->n; k++) {
    for (int64_t p = col_ptr[k]; p < col_ptr[k + 1]; p++)
      where[rows[p]] = p - col_ptr[k];
    int64_t at = map_ptr[k];
    for (int64_t q = col_ptr[k]; q < diag_pos[k]; q++) {
      const int32_t j = rows[q];
      for (int64_t p = diag_pos[j] + 1; p < col_ptr[j + 1]; p++)
        map[at++] = (int32_t)where[rows[p]];
    }
    for (int64_t p = col_ptr[k]; p < col_ptr[k + 1]; p++)
      where[rows[p]] = -1;
  }
}

/* Pattern p's part of the concatenated arrays. */
static ts_status plan_pattern(ts_lu_batch *batch, tsi_lu_batch_plan *plan, int64_t p, int64_t *where) {
  ts_lu *lu = batch->patterns[p].lu;
  const tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
  const int64_t n = lu->n;
  memcpy(plan->col_ptr + P->ptr_base, lu->lu_col_ptr, (size_t)(n + 1) * sizeof(int64_t));
  memcpy(plan->a_row_ptr + P->ptr_base, lu->a_row_ptr, (size_t)(n + 1) * sizeof(int64_t));
  memcpy(plan->diag_pos + P->col_base, lu->diag_pos, (size_t)n * sizeof(int64_t));
  memcpy(plan->row_perm + P->col_base, lu->row_perm, (size_t)n * sizeof(int32_t));
  memcpy(plan->col_perm + P->col_base, lu->col_perm, (size_t)n * sizeof(int32_t));
  memcpy(plan->row_scale + P->col_base, lu->row_scale, (size_t)n * sizeof(double));
  memcpy(plan->col_scale + P->col_base, lu->col_scale, (size_t)n * sizeof(double));
  memcpy(plan->row_idx + P->lu_base, lu->lu_row_idx, (size_t)lu->lu_nnz * sizeof(int32_t));
  if (lu->nnz_a > 0)
    memcpy(plan->a_col + P->a_base, lu->a_col_idx, (size_t)lu->nnz_a * sizeof(int32_t));
  for (int64_t k = 0; k < n; k++)
    plan->col_pattern[P->col_base + k] = (int32_t)p;
  int32_t *source = plan->source + P->lu_base;
  for (int64_t q = 0; q < lu->lu_nnz; q++)
    source[q] = -1;
  for (int64_t i = 0; i < n; i++)
    for (int64_t e = lu->a_row_ptr[i]; e < lu->a_row_ptr[i + 1]; e++) {
      source[lu->a_to_lu[e]] = (int32_t)e;
      plan->entry_row_scale[P->a_base + e] = lu->row_scale[i];
      plan->entry_col_scale[P->a_base + e] = lu->col_scale[lu->a_col_idx[e]];
    }
  /* Map offsets per column (local to the pattern's map). */
  int64_t *map_ptr = plan->map_ptr + P->ptr_base;
  map_ptr[0] = 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t count = 0;
    for (int64_t q = lu->lu_col_ptr[k]; q < lu->diag_pos[k]; q++) {
      const int32_t j = lu->lu_row_idx[q];
      count += lu->lu_col_ptr[j + 1] - lu->diag_pos[j] - 1;
    }
    map_ptr[k + 1] = map_ptr[k] + count;
  }
  if (plan->map)
    fill_map(lu, map_ptr, plan->map + P->map_base, where);
  /* Strict L and U by rows. */
  for (int upper = 0; upper < 2; upper++) {
    int64_t *ptr = NULL, *pos = NULL;
    int32_t *col = NULL;
    ts_status st = tsi_lu_build_rows(lu, upper, &ptr, &col, &pos);
    if (st != TS_SUCCESS)
      return st;
    const int64_t base = upper ? P->urow_base : P->lrow_base;
    memcpy((upper ? plan->urow_ptr : plan->lrow_ptr) + P->ptr_base, ptr, (size_t)(n + 1) * sizeof(int64_t));
    if (ptr[n] > 0) {
      memcpy((upper ? plan->urow_col : plan->lrow_col) + base, col, (size_t)ptr[n] * sizeof(int32_t));
      memcpy((upper ? plan->urow_pos : plan->lrow_pos) + base, pos, (size_t)ptr[n] * sizeof(int64_t));
    }
    free(ptr);
    free(col);
    free(pos);
  }
  return TS_SUCCESS;
}

/* The dependencies of indices 0 .. n - 1, index i's being
 * idx[begin[i] .. end[i]), pruned of those another one implies: the
 * dependency with the longest list of its own, j, is kept, and of the
 * others only those not in j's list (j finishes after them). Index i's kept
 * ones go to out[out_ptr[i] - out_base ..]; out holds at least
 * sum(end - begin) entries; mark: n entries, all -1 on entry and on return.
 * Returns the entries written. Lists whose j has more than a few times
 * their own length are copied whole (the pruning's cost stays linear), and
 * every list unless `allowed`. */
static int64_t prune_waits(int64_t n, const int64_t *begin, const int64_t *end, const int32_t *idx, int64_t out_base,
                           int64_t *out_ptr, int32_t *out, int64_t *mark, bool allowed) {
  int64_t written = 0;
  for (int64_t i = 0; i < n; i++) {
    out_ptr[i] = out_base + written;
    const int64_t lo = begin[i], hi = end[i];
    int64_t widest = -1, widest_length = -1;
    for (int64_t q = lo; q < hi; q++) {
      const int64_t length = end[idx[q]] - begin[idx[q]];
      if (length > widest_length) {
        widest = idx[q];
        widest_length = length;
      }
    }
    const bool prune = allowed && hi - lo > 1 && widest_length > 0 && widest_length <= 4 * (hi - lo) + 64;
    if (prune)
      for (int64_t q = begin[widest]; q < end[widest]; q++)
        mark[idx[q]] = i;
    for (int64_t q = lo; q < hi; q++)
      if (!prune || idx[q] == widest || mark[idx[q]] != i)
        out[written++] = idx[q];
    if (prune)
      for (int64_t q = begin[widest]; q < end[widest]; q++)
        mark[idx[q]] = -1;
  }
  out_ptr[n] = out_base + written;
  return written;
}

/* The three schedules' wait lists of every pattern (where: n entries of
 * scratch, all -1). */
static ts_status plan_waits(ts_lu_batch *batch, tsi_lu_batch_plan *plan, int64_t *where) {
  const int64_t capacity[3] = {plan->u_nnz, plan->l_nnz, plan->u_nnz};
  for (int s = 0; s < 3; s++) {
    plan->wait_ptr[s] = tsi_malloc_array(plan->ptrs > 0 ? plan->ptrs : 1, sizeof(int64_t));
    plan->wait_idx[s] = tsi_malloc_array(capacity[s] > 0 ? capacity[s] : 1, sizeof(int32_t));
    if (!plan->wait_ptr[s] || !plan->wait_idx[s])
      return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch on the GPU: no memory for the wait lists");
    plan->waits[s] = 0;
  }
  for (int64_t p = 0; p < plan->pattern_count; p++) {
    const tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
    const int64_t *col_ptr = plan->col_ptr + P->ptr_base;
    const int64_t *lrow = plan->lrow_ptr + P->ptr_base, *urow = plan->urow_ptr + P->ptr_base;
    const int64_t *begins[3] = {col_ptr, lrow, urow};
    const int64_t *ends[3] = {plan->diag_pos + P->col_base, lrow + 1, urow + 1};
    const int32_t *idx[3] = {plan->row_idx + P->lu_base, plan->lrow_col + P->lrow_base, plan->urow_col + P->urow_base};
    for (int s = 0; s < 3; s++)
      plan->waits[s] += prune_waits(P->n, begins[s], ends[s], idx[s], plan->waits[s], plan->wait_ptr[s] + P->ptr_base,
                                    plan->wait_idx[s] + plan->waits[s], where, !batch->switches.full_waits);
  }
  return TS_SUCCESS;
}

/* One schedule's levels for every pattern: level_ptr[p] (levels[p] + 1)
 * and items[p] (n), the factorization's from the analysis, the solves'
 * from tsi_lu_solve_levels. */
typedef struct pattern_levels {
  int64_t levels;
  const int64_t *level_ptr;
  const int32_t *items;
} pattern_levels;

/* The columns (or rows) of P that schedule 0 (the factorization), 1 (the L
 * solve) or 2 (the U solve) gives tickets: those before the tail or head. */
static int64_t tickets_end(const tsi_lu_batch_pattern_gpu *P, int schedule) {
  return schedule == 0 ? P->factor_tail : schedule == 1 ? P->lower_tail : P->upper_head;
}

/* Tickets of one schedule: level by level, for each pattern, each of its
 * level's columns (or rows) before the schedule's tail and each group, or
 * with `joined` (the solves) each run of 32 / width groups (a warp's worth
 * of members: the solves give each member one lane). */
static ts_status plan_tickets(ts_lu_batch *batch, const tsi_lu_batch_plan *plan, const pattern_levels *levels,
                              bool joined, int schedule, int64_t *count_out, int32_t **tickets_out) {
  int64_t count = 0, most = 0;
  for (int64_t p = 0; p < plan->pattern_count; p++) {
    const tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
    count += tickets_end(P, schedule) * tsi_lu_batch_ticket_groups(P, joined);
    if (levels[p].levels > most)
      most = levels[p].levels;
  }
  int32_t *tickets = tsi_malloc_array(2 * (count > 0 ? count : 1), sizeof(int32_t));
  if (!tickets)
    return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch on the GPU: no memory for %lld tickets",
                     (long long)count);
  int64_t at = 0;
  for (int64_t l = 0; l < most; l++)
    for (int64_t p = 0; p < plan->pattern_count; p++) {
      if (l >= levels[p].levels)
        continue;
      const tsi_lu_batch_pattern_gpu *P = &plan->pattern[p];
      const int32_t runs = tsi_lu_batch_ticket_groups(P, joined);
      const int64_t stop = tickets_end(P, schedule);
      for (int64_t c = levels[p].level_ptr[l]; c < levels[p].level_ptr[l + 1]; c++)
        for (int32_t g = 0; g < runs && levels[p].items[c] < stop; g++) {
          tickets[2 * at] = (int32_t)(P->col_base + levels[p].items[c]);
          tickets[2 * at + 1] = g;
          at++;
        }
    }
  *count_out = count;
  *tickets_out = tickets;
  return TS_SUCCESS;
}

/* The three schedules. */
static ts_status plan_schedules(ts_lu_batch *batch, tsi_lu_batch_plan *plan) {
  const int64_t patterns = plan->pattern_count;
  pattern_levels *factor = tsi_calloc_array(patterns, sizeof *factor);
  pattern_levels *lower = tsi_calloc_array(patterns, sizeof *lower);
  pattern_levels *upper = tsi_calloc_array(patterns, sizeof *upper);
  tsi_lu_solve_schedule *schedules = tsi_calloc_array(2 * patterns, sizeof *schedules);
  int32_t **items = tsi_calloc_array(2 * patterns, sizeof *items);
  ts_status st = factor && lower && upper && schedules && items
                     ? TS_SUCCESS
                     : tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch on the GPU: no memory for schedules");
  for (int64_t p = 0; p < patterns && st == TS_SUCCESS; p++) {
    const ts_lu *lu = batch->patterns[p].lu;
    factor[p].levels = lu->levels;
    factor[p].level_ptr = lu->level_ptr;
    factor[p].items = lu->level_cols;
    items[2 * p] = tsi_malloc_array(lu->n > 0 ? lu->n : 1, sizeof(int32_t));
    items[2 * p + 1] = tsi_malloc_array(lu->n > 0 ? lu->n : 1, sizeof(int32_t));
    const int modes[2] = {TSI_LU_SOLVE_LOWER, TSI_LU_SOLVE_UPPER};
    tsi_lu_solve_schedule *pair[2] = {&schedules[2 * p], &schedules[2 * p + 1]};
    if (!items[2 * p] || !items[2 * p + 1] || !tsi_lu_solve_levels(lu, modes, pair, &items[2 * p])) {
      st = tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch on the GPU: no memory for the solve levels");
      break;
    }
    lower[p] = (pattern_levels){pair[0]->levels, pair[0]->level_ptr, items[2 * p]};
    upper[p] = (pattern_levels){pair[1]->levels, pair[1]->level_ptr, items[2 * p + 1]};
  }
  if (st == TS_SUCCESS)
    st = plan_tickets(batch, plan, factor, false, 0, &plan->factor_tickets, &plan->factor_ticket);
  if (st == TS_SUCCESS)
    st = plan_tickets(batch, plan, lower, true, 1, &plan->lower_tickets, &plan->lower_ticket);
  if (st == TS_SUCCESS)
    st = plan_tickets(batch, plan, upper, true, 2, &plan->upper_tickets, &plan->upper_ticket);
  for (int64_t p = 0; schedules && items && p < 2 * patterns; p++) {
    free(schedules[p].level_ptr);
    free(items[p]);
  }
  free(schedules);
  free(items);
  free(factor);
  free(lower);
  free(upper);
  return st;
}

ts_status tsi_lu_batch_plan_build(ts_lu_batch *batch, tsi_lu_batch_plan *plan) {
  memset(plan, 0, sizeof *plan);
  int64_t *map_sizes = tsi_calloc_array(2 * batch->pattern_count, sizeof *map_sizes);
  if (!map_sizes)
    return tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch on the GPU: no memory for the plan");
  ts_status st = plan_table(batch, plan, map_sizes, map_sizes + batch->pattern_count);
  free(map_sizes);
  if (st == TS_SUCCESS && !plan_allocate(plan))
    st = tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch on the GPU: no memory for the plan's arrays");
  int64_t largest = 1;
  for (int64_t p = 0; st == TS_SUCCESS && p < plan->pattern_count; p++)
    largest = plan->pattern[p].n > largest ? plan->pattern[p].n : largest;
  int64_t *where = st == TS_SUCCESS ? tsi_malloc_array(largest, sizeof(int64_t)) : NULL;
  if (st == TS_SUCCESS && !where)
    st = tsi_error(batch->ctx, TS_ERROR_OUT_OF_MEMORY, "LU batch on the GPU: no memory for the update map");
  for (int64_t i = 0; where && i < largest; i++)
    where[i] = -1;
  for (int64_t p = 0; st == TS_SUCCESS && p < plan->pattern_count; p++)
    st = plan_pattern(batch, plan, p, where);
  if (st == TS_SUCCESS)
    st = plan_waits(batch, plan, where);
  free(where);
  if (st == TS_SUCCESS)
    st = plan_schedules(batch, plan);
  plan->flops = batch->stats.flops;
  if (st != TS_SUCCESS)
    tsi_lu_batch_plan_free(plan);
  return st;
}

void tsi_lu_batch_plan_free(tsi_lu_batch_plan *plan) {
  void *arrays[] = {plan->pattern,         plan->col_ptr,     plan->map_ptr,       plan->a_row_ptr,
                    plan->lrow_ptr,        plan->urow_ptr,    plan->diag_pos,      plan->row_perm,
                    plan->col_perm,        plan->row_scale,   plan->col_scale,     plan->col_pattern,
                    plan->row_idx,         plan->source,      plan->a_col,         plan->entry_row_scale,
                    plan->entry_col_scale, plan->lrow_col,    plan->lrow_pos,      plan->urow_col,
                    plan->urow_pos,        plan->map,         plan->factor_ticket, plan->lower_ticket,
                    plan->upper_ticket,    plan->wait_ptr[0], plan->wait_ptr[1],   plan->wait_ptr[2],
                    plan->wait_idx[0],     plan->wait_idx[1], plan->wait_idx[2]};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    free(arrays[i]);
  memset(plan, 0, sizeof *plan);
}
