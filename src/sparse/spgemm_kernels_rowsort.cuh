/* SpGEMM's rows of many products (the dense bin) by expand, sort, compress
 * in chunks of products under a byte budget, after the ESC scheme of Bell,
 * Dalton and Olson ("Exposing Fine-Grained Parallelism in Algebraic
 * Multigrid Methods", SIAM J. Sci. Comput. 34(4), 2012, section 3.2), with
 * a stable sort so that the sums are sequential.
 *
 * The products of the bin's rows, taken in the bin's row order and each
 * row's in the order of A's entries, form one flat sequence; entry_start[ka]
 * is the place of entry ka's first product in it (an exclusive scan of the
 * lengths of the rows of B that the bin's entries name, zero elsewhere) and
 * row_start[i] that of the bin's i-th row. Chunk c holds the products
 * [c cap, (c + 1) cap): each is written as a key (row in the chunk, column;
 * 32 bits when the two fit, else 64) and its value a_ik b_kj (expand), the keys sorted by a stable radix sort
 * (CUB) so that a column's run keeps A's order, the run heads scanned, and
 * each run summed in order from its first product into C, at the run's rank
 * among its row's runs (reduce). A row that a chunk boundary cuts (at most
 * two a chunk: the one coming in and the one going out) sums its runs into a
 * carry slot instead (a bitmap and a value per column of B: a run starts
 * from the value that earlier chunks left), and the last chunk it touches
 * writes the slot out in column order (flush). Every sum is therefore the
 * sequential one (first product, then each next added), whatever the chunk
 * size. Host-emulated in tests/sparse/test_spgemm_kernels_emulated.cpp. */
#ifndef TESSERA_SPGEMM_KERNELS_ROWSORT_CUH
#define TESSERA_SPGEMM_KERNELS_ROWSORT_CUH

#include "spgemm_cuda_args.cuh"

/* Threads of the flush block (one a chunk). */
#define TSI_SPGEMM_FLUSH_BLOCK 1024

/* What the chunks' kernels share, passed by value. */
template <class T> struct tsi_spgemm_rowsort_args {
  tsi_spgemm_args<T> a;          /* rows: the bin's rows in order, count: how many */
  const int64_t *entry_start;    /* nnz(A) + 1 */
  const int64_t *row_start;      /* count + 1 */
  const int32_t *chunk_first;    /* chunks: the row (bin index) of the chunk's first product */
  const int32_t *chunk_incoming; /* chunks: that row if it began in an earlier chunk, else -1 */
  const int32_t *chunk_slot;     /* chunks: the incoming row's carry slot */
  unsigned char *carry;          /* 2 slots: a bitmap of bitmap_bytes, then a value per column */
  size_t carry_slot_bytes, bitmap_bytes;
  int64_t capacity, products, chunks; /* products a chunk, in all, chunks */
  int col_bits;
};

