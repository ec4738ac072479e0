/* Building the SpMV locality layouts (spmv_locality.h): the long rows' runs
 * by column segment, the hot columns' renumbering, and the inner plan for
 * the rest; and running them. */
#include "spmv_locality.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- segmented long rows: host tables ---------------------------------------- */

void tsi_spmv_segment_tables_free(tsi_spmv_segment_tables *t) {
  free(t->long_row);
  free(t->row_run_ptr);
  free(t->row_runs);
  free(t->run_ptr);
  free(t->seg_cols);
  free(t->seg_vals);
  free(t->item_run);
  free(t->item_segment);
  memset(t, 0, sizeof *t);
}

/* Rows of at least min_len entries, and their entries. */
static int64_t count_long(const ts_csr *a, int64_t min_len, int64_t *long_nnz) {
  int64_t count = 0, nnz = 0;
  for (int64_t i = 0; i < a->rows; i++) {
    int64_t len = a->row_ptr[i + 1] - a->row_ptr[i];
    if (len >= min_len) {
      count++;
      nnz += len;
    }
  }
  *long_nnz = nnz;
  return count;
}

/* The runs of the long rows (a row's entries inside one segment), in
 * segment-major order, their entries copied in that order, each long row's
 * runs listed by segment, and the blocks' items (runs of one segment, at
 * most TSI_SEGMENT_ITEM_ENTRIES entries unless one run alone is longer). */
ts_status tsi_spmv_segment_tables_build(ts_context *ctx, const char *op, const ts_csr *a, int width, int64_t min_len,
                                        tsi_spmv_segment_tables *t) {
  const size_t value = ts_dtype_size(a->dtype);
  const int64_t segments = (a->cols + width - 1) / width;
  int64_t *per_segment = NULL, *run_begin = NULL, *fill = NULL;
  int32_t *run_row = NULL, *run_segment = NULL;
  ts_status st = TS_SUCCESS;
  t->long_rows = count_long(a, min_len, &t->long_nnz);
  t->long_row = tsi_malloc_array(t->long_rows + 1, sizeof(int32_t));
  t->row_run_ptr = tsi_calloc_array(t->long_rows + 1, sizeof(int64_t));
  per_segment = tsi_calloc_array(segments + 1, sizeof(int64_t));
  if (!t->long_row || !t->row_run_ptr || !per_segment)
    goto oom;
  /* Runs per long row and per segment. */
  int64_t k = 0;
  for (int64_t i = 0; i < a->rows; i++) {
    if (a->row_ptr[i + 1] - a->row_ptr[i] < min_len)
      continue;
    t->long_row[k] = (int32_t)i;
    int64_t last = -1;
    for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++) {
      int64_t s = a->col_idx[e] / width;
      if (s != last) {
        t->row_run_ptr[k + 1]++;
        per_segment[s + 1]++;
        last = s;
      }
    }
    k++;
  }
  for (int64_t i = 0; i < t->long_rows; i++)
    t->row_run_ptr[i + 1] += t->row_run_ptr[i];
  for (int64_t s = 0; s < segments; s++)
    per_segment[s + 1] += per_segment[s];
  t->runs = t->row_run_ptr[t->long_rows];
  if (t->runs > INT32_MAX) {
    st =
        tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: %lld runs of long rows pass 32-bit run numbers", op, (long long)t->runs);
    goto done;
  }
  run_row = tsi_malloc_array(t->runs + 1, sizeof(int32_t));
  run_segment = tsi_malloc_array(t->runs + 1, sizeof(int32_t));
  run_begin = tsi_malloc_array(t->runs + 1, sizeof(int64_t));
  /* Fill positions: per segment first, per long row after. */
  fill = tsi_malloc_array((segments > t->long_rows ? segments : t->long_rows) + 1, sizeof(int64_t));
  t->run_ptr = tsi_malloc_array(t->runs + 1, sizeof(int64_t));
  t->row_runs = tsi_malloc_array(t->runs + 1, sizeof(int32_t));
  if (!run_row || !run_segment || !run_begin || !fill || !t->run_ptr || !t->row_runs)
    goto oom;
  /* Segment-major: rows visited in increasing order, so each segment's runs
   * come out by increasing row. */
  memcpy(fill, per_segment, (size_t)segments * sizeof(int64_t));
  for (int64_t i = 0; i < t->long_rows; i++) {
    const int32_t row = t->long_row[i];
    for (int64_t e = a->row_ptr[row]; e < a->row_ptr[row + 1];) {
      const int64_t s = a->col_idx[e] / width;
      const int64_t at = fill[s]++;
      run_row[at] = (int32_t)i;
      run_segment[at] = (int32_t)s;
      run_begin[at] = e;
      while (e < a->row_ptr[row + 1] && a->col_idx[e] / width == s)
        e++;
    }
  }
  t->run_ptr[0] = 0;
  for (int64_t r = 0; r < t->runs; r++) {
    const int32_t row = t->long_row[run_row[r]];
    int64_t e = run_begin[r], len = 0;
    while (e + len < a->row_ptr[row + 1] && a->col_idx[e + len] / width == run_segment[r])
      len++;
    t->run_ptr[r + 1] = t->run_ptr[r] + len;
  }
  t->seg_cols = tsi_malloc_array(t->long_nnz + 1, sizeof(uint16_t));
  t->seg_vals = tsi_malloc_array(t->long_nnz + 1, value);
  if (!t->seg_cols || !t->seg_vals)
    goto oom;
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t r = 0; r < t->runs; r++) {
    const int64_t first = (int64_t)run_segment[r] * width, to = t->run_ptr[r];
    const int64_t len = t->run_ptr[r + 1] - to;
    for (int64_t j = 0; j < len; j++)
      t->seg_cols[to + j] = (uint16_t)(a->col_idx[run_begin[r] + j] - first);
    memcpy((char *)t->seg_vals + to * value, (const char *)a->values + run_begin[r] * value, (size_t)len * value);
  }
  /* Each long row's runs, by increasing segment (runs are numbered in
   * segment-major order). */
  memcpy(fill, t->row_run_ptr, (size_t)t->long_rows * sizeof(int64_t));
  for (int64_t r = 0; r < t->runs; r++)
    t->row_runs[fill[run_row[r]]++] = (int32_t)r;
  /* Items: consecutive runs of one segment. */
  t->items = 0;
  for (int pass = 0; pass < 2; pass++) {
    int64_t items = 0, in_item = 0;
    for (int64_t r = 0; r < t->runs; r++) {
      const int64_t len = t->run_ptr[r + 1] - t->run_ptr[r];
      const bool start =
          r == 0 || run_segment[r] != run_segment[r - 1] || (in_item > 0 && in_item + len > TSI_SEGMENT_ITEM_ENTRIES);
      if (start) {
        if (pass == 1) {
          t->item_run[items] = r;
          t->item_segment[items] = run_segment[r];
        }
        items++;
        in_item = 0;
      }
      in_item += len;
    }
    if (pass == 0) {
      t->items = items;
      t->item_run = tsi_malloc_array(items + 1, sizeof(int64_t));
      t->item_segment = tsi_malloc_array(items + 1, sizeof(int32_t));
      if (!t->item_run || !t->item_segment)
        goto oom;
    } else {
      t->item_run[items] = t->runs;
    }
  }
  goto done;
