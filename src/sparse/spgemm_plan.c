/* SpGEMM plans: C = A*B in the steps of spgemm.h (plan, symbolic, allocate,
 * numeric; or blocked), on the GPU through spgemm_cuda*.cu and on the CPU
 * through the host Gustavson, every allocation counted against the caller's
 * memory budget. */
#include "device_upload.h"
#include "spgemm_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static bool on_gpu(const ts_spgemm_plan *p) { return p->ctx->backend == TS_BACKEND_CUDA; }

/* Switches back to the accumulators these bins replaced, read at plan
 * creation (for comparisons and as a fallback): "0" in
 * TESSERA_SPGEMM_SORTED_BINS sends the rows of few products to the hash
 * bins, "0" in TESSERA_SPGEMM_DENSE_SORT sends the rows past the hash
 * tables back to the full-width accumulators (dense and long rows), and
 * there "0" in TESSERA_SPGEMM_LONG_ROWS keeps the long rows in the dense
 * bin (a warp each in the numeric phase). */
static bool switched_on(const char *name) {
  const char *value = getenv(name);
  return !value || strcmp(value, "0") != 0;
}

/* A positive integer from the environment, else `fallback`: the dense
 * pool's warps a multiprocessor (TESSERA_SPGEMM_DENSE_WARPS_PER_SM), the
 * long rows' slots (TESSERA_SPGEMM_LONG_SLOTS), the merged bin's products
 * (TESSERA_SPGEMM_MERGE_PRODUCTS) and the dense rows' sort's
 * chunk in MB (TESSERA_SPGEMM_SORT_CHUNK_MB) or products
 * (TESSERA_SPGEMM_SORT_CHUNK, for tests), read at plan creation, for
 * comparisons of memory against speed. */
static int64_t tuned(const char *name, int64_t fallback) {
  const char *value = getenv(name);
  char *end = NULL;
  const long long n = value ? strtoll(value, &end, 10) : 0;
  return value && end != value && *end == '\0' && n > 0 && n <= 1048576 ? (int64_t)n : fallback;
}

/* May the plan hold `more` bytes beyond what it holds? Else the refusal
 * naming what needs them. */
static ts_status reserve(ts_spgemm_plan *p, const char *op, const char *what, int64_t more) {
  if (more < 0)
    return tsi_error(p->ctx, TS_ERROR_OVERFLOW, "%s: %s passes 2^63 bytes", op, what);
  if (p->budget > 0 && more > p->budget - p->held)
    return tsi_error(p->ctx, TS_ERROR_OUT_OF_MEMORY,
                     "%s: %s needs %lld bytes; the memory budget of %lld bytes leaves %lld (the plan holds %lld)", op,
                     what, (long long)more, (long long)p->budget, (long long)(p->budget - p->held), (long long)p->held);
  return TS_SUCCESS;
}

/* Bytes of a CSR operand in backend memory. */
static int64_t csr_bytes(const ts_csr *a) {
  return (a->rows + 1) * 8 + a->nnz * (4 + (int64_t)ts_dtype_size(a->dtype));
}

static ts_status upload_operand(ts_context *ctx, const ts_csr *a, tsi_spgemm_operand *d) {
  d->rows = a->rows;
  d->cols = a->cols;
  d->nnz = a->nnz;
  ts_status st = tsi_upload_array(ctx, (void **)&d->offsets, a->row_ptr, (size_t)(a->rows + 1) * sizeof(int64_t));
  if (st == TS_SUCCESS)
    st = tsi_upload_array(ctx, (void **)&d->indices, a->col_idx, (size_t)a->nnz * sizeof(int32_t));
  if (st == TS_SUCCESS)
    st = tsi_upload_array(ctx, &d->values, a->values, (size_t)a->nnz * ts_dtype_size(a->dtype));
  return st;
}

