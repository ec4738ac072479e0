/* The GPU factorization's device cache (struct tsi_lu_device,
 * lu->numeric_device), built at the first GPU factorization of an analysis
 * and released with it: the pattern of L + U and A's entry map uploaded,
 * the rows of L and U, the schedule (left-looking levels with their group
 * sizes, the right-looking tail, dense or sparse), the scratch, and the
 * factor values of the precision asked for. */
#include "gemm/gemm_internal.h"
#include "lu/numeric/numeric_cuda.cuh"

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

/* a_row[e] = the row of A's entry e, from A's row offsets. */
__global__ void expand_rows(int64_t n, const int64_t *row_ptr, int32_t *a_row) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)
      a_row[e] = (int32_t)i;
}

static void free_schedule(tsi_lu_device *dev, tsi_lu_solve_schedule *s) {
  free(s->level_ptr);
  tsi_lu_device_free(dev, s->items, dev->n, sizeof(int32_t));
  tsi_lu_device_free(dev, s->ticket, s->tickets, sizeof(int32_t));
  tsi_lu_device_free(dev, s->segment_of, 2 * s->segments, sizeof(int32_t));
  tsi_lu_device_free(dev, s->long_row, 3 * s->long_rows, sizeof(int32_t));
  tsi_lu_device_free(dev, s->segment_ready, s->segments, sizeof(int32_t));
  memset(s, 0, sizeof *s);
}

/* Free the factor values (precision change or release). */
static void free_values(tsi_lu_device *dev) {
  if ((void *)dev->acc != dev->values)
    tsi_lu_device_free(dev, dev->acc, dev->lu_nnz * dev->parts, sizeof(double));
  tsi_lu_device_free(dev, dev->values, dev->lu_nnz * dev->parts, dev->single ? sizeof(float) : sizeof(double));
  dev->acc = NULL;
  dev->values = NULL;
}