oom:
  st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory for the segmented layout of %lld entries", op,
                 (long long)t->long_nnz);
done:
  free(per_segment);
  free(run_begin);
  free(fill);
  free(run_row);
  free(run_segment);
  if (st != TS_SUCCESS)
    tsi_spmv_segment_tables_free(t);
  return st;
}

/* The operand with its long rows emptied. */
ts_status tsi_spmv_short_rows(ts_context *ctx, const ts_csr *a, int64_t min_len, ts_csr **out) {
  const size_t value = ts_dtype_size(a->dtype);
  int64_t nnz = 0;
  for (int64_t i = 0; i < a->rows; i++) {
    int64_t len = a->row_ptr[i + 1] - a->row_ptr[i];
    nnz += len < min_len ? len : 0;
  }
  ts_csr *s = NULL;
  ts_status st = ts_csr_create(ctx, a->rows, a->cols, nnz, a->dtype, &s);
  if (st != TS_SUCCESS)
    return st;
  int64_t at = 0;
  for (int64_t i = 0; i < a->rows; i++) {
    int64_t begin = a->row_ptr[i], len = a->row_ptr[i + 1] - begin;
    if (len < min_len) {
      memcpy(s->col_idx + at, a->col_idx + begin, (size_t)len * sizeof(int32_t));
      memcpy((char *)s->values + at * value, (const char *)a->values + begin * value, (size_t)len * value);
      at += len;
    }
    s->row_ptr[i + 1] = at;
  }
  *out = s;
  return TS_SUCCESS;
}

/* ---- hot columns ------------------------------------------------------------------ */

static int compare_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

/* The hot columns of a: at most `most`, of at least TSI_HOT_MIN_FACTOR times
 * the mean column length, the longest first (ties by column). */