ts_status ts_spgemm_plan_create(ts_context *ctx, const ts_csr *a, const ts_csr *b, const ts_spgemm_options *options,
                                ts_spgemm_plan **plan) {
  static const char op[] = "ts_spgemm_plan_create";
  if (!ctx || !plan)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: NULL argument", op);
  *plan = NULL;
  ts_status st = tsi_spgemm_check_operands(ctx, op, a, b);
  if (st != TS_SUCCESS)
    return st;
  const ts_spgemm_options o = options ? *options : (ts_spgemm_options){0};
  if (o.memory_budget < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: memory budget %lld is negative", op,
                     (long long)o.memory_budget);
  ts_spgemm_plan *p = calloc(1, sizeof *p);
  if (!p)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: out of host memory", op);
  p->ctx = ctx;
  tsi_context_retain(ctx); /* released by ts_spgemm_plan_destroy */
  p->dtype = a->dtype;
  p->rows = a->rows;
  p->inner = a->cols;
  p->cols = b->cols;
  p->budget = o.memory_budget;
  p->nnz = p->products = -1;
  p->device.dtype = a->dtype;
  p->device.rules.sorted = switched_on("TESSERA_SPGEMM_SORTED_BINS");
  p->device.rules.long_rows = switched_on("TESSERA_SPGEMM_LONG_ROWS");
  p->device.rules.dense_sort = switched_on("TESSERA_SPGEMM_DENSE_SORT");
  p->device.rules.merge_staged = switched_on("TESSERA_SPGEMM_MERGE_STAGED");
  const bool merge = switched_on("TESSERA_SPGEMM_MERGE") &&
                     a->rows >= tuned("TESSERA_SPGEMM_MERGE_LEAST_ROWS", TSI_SPGEMM_MERGE_LEAST_ROWS);
  p->device.rules.merge_products = merge ? (int)tuned("TESSERA_SPGEMM_MERGE_PRODUCTS", TSI_SPGEMM_MERGE_PRODUCTS) : 0;
  p->sort_chunk_bytes = tuned("TESSERA_SPGEMM_SORT_CHUNK_MB", 0) << 20; /* 0: sized from the products */
  p->sort_chunk_products = tuned("TESSERA_SPGEMM_SORT_CHUNK", 0);
  p->dense_warps_per_sm = tuned("TESSERA_SPGEMM_DENSE_WARPS_PER_SM", TSI_SPGEMM_DENSE_WARPS_PER_SM);
  p->long_slots_most = tuned("TESSERA_SPGEMM_LONG_SLOTS", TSI_SPGEMM_LONG_SLOTS);
  p->shared_dense = switched_on("TESSERA_SPGEMM_SHARED_DENSE");
  st = reserve(p, op, "the copies of A and B", csr_bytes(a) + csr_bytes(b));
  if (st == TS_SUCCESS && on_gpu(p)) {
    st = upload_operand(ctx, a, &p->device.a);
    if (st == TS_SUCCESS)
      st = upload_operand(ctx, b, &p->device.b);
  } else if (st == TS_SUCCESS) {
    st = ts_csr_copy(ctx, a, &p->host_a);
    if (st == TS_SUCCESS)
      st = ts_csr_copy(ctx, b, &p->host_b);
  }
  if (st != TS_SUCCESS) {
    ts_spgemm_plan_destroy(p);
    return st;
  }
  p->held = csr_bytes(a) + csr_bytes(b);
  *plan = p;
  return TS_SUCCESS;
}

static size_t align_up(size_t n) { return (n + 255) / 256 * 256; }

/* The phases' workspace on the GPU: each row's bin and the bins sorted, the
 * rows in order and by bin, the rows' entries, the counters and CUB's scan
 * and sort. */
static ts_status allocate_workspace(ts_spgemm_plan *p, const char *op) {
  tsi_spgemm_device *d = &p->device;
  const int64_t m = p->rows;
  d->scan_bytes = tsi_spgemm_cuda_scan_bytes(m);
  const size_t bin_bytes = align_up((size_t)m), list_bytes = align_up((size_t)m * sizeof(int32_t));
  const size_t nnz_bytes = align_up((size_t)m * sizeof(int64_t)), counter_bytes = align_up(sizeof(tsi_spgemm_counters));
  d->workspace_bytes = 2 * bin_bytes + 2 * list_bytes + nnz_bytes + counter_bytes + align_up(d->scan_bytes);
  ts_status st = reserve(p, op, "the phases' workspace", (int64_t)d->workspace_bytes);
  if (st == TS_SUCCESS)
    st = tsi_cuda_malloc(p->ctx, &d->workspace, d->workspace_bytes);
  if (st != TS_SUCCESS)
    return st;
  p->held += (int64_t)d->workspace_bytes;
  unsigned char *w = (unsigned char *)d->workspace;
  d->row_bin = w;
  d->sorted_bin = w + bin_bytes;
  d->row_ids = (int32_t *)(w + 2 * bin_bytes);
  d->row_list = (int32_t *)(w + 2 * bin_bytes + list_bytes);
  d->row_nnz = (int64_t *)(w + 2 * bin_bytes + 2 * list_bytes);
  d->counters = (tsi_spgemm_counters *)(w + 2 * bin_bytes + 2 * list_bytes + nnz_bytes);
  d->scan_temp = w + 2 * bin_bytes + 2 * list_bytes + nnz_bytes + counter_bytes;
  return TS_SUCCESS;
}

/* `slots` slots of `slot_bytes` each for `what`, zeroed: *pool, or a
 * refusal naming the bytes. */
static ts_status allocate_slots(ts_spgemm_plan *p, const char *op, const char *what, int64_t slots, size_t slot_bytes,
                                void **pool) {
  ts_status st = reserve(p, op, what, slots * (int64_t)slot_bytes);
  if (st == TS_SUCCESS)
    st = tsi_cuda_malloc(p->ctx, pool, (size_t)slots * slot_bytes);
  if (st == TS_SUCCESS)
    st = tsi_cuda_memset(p->ctx, *pool, 0, (size_t)slots * slot_bytes);
  if (st == TS_SUCCESS)
    p->held += slots * (int64_t)slot_bytes;
  return st;
}

/* How many slots of `slot_bytes` fit `limit` bytes, at most `most`, at
 * least one (reserve() names the bytes when even one does not fit). */
