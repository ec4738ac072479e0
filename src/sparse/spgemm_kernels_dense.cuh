/* SpGEMM's dense rows (bound past the largest shared table), a slot of a
 * pool in global memory each block (each warp for the dense rows' numeric
 * phase): a bitmap of B's columns, then the dense rows' values of B's width
 * or, for the long rows' numeric phase, TSI_SPGEMM_LONG_WARPS arrays of
 * partial sums.
 *
 * Symbolic (dense and long rows alike): the block's warps take A's entries
 * 32 at a time, their lanes the chunk's products (a lane a product, the
 * entries' rows of B flattened), and set each product's bit (the order does
 * not matter); the block then counts the bits between the row's first and
 * last column and clears them.
 *
 * Numeric, dense rows: a warp a row (tsi_spgemm_fill_dense_rows()).
 *
 * Numeric, long rows (at least TSI_SPGEMM_LONG_ENTRIES entries of A): warp w
 * takes A's chunks of 32 entries w, w + W, ... in order, its lanes the
 * entries of each entry's row of B (distinct columns: no two lanes add to
 * one place at a step, and a warp barrier between steps), and adds each
 * product into its own partial sums (zero between rows); then the block
 * reads the bitmap's words in order, a word a thread, places each word's
 * columns by a block scan of the words' counts, and writes each column (a
 * lane a column, so that the partial sums are read coalesced) with the sum
 * of the W partial sums in warp order, clearing what it read. The sums are
 * fixed by A and B alone.
 * Host-emulated in tests/sparse/test_spgemm_kernels_emulated.cpp. */
#ifndef TESSERA_SPGEMM_KERNELS_DENSE_CUH
#define TESSERA_SPGEMM_KERNELS_DENSE_CUH

#include "spgemm_cuda_args.cuh"
#include "spgemm_kernels_words.cuh"

/* The products a lane of the symbolic block (TSI_SPGEMM_DENSE_COUNT_BLOCK
 * threads, spgemm_tuning.h) loads before it marks them (independent loads
 * in flight). */
#define TSI_SPGEMM_DENSE_COUNT_BATCH 4
/* Threads of the long rows' numeric block (a partial sum array a warp). */
#define TSI_SPGEMM_LONG_BLOCK (TSI_SPGEMM_LONG_WARPS * 32)

/*
 * A's entries of `row` by one warp, in chunks of 32 from the row's entry
 * `skip` on, every `stride` entries: the lanes load a chunk's entries
 * (value, row of B) at once, take them in order by shuffles, and call
 * fn(x, col, b) for the entries (column col, value b) of each one's row of
 * B, a lane each (distinct columns); a warp barrier between entries. The
 * first 32 entries of the next entry's row of B are loaded before fn runs on
 * this one's, so that their loads overlap its accumulator's round trip (B
 * is read-only: the order of fn's calls is unchanged).
 */
template <class T, class Fn>
__device__ void tsi_spgemm_warp_entries(const tsi_spgemm_args<T> &a, int64_t row, int64_t skip, int64_t stride,
                                        int lane, const Fn &fn) {
  const int64_t end = a.a_off[row + 1];
  for (int64_t chunk = a.a_off[row] + skip; chunk < end; chunk += stride) {
    int64_t b_begin;
    const int64_t b_len = tsi_spgemm_b_row(a, chunk + lane, end, &b_begin);
    const int64_t b_end = b_begin + b_len;
    const T x = chunk + lane < end ? a.a_vals[chunk + lane] : T(0);
    const int n = end - chunk < 32 ? (int)(end - chunk) : 32;
    /* Entry e's first kb, its row's end, and its first column and value. */
    int64_t kb_next = __shfl_sync(0xffffffffu, b_begin, 0) + lane;
    int64_t end_next = __shfl_sync(0xffffffffu, b_end, 0);
    int32_t col_next = kb_next < end_next ? a.b_cols[kb_next] : 0;
    T b_next = kb_next < end_next ? a.b_vals[kb_next] : T(0);
    for (int e = 0; e < n; e++) {
      const T xe = __shfl_sync(0xffffffffu, x, e);
      const int64_t kb0 = kb_next, kb_end = end_next;
      const int32_t col0 = col_next;
      const T b0 = b_next;
      if (e + 1 < n) { /* the same in every lane */
        kb_next = __shfl_sync(0xffffffffu, b_begin, e + 1) + lane;
        end_next = __shfl_sync(0xffffffffu, b_end, e + 1);
        col_next = kb_next < end_next ? a.b_cols[kb_next] : 0;
        b_next = kb_next < end_next ? a.b_vals[kb_next] : T(0);
      }
      if (kb0 < kb_end)
        fn(xe, col0, b0);
      for (int64_t kb = kb0 + 32; kb < kb_end; kb += 32)
        fn(xe, a.b_cols[kb], a.b_vals[kb]);
      __syncwarp();
    }
  }
}