ts_status tsi_spmv_hot_choose(ts_context *ctx, const char *op, const ts_csr *a, int64_t most, int32_t **hot,
                              int64_t *count, double *share) {
  *hot = NULL;
  *count = 0;
  *share = 0.0;
  if (a->cols == 0 || a->nnz == 0 || most <= 0)
    return TS_SUCCESS;
  int64_t *counts = tsi_calloc_array(a->cols, sizeof(int64_t));
  if (!counts)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory for %lld column counts", op, (long long)a->cols);
  for (int64_t k = 0; k < a->nnz; k++)
    counts[a->col_idx[k]]++;
  double threshold = TSI_HOT_MIN_FACTOR * (double)a->nnz / (double)a->cols;
  if (threshold < 2.0)
    threshold = 2.0;
  int64_t candidates = 0;
  for (int64_t j = 0; j < a->cols; j++)
    candidates += (double)counts[j] >= threshold;
  int32_t *list = tsi_malloc_array(candidates + 1, sizeof(int32_t));
  uint64_t *keys = tsi_malloc_array(candidates + 1, sizeof(uint64_t));
  if (!list || !keys) {
    free(counts);
    free(list);
    free(keys);
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory for %lld hot columns", op, (long long)candidates);
  }
  /* Longest first, ties by column: (UINT32_MAX - count, column) increasing
   * (a column holds at most rows <= INT32_MAX entries). */
  int64_t n = 0;
  for (int64_t j = 0; j < a->cols; j++)
    if ((double)counts[j] >= threshold)
      keys[n++] = (uint64_t)(UINT32_MAX - (uint32_t)counts[j]) << 32 | (uint64_t)j;
  qsort(keys, (size_t)n, sizeof(uint64_t), compare_u64);
  if (n > most)
    n = most;
  for (int64_t k = 0; k < n; k++)
    list[k] = (int32_t)(keys[k] & 0xffffffffu);
  free(keys);
  int64_t entries = 0;
  for (int64_t k = 0; k < n; k++)
    entries += counts[list[k]];
  *share = (double)entries / (double)a->nnz;
  free(counts);
  *hot = list;
  *count = n;
  return TS_SUCCESS;
}

/* a with hot column hot[k] renumbered cols + k (those entries last in their
 * row, by k), as a rows x (cols + count) matrix. */
ts_status tsi_spmv_hot_renumber(ts_context *ctx, const char *op, const ts_csr *a, const int32_t *hot, int64_t count,
                                ts_csr **out) {
  const size_t value = ts_dtype_size(a->dtype);
  int32_t *rank = tsi_malloc_array(a->cols + 1, sizeof(int32_t));
  ts_csr *b = NULL;
  if (!rank)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory for the hot columns' ranks", op);
  for (int64_t j = 0; j < a->cols; j++)
    rank[j] = -1;
  for (int64_t k = 0; k < count; k++)
    rank[hot[k]] = (int32_t)k;
  ts_status st = ts_csr_create(ctx, a->rows, a->cols + count, a->nnz, a->dtype, &b);
  if (st != TS_SUCCESS) {
    free(rank);
    return st;
  }
  memcpy(b->row_ptr, a->row_ptr, (size_t)(a->rows + 1) * sizeof(int64_t));
  int failed = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(| : failed)
  for (int64_t i = 0; i < a->rows; i++) {
    int64_t at = a->row_ptr[i];
    const int64_t end = a->row_ptr[i + 1];
    for (int64_t e = a->row_ptr[i]; e < end; e++)
      if (rank[a->col_idx[e]] < 0) {
        b->col_idx[at] = a->col_idx[e];
        memcpy((char *)b->values + at * value, (const char *)a->values + e * value, value);
        at++;
      }
    /* The hot entries by rank: an insertion sort (a row holds few of them,
     * at most `count`). */
    const int64_t first_hot = at;
    for (int64_t e = a->row_ptr[i]; e < end; e++) {
      const int32_t r = rank[a->col_idx[e]];
      if (r < 0)
        continue;
      int64_t p = at++;
      char v[8];
      memcpy(v, (const char *)a->values + e * value, value);
      while (p > first_hot && b->col_idx[p - 1] > (int32_t)a->cols + r) {
        b->col_idx[p] = b->col_idx[p - 1];
        memcpy((char *)b->values + p * value, (char *)b->values + (p - 1) * value, value);
        p--;
      }
      b->col_idx[p] = (int32_t)a->cols + r;
      memcpy((char *)b->values + p * value, v, value);
    }
    failed |= at != end;
  }
  free(rank);
  if (failed) {
    ts_csr_destroy(b);
    return tsi_error(ctx, TS_ERROR_INTERNAL, "%s: renumbering the hot columns lost entries", op);
  }
  *out = b;
  return TS_SUCCESS;
}