void tsi_lu_cuda_release(ts_lu *lu) {
  if (!lu)
    return;
  tsi_lu_device *dev = (tsi_lu_device *)lu->numeric_device;
  lu->numeric_device = NULL;
  lu->factors_on_device = 0;
  if (!dev)
    return;
  if (lu->ctx)
    (void)tsi_cuda_sync(lu->ctx); /* nothing still running on the arrays */
  const int64_t n = dev->n, nnz = dev->lu_nnz, nnz_a = dev->nnz_a;
  tsi_lu_device_free(dev, dev->col_ptr, n + 1, sizeof(int64_t));
  tsi_lu_device_free(dev, dev->row_idx, nnz, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->diag_pos, n, sizeof(int64_t));
  tsi_lu_device_free(dev, dev->a_to_lu, nnz_a, sizeof(int64_t));
  tsi_lu_device_free(dev, dev->a_row, nnz_a, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->a_row_ptr, n + 1, sizeof(int64_t));
  tsi_lu_device_free(dev, dev->refine_work, 4 * n, sizeof(double));
  tsi_lu_device_free(dev, dev->refine_norms, TSI_LU_REFINE_NORMS, sizeof(unsigned long long));
  if (dev->refine_long_count > 0)
    tsi_lu_device_free(dev, dev->refine_long_rows, dev->refine_long_count, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->a_col, nnz_a, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->a_values, nnz_a * dev->parts, sizeof(double));
  tsi_lu_device_free(dev, dev->row_scale, n, sizeof(double));
  tsi_lu_device_free(dev, dev->col_scale, n, sizeof(double));
  tsi_lu_device_free(dev, dev->row_perm, n, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->col_perm, n, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->urow_ptr, n + 1, sizeof(int64_t));
  tsi_lu_device_free(dev, dev->lrow_ptr, n + 1, sizeof(int64_t));
  int64_t u_count = dev->urow_ptr_host ? dev->urow_ptr_host[n] : 0;
  tsi_lu_device_free(dev, dev->urow_col, u_count, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->urow_pos, u_count, sizeof(int64_t));
  tsi_lu_device_free(dev, dev->lrow_col, nnz - n - u_count, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->lrow_pos, nnz - n - u_count, sizeof(int64_t));
  tsi_lu_device_free(dev, dev->left_cols, n, sizeof(int32_t));
  free_values(dev);
  tsi_lu_device_free(dev, dev->scratch, dev->scratch_slots * n * dev->parts, sizeof(double));
  if (dev->tail_dense)
    tsi_lu_device_free(dev, dev->tail_dense, (n - dev->tail_start) * (n - dev->tail_start), sizeof(double));
  tsi_lu_device_free(dev, dev->tail_order_ptr, n - dev->tail_start + 1, sizeof(int64_t));
  tsi_lu_device_free(dev, dev->tail_run_ptr, n - dev->tail_start + 1, sizeof(int64_t));
  tsi_lu_device_free(dev, dev->tail_order, dev->tail_order_entries, sizeof(int64_t));
  tsi_lu_device_free(dev, dev->tail_run_end, dev->tail_runs, sizeof(int64_t));
  tsi_lu_device_free(dev, dev->tail_split_index, n - dev->tail_start, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->tail_split_cols, dev->tail_split_columns, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->tail_piece_column, dev->tail_pieces, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->tail_piece_first, dev->tail_pieces, sizeof(int64_t));
  tsi_lu_device_free(dev, dev->tail_piece_last, dev->tail_pieces, sizeof(int64_t));
  free(dev->tail_launch_ptr_host);
  tsi_lu_device_free(dev, dev->tail_long_entry, dev->tail_long_entries, sizeof(int64_t));
  tsi_lu_device_free(dev, dev->tail_long_column, dev->tail_long_entries, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->tail_long_first, dev->tail_long_entries + 1, sizeof(int64_t));
  tsi_lu_device_free(dev, dev->tail_segment_entry, dev->tail_segments, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->tail_partials, dev->tail_segments * dev->parts, sizeof(double));
  tsi_lu_device_free(dev, dev->kind, n, 1);
  tsi_lu_device_free(dev, dev->rule, 3, sizeof(double));
  tsi_lu_device_free(dev, dev->max_bits, 1, sizeof(unsigned long long));
  tsi_lu_device_free(dev, dev->pivot_maxima, 3, sizeof(unsigned long long));
  tsi_lu_device_free(dev, dev->quality_chunk_column, dev->quality_chunks, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->quality_chunk_first, dev->quality_chunks, sizeof(int64_t));
  tsi_lu_frontal_cuda_release(dev);
  free_schedule(dev, &dev->lower);
  free_schedule(dev, &dev->upper);
  free_schedule(dev, &dev->upper_t);
  free_schedule(dev, &dev->lower_t);
  tsi_lu_device_free(dev, dev->solve_y, dev->solve_cols * n * dev->parts, sizeof(double));
  tsi_lu_device_free(dev, dev->solve_rhs, dev->solve_cols * n * dev->parts, sizeof(double));
  tsi_lu_device_free(dev, dev->solve_ready_mark, n, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->solve_partials, dev->solve_partial_values, sizeof(double));
  tsi_lu_device_free(dev, dev->solve_next_row, 2, sizeof(unsigned long long));
  tsi_lu_device_free(dev, dev->factor_ready, n, sizeof(int32_t));
  tsi_lu_device_free(dev, dev->flow_next, dev->left_levels > 0 ? dev->left_levels : 1, sizeof(unsigned long long));
  free(dev->urow_ptr_host);
  free(dev->left_ptr_host);
  free(dev->left_group_host);
  free(dev->left_len_host);
  free(dev->left_cols_host);
  free(dev->level_of_host);
  free(dev->kind_host);
  free(dev);
}

static ts_status upload(ts_context *ctx, tsi_lu_device *dev, void **dst, const void *src, int64_t count, size_t size,
                        const char *what) {
  ts_status st = tsi_lu_device_alloc(ctx, dev, dst, count, size, what);
  if (st == TS_SUCCESS && count > 0)
    st = tsi_cuda_memcpy_to_device(ctx, *dst, src, (size_t)count * size);
  return st;
}