static int64_t slots_within(int64_t limit, size_t slot_bytes, int64_t most) {
  int64_t slots = limit / (int64_t)slot_bytes;
  if (slots > most)
    slots = most;
  return slots < 1 ? 1 : slots;
}

/* Dense accumulators for the dense bin's rows: as many slots as the budget
 * (or a share of the free memory) allows, up to the rows and
 * TSI_SPGEMM_DENSE_WARPS_PER_SM warps a multiprocessor, at least one; and
 * for the long bin's rows as many as TSI_SPGEMM_LONG_SLOTS and
 * TSI_SPGEMM_LONG_POOL_BYTES allow, at least one. */
static ts_status allocate_pool(ts_spgemm_plan *p, const char *op) {
  tsi_spgemm_device *d = &p->device;
  /* The dense pool serves the count unless it runs in shared memory, and
   * the fill when it neither sorts nor runs in shared memory. */
  const bool pool_needed = !d->shared_count || (!d->rules.dense_sort && d->shared_fill_warps == 0);
  const int64_t rows = pool_needed ? d->bin_rows[TSI_SPGEMM_DENSE_BIN] : 0;
  const int64_t long_rows = d->bin_rows[TSI_SPGEMM_LONG_BIN];
  if ((rows == 0 || d->pool) && (long_rows == 0 || d->long_pool))
    return TS_SUCCESS;
  ts_device_info info;
  const int sms = ts_context_device_info(p->ctx, &info) == TS_SUCCESS ? info.multiprocessors : 1;
  /* The pools take a share of what the budget leaves (of the free memory
   * without one): the sort's chunks and C's blocks, sized after them, need
   * the rest; the dense pool leaves room for the long rows' first slot. */
  const double share = TSI_SPGEMM_DENSE_FREE_SHARE;
  const int64_t pool_share = p->budget > 0 ? (int64_t)((double)(p->budget - p->held) * share)
                                           : (int64_t)((double)tsi_spgemm_cuda_free_bytes(p->ctx) * share);
  const int64_t long_first =
      long_rows > 0 && !d->long_pool ? (int64_t)tsi_spgemm_long_slot_bytes(p->cols, p->dtype) : 0;
  char what[200];
  ts_status st = TS_SUCCESS;
  if (rows > 0 && !d->pool) {
    /* Expand, sort, compress counts with the bitmaps alone. */
    d->slot_bytes = d->rules.dense_sort ? tsi_spgemm_bitmap_bytes(p->cols) : tsi_spgemm_slot_bytes(p->cols, p->dtype);
    const int64_t most = rows < (int64_t)sms * p->dense_warps_per_sm ? rows : (int64_t)sms * p->dense_warps_per_sm;
    const int64_t slots = slots_within(pool_share - long_first, d->slot_bytes, most);
    snprintf(what, sizeof what, "the dense %s of the %lld longest rows (%lld at a time, %zu bytes each)",
             d->rules.dense_sort ? "bitmaps" : "accumulators", (long long)rows, (long long)slots, d->slot_bytes);
    st = allocate_slots(p, op, what, slots, d->slot_bytes, &d->pool);
    if (st != TS_SUCCESS)
      return st;
    d->pool_slots = slots;
  }
  if (long_rows > 0 && !d->long_pool) {
    d->long_slot_bytes = tsi_spgemm_long_slot_bytes(p->cols, p->dtype);
    const int64_t most = long_rows < p->long_slots_most ? long_rows : p->long_slots_most;
    const int64_t limit = pool_share < TSI_SPGEMM_LONG_POOL_BYTES ? pool_share : TSI_SPGEMM_LONG_POOL_BYTES;
    const int64_t slots = slots_within(limit, d->long_slot_bytes, most);
    snprintf(what, sizeof what,
             "the partial sums of the %lld rows of at least %d entries (%lld at a time, %zu bytes each)",
             (long long)long_rows, TSI_SPGEMM_LONG_ENTRIES, (long long)slots, d->long_slot_bytes);
    st = allocate_slots(p, op, what, slots, d->long_slot_bytes, &d->long_pool);
    if (st != TS_SUCCESS)
      return st;
    d->long_slots = slots;
  }
  return st;
}

/* The dense bin by expand, sort, compress: the flat sequence's tables and
 * CUB's storage (sized by the chunk's capacity), the sequence built for all
 * rows, then the chunk's keys and values (at most the dense rows' products),
 * two carry slots and the chunk table. The capacity comes from
 * sort_chunk_bytes, else from the products (TSI_SPGEMM_SORT_CHUNK_PER_PRODUCT
 * bytes each, within TSI_SPGEMM_SORT_CHUNK_BYTES .. _MOST), capped by half
 * of what a budget leaves. */