/* Symbolic: the entries of each dense or long row, a block a slot. Warp w
 * takes A's chunks of 32 entries w, w + W, ...: the lanes load a chunk's
 * entries and scan their rows of B's lengths, then take the chunk's
 * products 32 at a time, each finding its entry by a binary search among
 * the scanned lengths, so that every lane has a product; a lane loads
 * TSI_SPGEMM_DENSE_COUNT_BATCH products' columns before it marks them, so
 * that the loads of a chunk do not wait on one another. */
template <bool Shared>
__device__ void tsi_spgemm_count_dense_rows_into(const tsi_spgemm_args<float> &a, unsigned *bits) {
  constexpr int W = TSI_SPGEMM_DENSE_COUNT_BLOCK / 32;
  __shared__ int lo_s, hi_s;
  __shared__ unsigned long long found_s;
  __shared__ int64_t first_of[W][32], b_at_of[W][32];
  const int t = int(threadIdx.x), warp = t / 32, lane = t % 32;
  int64_t *first = first_of[warp], *b_at = b_at_of[warp];
  for (int64_t r = blockIdx.x; r < a.count; r += gridDim.x) {
    const int64_t row = a.rows[r];
    if (t == 0) {
      lo_s = TSI_SPGEMM_EMPTY;
      hi_s = -1;
      found_s = 0;
    }
    __syncthreads();
    int lo = TSI_SPGEMM_EMPTY, hi = -1;
    const int64_t end = a.a_off[row + 1];
    for (int64_t chunk = a.a_off[row] + 32 * warp; chunk < end; chunk += 32 * W) {
      const int64_t total = tsi_spgemm_chunk_products(a, chunk, end, lane, first, b_at);
      __syncwarp();
      for (int64_t j0 = lane; j0 < total; j0 += 32 * TSI_SPGEMM_DENSE_COUNT_BATCH) {
        int32_t cols[TSI_SPGEMM_DENSE_COUNT_BATCH]; /* loaded together, then marked */
#pragma unroll
        for (int u = 0; u < TSI_SPGEMM_DENSE_COUNT_BATCH; u++) {
          const int64_t j = j0 + 32 * u;
          cols[u] = -1;
          if (j < total) {
            const int e = tsi_spgemm_chunk_entry(first, j);
            cols[u] = a.b_cols[b_at[e] + (j - first[e])];
          }
        }
#pragma unroll
        for (int u = 0; u < TSI_SPGEMM_DENSE_COUNT_BATCH; u++) {
          if (cols[u] >= 0) {
            atomicOr(bits + (cols[u] >> 5), 1u << (cols[u] & 31));
            lo = min(lo, (int)cols[u]);
            hi = max(hi, (int)cols[u]);
          }
        }
      }
      __syncwarp(); /* first and b_at are read before the next chunk writes them */
    }
    if (hi >= 0) {
      atomicMin(&lo_s, lo);
      atomicMax(&hi_s, hi);
    }
    __syncthreads();
    unsigned long long found = 0;
    for (int w = (lo_s >> 5) + t; hi_s >= 0 && w <= (hi_s >> 5); w += TSI_SPGEMM_DENSE_COUNT_BLOCK) {
      found += (unsigned long long)__popc(Shared ? bits[w] : __ldcg(bits + w));
      bits[w] = 0u;
    }
    if (found)
      atomicAdd(&found_s, found);
    __syncthreads();
    if (t == 0)
      a.row_nnz[row] = (int64_t)found_s;
    __syncthreads();
  }
}