/* The last i in [lo, hi] with starts[i] <= g (starts[lo] <= g). */
__device__ inline int64_t tsi_spgemm_last_at_or_before(const int64_t *starts, int64_t lo, int64_t hi, int64_t g) {
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (starts[mid] <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Lengths of the rows of B that the bin's entries name, a block a row (a
 * power law's hub rows hold tens of thousands of entries), at entry_start
 * (zero elsewhere beforehand; scanned afterwards). */
template <class T> __global__ void tsi_spgemm_rowsort_lengths(tsi_spgemm_args<T> a, int64_t *entry_start) {
  for (int64_t r = blockIdx.x; r < a.count; r += gridDim.x) {
    const int64_t row = a.rows[r];
    const int64_t end = a.a_off[row + 1];
#pragma unroll 4
    for (int64_t ka = a.a_off[row] + threadIdx.x; ka < end; ka += blockDim.x) {
      const int32_t k = a.a_cols[ka];
      entry_start[ka] = a.b_off[k + 1] - a.b_off[k];
    }
  }
}

/* row_start[i] = entry_start of the bin's row i's first entry; row_start[n]
 * = the products in all (entry_start[nnz(A)]). */
template <class T>
__global__ void tsi_spgemm_rowsort_row_starts(tsi_spgemm_args<T> a, const int64_t *entry_start, int64_t a_nnz,
                                              int64_t *row_start) {
  const int64_t threads = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i <= a.count; i += threads)
    row_start[i] = entry_start[i < a.count ? a.a_off[a.rows[i]] : a_nnz];
}

/* The chunks' table, by one thread: each chunk's first row, the row coming
 * in from the previous chunk (-1 when the chunk starts a row), and its carry
 * slot: a row keeps the slot it got at its first cut, and rows cut one after
 * the other alternate, so that the two rows a chunk may hold in carry slots
 * (the one coming in, the one going out) never share one. */
template <class T>
__global__ void tsi_spgemm_rowsort_chunk_table(tsi_spgemm_rowsort_args<T> s, int32_t *first, int32_t *incoming,
                                               int32_t *slot) {
  if (threadIdx.x != 0 || blockIdx.x != 0)
    return;
  int next_slot = 0;
  for (int64_t c = 0; c < s.chunks; c++) {
    const int64_t g0 = c * s.capacity;
    const int64_t i = tsi_spgemm_last_at_or_before(s.row_start, 0, s.a.count - 1, g0);
    first[c] = (int32_t)i;
    incoming[c] = s.row_start[i] < g0 ? (int32_t)i : -1;
    if (incoming[c] < 0)
      slot[c] = -1;
    else if (c > 0 && incoming[c - 1] == incoming[c])
      slot[c] = slot[c - 1];
    else {
      slot[c] = next_slot;
      next_slot ^= 1;
    }
  }
}

/* Products in chunk c (its first is c capacity). */
template <class T> __device__ inline int64_t tsi_spgemm_chunk_size(const tsi_spgemm_rowsort_args<T> &s, int64_t c) {
  const int64_t left = s.products - c * s.capacity;
  return left < s.capacity ? left : s.capacity;
}

/* Expand chunk c: product g = c capacity + t at place t, a thread a
 * product; its row by a binary search of row_start, its entry of A by one of
 * entry_start within the row. */
template <class T, class K>
__global__ void tsi_spgemm_rowsort_expand(tsi_spgemm_rowsort_args<T> s, int64_t c, K *keys, T *vals) {
  const int64_t g0 = c * s.capacity, n = tsi_spgemm_chunk_size(s, c);
  const int64_t i0 = s.chunk_first[c];
  const int64_t threads = (int64_t)gridDim.x * blockDim.x;
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += threads) {
    const int64_t g = g0 + t;
    const int64_t i = tsi_spgemm_last_at_or_before(s.row_start, i0, s.a.count - 1, g);
    const int64_t row = s.a.rows[i];
    const int64_t ka = tsi_spgemm_last_at_or_before(s.entry_start, s.a.a_off[row], s.a.a_off[row + 1] - 1, g);
    const int64_t kb = s.a.b_off[s.a.a_cols[ka]] + (g - s.entry_start[ka]);
    keys[t] = (K)((unsigned long long)(i - i0) << s.col_bits | (unsigned long long)(uint32_t)s.a.b_cols[kb]);
    vals[t] = s.a.a_vals[ka] * s.a.b_vals[kb];
  }
}

/* 1 at the first product of each run of equal keys (sorted), else 0: the
 * input of the scan that ranks the runs. */
template <class K> __global__ void tsi_spgemm_rowsort_heads(const K *keys, int64_t n, int32_t *heads) {
  const int64_t threads = (int64_t)gridDim.x * blockDim.x;
  for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < n; p += threads)
    heads[p] = p == 0 || keys[p] != keys[p - 1];
}

/* The end of the run of `key` that starts at p among the n sorted keys:
 * doubling steps, then halving (a run of m keys costs 2 log2(m) loads, not
 * m loads each waiting for the last). */
template <class K> __device__ inline int64_t tsi_spgemm_run_end(const K *keys, int64_t p, int64_t n, K key) {
  int64_t lo = p, step = 1; /* keys[lo] == key */
  while (lo + step < n && keys[lo + step] == key) {
    lo += step;
    step *= 2;
  }
  int64_t hi = lo + step < n ? lo + step : n; /* keys[hi] != key, or hi == n */
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] == key)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

/* acc + vals[p + 1] + ... + vals[end - 1], added in that order (8 loads
 * issued before their adds). */
template <class T> __device__ inline T tsi_spgemm_run_sum(T acc, const T *vals, int64_t p, int64_t end) {
  int64_t q = p + 1;
  for (; q + 8 <= end; q += 8) {
    T v[8];
#pragma unroll
    for (int u = 0; u < 8; u++)
      v[u] = vals[q + u];
#pragma unroll
    for (int u = 0; u < 8; u++)
      acc += v[u];
  }
  for (; q < end; q++)
    acc += vals[q];
  return acc;
}

/* Reduce chunk c (keys sorted, ranks = the exclusive scan of the heads): a
 * run's first thread sums it in order; a whole row's run goes to C at its
 * rank among the row's runs, a cut row's into its carry slot (starting from
 * the slot's value when an earlier chunk had the column). */