/* The sparse tail's gather order (tail_gather_order_gpu.c) on the device. */
static ts_status upload_tail_order(ts_lu *lu, tsi_lu_device *dev) {
  tsi_lu_tail_order order;
  const int64_t split = lu->switches.gpu_tail_split != 0 ? lu->switches.gpu_tail_split : TSI_LU_TAIL_SPLIT_ENTRIES;
  ts_status st = tsi_lu_tail_gather_order(lu, dev->tail_start, dev->level_of_host, split, TSI_LU_TAIL_PIECE, &order);
  if (st != TS_SUCCESS)
    return st;
  dev->tail_order_entries = order.order_ptr[order.columns];
  dev->tail_runs = order.runs;
  dev->tail_split_columns = order.split_columns;
  dev->tail_pieces = order.pieces;
  const struct {
    void **to;
    const void *from;
    int64_t count;
    size_t size;
    const char *what;
  } uploads[] = {
      {(void **)&dev->tail_order_ptr, order.order_ptr, order.columns + 1, sizeof(int64_t), "the tail's gather order"},
      {(void **)&dev->tail_order, order.order, dev->tail_order_entries, sizeof(int64_t), "the tail's gather order"},
      {(void **)&dev->tail_run_ptr, order.run_ptr, order.columns + 1, sizeof(int64_t), "the tail's gather levels"},
      {(void **)&dev->tail_run_end, order.run_end, dev->tail_runs, sizeof(int64_t), "the tail's gather levels"},
      {(void **)&dev->tail_split_index, order.split_index, order.split_index ? order.columns : 0, sizeof(int32_t),
       "the tail's split columns"},
      {(void **)&dev->tail_split_cols, order.split_cols, order.split_columns, sizeof(int32_t),
       "the tail's split columns"},
      {(void **)&dev->tail_piece_column, order.piece_column, order.pieces, sizeof(int32_t), "the tail's gather pieces"},
      {(void **)&dev->tail_piece_first, order.piece_first, order.pieces, sizeof(int64_t), "the tail's gather pieces"},
      {(void **)&dev->tail_piece_last, order.piece_last, order.pieces, sizeof(int64_t), "the tail's gather pieces"},
  };
  /* An array of no entries stays NULL: without split columns split_index
   * is, which the kernels read as none split. */
  for (size_t u = 0; st == TS_SUCCESS && u < sizeof uploads / sizeof uploads[0]; u++)
    if (uploads[u].count > 0)
      st = upload(lu->ctx, dev, uploads[u].to, uploads[u].from, uploads[u].count, uploads[u].size, uploads[u].what);
  if (st == TS_SUCCESS) { /* the host keeps the launches' bounds */
    dev->tail_launches = order.launches;
    dev->tail_launch_ptr_host = order.launch_ptr;
    order.launch_ptr = NULL;
  }
  tsi_lu_tail_order_free(&order);
  return st;
}

/* The sparse tail's entries summed by segments (tail_segments_gpu.c) on
 * the device, with room for their segments' sums; the rows of L of the
 * tail read back from the device for their lengths. */
static ts_status upload_tail_segments(ts_lu *lu, tsi_lu_device *dev) {
  const int64_t n = dev->n, rows = n - dev->tail_start;
  const int64_t asked = lu->switches.gpu_tail_segment_row;
  dev->tail_segment_row = asked < 0 ? INT64_MAX : asked > 0 ? asked : TSI_LU_TAIL_SEGMENT_ROW;
  dev->tail_segment_length = lu->switches.gpu_tail_segment > 0 ? lu->switches.gpu_tail_segment : TSI_LU_TAIL_SEGMENT;
  if (dev->tail_segment_row == INT64_MAX || rows <= 0)
    return TS_SUCCESS;
  int64_t *lrow_tail = (int64_t *)tsi_malloc_array(rows + 1, sizeof(int64_t));
  if (!lrow_tail)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for the tail's rows of L");
  ts_status st = tsi_cuda_memcpy_to_host(lu->ctx, lrow_tail, dev->lrow_ptr + dev->tail_start,
                                         (size_t)(rows + 1) * sizeof(int64_t));
  tsi_lu_tail_segments segments;
  memset(&segments, 0, sizeof segments);
  if (st == TS_SUCCESS)
    st = tsi_lu_tail_segments_find(lu, dev->tail_start, lrow_tail, dev->tail_segment_row, dev->tail_segment_length,
                                   &segments);
  free(lrow_tail);
  if (st == TS_SUCCESS && segments.entries > 0) {
    dev->tail_long_entries = segments.entries;
    dev->tail_segments = segments.segments;
    st = upload(lu->ctx, dev, (void **)&dev->tail_long_entry, segments.entry, segments.entries, sizeof(int64_t),
                "the tail's long entries");
    if (st == TS_SUCCESS)
      st = upload(lu->ctx, dev, (void **)&dev->tail_long_column, segments.entry_column, segments.entries,
                  sizeof(int32_t), "the tail's long entries");
    if (st == TS_SUCCESS)
      st = upload(lu->ctx, dev, (void **)&dev->tail_long_first, segments.entry_first, segments.entries + 1,
                  sizeof(int64_t), "the tail's long entries");
    if (st == TS_SUCCESS)
      st = upload(lu->ctx, dev, (void **)&dev->tail_segment_entry, segments.segment_entry, segments.segments,
                  sizeof(int32_t), "the tail's segments");
    if (st == TS_SUCCESS)
      st = tsi_lu_device_alloc(lu->ctx, dev, (void **)&dev->tail_partials, segments.segments * dev->parts,
                               sizeof(double), "the tail's segment sums");
  }
  tsi_lu_tail_segments_free(&segments);
  return st;
}