/* The bitmap a slot of the pool each block. */
__global__ void __launch_bounds__(TSI_SPGEMM_DENSE_COUNT_BLOCK)
    tsi_spgemm_count_dense_rows(tsi_spgemm_args<float> a, unsigned char *pool, size_t slot_bytes) {
  tsi_spgemm_count_dense_rows_into<false>(a, reinterpret_cast<unsigned *>(pool + (size_t)blockIdx.x * slot_bytes));
}

#ifdef __CUDACC__ /* dynamic shared memory: not host-emulated */
/* The bitmap in the block's shared memory (`words` words, cleared first):
 * no pool, no waves; B's width at most 32 bits a byte of shared memory. */
__global__ void __launch_bounds__(TSI_SPGEMM_DENSE_COUNT_BLOCK)
    tsi_spgemm_count_dense_shared(tsi_spgemm_args<float> a, int words) {
  extern __shared__ unsigned tsi_spgemm_count_bits[];
  for (int w = int(threadIdx.x); w < words; w += TSI_SPGEMM_DENSE_COUNT_BLOCK)
    tsi_spgemm_count_bits[w] = 0u;
  __syncthreads();
  tsi_spgemm_count_dense_rows_into<true>(a, tsi_spgemm_count_bits);
}
#endif

/* Numeric for the long rows, a block a slot: the bitmap (bitmap_bytes),
 * then W partial sum arrays of part_bytes each, all zero between rows.
 * Warp w takes A's chunks of 32 entries w, w + W, ... in order, its lanes
 * loading a chunk's entries at once and taking them in order by shuffles.
 * The columns are written 32 W words at a time: lane l of warp w reads word
 * 32 w + l, the block scans the words' counts, and each warp writes its
 * words' columns a word at a time, a lane a column, adding the W partial
 * sums in warp order and clearing them. */
template <class T>
__global__ void __launch_bounds__(TSI_SPGEMM_LONG_BLOCK)
    tsi_spgemm_fill_long_rows(tsi_spgemm_args<T> a, unsigned char *pool, size_t slot_bytes, size_t bitmap_bytes,
                              size_t part_bytes) {
  constexpr int W = TSI_SPGEMM_LONG_WARPS;
  __shared__ int lo_s, hi_s;
  __shared__ int scratch[W + 1];
  unsigned char *slot = pool + (size_t)blockIdx.x * slot_bytes;
  unsigned *bits = reinterpret_cast<unsigned *>(slot);
  const int t = int(threadIdx.x), warp = t / 32, lane = t % 32;
  T *mine = reinterpret_cast<T *>(slot + bitmap_bytes + (size_t)warp * part_bytes);
  for (int64_t r = blockIdx.x; r < a.count; r += gridDim.x) {
    const int64_t row = a.rows[r];
    if (t == 0) {
      lo_s = TSI_SPGEMM_EMPTY;
      hi_s = -1;
    }
    __syncthreads();
    int lo = TSI_SPGEMM_EMPTY, hi = -1;
    tsi_spgemm_warp_entries(a, row, 32 * warp, 32 * W, lane, [&](T xe, int32_t col, T b) {
      atomicOr(bits + (col >> 5), 1u << (col & 31));
      mine[col] += xe * b;
      lo = min(lo, (int)col);
      hi = max(hi, (int)col);
    });
    if (hi >= 0) {
      atomicMin(&lo_s, lo);
      atomicMax(&hi_s, hi);
    }
    __syncthreads();
    const int first = lo_s >> 5, last = hi_s >> 5; /* last < first: no products */
    int64_t at = a.c_off[row] - a.c_base;
    for (int chunk = first; chunk <= last; chunk += 32 * W) {
      const int base = chunk + 32 * warp, w = base + lane;
      const unsigned word = w <= last ? __ldcg(bits + w) : 0u;
      const int count = __popc(word);
      const int incl = tsi_spgemm_warp_inclusive_sum(count, lane);
      int total = 0;
      const int before = tsi_spgemm_block_exclusive<int, TSI_SPGEMM_LONG_BLOCK>(
          lane == 31 ? incl : 0, scratch, &total); /* lane 31's: the warps before */
      const int64_t pos = at + __shfl_sync(0xffffffffu, before, 31) + incl - count;
      if (w <= last)
        bits[w] = 0u;
      tsi_spgemm_emit_words(word, pos, base, lane, [&](int col, int64_t out) {
        T sum = T(0);
        for (int q = 0; q < W; q++) {
          T *part = reinterpret_cast<T *>(slot + bitmap_bytes + (size_t)q * part_bytes);
          sum += part[col];
          part[col] = T(0);
        }
        a.c_cols[out] = col;
        a.c_vals[out] = sum;
      });
      at += total;
    }
    __syncthreads();
  }
}