template <class T, class K>
__global__ void tsi_spgemm_rowsort_reduce(tsi_spgemm_rowsort_args<T> s, int64_t c, const K *keys, const T *vals,
                                          const int32_t *ranks) {
  const int64_t g0 = c * s.capacity, n = tsi_spgemm_chunk_size(s, c);
  const int64_t i0 = s.chunk_first[c];
  const int32_t incoming = s.chunk_incoming[c];
  const int32_t outgoing = c + 1 < s.chunks ? s.chunk_incoming[c + 1] : -1;
  const K col_mask = (K)((1ull << s.col_bits) - 1);
  const int64_t threads = (int64_t)gridDim.x * blockDim.x;
  for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < n; p += threads) {
    const K key = keys[p];
    if (p > 0 && keys[p - 1] == key)
      continue;
    const int64_t i = i0 + (int64_t)(key >> s.col_bits);
    const int32_t col = (int32_t)(key & col_mask);
    if (i == incoming || i == outgoing) {
      const int slot = i == incoming ? s.chunk_slot[c] : s.chunk_slot[c + 1];
      unsigned char *base = s.carry + (size_t)slot * s.carry_slot_bytes;
      unsigned *bits = reinterpret_cast<unsigned *>(base);
      T *sums = reinterpret_cast<T *>(base + s.bitmap_bytes);
      const unsigned bit = 1u << (col & 31);
      const bool seen = (atomicOr(bits + (col >> 5), bit) & bit) != 0u;
      sums[col] =
          tsi_spgemm_run_sum(seen ? sums[col] + vals[p] : vals[p], vals, p, tsi_spgemm_run_end(keys, p, n, key));
    } else {
      const T acc = tsi_spgemm_run_sum(vals[p], vals, p, tsi_spgemm_run_end(keys, p, n, key));
      const int64_t first = s.row_start[i] - g0; /* the row's first place: it starts in this chunk */
      const int64_t at = s.a.c_off[s.a.rows[i]] - s.a.c_base + (ranks[p] - ranks[first]);
      s.a.c_cols[at] = col;
      s.a.c_vals[at] = acc;
    }
  }
}

/* After chunk c's reduce: when the row coming into chunk c ends there, one
 * block (a multiple of 32 threads, at most TSI_SPGEMM_FLUSH_BLOCK) writes
 * its carry slot out in column order into C (a word of the bitmap a
 * thread, placed by a block scan of the words' counts) and clears the
 * bitmap (a value without its bit is never read). */
template <class T>
__global__ void __launch_bounds__(TSI_SPGEMM_FLUSH_BLOCK)
    tsi_spgemm_rowsort_flush(tsi_spgemm_rowsort_args<T> s, int64_t c) {
  __shared__ int warp_before[TSI_SPGEMM_FLUSH_BLOCK / 32 + 1];
  __shared__ int64_t done;
  const int32_t incoming = s.chunk_incoming[c];
  if (incoming < 0 || (c + 1 < s.chunks && s.chunk_incoming[c + 1] == incoming))
    return; /* the whole block */
  unsigned char *base = s.carry + (size_t)s.chunk_slot[c] * s.carry_slot_bytes;
  unsigned *bits = reinterpret_cast<unsigned *>(base);
  const T *sums = reinterpret_cast<const T *>(base + s.bitmap_bytes);
  const int t = int(threadIdx.x), threads = int(blockDim.x), lane = t & 31, warps = threads / 32;
  const int64_t words = (s.a.b_width + 31) / 32;
  if (t == 0)
    done = s.a.c_off[s.a.rows[incoming]] - s.a.c_base;
  for (int64_t w0 = 0; w0 < words; w0 += threads) {
    const int64_t w = w0 + t;
    const unsigned word = w < words ? __ldcg(bits + w) : 0u;
    const int count = __popc(word);
    const int incl = tsi_spgemm_warp_inclusive_sum(count, lane);
    if (lane == 31)
      warp_before[t / 32] = incl;
    __syncthreads();
    if (t == 0) { /* the warps' totals into their exclusive sums (at most 32) */
      int run = 0;
      for (int q = 0; q < warps; q++) {
        const int x = warp_before[q];
        warp_before[q] = run;
        run += x;
      }
      warp_before[warps] = run;
    }
    __syncthreads();
    int64_t at = done + warp_before[t / 32] + incl - count;
    for (unsigned rest = word; rest != 0u; rest &= rest - 1u) {
      const int col = (int)(w * 32) + __ffs((int)rest) - 1;
      s.a.c_cols[at] = col;
      s.a.c_vals[at] = sums[col];
      at++;
    }
    if (word != 0u)
      bits[w] = 0u;
    __syncthreads();
    if (t == 0)
      done += warp_before[warps];
    __syncthreads();
  }
}

