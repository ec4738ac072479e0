/* SpGEMM's GPU phases as the plan calls them: the analysis of a range of
 * rows (each row's products, counted in 64 bits, and its bin), the rows
 * grouped by bin (CUB's radix sort on the bin: stable, so in row order
 * within a bin), the symbolic and numeric phases bin by bin, and the scan of
 * C's row counts into its offsets (CUB). Rows are tiles of the
 * load-balancing layer's work (one warp each here, lanes over the row's
 * entries); the bins are the schedule of the phases. */
#include "spgemm_cuda_kernel.cuh"
#include "spgemm_kernels_merge.cuh"
#include "spgemm_kernels_small.cuh"
#include "spgemm_kernels_sorted.cuh"
#include "tessera/lb.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

namespace lb = tessera::lb;

namespace {

constexpr int kWarps = TSI_SPGEMM_BLOCK / 32;

/* The bin of a row of `products` products over `entries` entries of A (see
 * spgemm_tuning.h): none; the sorted bins by products; the hash bins by the
 * bound; dense, or long for rows of many entries of A. */
__device__ inline int bin_of(unsigned long long products, int64_t entries, int64_t b_width,
                             tsi_spgemm_bin_rules rules) {
  if (products == 0)
    return 0;
  if (rules.sorted) {
    unsigned long long most = TSI_SPGEMM_SORTED_FIRST;
    for (int b = 1; b <= TSI_SPGEMM_SORTED_BINS; b++, most *= 2)
      if (products <= most)
        return b;
  }
  const unsigned long long bound = products < (unsigned long long)b_width ? products : (unsigned long long)b_width;
  unsigned long long half = TSI_SPGEMM_FIRST_TABLE / 2;
  for (int t = 0; t < TSI_SPGEMM_SHARED_BINS; t++, half *= 2)
    if (bound <= half)
      return TSI_SPGEMM_HASH_BIN + t;
  /* Expand, sort, compress takes every row past the tables alike: its work
   * is spread over the products, not the rows. */
  const bool long_row = rules.long_rows && !rules.dense_sort && entries >= TSI_SPGEMM_LONG_ENTRIES;
  return long_row ? TSI_SPGEMM_LONG_BIN : TSI_SPGEMM_DENSE_BIN;
}

static_assert(TSI_SPGEMM_BINS <= 16, "the sort of the rows by bin takes 4 bits");
static_assert(TSI_SPGEMM_MERGE_BIN < 32, "lane b counts bin b");

/* The analysis of one row by the whole warp: its products and its bin,
 * the same in every lane; a row of the sorted bins is counted at once
 * (tsi_spgemm_sorted_count(): its entries and rows of B are loaded once
 * for both) and a row without products too. */
__device__ inline int analyse_row_by_warp(lb::csr_work<int64_t> a, const tsi_spgemm_args<float> &args,
                                          tsi_spgemm_bin_rules rules, int64_t row, int lane,
                                          unsigned long long *products) {
  unsigned long long n = 0;
  int64_t entries = -1; /* of C's row, when known here */
  if (rules.sorted) {
    entries = tsi_spgemm_sorted_count(args, row, lane, &n);
  } else {
#pragma unroll 4 /* a hub row's entries: four loads of B's offsets in flight */
    for (int64_t ka : lb::warp_stride_range<int64_t>(a.tile_begin(row), a.tile_end(row))) {
      const int64_t k = args.a_cols[ka];
      n += (unsigned long long)(args.b_off[k + 1] - args.b_off[k]);
    }
    n = tsi_spgemm_warp_sum64(n);
  }
  const int bin = bin_of(n, a.tile_end(row) - a.tile_begin(row), args.b_width, rules);
  if (bin == 0)
    entries = 0;
  else if (bin > TSI_SPGEMM_SORTED_BINS)
    entries = -1;
  if (lane == 0 && entries >= 0)
    args.row_nnz[row] = entries;
  *products = n;
  return bin;
}

/* A block's counts of rows by bin and of products (shared memory), added
 * to the counters once at the block's end. */
struct block_counts {
  unsigned long long rows[TSI_SPGEMM_BINS], products, overflow;
  unsigned long long dense_products, dense_longest, dense_entries; /* of the dense and long bins' rows */
};

__device__ inline void clear_block_counts(block_counts &s) {
  for (int i = int(threadIdx.x); i < TSI_SPGEMM_BINS; i += int(blockDim.x))
    s.rows[i] = 0;
  if (threadIdx.x == 0)
    s.products = s.overflow = s.dense_products = s.dense_longest = s.dense_entries = 0;
  __syncthreads();
}

__device__ inline void add_block_counts(const block_counts &s, tsi_spgemm_counters *counters) {
  __syncthreads();
  for (int i = int(threadIdx.x); i < TSI_SPGEMM_BINS; i += int(blockDim.x))
    if (s.rows[i])
      atomicAdd(&counters->rows[i], s.rows[i]);
  if (threadIdx.x == 0) {
    if (s.products)
      atomicAdd(&counters->products, s.products);
    if (s.overflow)
      atomicOr(&counters->overflow, 1ull);
    if (s.dense_products) {
      atomicAdd(&counters->dense_products, s.dense_products);
      atomicMax(&counters->dense_longest, s.dense_longest);
      atomicMax(&counters->dense_entries, s.dense_entries);
    }
  }
}

/* A thread a row of r0 .. r1 - 1: each row's index to row_ids for the sort
 * by bin; a row of at most TSI_SPGEMM_MERGE_ENTRIES entries of A counted at
 * once when it belongs to the merged bin or has no products
 * (tsi_spgemm_merge_count()); every other row queued for
 * analyse_rows_by_warp() (a warp's rows take one atomic). */
__global__ void __launch_bounds__(TSI_SPGEMM_BLOCK)
    analyse_short_rows(tsi_spgemm_args<float> args, tsi_spgemm_bin_rules rules, int64_t r0, int64_t r1,
                       unsigned char *row_bin, int32_t *row_ids, int32_t *queue, tsi_spgemm_counters *counters) {
  __shared__ block_counts counts;
  clear_block_counts(counts);
  const int lane = int(threadIdx.x) & 31;
  const int64_t threads = (int64_t)gridDim.x * blockDim.x;
  unsigned long long none = 0, merged = 0, products = 0;
  /* Every lane of a warp runs the same number of rounds (the ballots). */
  for (int64_t first = r0 + (int64_t)blockIdx.x * blockDim.x; first < r1; first += threads) {
    const int64_t row = first + int(threadIdx.x);
    int64_t entries = -1;
    unsigned long long n = 0;
    if (row < r1) {
      row_ids[row - r0] = (int32_t)row;
      entries = tsi_spgemm_merge_count(args, row, rules.merge_products, &n);
      if (entries >= 0) {
        row_bin[row] = (unsigned char)(entries == 0 ? 0 : TSI_SPGEMM_MERGE_BIN);
        args.row_nnz[row] = entries;
        none += entries == 0;
        merged += entries > 0;
        products += n;
      }
    }
    const unsigned waiting = __ballot_sync(0xffffffffu, row < r1 && entries < 0);
    unsigned long long base = 0;
    if (lane == 0 && waiting)
      base = atomicAdd(&counters->queued, (unsigned long long)__popc(waiting));
    base = __shfl_sync(0xffffffffu, base, 0);
    if ((waiting >> lane) & 1u)
      queue[base + __popc(waiting & ((1u << lane) - 1u))] = (int32_t)row;
  }
  products = tsi_spgemm_warp_sum64(products);
  none = tsi_spgemm_warp_sum64(none);
  merged = tsi_spgemm_warp_sum64(merged);
  if (lane == 0) {
    if (none)
      atomicAdd(&counts.rows[0], none);
    if (merged)
      atomicAdd(&counts.rows[TSI_SPGEMM_MERGE_BIN], merged);
    if (products)
      atomicAdd(&counts.products, products);
  }
  add_block_counts(counts, counters);
}

/* A warp a row: the rows r0 .. r1 - 1 (tiles of the layer), or, with a
 * queue, the rows analyse_short_rows() left there (counters->queued of
 * them, read when the kernel starts). Each row's bin goes to row_bin, and
 * without a queue its index to row_ids. Each warp counts its rows' bins
 * (lane b, bin b) and products in registers, the block in shared memory,
 * and the block adds them to the counters once. */
__global__ void __launch_bounds__(TSI_SPGEMM_BLOCK)
    analyse_rows_by_warp(lb::csr_work<int64_t> a, tsi_spgemm_args<float> args, tsi_spgemm_bin_rules rules, int64_t r0,
                         int64_t r1, const int32_t *queue, unsigned char *row_bin, int32_t *row_ids,
                         tsi_spgemm_counters *counters) {
  __shared__ block_counts counts;
  clear_block_counts(counts);
  const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) / 32;
  const int64_t warps = (int64_t)gridDim.x * kWarps;
  const int64_t count = queue ? (int64_t)counters->queued : r1 - r0;
  unsigned long long my_rows = 0, my_products = 0, my_overflow = 0;
  unsigned long long dense_products = 0, dense_longest = 0, dense_entries = 0;
  for (int64_t i = (int64_t)blockIdx.x * kWarps + warp; i < count; i += warps) {
    const int64_t row = queue ? (int64_t)queue[i] : r0 + i;
    unsigned long long products = 0;
    const int bin = analyse_row_by_warp(a, args, rules, row, lane, &products);
    my_rows += lane == bin;
    if (bin == TSI_SPGEMM_DENSE_BIN || bin == TSI_SPGEMM_LONG_BIN) {
      const unsigned long long entries = (unsigned long long)(a.tile_end(row) - a.tile_begin(row));
      dense_products += products;
      dense_longest = products > dense_longest ? products : dense_longest;
      dense_entries = entries > dense_entries ? entries : dense_entries;
    }
    my_overflow |= products > (unsigned long long)INT64_MAX / 2 || my_products + products < my_products;
    my_products += products;
    if (lane == 0) {
      row_bin[row] = (unsigned char)bin;
      if (!queue)
        row_ids[row - r0] = (int32_t)row;
    }
  }
  if (lane < TSI_SPGEMM_BINS && my_rows)
    atomicAdd(&counts.rows[lane], my_rows);
  if (lane == 0 && my_products)
    atomicAdd(&counts.products, my_products);
  if (lane == 0 && my_overflow)
    counts.overflow = 1;
  if (lane == 0 && dense_products) {
    atomicAdd(&counts.dense_products, dense_products);
    atomicMax(&counts.dense_longest, dense_longest);
    atomicMax(&counts.dense_entries, dense_entries);
  }
  add_block_counts(counts, counters);
}