/* Warps a block of the dense rows' numeric kernel. */
#define TSI_SPGEMM_DENSE_FILL_WARPS 8

/*
 * Numeric for the dense rows, a warp a slot (a bitmap of bitmap_bytes, then
 * a value per column): A's entries 32 at a time, one a lane (their column,
 * value and row of B loaded together), then taken in order by shuffles, the
 * lanes over that row of B; a product's value slot is read beside the
 * atomicOr that says whether the column was seen (the first product stored,
 * the next added: the sequential sum); a warp barrier between entries. Then
 * the bitmap's words between the row's first and last column are read in
 * order, a word a lane, and their columns written sorted, a word at a time
 * and a lane a column (tsi_spgemm_emit_words()); the words are left zero
 * for the next row.
 */
template <class T>
__global__ void __launch_bounds__(TSI_SPGEMM_DENSE_FILL_WARPS * 32)
    tsi_spgemm_fill_dense_rows(tsi_spgemm_args<T> a, unsigned char *pool, size_t slot_bytes, size_t bitmap_bytes,
                               int64_t slots) {
  const int64_t warp = (int64_t)blockIdx.x * TSI_SPGEMM_DENSE_FILL_WARPS + int(threadIdx.x) / 32;
  if (warp >= slots)
    return; /* the whole warp */
  unsigned char *slot = pool + (size_t)warp * slot_bytes;
  unsigned *bits = reinterpret_cast<unsigned *>(slot);
  T *values = reinterpret_cast<T *>(slot + bitmap_bytes);
  const int lane = int(threadIdx.x) & 31;
  for (int64_t r = warp; r < a.count; r += slots) {
    const int64_t row = a.rows[r];
    int lo = TSI_SPGEMM_EMPTY, hi = -1;
    tsi_spgemm_warp_entries(a, row, 0, 32, lane, [&](T xe, int32_t col, T b) {
      const T product = xe * b;
      const unsigned bit = 1u << (col & 31);
      const T before = values[col]; /* stale until the bit is set */
      const bool seen = (atomicOr(bits + (col >> 5), bit) & bit) != 0u;
      values[col] = seen ? before + product : product;
      lo = min(lo, (int)col);
      hi = max(hi, (int)col);
    });
    lo = tsi_spgemm_warp_min(lo);
    hi = tsi_spgemm_warp_max(hi);
    tsi_spgemm_warp_write_row(bits, values, lo, hi, a.c_off[row] - a.c_base, a.c_cols, a.c_vals, lane,
                              [&](int w) { return __ldcg(bits + w); });
    __syncwarp();
  }
}

#endif