/* Symbolic, a wave of rows first .. first + rows - 1 of the bin, row i in
 * bitmap slot i - first: every product of the wave (a thread each, found as
 * in expand) sets its column's bit, so that the densest row is spread over
 * the whole GPU; each warp's lanes hold consecutive products, and a
 * segmented reduction over the lanes of one slot gives its least and
 * greatest column, added to bounds[2 slot], bounds[2 slot + 1] by one lane
 * a slot (not one atomic a product on one address). */
template <class T>
__global__ void tsi_spgemm_rowsort_mark(tsi_spgemm_rowsort_args<T> s, int64_t first, int64_t rows, unsigned char *pool,
                                        size_t slot_bytes, int *bounds) {
  const int lane = int(threadIdx.x) & 31;
  const int64_t g0 = s.row_start[first], g1 = s.row_start[first + rows];
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t base = g0 + 32 * warp; base < g1; base += stride) { /* the same in every lane */
    const int64_t g = base + lane;
    int slot = -1, lo = TSI_SPGEMM_EMPTY, hi = -1;
    if (g < g1) {
      const int64_t i = tsi_spgemm_last_at_or_before(s.row_start, first, first + rows - 1, g);
      const int64_t row = s.a.rows[i];
      const int64_t ka = tsi_spgemm_last_at_or_before(s.entry_start, s.a.a_off[row], s.a.a_off[row + 1] - 1, g);
      const int32_t col = s.a.b_cols[s.a.b_off[s.a.a_cols[ka]] + (g - s.entry_start[ka])];
      slot = (int)(i - first);
      unsigned *bits = reinterpret_cast<unsigned *>(pool + (size_t)slot * slot_bytes);
      atomicOr(bits + (col >> 5), 1u << (col & 31));
      lo = hi = col;
    }
    /* The lanes of a slot are contiguous: lane l takes lane l + d's partial
     * when it has the same slot. */
    for (int d = 1; d < 32; d *= 2) {
      const int other_slot = __shfl_down_sync(0xffffffffu, slot, d);
      const int other_lo = __shfl_down_sync(0xffffffffu, lo, d);
      const int other_hi = __shfl_down_sync(0xffffffffu, hi, d);
      if (lane + d < 32 && other_slot == slot) {
        lo = min(lo, other_lo);
        hi = max(hi, other_hi);
      }
    }
    const int before = __shfl_up_sync(0xffffffffu, slot, 1);
    if (slot >= 0 && (lane == 0 || before != slot)) {
      atomicMin(bounds + 2 * slot, lo);
      atomicMax(bounds + 2 * slot + 1, hi);
    }
  }
}

/* bounds of `slots` slots to (no column, none): least TSI_SPGEMM_EMPTY,
 * greatest -1. */
__global__ void tsi_spgemm_rowsort_clear_bounds(int *bounds, int64_t slots) {
  const int64_t threads = (int64_t)gridDim.x * blockDim.x;
  for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < slots; j += threads) {
    bounds[2 * j] = TSI_SPGEMM_EMPTY;
    bounds[2 * j + 1] = -1;
  }
}

/* Symbolic, after the wave's marks: a block a slot counts the bits between
 * its least and greatest column into row_nnz of its row, and leaves the
 * words and the bounds clear for the next wave. */
template <class T>
__global__ void tsi_spgemm_rowsort_count_wave(tsi_spgemm_rowsort_args<T> s, int64_t first, unsigned char *pool,
                                              size_t slot_bytes, int *bounds) {
  __shared__ unsigned long long found_s;
  const int64_t slot = blockIdx.x;
  unsigned *bits = reinterpret_cast<unsigned *>(pool + (size_t)slot * slot_bytes);
  if (threadIdx.x == 0)
    found_s = 0;
  __syncthreads();
  const int lo = bounds[2 * slot], hi = bounds[2 * slot + 1];
  unsigned long long found = 0;
  for (int w = (lo >> 5) + int(threadIdx.x); hi >= 0 && w <= (hi >> 5); w += int(blockDim.x)) {
    found += (unsigned long long)__popc(__ldcg(bits + w));
    bits[w] = 0u;
  }
  if (found)
    atomicAdd(&found_s, found);
  __syncthreads();
  if (threadIdx.x == 0) {
    s.a.row_nnz[s.a.rows[first + slot]] = (int64_t)found_s;
    bounds[2 * slot] = TSI_SPGEMM_EMPTY;
    bounds[2 * slot + 1] = -1;
  }
}

#endif