/* Device memory free now; 1 GiB when the driver cannot say. */
static int64_t device_free_bytes(void) {
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess)
    return (int64_t)1 << 30;
  return (int64_t)free_bytes;
}

/* At most cap bytes, and a quarter of the device memory free now. */
static int64_t device_budget(int64_t cap) {
  int64_t quarter = device_free_bytes() / 4;
  return quarter < cap ? quarter : cap;
}

/* The schedule: the tail (trailing levels of at most TSI_LU_TAIL_WIDTH
 * columns, as columns tail_start..n-1), the other levels with their group
 * size, from the mean length of the subcolumns each column gathers. */
static ts_status build_schedule(ts_lu *lu, tsi_lu_device *dev) {
  const int64_t n = lu->n, levels = lu->levels;
  const int64_t *col_ptr = lu->lu_col_ptr, *diag_pos = lu->diag_pos, *level_ptr = lu->level_ptr;
  const int32_t *level_cols = lu->level_cols;
  int64_t tail_columns = 0;
  if (!lu->switches.gpu_no_tail)
    for (int64_t l = levels - 1; l >= 0 && level_ptr[l + 1] - level_ptr[l] <= TSI_LU_TAIL_WIDTH; l--)
      tail_columns += level_ptr[l + 1] - level_ptr[l];
  /* The switches can force the tail's width (a wider tail did not pay:
   * TSI_LU_TAIL_WIDTH). */
  if (!lu->switches.gpu_no_tail && lu->switches.gpu_dense_tail != TSI_LU_DENSE_TAIL_OFF &&
      lu->switches.gpu_tail_columns > 0)
    tail_columns = lu->switches.gpu_tail_columns < n ? lu->switches.gpu_tail_columns : n;
  dev->tail_start = n - tail_columns;
  dev->left_ptr_host = (int64_t *)tsi_malloc_array(levels + 1, sizeof(int64_t));
  dev->left_group_host = (int *)tsi_malloc_array(levels > 0 ? levels : 1, sizeof(int));
  dev->left_len_host = (int32_t *)tsi_malloc_array(levels > 0 ? levels : 1, sizeof(int32_t));
  dev->left_cols_host = (int32_t *)tsi_malloc_array(n > 0 ? n : 1, sizeof(int32_t));
  dev->level_of_host = (int32_t *)tsi_malloc_array(n > 0 ? n : 1, sizeof(int32_t));
  int64_t *gathered_of = tsi_lu_gather_lengths(lu);
  if (!dev->left_ptr_host || !dev->left_group_host || !dev->left_len_host || !dev->left_cols_host ||
      !dev->level_of_host || !gathered_of) {
    free(gathered_of);
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for the schedule (n = %lld)",
                     (long long)n);
  }
  /* Real operations of an update and of a division: a complex one is a
   * multiply-add of four products (8), or a product by the reciprocal (6). */
  const double update_flops = lu->complex_values ? 8.0 : 2.0, divide_flops = lu->complex_values ? 6.0 : 1.0;
  double flops = 0.0;
  int64_t filled = 0, kept = 0;
  dev->left_ptr_host[0] = 0;
  for (int64_t l = 0; l < levels; l++) {
    double widest_mean = 0.0;
    int64_t longest = 0;
    for (int64_t c = level_ptr[l]; c < level_ptr[l + 1]; c++) {
      const int32_t k = level_cols[c];
      dev->level_of_host[k] = (int32_t)l;
      const int64_t gathered = gathered_of[k], steps = diag_pos[k] - col_ptr[k];
      flops += update_flops * (double)gathered + divide_flops * (double)(col_ptr[k + 1] - diag_pos[k] - 1);
      if (k >= dev->tail_start)
        continue;
      dev->left_cols_host[filled++] = k;
      if (col_ptr[k + 1] - col_ptr[k] > longest)
        longest = col_ptr[k + 1] - col_ptr[k];
      double mean = steps > 0 ? (double)gathered / (double)steps : (double)(col_ptr[k + 1] - col_ptr[k]);
      if (mean > widest_mean)
        widest_mean = mean;
    }
    if (filled > dev->left_ptr_host[kept]) {
      dev->left_group_host[kept] =
          widest_mean <= TSI_LU_LEFT_WARP_MEAN ? 32 : (widest_mean <= TSI_LU_LEFT_MEDIUM_MEAN ? 128 : 512);
      dev->left_len_host[kept] = (int32_t)(longest < INT32_MAX ? longest : INT32_MAX);
      dev->left_ptr_host[++kept] = filled;
    }
  }
  free(gathered_of);
  dev->left_levels = kept;
  dev->flops = flops;
  return TS_SUCCESS;
}

