/* SpGEMM internals: the operands' checks, the host Gustavson (the CPU
 * backend and the reference), the plan's fields, and the interface between
 * the plan (spgemm_plan.c) and the CUDA phases (spgemm_cuda*.cu). */
#ifndef TESSERA_SPGEMM_INTERNAL_H
#define TESSERA_SPGEMM_INTERNAL_H

#include "internal.h"
#include "spgemm_tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The refusals shared by the plan and the host call: NULL, value types,
 * symmetric storage, A->cols != B->rows, operands failing ts_csr_check(). */
ts_status tsi_spgemm_check_operands(ts_context *ctx, const char *op, const ts_csr *a, const ts_csr *b);

/* ---- the host Gustavson ---------------------------------------------------------- */

/* One dense accumulator a thread: a mark, a value and a list slot for each of
 * B's columns (marks are zero between rows). */
typedef struct tsi_spgemm_host_work {
  int threads;
  int64_t cols;
  ts_dtype dtype;
  unsigned char *marks; /* threads * cols */
  void *values;         /* threads * cols */
  int32_t *list;        /* threads * cols: a row's columns in first-touch order */
} tsi_spgemm_host_work;

/* Bytes of the accumulators for `threads` threads (INT64_MAX past 64 bits). */
int64_t tsi_spgemm_host_work_bytes(int threads, int64_t cols, ts_dtype dtype);
ts_status tsi_spgemm_host_work_create(ts_context *ctx, const char *op, int threads, int64_t cols, ts_dtype dtype,
                                      tsi_spgemm_host_work *work);
void tsi_spgemm_host_work_destroy(tsi_spgemm_host_work *work);

/* Entries of every row of C into row_nnz[i] and the products in all into
 * *products; TS_ERROR_OVERFLOW when a count passes INT64_MAX. */
ts_status tsi_spgemm_host_count(ts_context *ctx, const ts_csr *a, const ts_csr *b, tsi_spgemm_host_work *work,
                                int64_t *row_nnz, int64_t *products);

/* C's columns (sorted) and values of rows r0 .. r1 - 1, row i at
 * c_off[i] - c_base of c_cols and c_vals; each entry adds its products in
 * the order of k along A's row. */
void tsi_spgemm_host_fill(const ts_csr *a, const ts_csr *b, tsi_spgemm_host_work *work, int64_t r0, int64_t r1,
                          const int64_t *c_off, int64_t c_base, int32_t *c_cols, void *c_vals);

/* ---- the GPU phases ----------------------------------------------------------------- */

/* A CSR operand in GPU memory (int64 offsets). */
typedef struct tsi_spgemm_operand {
  int64_t rows, cols, nnz;
  int64_t *offsets;
  int32_t *indices;
  void *values;
} tsi_spgemm_operand;

/* Counters the analysis leaves in GPU memory: rows of each bin, products in
 * all. */
typedef struct tsi_spgemm_counters {
  unsigned long long rows[TSI_SPGEMM_BINS];
  unsigned long long products;
  unsigned long long overflow; /* a row's products passed INT64_MAX / 2 */
  unsigned long long queued;   /* rows left by the one-thread analysis for a warp each */
  /* The dense and long bins' rows: their products, the most products and
   * the most entries of A of one of them. */
  unsigned long long dense_products, dense_longest, dense_entries;
} tsi_spgemm_counters;

/* Which bins the analysis may use (the others' rows go where they went
 * before those bins existed): the switches of spgemm_plan.c. */
typedef struct tsi_spgemm_bin_rules {
  bool sorted;        /* rows of few products: the warp-sorted bins */
  bool long_rows;     /* dense rows of many entries of A: a block each */
  bool dense_sort;    /* dense and long rows by expand, sort, compress (one bin) */
  int merge_products; /* the merged bin's rows' products at most (0: no merged bin) */
  bool merge_staged;  /* the merged bin's numeric phase stages C's entries in shared memory (default) */
} tsi_spgemm_bin_rules;

/* The dense bin's numeric phase by expand, sort, compress in chunks of
 * products (spgemm_kernels_rowsort.cuh). */