/* ---- the plan ---------------------------------------------------------------------- */

/* Device memory for count items of size bytes, holding src's when src is
 * given (NULL: scratch that the kernels fill). */
static ts_status upload_array(ts_context *ctx, void **dst, const void *src, int64_t count, size_t size) {
  size_t bytes = (size_t)(count > 0 ? count : 1) * size;
  ts_status st = tsi_cuda_malloc(ctx, dst, bytes);
  if (st == TS_SUCCESS && count > 0 && src)
    st = tsi_cuda_memcpy_to_device(ctx, *dst, src, (size_t)count * size);
  return st;
}

static ts_status upload_segments(ts_context *ctx, tsi_spmv_locality *l, const tsi_spmv_segment_tables *t) {
  const size_t value = ts_dtype_size(l->dtype);
  l->long_rows = t->long_rows;
  l->long_nnz = t->long_nnz;
  l->runs = t->runs;
  l->items = t->items;
  ts_status st = upload_array(ctx, (void **)&l->long_row, t->long_row, t->long_rows, sizeof(int32_t));
  if (st == TS_SUCCESS)
    st = upload_array(ctx, (void **)&l->row_run_ptr, t->row_run_ptr, t->long_rows + 1, sizeof(int64_t));
  if (st == TS_SUCCESS)
    st = upload_array(ctx, (void **)&l->row_runs, t->row_runs, t->runs, sizeof(int32_t));
  if (st == TS_SUCCESS)
    st = upload_array(ctx, (void **)&l->run_ptr, t->run_ptr, t->runs + 1, sizeof(int64_t));
  if (st == TS_SUCCESS)
    st = upload_array(ctx, (void **)&l->seg_cols, t->seg_cols, t->long_nnz, sizeof(uint16_t));
  if (st == TS_SUCCESS)
    st = upload_array(ctx, &l->seg_vals, t->seg_vals, t->long_nnz, value);
  if (st == TS_SUCCESS)
    st = upload_array(ctx, (void **)&l->item_run, t->item_run, t->items + 1, sizeof(int64_t));
  if (st == TS_SUCCESS)
    st = upload_array(ctx, (void **)&l->item_segment, t->item_segment, t->items, sizeof(int32_t));
  if (st == TS_SUCCESS)
    st = upload_array(ctx, &l->partials, NULL, t->runs, value);
  return st;
}

static const char *locality_name(ts_spmv_locality kind) {
  switch (kind) {
  case TS_SPMV_LOCALITY_SEGMENTED:
    return "segmented long rows";
  case TS_SPMV_LOCALITY_HOT_COLUMNS:
    return "hot columns";
  case TS_SPMV_LOCALITY_BOTH:
    return "segmented long rows and hot columns";
  default:
    return "none";
  }
}