int multiprocessors() {
  static const int sms = [] {
    int device = 0, n = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || n < 1)
      n = 1;
    return n;
  }();
  return sms;
}

} // namespace

int64_t tsi_spgemm_blocks(int64_t groups, int per_block) {
  const int64_t wanted = (groups + per_block - 1) / per_block;
  const int64_t cap = 32 * (int64_t)multiprocessors();
  return wanted < 1 ? 1 : wanted < cap ? wanted : cap;
}

extern "C" size_t tsi_spgemm_cuda_scan_bytes(int64_t rows) {
  size_t scan = 0, sort = 0;
  if (cub::DeviceScan::InclusiveSum(nullptr, scan, (const int64_t *)nullptr, (int64_t *)nullptr, rows) != cudaSuccess ||
      cub::DeviceRadixSort::SortPairs(nullptr, sort, (const unsigned char *)nullptr, (unsigned char *)nullptr,
                                      (const int32_t *)nullptr, (int32_t *)nullptr, (int)rows, 0, 4) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return scan > sort ? scan : sort;
}

extern "C" int64_t tsi_spgemm_cuda_free_bytes(ts_context *ctx) {
  size_t free_bytes = 0, total = 0;
  if (tsi_cuda_activate(ctx) != TS_SUCCESS || cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return (int64_t)free_bytes;
}

extern "C" ts_status tsi_spgemm_cuda_bin(ts_context *ctx, tsi_spgemm_device *d, int64_t r0, int64_t r1,
                                         int64_t *products) {
  static const char op[] = "ts_spgemm_symbolic";
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  tsi_spgemm_counters counters;
  cudaError_t err = cudaMemsetAsync(d->counters, 0, sizeof counters, stream);
  lb::csr_work<int64_t> a = lb::make_csr_work<int64_t>(d->a.rows, d->a.nnz, d->a.offsets);
  const tsi_spgemm_args<float> args = tsi_spgemm_make_args<float>(d, NULL, 0, NULL, NULL);
  /* The merged bin's rows first, a thread each, the others queued in
   * row_list (free until the sort by bin below) for a warp each. */
  int32_t *queue = d->rules.merge_products > 0 ? d->row_list : NULL;
  if (err == cudaSuccess && r1 > r0 && queue) {
    analyse_short_rows<<<(unsigned)tsi_spgemm_blocks(r1 - r0, TSI_SPGEMM_BLOCK), TSI_SPGEMM_BLOCK, 0, stream>>>(
        args, d->rules, r0, r1, d->row_bin, d->row_ids, queue, d->counters);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess && r1 > r0) {
    analyse_rows_by_warp<<<(unsigned)tsi_spgemm_blocks(r1 - r0, kWarps), TSI_SPGEMM_BLOCK, 0, stream>>>(
        a, args, d->rules, r0, r1, queue, d->row_bin, d->row_ids, d->counters);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess && r1 > r0 && r1 - r0 <= TSI_SPGEMM_SMALL_ROWS) {
    /* Few rows: grouped in one launch (the same order as the sort's). */
    tsi_spgemm_group_small<<<1, TSI_SPGEMM_SMALL_BLOCK, 0, stream>>>(d->row_bin + r0, d->row_ids, (int)(r1 - r0),
                                                                     d->row_list);
    err = cudaGetLastError();
  } else if (err == cudaSuccess && r1 > r0) {
    /* The rows grouped by bin, in row order within a bin (a stable sort on
     * the bins' 4 bits): neighbouring rows of a bin share rows of B. */
    size_t bytes = d->scan_bytes;
    err = cub::DeviceRadixSort::SortPairs(d->scan_temp, bytes, d->row_bin + r0, d->sorted_bin, d->row_ids, d->row_list,
                                          (int)(r1 - r0), 0, 4, stream);
  }
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(&counters, d->counters, sizeof counters, cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "%s: analysing rows %lld to %lld", op, (long long)r0, (long long)r1);
  if (counters.overflow || counters.products > (unsigned long long)INT64_MAX / 2)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: the products of rows %lld to %lld pass 2^62", op, (long long)r0,
                     (long long)r1);
  int64_t first = 0;
  for (int b = 0; b < TSI_SPGEMM_BINS; b++) {
    d->bin_rows[b] = (int64_t)counters.rows[b];
    d->bin_first[b] = first;
    first += d->bin_rows[b];
  }
  d->r0 = r0;
  d->r1 = r1;
  d->dense_products = (int64_t)counters.dense_products;
  d->dense_longest = (int64_t)counters.dense_longest;
  d->dense_entries = (int64_t)counters.dense_entries;
  *products = (int64_t)counters.products;
  return tsi_cuda_check_launch(ctx, op);
}

extern "C" ts_status tsi_spgemm_cuda_count(ts_context *ctx, const tsi_spgemm_device *d) {
  static const char op[] = "ts_spgemm_symbolic";
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  /* Rows without products and the sorted bins' rows were counted by the
   * analysis. */
  cudaError_t err = cudaSuccess;
  if (err == cudaSuccess)
    err = tsi_spgemm_hash_count_all(d, stream);
  /* Without the sort's tables the pool's bitmaps count the dense rows. */
  const bool sort_counts = tsi_spgemm_sort_fills(d);
  if (err == cudaSuccess)
    err = d->shared_count ? tsi_spgemm_dense_shared_count(d, stream)
          : sort_counts   ? tsi_spgemm_rowsort_count(d, stream)
                          : tsi_spgemm_dense_count(d, stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "%s: counting the entries of C", op);
  return tsi_cuda_check_launch(ctx, op);
}

extern "C" ts_status tsi_spgemm_cuda_offsets(ts_context *ctx, const tsi_spgemm_device *d, int64_t *c_off,
                                             int64_t *nnz) {
  static const char op[] = "ts_spgemm_symbolic";
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  const int64_t rows = d->a.rows;
  size_t bytes = d->scan_bytes;
  cudaError_t err = cudaSuccess;
  if (rows <= TSI_SPGEMM_SMALL_ROWS) { /* one launch, c_off[0] included */
    tsi_spgemm_scan_small<<<1, TSI_SPGEMM_SMALL_BLOCK, 0, stream>>>(d->row_nnz, (int)rows, c_off);
    err = cudaGetLastError();
  } else {
    err = cudaMemsetAsync(c_off, 0, sizeof(int64_t), stream);
    if (err == cudaSuccess)
      err = cub::DeviceScan::InclusiveSum(d->scan_temp, bytes, (const int64_t *)d->row_nnz, c_off + 1, rows, stream);
  }
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(nnz, c_off + rows, sizeof(int64_t), cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "%s: scanning C's row counts", op);
  return TS_SUCCESS;
}

extern "C" ts_status tsi_spgemm_cuda_fill(ts_context *ctx, const tsi_spgemm_device *d, const int64_t *c_off,
                                          int64_t c_base, int32_t *c_cols, void *c_vals) {
  static const char op[] = "ts_spgemm_numeric";
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  cudaError_t err = tsi_spgemm_merge_fill(d, c_off, c_base, c_cols, c_vals, stream);
  if (err == cudaSuccess)
    err = tsi_spgemm_sorted_fill_all(d, c_off, c_base, c_cols, c_vals, stream);
  if (err == cudaSuccess)
    err = tsi_spgemm_hash_fill_all(d, c_off, c_base, c_cols, c_vals, stream);
  if (err == cudaSuccess)
    err = d->shared_fill_warps > 0 ? tsi_spgemm_dense_shared_fill(d, c_off, c_base, c_cols, c_vals, stream)
          : d->rules.dense_sort    ? tsi_spgemm_rowsort_fill(d, c_off, c_base, c_cols, c_vals, stream)
                                   : cudaSuccess;
  /* The pool's kernels: the dense bin's rows when neither of the above took
   * them, the long bin's (with the sort off) always. */
  if (err == cudaSuccess && !d->rules.dense_sort)
    err = tsi_spgemm_dense_fill(d, c_off, c_base, c_cols, c_vals, stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "%s: filling C", op);
  return tsi_cuda_check_launch(ctx, op);
}