typedef struct tsi_spgemm_rowsort_work {
  void *tables;         /* one allocation: entry_start, row_start, bounds, temp */
  int64_t *entry_start; /* nnz(A) + 1: each bin entry's first product in the flat sequence */
  int64_t *row_start;   /* rows + 1: each bin row's first product */
  int *bounds;          /* 2 x the dense pool's slots: each bitmap's least and greatest column */
  void *temp;           /* CUB's scans and sort */
  size_t temp_bytes;
  void *buffers;               /* one allocation: keys, values, carry slots, chunk table */
  unsigned long long *keys[2]; /* capacity each */
  void *values[2];             /* capacity each */
  unsigned char *carry;        /* 2 slots of carry_slot_bytes */
  size_t carry_slot_bytes;
  int32_t *chunk_table; /* 3 x chunks_most: first row, incoming row, its slot */
  int64_t chunks_most;
  int64_t capacity; /* products a chunk */
  int64_t products; /* products of the binned range's dense rows */
} tsi_spgemm_rowsort_work;

typedef struct tsi_spgemm_device {
  ts_dtype dtype;
  tsi_spgemm_operand a, b;
  /* Workspace of the phases, laid out by tsi_spgemm_workspace_layout(). */
  void *workspace;
  size_t workspace_bytes;
  tsi_spgemm_bin_rules rules;
  unsigned char *row_bin;        /* rows: the bin of each row */
  unsigned char *sorted_bin;     /* rows: the bins sorted (the sort's keys out) */
  int32_t *row_ids;              /* rows: the rows of the current range in order */
  int32_t *row_list;             /* rows: the rows of the current range, by bin, in order */
  int64_t *row_nnz;              /* rows: entries of each row of C */
  tsi_spgemm_counters *counters; /* one */
  void *scan_temp;               /* CUB's scan of row_nnz, and its sort of the rows by bin */
  size_t scan_bytes;
  /* Dense accumulators: slots of a bitmap (cols bits) and cols values. */
  void *pool;
  int64_t pool_slots;
  size_t slot_bytes;
  /* Long rows' accumulators: slots of a bitmap and TSI_SPGEMM_LONG_WARPS
   * partial sum arrays of cols values (tsi_spgemm_long_slot_bytes()). */
  void *long_pool;
  int64_t long_slots;
  size_t long_slot_bytes;
  tsi_spgemm_rowsort_work rowsort;
  /* The dense and long bins' count with the bitmap in shared memory; the
   * dense bin's fill with shared_fill_warps slots of shared_slot_bytes a
   * block (0: the pool or the sort). */
  bool shared_count;
  int shared_fill_warps;
  size_t shared_slot_bytes;
  /* The dense and long bins' rows of the range binned last (counters). */
  int64_t dense_products, dense_longest, dense_entries;
  /* The range binned last and its bins (host copies). */
  int64_t r0, r1;
  int64_t bin_rows[TSI_SPGEMM_BINS], bin_first[TSI_SPGEMM_BINS];
} tsi_spgemm_device;

/* Whether the dense rows go through expand, sort, compress: the sort's
 * tables exist, and the sort counts them, only then (a warp a row in shared
 * memory fills without them). */
static inline bool tsi_spgemm_sort_fills(const tsi_spgemm_device *d) {
  return d->rules.dense_sort && d->shared_fill_warps == 0;
}

/* A dense accumulator's slot: a bitmap of `cols` bits, then (numeric) a
 * value per column, each part a multiple of 256 bytes. */
static inline size_t tsi_spgemm_bitmap_bytes(int64_t cols) {
  return (((size_t)cols + 31) / 32 * sizeof(uint32_t) + 255) / 256 * 256;
}
static inline size_t tsi_spgemm_slot_bytes(int64_t cols, ts_dtype dtype) {
  return tsi_spgemm_bitmap_bytes(cols) + ((size_t)cols * ts_dtype_size(dtype) + 255) / 256 * 256;
}

/* A long row's slot: the bitmap, then TSI_SPGEMM_LONG_WARPS arrays of
 * partial sums, each a multiple of 256 bytes. */
static inline size_t tsi_spgemm_part_bytes(int64_t cols, ts_dtype dtype) {
  return ((size_t)cols * ts_dtype_size(dtype) + 255) / 256 * 256;
}
static inline size_t tsi_spgemm_long_slot_bytes(int64_t cols, ts_dtype dtype) {
  return tsi_spgemm_bitmap_bytes(cols) + (size_t)TSI_SPGEMM_LONG_WARPS * tsi_spgemm_part_bytes(cols, dtype);
}

