/* SpGEMM's dense bin by expand, sort, compress (spgemm_kernels_rowsort.cuh):
 * the flat product sequence of the binned range's dense rows (symbolic, a
 * host wait for its length); the symbolic count over that sequence in
 * waves of rows, a bitmap a row; then the numeric phase chunk by chunk: expand,
 * CUB's stable radix sort on the keys' used bits, the run heads scanned
 * (CUB), reduce, flush. No allocation and no host wait in the numeric
 * phase: the plan sized every buffer after the symbolic phase. */
#include "spgemm_cuda_kernel.cuh"
#include "spgemm_kernels_rowsort.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

namespace {

constexpr int kThreads = 256;

/* Bits that hold the values 0 .. n - 1 (at least one). */
int bits_for(int64_t n) {
  int bits = 1;
  while (bits < 62 && ((int64_t)1 << bits) < n)
    bits++;
  return bits;
}

template <class T, class K> size_t sort_temp_bytes_keyed(int64_t capacity) {
  size_t bytes = 0;
  cub::DoubleBuffer<K> keys(nullptr, nullptr);
  cub::DoubleBuffer<T> values(nullptr, nullptr);
  if (cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values, (int)capacity, 0, (int)(8 * sizeof(K))) !=
      cudaSuccess)
    return 0;
  return bytes;
}

/* CUB's sort of `capacity` products with either key, the larger. */
template <class T> size_t sort_temp_bytes(int64_t capacity) {
  const size_t narrow = sort_temp_bytes_keyed<T, uint32_t>(capacity);
  const size_t wide = sort_temp_bytes_keyed<T, unsigned long long>(capacity);
  return narrow == 0 || wide == 0 ? 0 : narrow > wide ? narrow : wide;
}

tsi_spgemm_args<float> bin_rows(const tsi_spgemm_device *d) {
  tsi_spgemm_args<float> a = tsi_spgemm_make_args<float>(d, NULL, 0, NULL, NULL);
  a.rows = d->row_list + d->bin_first[TSI_SPGEMM_DENSE_BIN];
  a.count = d->bin_rows[TSI_SPGEMM_DENSE_BIN];
  return a;
}

/* The chunks' arguments for the binned range's dense rows. */
template <class T>
tsi_spgemm_rowsort_args<T> rowsort_args(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base,
                                        int32_t *c_cols, void *c_vals) {
  const tsi_spgemm_rowsort_work *w = &d->rowsort;
  tsi_spgemm_rowsort_args<T> s;
  s.a = tsi_spgemm_make_args<T>(d, c_off, c_base, c_cols, c_vals);
  s.a.rows = d->row_list + d->bin_first[TSI_SPGEMM_DENSE_BIN];
  s.a.count = d->bin_rows[TSI_SPGEMM_DENSE_BIN];
  s.entry_start = w->entry_start;
  s.row_start = w->row_start;
  s.chunk_first = w->chunk_table;
  s.chunk_incoming = w->chunk_table + w->chunks_most;
  s.chunk_slot = w->chunk_table + 2 * w->chunks_most;
  s.carry = w->carry;
  s.carry_slot_bytes = w->carry_slot_bytes;
  s.bitmap_bytes = tsi_spgemm_bitmap_bytes(d->b.cols);
  s.capacity = w->capacity;
  s.products = w->products;
  s.chunks = (w->products + w->capacity - 1) / w->capacity;
  s.col_bits = bits_for(d->b.cols);
  return s;
}

/* The chunks of the binned range with keys of type K (the buffers hold
 * 64-bit keys; 32-bit ones take the first half of each). */
template <class T, class K>
cudaError_t fill_chunks(const tsi_spgemm_device *d, const tsi_spgemm_rowsort_args<T> &s, int end_bit,
                        cudaStream_t stream) {
  const tsi_spgemm_rowsort_work *w = &d->rowsort;
  tsi_spgemm_rowsort_chunk_table<T>
      <<<1, 32, 0, stream>>>(s, w->chunk_table, w->chunk_table + w->chunks_most, w->chunk_table + 2 * w->chunks_most);
  cudaError_t err = cudaPeekAtLastError();
  for (int64_t c = 0; err == cudaSuccess && c < s.chunks; c++) {
    const int64_t n = s.products - c * s.capacity < s.capacity ? s.products - c * s.capacity : s.capacity;
    const unsigned blocks = (unsigned)tsi_spgemm_blocks(n, kThreads);
    cub::DoubleBuffer<K> keys(reinterpret_cast<K *>(w->keys[0]), reinterpret_cast<K *>(w->keys[1]));
    cub::DoubleBuffer<T> values(static_cast<T *>(w->values[0]), static_cast<T *>(w->values[1]));
    tsi_spgemm_rowsort_expand<T, K><<<blocks, kThreads, 0, stream>>>(s, c, keys.Current(), values.Current());
    err = cudaPeekAtLastError();
    size_t bytes = w->temp_bytes;
    if (err == cudaSuccess)
      err = cub::DeviceRadixSort::SortPairs(w->temp, bytes, keys, values, (int)n, 0, end_bit, stream);
    /* The other key buffer is free after the sort: the run heads and their
     * ranks (int32, n of them) in place. */
    int32_t *ranks = reinterpret_cast<int32_t *>(keys.Alternate());
    if (err == cudaSuccess) {
      tsi_spgemm_rowsort_heads<K><<<blocks, kThreads, 0, stream>>>(keys.Current(), n, ranks);
      err = cudaPeekAtLastError();
    }
    bytes = w->temp_bytes;
    if (err == cudaSuccess)
      err = cub::DeviceScan::ExclusiveSum(w->temp, bytes, ranks, ranks, (int)n, stream);
    if (err == cudaSuccess) {
      tsi_spgemm_rowsort_reduce<T, K><<<blocks, kThreads, 0, stream>>>(s, c, keys.Current(), values.Current(), ranks);
      err = cudaPeekAtLastError();
    }
    if (err == cudaSuccess) {
      tsi_spgemm_rowsort_flush<T><<<1, TSI_SPGEMM_FLUSH_BLOCK, 0, stream>>>(s, c);
      err = cudaPeekAtLastError();
    }
  }
  return err;
}