static ts_status allocate_rowsort(ts_spgemm_plan *p, const char *op) {
  tsi_spgemm_device *d = &p->device;
  tsi_spgemm_rowsort_work *w = &d->rowsort;
  if (!tsi_spgemm_sort_fills(d) || d->bin_rows[TSI_SPGEMM_DENSE_BIN] == 0 || w->tables)
    return TS_SUCCESS;
  const int64_t per_product = 2 * (int64_t)(sizeof(unsigned long long) + ts_dtype_size(p->dtype));
  int64_t chunk_bytes = p->sort_chunk_bytes;
  if (chunk_bytes == 0) {
    chunk_bytes = p->products > TSI_SPGEMM_SORT_CHUNK_MOST / TSI_SPGEMM_SORT_CHUNK_PER_PRODUCT
                      ? TSI_SPGEMM_SORT_CHUNK_MOST
                      : p->products * TSI_SPGEMM_SORT_CHUNK_PER_PRODUCT;
    chunk_bytes = chunk_bytes < TSI_SPGEMM_SORT_CHUNK_BYTES ? TSI_SPGEMM_SORT_CHUNK_BYTES : chunk_bytes;
  }
  if (p->budget > 0 && chunk_bytes > (p->budget - p->held) / 2)
    chunk_bytes = (p->budget - p->held) / 2;
  int64_t capacity = chunk_bytes / per_product;
  capacity = capacity < TSI_SPGEMM_SORT_CHUNK_LEAST ? TSI_SPGEMM_SORT_CHUNK_LEAST : capacity;
  capacity = capacity > ((int64_t)1 << 30) ? ((int64_t)1 << 30) : capacity;
  if (p->sort_chunk_products > 0) /* the tests' small chunks */
    capacity = p->sort_chunk_products;
  if (capacity > p->products)
    capacity = p->products > 0 ? p->products : 1;
  w->temp_bytes = tsi_spgemm_cuda_rowsort_temp_bytes(capacity, d->a.nnz, p->dtype);
  if (w->temp_bytes == 0)
    return tsi_error(p->ctx, TS_ERROR_CUDA, "%s: sizing the dense rows' sort failed", op);
  const size_t entry_bytes = align_up((size_t)(d->a.nnz + 1) * sizeof(int64_t));
  const size_t row_bytes = align_up((size_t)(p->rows + 1) * sizeof(int64_t));
  const size_t bound_bytes = align_up((size_t)(2 * d->pool_slots) * sizeof(int));
  const int64_t table_bytes = (int64_t)(entry_bytes + row_bytes + bound_bytes + align_up(w->temp_bytes));
  ts_status st = reserve(p, op, "the dense rows' product tables", table_bytes);
  if (st == TS_SUCCESS)
    st = tsi_cuda_malloc(p->ctx, &w->tables, (size_t)table_bytes);
  if (st != TS_SUCCESS)
    return st;
  p->held += table_bytes;
  w->entry_start = (int64_t *)w->tables;
  w->row_start = (int64_t *)((unsigned char *)w->tables + entry_bytes);
  w->bounds = (int *)((unsigned char *)w->tables + entry_bytes + row_bytes);
  w->temp = (unsigned char *)w->tables + entry_bytes + row_bytes + bound_bytes;
  st = tsi_spgemm_cuda_rowsort_prepare(p->ctx, d);
  if (st != TS_SUCCESS)
    return st;
  if (capacity > w->products)
    capacity = w->products > 0 ? w->products : 1;
  w->capacity = capacity;
  w->chunks_most = (w->products + capacity - 1) / capacity;
  if (w->chunks_most < 1)
    w->chunks_most = 1;
  const size_t key_bytes = align_up((size_t)capacity * sizeof(unsigned long long));
  const size_t value_bytes = align_up((size_t)capacity * ts_dtype_size(p->dtype));
  w->carry_slot_bytes = tsi_spgemm_slot_bytes(p->cols, p->dtype);
  const size_t chunk_table_bytes = align_up((size_t)(3 * w->chunks_most) * sizeof(int32_t));
  const int64_t buffer_bytes = (int64_t)(2 * key_bytes + 2 * value_bytes + 2 * w->carry_slot_bytes + chunk_table_bytes);
  char what[200];
  snprintf(what, sizeof what, "the dense rows' sort (%lld products in chunks of %lld)", (long long)w->products,
           (long long)capacity);
  st = reserve(p, op, what, buffer_bytes);
  if (st == TS_SUCCESS)
    st = tsi_cuda_malloc(p->ctx, &w->buffers, (size_t)buffer_bytes);
  if (st != TS_SUCCESS)
    return st;
  p->held += buffer_bytes;
  unsigned char *b = (unsigned char *)w->buffers;
  w->keys[0] = (unsigned long long *)b;
  w->keys[1] = (unsigned long long *)(b + key_bytes);
  w->values[0] = b + 2 * key_bytes;
  w->values[1] = b + 2 * key_bytes + value_bytes;
  w->carry = b + 2 * key_bytes + 2 * value_bytes;
  w->chunk_table = (int32_t *)(b + 2 * key_bytes + 2 * value_bytes + 2 * w->carry_slot_bytes);
  /* The carry slots' bitmaps start clear (their values are never read
   * without their bit). */
  return tsi_cuda_memset(p->ctx, w->carry, 0, 2 * w->carry_slot_bytes);
}