/* After the binning of all rows: whether the dense bin's accumulators fit
 * the device's shared memory for B's width and value type, and whether the
 * dense rows are spread evenly enough for a block or a warp a row
 * (d->shared_count, d->shared_fill_warps; both off unless `allowed`). */
ts_status tsi_spgemm_cuda_shared_dense(ts_context *ctx, tsi_spgemm_device *d, bool allowed);

/* Free bytes of the context's device (0 when unknown). */
int64_t tsi_spgemm_cuda_free_bytes(ts_context *ctx);

/* Bytes of CUB's scan of `rows` int64 counts and of its sort of `rows`
 * rows by bin, the larger (0 when a query fails). */
size_t tsi_spgemm_cuda_scan_bytes(int64_t rows);

/* Bin rows r0 .. r1 - 1 by their bound (products, capped at B's columns):
 * the bins' row counts (host copies in d->bin_rows, d->bin_first) and the
 * rows grouped by bin in d->row_list; *products gets the products of the
 * range. Waits for the GPU (the counts are read back). */
ts_status tsi_spgemm_cuda_bin(ts_context *ctx, tsi_spgemm_device *d, int64_t r0, int64_t r1, int64_t *products);

/* The symbolic phase for the binned range: row_nnz of its rows. */
ts_status tsi_spgemm_cuda_count(ts_context *ctx, const tsi_spgemm_device *d);

/* C's row offsets: c_off[0] = 0, c_off[i + 1] = c_off[i] + row_nnz[i] for
 * all rows; *nnz = c_off[rows] (waits for the GPU). */
ts_status tsi_spgemm_cuda_offsets(ts_context *ctx, const tsi_spgemm_device *d, int64_t *c_off, int64_t *nnz);

/* The numeric phase for the binned range: row i's sorted columns and values
 * at c_off[i] - c_base of c_cols and c_vals. No allocation, no host wait. */
ts_status tsi_spgemm_cuda_fill(ts_context *ctx, const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base,
                               int32_t *c_cols, void *c_vals);

/* Bytes of CUB's temporary storage for the dense bin's sort of `capacity`
 * products and its scans (of `capacity` run heads, of nnz(A) + 1 entry
 * lengths); 0 when a query fails. */
size_t tsi_spgemm_cuda_rowsort_temp_bytes(int64_t capacity, int64_t a_nnz, ts_dtype dtype);

/* The dense bin's flat product sequence for the binned range (entry_start,
 * row_start) and its products in d->rowsort.products (waits for the GPU). */
ts_status tsi_spgemm_cuda_rowsort_prepare(ts_context *ctx, tsi_spgemm_device *d);

/* Room for ts_spgemm_plan_explain()'s line. */
#define TSI_SPGEMM_EXPLAIN_SIZE 768

struct ts_spgemm_plan {
  ts_context *ctx;
  ts_dtype dtype;
  int64_t rows, inner, cols;                   /* A is rows x inner, B inner x cols */
  int64_t budget;                              /* 0: none */
  int64_t dense_warps_per_sm, long_slots_most; /* the pools' caps (spgemm_plan.c) */
  int64_t sort_chunk_bytes;                    /* the dense bin's sort: keys and values a chunk (0: by products) */
  int64_t sort_chunk_products;                 /* or products a chunk (0: from the bytes) */
  bool shared_dense;                           /* the dense bin in shared memory where it fits */
  ts_csr *host_a, *host_b;                     /* CPU backend */
  tsi_spgemm_host_work host_work;
  int64_t *host_row_nnz;
  tsi_spgemm_device device; /* CUDA backend */
  bool symbolic_done, numeric_done;
  int64_t nnz, products;
  int64_t held;                    /* backend bytes held now */
  ts_buffer *c_row_ptr;            /* after symbolic */
  ts_buffer *c_col_idx, *c_values; /* after allocate */
  char explain[TSI_SPGEMM_EXPLAIN_SIZE];
};

#ifdef __cplusplus
}
#endif

#endif