/* Dense scratch when enough n-vectors fit (tsi_lu_dense_scratch_slots()),
 * else the sparse scratch. */
static ts_status reserve_scratch(ts_lu *lu, tsi_lu_device *dev) {
  int64_t widest = 0;
  for (int64_t l = 0; l < dev->left_levels; l++) {
    int64_t w = dev->left_ptr_host[l + 1] - dev->left_ptr_host[l];
    if (w > widest)
      widest = w;
  }
  /* A slot is n working values: n * parts doubles. */
  const int64_t slot_doubles = dev->n * dev->parts;
  int64_t slots = tsi_lu_dense_scratch_slots(slot_doubles, widest, device_free_bytes(), lu->switches.gpu_scratch);
  if (lu->switches.gpu_scratch_slots > 0 && lu->switches.gpu_scratch != TSI_LU_SCRATCH_SPARSE) {
    if (dev->n > 0 && lu->switches.gpu_scratch_slots > INT64_MAX / (int64_t)sizeof(double) / slot_doubles)
      return tsi_error(lu->ctx, TS_ERROR_OVERFLOW, "LU on the GPU: %lld scratch slots of %lld rows overflow",
                       (long long)lu->switches.gpu_scratch_slots, (long long)dev->n);
    slots = lu->switches.gpu_scratch_slots < 8 ? 8 : lu->switches.gpu_scratch_slots; /* a block of warps needs 8 */
  }
  const int mode = slots > 0 ? TSI_LU_SCRATCH_DENSE : TSI_LU_SCRATCH_SPARSE;
  if (mode == TSI_LU_SCRATCH_DENSE && dev->left_levels > 0) {
    ts_status st = tsi_lu_device_alloc(lu->ctx, dev, (void **)&dev->scratch, slots * slot_doubles, sizeof(double),
                                       "the dense scratch columns");
    if (st == TS_SUCCESS)
      st = tsi_cuda_memset(lu->ctx, dev->scratch, 0, (size_t)(slots * slot_doubles) * sizeof(double));
    if (st != TS_SUCCESS)
      return st;
    dev->scratch_slots = slots;
  }
  dev->scratch_mode = mode;
  return TS_SUCCESS;
}

/* The tail as one dense block when it is wide enough (or asked for) and
 * fits; otherwise it stays column by column in the sparse pattern. */