/* After a binning of a range: the dense bin's flat sequence for its rows. */
static ts_status rebuild_rowsort(ts_spgemm_plan *p) {
  const tsi_spgemm_device *d = &p->device;
  if (!d->rules.dense_sort || !d->rowsort.tables)
    return TS_SUCCESS;
  return tsi_spgemm_cuda_rowsort_prepare(p->ctx, &p->device);
}

/* C's row offsets, of rows + 1 int64 in backend memory. */
static ts_status create_row_offsets(ts_spgemm_plan *p, const char *op) {
  const int64_t bytes = (p->rows + 1) * (int64_t)sizeof(int64_t);
  ts_status st = reserve(p, op, "C's row offsets", bytes);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(p->ctx, TS_MEMORY_DEVICE, (size_t)bytes, &p->c_row_ptr);
  if (st == TS_SUCCESS)
    p->held += bytes;
  return st;
}

static ts_status symbolic_gpu(ts_spgemm_plan *p, const char *op) {
  tsi_spgemm_device *d = &p->device;
  ts_status st = allocate_workspace(p, op);
  if (st == TS_SUCCESS)
    st = create_row_offsets(p, op);
  if (st == TS_SUCCESS)
    st = tsi_spgemm_cuda_bin(p->ctx, d, 0, p->rows, &p->products);
  if (st == TS_SUCCESS)
    st = tsi_spgemm_cuda_shared_dense(p->ctx, d, p->shared_dense);
  if (st == TS_SUCCESS)
    st = allocate_pool(p, op);
  if (st == TS_SUCCESS)
    st = allocate_rowsort(p, op);
  if (st == TS_SUCCESS)
    st = tsi_spgemm_cuda_count(p->ctx, d);
  if (st == TS_SUCCESS)
    st = tsi_spgemm_cuda_offsets(p->ctx, d, ts_buffer_data(p->c_row_ptr), &p->nnz);
  return st;
}