ts_status tsi_spmv_locality_create(ts_context *ctx, const ts_csr *operand, ts_spmv_locality kind,
                                   const ts_spmv_options *inner_options, char *explain, size_t explain_size,
                                   tsi_spmv_locality **out) {
  const char *op = "ts_spmv_plan_create_ex";
  *out = NULL;
  tsi_spmv_locality *l = calloc(1, sizeof *l);
  if (!l)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: out of host memory", op);
  const size_t value = ts_dtype_size(operand->dtype);
  l->dtype = operand->dtype;
  l->rows = operand->rows;
  l->cols = operand->cols;
  int width = (int)(TSI_SEGMENT_BYTES / value);
  if (width > 65536)
    width = 65536; /* columns within a segment are 16-bit */
  const int64_t segments = operand->cols > 0 ? (operand->cols + width - 1) / width : 1;
  int64_t min_len = TSI_SEGMENT_RUN_TARGET * segments;
  if (min_len < 32)
    min_len = 32; /* shorter rows gain nothing from a block of their own */
  l->segment_width = width;
  int64_t long_nnz = 0;
  count_long(operand, min_len, &long_nnz);
  l->long_share = operand->nnz > 0 ? (double)long_nnz / (double)operand->nnz : 0.0;

  /* AUTO does not segment: the segmented rows lost to the plain layout on
   * every matrix and precision measured (bench/notes). */
  bool segment = kind == TS_SPMV_LOCALITY_SEGMENTED || kind == TS_SPMV_LOCALITY_BOTH;
  segment = segment && long_nnz > 0;
  tsi_spmv_segment_tables tables;
  memset(&tables, 0, sizeof tables);
  ts_csr *rest = NULL, *renumbered = NULL;
  int32_t *hot = NULL;
  ts_status st = TS_SUCCESS;
  if (segment) {
    st = tsi_spmv_segment_tables_build(ctx, op, operand, width, min_len, &tables);
    if (st == TS_SUCCESS)
      st = tsi_spmv_short_rows(ctx, operand, min_len, &rest);
  }
  const ts_csr *others = rest ? rest : operand;
  if (st == TS_SUCCESS && kind != TS_SPMV_LOCALITY_SEGMENTED && (int64_t)others->cols < INT32_MAX) {
    int64_t most = (int64_t)(TSI_HOT_BYTES / value);
    if (others->cols + most > INT32_MAX)
      most = INT32_MAX - others->cols;
    st = tsi_spmv_hot_choose(ctx, op, others, most, &hot, &l->hot, &l->hot_share);
    bool take = l->hot > 0 && (kind != TS_SPMV_LOCALITY_AUTO || l->hot_share >= TSI_HOT_AUTO_SHARE);
    if (st == TS_SUCCESS && take)
      st = tsi_spmv_hot_renumber(ctx, op, others, hot, l->hot, &renumbered);
    if (!take)
      l->hot = 0;
  }
  l->kind = segment ? (l->hot > 0 ? TS_SPMV_LOCALITY_BOTH : TS_SPMV_LOCALITY_SEGMENTED)
                    : (l->hot > 0 ? TS_SPMV_LOCALITY_HOT_COLUMNS : TS_SPMV_LOCALITY_NONE);
  if (st == TS_SUCCESS)
    st = ts_spmv_plan_create_ex(ctx, renumbered ? renumbered : others, inner_options, &l->inner);
  if (st == TS_SUCCESS && segment)
    st = upload_segments(ctx, l, &tables);
  if (st == TS_SUCCESS && segment)
    st = tsi_spmv_segments_prepare(ctx, l);
  if (st == TS_SUCCESS && l->hot > 0) {
    st = upload_array(ctx, (void **)&l->hot_cols, hot, l->hot, sizeof(int32_t));
    if (st == TS_SUCCESS)
      st = ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)(l->cols + l->hot) * value, &l->x_ext);
  }
  if (st == TS_SUCCESS)
    snprintf(explain, explain_size,
             "%s (long rows >= %lld entries: %lld rows, %.0f%% of the entries, %lld runs in %lld blocks; hot "
             "columns: %lld, %.0f%% of the other entries); inner: %s",
             locality_name(l->kind), (long long)min_len, (long long)tables.long_rows, 100.0 * l->long_share,
             (long long)tables.runs, (long long)tables.items, (long long)l->hot, 100.0 * l->hot_share,
             ts_spmv_plan_explain(l->inner));
  tsi_spmv_segment_tables_free(&tables);
  ts_csr_destroy(rest);
  ts_csr_destroy(renumbered);
  free(hot);
  if (st != TS_SUCCESS) {
    tsi_spmv_locality_destroy(l);
    return st;
  }
  *out = l;
  return TS_SUCCESS;
}

ts_status tsi_spmv_locality_run(ts_context *ctx, tsi_spmv_locality *l, double alpha, const ts_buffer *x, double beta,
                                ts_buffer *y) {
  ts_status st = TS_SUCCESS;
  if (l->hot > 0)
    st = tsi_spmv_hot_fill(ctx, l, ts_buffer_data(x));
  if (st == TS_SUCCESS)
    st = ts_spmv_execute(l->inner, alpha, l->hot > 0 ? l->x_ext : x, beta, y);
  if (st == TS_SUCCESS && l->runs > 0)
    st = tsi_spmv_segments_run(ctx, l, alpha, ts_buffer_data(x), ts_buffer_data(y));
  return st;
}

void tsi_spmv_locality_destroy(tsi_spmv_locality *l) {
  if (!l)
    return;
  ts_spmv_plan_destroy(l->inner);
  ts_buffer_destroy(l->x_ext);
  tsi_cuda_free(l->hot_cols);
  tsi_cuda_free(l->long_row);
  tsi_cuda_free(l->row_run_ptr);
  tsi_cuda_free(l->row_runs);
  tsi_cuda_free(l->run_ptr);
  tsi_cuda_free(l->seg_cols);
  tsi_cuda_free(l->seg_vals);
  tsi_cuda_free(l->item_run);
  tsi_cuda_free(l->item_segment);
  tsi_cuda_free(l->partials);
  free(l);
}