static ts_status reserve_dense_tail(ts_lu *lu, tsi_lu_device *dev) {
  const int64_t m = dev->n - dev->tail_start;
  const int mode = lu->switches.gpu_dense_tail;
  if (m < 1 || mode == TSI_LU_DENSE_TAIL_OFF || (mode != TSI_LU_DENSE_TAIL_ON && m < TSI_LU_DENSE_TAIL_MIN))
    return TS_SUCCESS;
  /* Complex values: the tail stays sparse (the dense block's panels and
   * GEMM are real). */
  if (dev->parts == 2)
    return TS_SUCCESS;
  if (m > INT32_MAX / 2 || m * m > device_budget(TSI_LU_DENSE_TAIL_BYTES) / (int64_t)sizeof(double))
    return TS_SUCCESS;
  ts_status st = tsi_gemm_cuda_multiprocessors(lu->ctx, &dev->multiprocessors);
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(lu->ctx, dev, (void **)&dev->tail_dense, m * m, sizeof(double), "the dense tail");
  return st;
}

ts_status tsi_lu_device_build(ts_lu *lu, tsi_lu_device **out) {
  ts_context *ctx = lu->ctx;
  const int64_t n = lu->n, nnz = lu->lu_nnz, nnz_a = lu->nnz_a;
  tsi_lu_device *dev = (tsi_lu_device *)calloc(1, sizeof *dev);
  if (!dev)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for the device cache");
  lu->numeric_device = dev; /* released by tsi_lu_cuda_release on any failure below */
  dev->n = n;
  dev->lu_nnz = nnz;
  dev->nnz_a = nnz_a;
  dev->parts = (int)tsi_lu_parts(lu);
  dev->single = -1;
  int64_t *lrow_ptr = NULL, *urow_pos = NULL, *lrow_pos = NULL, *a_row_ptr = NULL;
  int32_t *urow_col = NULL, *lrow_col = NULL;
  /* The rows of L and U: sorted on the device from the columns, or built on
   * the host where the sort's 32-bit keys do not fit. */
  const bool rows_on_device = tsi_lu_cuda_rows_fit(lu);
  ts_status st = build_schedule(lu, dev);
  if (st == TS_SUCCESS && !rows_on_device)
    st = tsi_lu_build_rows(lu, true, &dev->urow_ptr_host, &urow_col, &urow_pos);
  if (st == TS_SUCCESS && !rows_on_device)
    st = tsi_lu_build_rows(lu, false, &lrow_ptr, &lrow_col, &lrow_pos);
  const int64_t u_count = st == TS_SUCCESS && !rows_on_device ? dev->urow_ptr_host[n] : 0;
  const int64_t l_count = st == TS_SUCCESS && !rows_on_device ? lrow_ptr[n] : 0;
  struct {
    void **dst;
    const void *src;
    int64_t count;
    size_t size;
    const char *what;
  } uploads[] = {
      {(void **)&dev->col_ptr, lu->lu_col_ptr, n + 1, sizeof(int64_t), "column offsets"},
      {(void **)&dev->row_idx, lu->lu_row_idx, nnz, sizeof(int32_t), "row indices of L+U"},
      {(void **)&dev->diag_pos, lu->diag_pos, n, sizeof(int64_t), "diagonal positions"},
      {(void **)&dev->a_to_lu, lu->a_to_lu, nnz_a, sizeof(int64_t), "A's positions in L+U"},
      {(void **)&a_row_ptr, lu->a_row_ptr, n + 1, sizeof(int64_t), "A's row offsets"},
      {(void **)&dev->a_col, lu->a_col_idx, nnz_a, sizeof(int32_t), "A's columns"},
      {(void **)&dev->row_scale, lu->row_scale, n, sizeof(double), "row scaling"},
      {(void **)&dev->col_scale, lu->col_scale, n, sizeof(double), "column scaling"},
      {(void **)&dev->row_perm, lu->row_perm, n, sizeof(int32_t), "row permutation"},
      {(void **)&dev->col_perm, lu->col_perm, n, sizeof(int32_t), "column permutation"},
      {(void **)&dev->left_cols, dev->left_cols_host, n, sizeof(int32_t), "the level schedule"},
      /* The host's rows, when built there (the last six). */
      {(void **)&dev->urow_ptr, dev->urow_ptr_host, n + 1, sizeof(int64_t), "row offsets of U"},
      {(void **)&dev->urow_col, urow_col, u_count, sizeof(int32_t), "rows of U"},
      {(void **)&dev->urow_pos, urow_pos, u_count, sizeof(int64_t), "rows of U"},
      {(void **)&dev->lrow_ptr, lrow_ptr, n + 1, sizeof(int64_t), "row offsets of L"},
      {(void **)&dev->lrow_col, lrow_col, l_count, sizeof(int32_t), "rows of L"},
      {(void **)&dev->lrow_pos, lrow_pos, l_count, sizeof(int64_t), "rows of L"},
  };
  const size_t upload_count = sizeof uploads / sizeof uploads[0] - (rows_on_device ? 6 : 0);
  for (size_t u = 0; st == TS_SUCCESS && u < upload_count; u++)
    st = upload(ctx, dev, uploads[u].dst, uploads[u].src, uploads[u].count, uploads[u].size, uploads[u].what);
  if (st == TS_SUCCESS && rows_on_device)
    st = tsi_lu_cuda_build_rows(lu, dev);
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->a_row, nnz_a, sizeof(int32_t), "A's rows");
  if (st == TS_SUCCESS) {
    const int64_t blocks = (n + TSI_LU_ELEMENTWISE_THREADS - 1) / TSI_LU_ELEMENTWISE_THREADS;
    expand_rows<<<(unsigned)(blocks < 65535 ? blocks : 65535), TSI_LU_ELEMENTWISE_THREADS, 0,
                  (cudaStream_t)ctx->stream>>>(n, a_row_ptr, dev->a_row);
    st = tsi_cuda_check_launch(ctx, "LU on the GPU: A's rows");
  }
  dev->a_row_ptr = a_row_ptr;
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->a_values, nnz_a * dev->parts, sizeof(double), "A's values");
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->kind, n, 1, "pivot outcomes");
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->rule, 3, sizeof(double), "the pivot rule");
  if (st == TS_SUCCESS)
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->max_bits, 1, sizeof(unsigned long long), "max |M|");
  if (st == TS_SUCCESS) {
    dev->kind_host = (signed char *)malloc((size_t)(n > 0 ? n : 1));
    if (!dev->kind_host)
      st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for pivot outcomes");
  }
  if (st == TS_SUCCESS)
    st = reserve_scratch(lu, dev);
  if (st == TS_SUCCESS)
    st = tsi_lu_left_prepare(ctx, dev);
  if (st == TS_SUCCESS && dev->scratch_mode == TSI_LU_SCRATCH_DENSE) { /* the dataflow levels' */
    st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->factor_ready, n, sizeof(int32_t), "column ready marks");
    if (st == TS_SUCCESS)
      st = tsi_lu_device_alloc(ctx, dev, (void **)&dev->flow_next, dev->left_levels > 0 ? dev->left_levels : 1,
                               sizeof(unsigned long long), "column tickets");
    dev->factor_epoch = INT32_MAX; /* the marks are cleared before the first factorization */
  }
  if (st == TS_SUCCESS)
    st = reserve_dense_tail(lu, dev);
  if (st == TS_SUCCESS && dev->tail_start < n && !dev->tail_dense)
    st = upload_tail_order(lu, dev);
  if (st == TS_SUCCESS && dev->tail_start < n && !dev->tail_dense)
    st = upload_tail_segments(lu, dev);
  /* The uploads waited for their copies: the host arrays can go. */
  free(urow_col);
  free(urow_pos);
  free(lrow_ptr);
  free(lrow_col);
  free(lrow_pos);
  *out = dev;
  return st;
}

/* Factor values of the wanted precision (acc aliases them in double). */
ts_status tsi_lu_device_reserve_values(ts_lu *lu, tsi_lu_device *dev, int single) {
  if (dev->values && dev->single == single)
    return TS_SUCCESS;
  free_values(dev);
  dev->single = single;
  const int64_t count = dev->lu_nnz * dev->parts;
  ts_status st =
      tsi_lu_device_alloc(lu->ctx, dev, &dev->values, count, single ? sizeof(float) : sizeof(double), "the factors");
  if (st != TS_SUCCESS)
    return st;
  if (!single) {
    dev->acc = (double *)dev->values;
    return TS_SUCCESS;
  }
  return tsi_lu_device_alloc(lu->ctx, dev, (void **)&dev->acc, count, sizeof(double), "the working values");
}