template <class T>
cudaError_t fill_typed(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols, void *c_vals,
                       cudaStream_t stream) {
  const tsi_spgemm_rowsort_args<T> s = rowsort_args<T>(d, c_off, c_base, c_cols, c_vals);
  if (s.chunks > d->rowsort.chunks_most)
    return cudaErrorInvalidValue; /* the plan sized the table for the whole product */
  /* Keys of 32 bits when (row in chunk, column) fit: half the sort's key
   * bytes. */
  const int end_bit = bits_for(s.a.count) + s.col_bits;
  if (end_bit <= 32)
    return fill_chunks<T, uint32_t>(d, s, end_bit, stream);
  return fill_chunks<T, unsigned long long>(d, s, end_bit, stream);
}

} // namespace

cudaError_t tsi_spgemm_rowsort_fill(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols,
                                    void *c_vals, cudaStream_t stream) {
  if (d->bin_rows[TSI_SPGEMM_DENSE_BIN] == 0 || d->rowsort.products == 0)
    return cudaSuccess;
  if (d->dtype == TS_FLOAT32)
    return fill_typed<float>(d, c_off, c_base, c_cols, c_vals, stream);
  return fill_typed<double>(d, c_off, c_base, c_cols, c_vals, stream);
}

cudaError_t tsi_spgemm_rowsort_count(const tsi_spgemm_device *d, cudaStream_t stream) {
  const int64_t rows = d->bin_rows[TSI_SPGEMM_DENSE_BIN], slots = d->pool_slots;
  if (rows == 0 || d->rowsort.products == 0 || slots == 0)
    return cudaSuccess;
  const tsi_spgemm_rowsort_args<float> s = rowsort_args<float>(d, NULL, 0, NULL, NULL);
  unsigned char *pool = static_cast<unsigned char *>(d->pool);
  int *bounds = d->rowsort.bounds;
  tsi_spgemm_rowsort_clear_bounds<<<(unsigned)tsi_spgemm_blocks(slots, kThreads), kThreads, 0, stream>>>(bounds, slots);
  cudaError_t err = cudaPeekAtLastError();
  /* Waves of as many rows as the pool has bitmaps. */
  for (int64_t first = 0; err == cudaSuccess && first < rows; first += slots) {
    const int64_t wave = rows - first < slots ? rows - first : slots;
    tsi_spgemm_rowsort_mark<float><<<(unsigned)tsi_spgemm_blocks(INT64_MAX / 2, kThreads), kThreads, 0, stream>>>(
        s, first, wave, pool, d->slot_bytes, bounds);
    err = cudaPeekAtLastError();
    if (err == cudaSuccess) {
      tsi_spgemm_rowsort_count_wave<float>
          <<<(unsigned)wave, kThreads, 0, stream>>>(s, first, pool, d->slot_bytes, bounds);
      err = cudaPeekAtLastError();
    }
  }
  return err;
}

extern "C" size_t tsi_spgemm_cuda_rowsort_temp_bytes(int64_t capacity, int64_t a_nnz, ts_dtype dtype) {
  size_t sort = dtype == TS_FLOAT32 ? sort_temp_bytes<float>(capacity) : sort_temp_bytes<double>(capacity);
  size_t heads = 0, entries = 0;
  if (sort == 0 ||
      cub::DeviceScan::ExclusiveSum(nullptr, heads, (int32_t *)nullptr, (int32_t *)nullptr, (int)capacity) !=
          cudaSuccess ||
      cub::DeviceScan::ExclusiveSum(nullptr, entries, (int64_t *)nullptr, (int64_t *)nullptr, a_nnz + 1) !=
          cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return sort > heads ? (sort > entries ? sort : entries) : (heads > entries ? heads : entries);
}

extern "C" ts_status tsi_spgemm_cuda_rowsort_prepare(ts_context *ctx, tsi_spgemm_device *d) {
  static const char op[] = "ts_spgemm_symbolic";
  tsi_spgemm_rowsort_work *w = &d->rowsort;
  w->products = 0;
  const tsi_spgemm_args<float> a = bin_rows(d);
  if (a.count == 0)
    return TS_SUCCESS;
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  const int64_t a_nnz = d->a.nnz;
  cudaError_t err = cudaMemsetAsync(w->entry_start, 0, (size_t)(a_nnz + 1) * sizeof(int64_t), stream);
  if (err == cudaSuccess) {
    tsi_spgemm_rowsort_lengths<float>
        <<<(unsigned)tsi_spgemm_blocks(a.count, 1), kThreads, 0, stream>>>(a, w->entry_start);
    err = cudaPeekAtLastError();
  }
  size_t bytes = w->temp_bytes;
  if (err == cudaSuccess)
    err = cub::DeviceScan::ExclusiveSum(w->temp, bytes, w->entry_start, w->entry_start, a_nnz + 1, stream);
  if (err == cudaSuccess) {
    tsi_spgemm_rowsort_row_starts<float><<<(unsigned)tsi_spgemm_blocks(a.count + 1, kThreads), kThreads, 0, stream>>>(
        a, w->entry_start, a_nnz, w->row_start);
    err = cudaPeekAtLastError();
  }
  int64_t products = 0;
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(&products, w->row_start + a.count, sizeof products, cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(ctx, err, "%s: the dense rows' products", op);
  w->products = products;
  return TS_SUCCESS;
}