static ts_status symbolic_cpu(ts_spgemm_plan *p, const char *op) {
#ifdef _OPENMP
  const int threads = p->ctx->num_threads > 0 ? p->ctx->num_threads : omp_get_max_threads();
#else
  const int threads = 1;
#endif
  const int64_t work = tsi_spgemm_host_work_bytes(threads, p->cols, p->dtype);
  ts_status st = reserve(p, op, "the accumulators", work == INT64_MAX ? -1 : work + p->rows * 8);
  if (st == TS_SUCCESS)
    st = tsi_spgemm_host_work_create(p->ctx, op, threads, p->cols, p->dtype, &p->host_work);
  if (st != TS_SUCCESS)
    return st;
  p->held += work;
  p->host_row_nnz = tsi_malloc_array(p->rows + 1, sizeof(int64_t));
  if (!p->host_row_nnz)
    return tsi_error(p->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: no host memory for %lld row counts", op, (long long)p->rows);
  p->held += p->rows * 8;
  st = tsi_spgemm_host_count(p->ctx, p->host_a, p->host_b, &p->host_work, p->host_row_nnz, &p->products);
  if (st == TS_SUCCESS)
    st = create_row_offsets(p, op);
  if (st != TS_SUCCESS)
    return st;
  int64_t *off = ts_buffer_data(p->c_row_ptr);
  off[0] = 0;
  for (int64_t i = 0; i < p->rows; i++)
    off[i + 1] = off[i] + p->host_row_nnz[i];
  p->nnz = off[p->rows];
  return TS_SUCCESS;
}

static void write_explain(ts_spgemm_plan *p) {
  const tsi_spgemm_device *d = &p->device;
  int n = snprintf(p->explain, sizeof p->explain, "%lld x %lld times %lld x %lld: %lld products, %lld entries",
                   (long long)p->rows, (long long)p->inner, (long long)p->inner, (long long)p->cols,
                   (long long)p->products, (long long)p->nnz);
  if (!on_gpu(p)) {
    snprintf(p->explain + n, sizeof p->explain - (size_t)n, "; host: %d dense accumulators of %lld columns",
             p->host_work.threads, (long long)p->cols);
    return;
  }
  n += snprintf(p->explain + n, sizeof p->explain - (size_t)n,
                "; rows by products: none %lld, merged (<=%d entries of A, <=%d products) %lld",
                (long long)d->bin_rows[0], TSI_SPGEMM_MERGE_ENTRIES, d->rules.merge_products,
                (long long)d->bin_rows[TSI_SPGEMM_MERGE_BIN]);
  for (int b = 1; b <= TSI_SPGEMM_SORTED_BINS && n < (int)sizeof p->explain; b++)
    n += snprintf(p->explain + n, sizeof p->explain - (size_t)n, ", <=%d (sorted) %lld",
                  TSI_SPGEMM_SORTED_FIRST << (b - 1), (long long)d->bin_rows[b]);
  for (int t = 0; t < TSI_SPGEMM_SHARED_BINS && n < (int)sizeof p->explain; t++)
    n += snprintf(p->explain + n, sizeof p->explain - (size_t)n, "%s<=%d %lld",
                  t ? ", " : "; by bound: ", (TSI_SPGEMM_FIRST_TABLE / 2) << t,
                  (long long)d->bin_rows[TSI_SPGEMM_HASH_BIN + t]);
  if (n < (int)sizeof p->explain)
    n += snprintf(p->explain + n, sizeof p->explain - (size_t)n, ", dense %lld (%lld at a time, %zu bytes each)",
                  (long long)d->bin_rows[TSI_SPGEMM_DENSE_BIN], (long long)d->pool_slots, d->slot_bytes);
  if (n < (int)sizeof p->explain && (d->shared_count || d->shared_fill_warps > 0))
    n += snprintf(p->explain + n, sizeof p->explain - (size_t)n, " in shared memory (%s%s)",
                  d->shared_count ? "count" : "", d->shared_fill_warps > 0 ? ", fill: a warp a row" : "");
  if (n < (int)sizeof p->explain && tsi_spgemm_sort_fills(d))
    n += snprintf(p->explain + n, sizeof p->explain - (size_t)n, " by sort: %lld products in chunks of %lld",
                  (long long)d->rowsort.products, (long long)d->rowsort.capacity);
  if (n < (int)sizeof p->explain)
    snprintf(p->explain + n, sizeof p->explain - (size_t)n,
             ", long %lld (%lld at a time, %zu bytes each); workspace %zu bytes",
             (long long)d->bin_rows[TSI_SPGEMM_LONG_BIN], (long long)d->long_slots, d->long_slot_bytes,
             d->workspace_bytes);
}

ts_status ts_spgemm_symbolic(ts_spgemm_plan *plan) {
  static const char op[] = "ts_spgemm_symbolic";
  if (!plan)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: plan is NULL", op);
  if (plan->symbolic_done)
    return TS_SUCCESS;
  ts_status st = on_gpu(plan) ? symbolic_gpu(plan, op) : symbolic_cpu(plan, op);
  if (st != TS_SUCCESS)
    return st;
  plan->symbolic_done = true;
  write_explain(plan);
  return TS_SUCCESS;
}

int64_t ts_spgemm_plan_nnz(const ts_spgemm_plan *plan) { return plan && plan->symbolic_done ? plan->nnz : -1; }

int64_t ts_spgemm_plan_products(const ts_spgemm_plan *plan) {
  return plan && plan->symbolic_done ? plan->products : -1;
}

/* Bytes of C's column indices and values (INT64_MAX past 64 bits). */
static int64_t entry_bytes(const ts_spgemm_plan *p, int64_t entries) {
  int64_t bytes;
  return tsi_mul_overflows(entries, 4 + (int64_t)ts_dtype_size(p->dtype), &bytes) ? INT64_MAX : bytes;
}

int64_t ts_spgemm_plan_c_bytes(const ts_spgemm_plan *plan) {
  if (!plan || !plan->symbolic_done)
    return -1;
  const int64_t entries = entry_bytes(plan, plan->nnz);
  return entries == INT64_MAX ? INT64_MAX : entries + (plan->rows + 1) * 8;
}

int64_t ts_spgemm_plan_device_bytes(const ts_spgemm_plan *plan) { return plan ? plan->held : 0; }

const char *ts_spgemm_plan_explain(const ts_spgemm_plan *plan) { return plan ? plan->explain : ""; }

ts_status ts_spgemm_allocate(ts_spgemm_plan *plan) {
  static const char op[] = "ts_spgemm_allocate";
  if (!plan)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: plan is NULL", op);
  if (!plan->symbolic_done)
    return tsi_error(plan->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: run ts_spgemm_symbolic() first", op);
  if (plan->c_col_idx)
    return TS_SUCCESS;
  const int64_t bytes = entry_bytes(plan, plan->nnz);
  char what[200];
  snprintf(what, sizeof what, "C (%lld entries: %lld bytes with its row offsets, of which %lld are held)",
           (long long)plan->nnz, (long long)ts_spgemm_plan_c_bytes(plan), (long long)(plan->rows + 1) * 8);
  ts_status st = reserve(plan, op, what, bytes == INT64_MAX ? -1 : bytes);
  /* On the host an allocation past the physical memory would succeed and
   * then end the process when its pages are touched: refuse it by name. */
  const int64_t host_memory = on_gpu(plan) ? 0 : tsi_host_memory_bytes();
  if (st == TS_SUCCESS && host_memory > 0 && bytes > host_memory - plan->held)
    return tsi_error(plan->ctx, TS_ERROR_OUT_OF_MEMORY,
                     "%s: %s needs %lld bytes; the host has %lld bytes of memory (ts_spgemm_blocked() computes C in "
                     "blocks under a budget)",
                     op, what, (long long)bytes, (long long)host_memory);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(plan->ctx, TS_MEMORY_DEVICE, (size_t)plan->nnz * sizeof(int32_t), &plan->c_col_idx);
  if (st == TS_SUCCESS)
    st = ts_buffer_create(plan->ctx, TS_MEMORY_DEVICE, (size_t)plan->nnz * ts_dtype_size(plan->dtype), &plan->c_values);
  if (st == TS_ERROR_OUT_OF_MEMORY)
    st = tsi_error(plan->ctx, st,
                   "%s: %s does not fit in the device's memory (ts_spgemm_blocked() computes C in blocks)", op, what);
  if (st != TS_SUCCESS) {
    ts_buffer_destroy(plan->c_col_idx);
    ts_buffer_destroy(plan->c_values);
    plan->c_col_idx = plan->c_values = NULL;
    return st;
  }
  plan->held += bytes;
  return TS_SUCCESS;
}

ts_status ts_spgemm_numeric(ts_spgemm_plan *plan) {
  static const char op[] = "ts_spgemm_numeric";
  if (!plan)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "%s: plan is NULL", op);
  if (!plan->c_col_idx)
    return tsi_error(plan->ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: run ts_spgemm_symbolic() and ts_spgemm_allocate() first", op);
  ts_status st = TS_SUCCESS;
  if (on_gpu(plan)) {
    tsi_spgemm_device *d = &plan->device;
    int64_t products = 0;
    if (d->r0 != 0 || d->r1 != plan->rows) { /* ts_spgemm_blocked() binned a block last */
      st = tsi_spgemm_cuda_bin(plan->ctx, d, 0, plan->rows, &products);
      if (st == TS_SUCCESS)
        st = rebuild_rowsort(plan);
    }
    if (st == TS_SUCCESS)
      st = tsi_spgemm_cuda_fill(plan->ctx, d, ts_buffer_data(plan->c_row_ptr), 0, ts_buffer_data(plan->c_col_idx),
                                ts_buffer_data(plan->c_values));
  } else {
    tsi_spgemm_host_fill(plan->host_a, plan->host_b, &plan->host_work, 0, plan->rows, ts_buffer_data(plan->c_row_ptr),
                         0, ts_buffer_data(plan->c_col_idx), ts_buffer_data(plan->c_values));
  }
  if (st == TS_SUCCESS)
    plan->numeric_done = true;
  return st;
}

ts_status ts_spgemm_c_buffers(const ts_spgemm_plan *plan, const ts_buffer **row_ptr, const ts_buffer **col_idx,
                              const ts_buffer **values) {
  if (!plan)
    return tsi_error(NULL, TS_ERROR_INVALID_ARGUMENT, "ts_spgemm_c_buffers: plan is NULL");
  if (!plan->c_col_idx)
    return tsi_error(plan->ctx, TS_ERROR_INVALID_ARGUMENT, "ts_spgemm_c_buffers: C is not allocated");
  if (row_ptr)
    *row_ptr = plan->c_row_ptr;
  if (col_idx)
    *col_idx = plan->c_col_idx;
  if (values)
    *values = plan->c_values;
  return TS_SUCCESS;
}

ts_status ts_spgemm_download(ts_spgemm_plan *plan, ts_csr **c) {
  static const char op[] = "ts_spgemm_download";
  if (!plan || !c)
    return tsi_error(plan ? plan->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "%s: NULL argument", op);
  *c = NULL;
  if (!plan->numeric_done)
    return tsi_error(plan->ctx, TS_ERROR_INVALID_ARGUMENT, "%s: run ts_spgemm_numeric() first", op);
  ts_context *ctx = plan->ctx;
  ts_csr *out = NULL;
  ts_status st = ts_csr_create(ctx, plan->rows, plan->cols, plan->nnz, plan->dtype, &out);
  if (st == TS_SUCCESS)
    st = ts_buffer_download(ctx, plan->c_row_ptr, 0, out->row_ptr, (size_t)(plan->rows + 1) * sizeof(int64_t));
  if (st == TS_SUCCESS)
    st = ts_buffer_download(ctx, plan->c_col_idx, 0, out->col_idx, (size_t)plan->nnz * sizeof(int32_t));
  if (st == TS_SUCCESS)
    st = ts_buffer_download(ctx, plan->c_values, 0, out->values, (size_t)plan->nnz * ts_dtype_size(plan->dtype));
  if (st != TS_SUCCESS) {
    ts_csr_destroy(out);
    return st;
  }
  *c = out;
  return TS_SUCCESS;
}

/* The GPU's blocks: rows r0 .. r1 - 1 whose entries fit `capacity`, filled
 * into block arrays and copied into the host CSR. */
static ts_status blocked_gpu(ts_spgemm_plan *p, const char *op, ts_csr *c) {
  tsi_spgemm_device *d = &p->device;
  const int64_t per_entry = 4 + (int64_t)ts_dtype_size(p->dtype);
  const int64_t avail =
      p->budget > 0 ? p->budget - p->held : (int64_t)(0.9 * (double)tsi_spgemm_cuda_free_bytes(p->ctx));
  const int64_t capacity = avail / per_entry;
  const int64_t *off = c->row_ptr;
  int64_t largest = 0, widest = 0;
  for (int64_t i = 0; i < p->rows; i++)
    largest = off[i + 1] - off[i] > largest ? off[i + 1] - off[i] : largest;
  if (largest > capacity) {
    char what[128];
    snprintf(what, sizeof what, "a block holding C's longest row (%lld entries)", (long long)largest);
    return tsi_error(p->ctx, TS_ERROR_OUT_OF_MEMORY, "%s: %s needs %lld bytes; %lld are available", op, what,
                     (long long)(largest * per_entry), (long long)avail);
  }
  /* The widest block, to size the block arrays once. */
  for (int64_t r0 = 0, r1 = 0; r0 < p->rows; r0 = r1) {
    for (r1 = r0 + 1; r1 < p->rows && off[r1 + 1] - off[r0] <= capacity; r1++) {
    }
    widest = off[r1] - off[r0] > widest ? off[r1] - off[r0] : widest;
  }
  int32_t *cols = NULL;
  void *vals = NULL;
  ts_status st = reserve(p, op, "the blocks of C", widest * per_entry);
  if (st == TS_SUCCESS)
    st = tsi_cuda_malloc(p->ctx, (void **)&cols, (size_t)widest * sizeof(int32_t) + 1);
  if (st == TS_SUCCESS)
    st = tsi_cuda_malloc(p->ctx, &vals, (size_t)widest * ts_dtype_size(p->dtype) + 1);
  const size_t vs = ts_dtype_size(p->dtype);
  for (int64_t r0 = 0, r1 = 0; st == TS_SUCCESS && r0 < p->rows; r0 = r1) {
    for (r1 = r0 + 1; r1 < p->rows && off[r1 + 1] - off[r0] <= capacity; r1++) {
    }
    int64_t products = 0;
    const int64_t entries = off[r1] - off[r0];
    st = tsi_spgemm_cuda_bin(p->ctx, d, r0, r1, &products);
    if (st == TS_SUCCESS)
      st = rebuild_rowsort(p);
    if (st == TS_SUCCESS)
      st = tsi_spgemm_cuda_fill(p->ctx, d, ts_buffer_data(p->c_row_ptr), off[r0], cols, vals);
    if (st == TS_SUCCESS && entries > 0)
      st = tsi_cuda_memcpy_to_host(p->ctx, c->col_idx + off[r0], cols, (size_t)entries * sizeof(int32_t));
    if (st == TS_SUCCESS && entries > 0)
      st = tsi_cuda_memcpy_to_host(p->ctx, (char *)c->values + (size_t)off[r0] * vs, vals, (size_t)entries * vs);
  }
  tsi_cuda_free(cols);
  tsi_cuda_free(vals);
  return st;
}

ts_status ts_spgemm_blocked(ts_spgemm_plan *plan, ts_csr **c) {
  static const char op[] = "ts_spgemm_blocked";
  if (!plan || !c)
    return tsi_error(plan ? plan->ctx : NULL, TS_ERROR_INVALID_ARGUMENT, "%s: NULL argument", op);
  *c = NULL;
  ts_status st = ts_spgemm_symbolic(plan);
  if (st != TS_SUCCESS)
    return st;
  ts_csr *out = NULL;
  st = ts_csr_create(plan->ctx, plan->rows, plan->cols, plan->nnz, plan->dtype, &out);
  if (st == TS_SUCCESS)
    st = ts_buffer_download(plan->ctx, plan->c_row_ptr, 0, out->row_ptr, (size_t)(plan->rows + 1) * sizeof(int64_t));
  if (st == TS_SUCCESS && on_gpu(plan))
    st = blocked_gpu(plan, op, out);
  else if (st == TS_SUCCESS)
    tsi_spgemm_host_fill(plan->host_a, plan->host_b, &plan->host_work, 0, plan->rows, out->row_ptr, 0, out->col_idx,
                         out->values);
  if (st != TS_SUCCESS) {
    ts_csr_destroy(out);
    return st;
  }
  *c = out;
  return TS_SUCCESS;
}

void ts_spgemm_plan_destroy(ts_spgemm_plan *plan) {
  if (!plan)
    return;
  if (on_gpu(plan)) {
    tsi_spgemm_device *d = &plan->device;
    (void)tsi_cuda_sync(plan->ctx);
    tsi_cuda_free(d->a.offsets);
    tsi_cuda_free(d->a.indices);
    tsi_cuda_free(d->a.values);
    tsi_cuda_free(d->b.offsets);
    tsi_cuda_free(d->b.indices);
    tsi_cuda_free(d->b.values);
    tsi_cuda_free(d->workspace);
    tsi_cuda_free(d->pool);
    tsi_cuda_free(d->long_pool);
    tsi_cuda_free(d->rowsort.tables);
    tsi_cuda_free(d->rowsort.buffers);
  }
  ts_buffer_destroy(plan->c_row_ptr);
  ts_buffer_destroy(plan->c_col_idx);
  ts_buffer_destroy(plan->c_values);
  ts_csr_destroy(plan->host_a);
  ts_csr_destroy(plan->host_b);
  tsi_spgemm_host_work_destroy(&plan->host_work);
  free(plan->host_row_nnz);
  ts_context *ctx = plan->ctx;
  free(plan);
  tsi_context_release(ctx);
}
