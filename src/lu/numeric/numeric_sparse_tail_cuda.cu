/* The right-looking tail of the GPU factorization (columns tail_start ..
 * n - 1, the last, narrow levels) column by column in the sparse pattern,
 * where the device cache keeps it sparse: each tail column first gathers the
 * finished left-looking columns' updates entry by entry, level by level
 * (tail_gather_order_gpu.c; a block per column, or many blocks a level for
 * the long ones), then one launch per column computes its pivot
 * and pushes its update into the trailing columns, spread over many blocks.
 * Every entry receives its updates in increasing column order, products and
 * differences rounded separately: the host's left-looking code's bits;
 * but for the entries from the tail down whose rows of L are very long (a
 * netlist's rails meeting), summed by segments on many blocks
 * (tail_segments_gpu.c): a fixed order, the same bits run after run, the
 * host's to rounding. */
#include "lu/numeric/numeric_cuda.cuh"

#include <cuda_runtime.h>

/* Where row j lies in tail column k, below search_end: with map (column
 * k's rows above tail_start, offset + 1 by row, 0 where absent), one load;
 * else a binary search. -1 when absent. */
__device__ __forceinline__ int64_t tail_find(const factor_args &a, const int32_t *map, int64_t begin,
                                             int64_t search_end, int32_t j) {
  if (!map)
    return find_row(a.row_idx, begin, search_end, j);
  const int64_t q = begin + (int64_t)map[j] - 1;
  return q >= begin && q < search_end ? q : -1;
}

/* One term of a row of L in the tail's gather: entry e of the rows of L
 * (inside: e is in the row), its column j, L(i, j)'s position in the
 * factors, and U(j, k)'s place in tail column k (-1 when absent, or when j
 * is a tail column: past, as every later term of the row). */
struct tail_term {
  int64_t place, position;
  bool past;
};

__device__ __forceinline__ tail_term locate_tail_term(const factor_args &a, const int32_t *map, int64_t e, bool inside,
                                                      int64_t begin, int64_t search_end, int64_t tail_start) {
  const int32_t j = inside ? a.lrow_col[e] : (int32_t)tail_start;
  tail_term term;
  term.past = j >= tail_start;
  term.position = inside ? a.lrow_pos[e] : 0;
  term.place = term.past ? -1 : tail_find(a, map, begin, search_end, j);
  return term;
}

/* Entry p (row i) of tail column k, whose entries above tail_start lie in
 * [begin, first_tail): subtract L(i, j) U(j, k) for the columns j <
 * tail_start of row i of L, in increasing order, where U(j, k) is an entry
 * of column k (found below min(p, first_tail)) and not zero: the
 * operations, and the order, of the host's left-looking update
 * (tail_gather_order_gpu.c). TSI_LU_TAIL_BATCH terms at a time, their
 * loads issued together before their subtractions (each term's loads are a
 * chain of three: its column, its place in column k, its values). */
template <typename T>
__device__ __forceinline__ void gather_entry(const factor_args &a, const T *values, const int32_t *map, int64_t p,
                                             int64_t begin, int64_t first_tail, int64_t tail_start) {
  using W = work_of<T>;
  constexpr int batch = TSI_LU_TAIL_BATCH;
  W *acc = (W *)a.acc;
  const int32_t i = a.row_idx[p];
  const int64_t search_end = p < first_tail ? p : first_tail, row_end = a.lrow_ptr[i + 1];
  W x = acc[p];
  for (int64_t base = a.lrow_ptr[i]; base < row_end; base += batch) {
    int64_t place[batch], position[batch];
    bool past = false;
#pragma unroll
    for (int b = 0; b < batch; b++) {
      const tail_term term = locate_tail_term(a, map, base + b, base + b < row_end, begin, search_end, tail_start);
      past = past || term.past; /* columns j of the tail come later, from tail_step */
      position[b] = term.position;
      place[b] = term.place;
    }
    W u[batch], l[batch];
#pragma unroll
    for (int b = 0; b < batch; b++) {
      u[b] = place[b] >= 0 ? acc[place[b]] : work_zero<W>();
      l[b] = place[b] >= 0 ? widen(values[position[b]]) : work_zero<W>();
    }
#pragma unroll
    for (int b = 0; b < batch; b++)
      if (place[b] >= 0 && !is_zero(u[b]))
        x = minus_product(x, l[b], u[b]);
    if (past)
      break;
  }
  acc[p] = x;
}

/* The rounded product l * u of one term, and a term taken from another
 * lane (a complex one part by part). */
__device__ __forceinline__ double term_product(double l, double u) { return __dmul_rn(l, u); }
__device__ __forceinline__ tsi_complex128 term_product(tsi_complex128 l, tsi_complex128 u) { return tsi_z_mul(l, u); }
__device__ __forceinline__ double minus_term(double x, double product) { return __dsub_rn(x, product); }
__device__ __forceinline__ tsi_complex128 minus_term(tsi_complex128 x, tsi_complex128 product) {
  return tsi_z_sub(x, product);
}
__device__ __forceinline__ double shuffled(double v, int lane) { return __shfl_sync(0xffffffffu, v, lane); }
__device__ __forceinline__ tsi_complex128 shuffled(tsi_complex128 v, int lane) {
  return tsi_z(__shfl_sync(0xffffffffu, v.re, lane), __shfl_sync(0xffffffffu, v.im, lane));
}
/* x + y rounded (a segment's sums), and a value from the lane delta above. */
__device__ __forceinline__ double plus_term(double x, double y) { return __dadd_rn(x, y); }
__device__ __forceinline__ tsi_complex128 plus_term(tsi_complex128 x, tsi_complex128 y) { return tsi_z_add(x, y); }
__device__ __forceinline__ double shuffled_down(double v, int delta) { return __shfl_down_sync(0xffffffffu, v, delta); }
__device__ __forceinline__ tsi_complex128 shuffled_down(tsi_complex128 v, int delta) {
  return tsi_z(__shfl_down_sync(0xffffffffu, v.re, delta), __shfl_down_sync(0xffffffffu, v.im, delta));
}

/* gather_entry for a long row of L, a warp at a time: each lane forms one
 * term's rounded product (its search and loads in parallel with the
 * others'), then every lane subtracts the products in increasing j, taking
 * each from its lane: the operations and order of gather_entry, so the same
 * bits, with the row's loads spread over the warp. */
template <typename T>
__device__ void gather_entry_warp(const factor_args &a, const T *values, const int32_t *map, int64_t p, int64_t begin,
                                  int64_t first_tail, int64_t tail_start, int lane) {
  using W = work_of<T>;
  W *acc = (W *)a.acc;
  const int32_t i = a.row_idx[p];
  const int64_t search_end = p < first_tail ? p : first_tail, row_end = a.lrow_ptr[i + 1];
  W x = acc[p];
  for (int64_t base = a.lrow_ptr[i]; base < row_end; base += 32) {
    const int64_t e = base + lane;
    W product = work_zero<W>();
    bool term = false, past = false;
    if (e < row_end) {
      const tail_term found = locate_tail_term(a, map, e, true, begin, search_end, tail_start);
      past = found.past; /* and every later lane's */
      if (found.place >= 0) {
        const W u = acc[found.place];
        term = !is_zero(u);
        product = term_product(widen(values[found.position]), u);
      }
    }
    for (unsigned m = __ballot_sync(0xffffffffu, term); m; m &= m - 1)
      x = minus_term(x, shuffled(product, __ffs(m) - 1));
    if (__any_sync(0xffffffffu, past))
      break;
  }
  if (lane == 0)
    acc[p] = x;
}

/* gather_entry for an entry whose row of L is much longer than the part of
 * column k it can meet (a rail's row against a tail column of a few
 * entries above tail_start), a warp at a time, driven by the column
 * instead: each lane takes an entry U(j, k) of column k above the search's
 * end and finds L(i, j) in column j (a search over its few rows below the
 * diagonal); the terms are those of the row's walk (both lists' common j,
 * U(j, k) not zero), subtracted in increasing j as there: the same bits
 * for a few searches instead of a walk along the whole row. */
template <typename T>
__device__ void gather_entry_by_column(const factor_args &a, const T *values, int64_t p, int64_t begin,
                                       int64_t first_tail, int lane) {
  using W = work_of<T>;
  W *acc = (W *)a.acc;
  const int32_t i = a.row_idx[p];
  const int64_t search_end = p < first_tail ? p : first_tail;
  W x = acc[p];
  for (int64_t base = begin; base < search_end; base += 32) {
    const int64_t q = base + lane;
    W product = work_zero<W>();
    bool term = false;
    if (q < search_end) {
      const W u = acc[q];
      if (!is_zero(u)) {
        const int32_t j = a.row_idx[q];
        const int64_t position = find_row(a.row_idx, a.diag_pos[j] + 1, a.col_ptr[j + 1], i);
        term = position >= 0;
        if (term)
          product = term_product(widen(values[position]), u);
      }
    }
    for (unsigned m = __ballot_sync(0xffffffffu, term); m; m &= m - 1)
      x = minus_term(x, shuffled(product, __ffs(m) - 1));
  }
  if (lane == 0)
    acc[p] = x;
}

/* gather_entry for very long rows of L (a rail's row, as long as the
 * order), entries list[0 .. count) by the whole block, up to
 * TSI_LU_TAIL_BLOCK_ENTRIES at a time: every thread forms rounded products
 * of a chunk of the group's terms in shared memory, then the first lane of
 * warp q subtracts entry q's in increasing j. A slot without a term holds
 * zero, whose subtraction leaves every value's bits as they were (x - (+0)
 * is x, -0 included): gather_entry's operations in its order, so its bits,
 * with the loads of a whole row in flight at once instead of 32 a step. */
template <typename T>
__device__ void gather_entries_block(const factor_args &a, const T *values, const int32_t *map, const int64_t *list,
                                     int count, int64_t begin, int64_t first_tail, int64_t tail_start) {
  using W = work_of<T>;
  constexpr int group = TSI_LU_TAIL_BLOCK_ENTRIES;
  constexpr int chunk = TSI_LU_TAIL_BLOCK_BYTES / (group * (int)sizeof(W));
  constexpr int slots = group * chunk / TSI_LU_TAIL_GATHER_THREADS;
  static_assert(slots * TSI_LU_TAIL_GATHER_THREADS == group * chunk, "a chunk's slots spread evenly over the block");
  __shared__ W products[group][chunk];
  __shared__ int64_t row_begin[group], row_length[group], search_end[group];
  W *acc = (W *)a.acc;
  const int warp = threadIdx.x >> 5;
  for (int g = 0; g < count; g += group) {
    const int members = count - g < group ? count - g : group;
    if (threadIdx.x < members) {
      const int64_t p = list[g + threadIdx.x];
      const int32_t i = a.row_idx[p];
      row_begin[threadIdx.x] = a.lrow_ptr[i];
      row_length[threadIdx.x] = a.lrow_ptr[i + 1] - a.lrow_ptr[i];
      search_end[threadIdx.x] = p < first_tail ? p : first_tail;
    }
    __syncthreads();
    int64_t longest = 0;
    for (int q = 0; q < members; q++)
      longest = row_length[q] > longest ? row_length[q] : longest;
    const bool owner = (threadIdx.x & 31) == 0 && warp < members;
    const int64_t own_p = owner ? list[g + warp] : 0;
    W x = owner ? acc[own_p] : work_zero<W>();
    for (int64_t base = 0; base < longest; base += chunk) {
      /* Each thread's slots s = threadIdx.x + b * TSI_LU_TAIL_GATHER_THREADS,
       * their loads issued together. */
      int64_t place[slots], position[slots];
#pragma unroll
      for (int b = 0; b < slots; b++) {
        const int s = threadIdx.x + b * TSI_LU_TAIL_GATHER_THREADS, q = s / chunk;
        const int64_t offset = base + (s - q * chunk), e = row_begin[q] + offset;
        const bool inside = q < members && offset < row_length[q];
        const tail_term term = locate_tail_term(a, map, e, inside, begin, search_end[q < members ? q : 0], tail_start);
        position[b] = term.position;
        place[b] = term.place;
      }
#pragma unroll
      for (int b = 0; b < slots; b++) {
        const int s = threadIdx.x + b * TSI_LU_TAIL_GATHER_THREADS, q = s / chunk;
        const W u = place[b] >= 0 ? acc[place[b]] : work_zero<W>();
        const W l = place[b] >= 0 ? widen(values[position[b]]) : work_zero<W>();
        products[q][s - q * chunk] = place[b] >= 0 && !is_zero(u) ? term_product(l, u) : work_zero<W>();
      }
      __syncthreads();
      if (owner) {
        const int64_t left = row_length[warp] - base;
        const int terms = left < chunk ? (int)left : chunk;
#pragma unroll 8
        for (int t = 0; t < terms; t++)
          x = minus_term(x, products[warp][t]);
      }
      __syncthreads(); /* the products read before the next chunk overwrites them */
    }
    if (owner)
      acc[own_p] = x;
  }
}

/* Entries order[first .. last) (or, with order NULL, positions first ..
 * last) of tail column k, a window of blockDim.x entries at a time, each
 * entry looked at by one thread: short rows of L by that thread, long rows
 * listed for a warp each (driven by the column where the column's part
 * above the entry is TSI_LU_TAIL_COLUMN_SIDE times shorter than the row;
 * listed as -(p + 1)), very long rows listed for the whole block; rows
 * longer than skip_row left to the segments' sums (tail_segment_sums). The
 * entries of a call do not read one another, so the lists' order does not
 * change a bit. */
template <typename T>
__device__ void gather_entries(const factor_args &a, const T *values, const int32_t *map, const int64_t *order,
                               int64_t first, int64_t last, int64_t begin, int64_t first_tail, int64_t tail_start,
                               int64_t block_row, int64_t skip_row) {
  __shared__ int64_t warp_rows[TSI_LU_TAIL_GATHER_THREADS], block_rows[TSI_LU_TAIL_GATHER_THREADS];
  __shared__ int warp_count, block_count;
  const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  for (int64_t window = first; window < last; window += blockDim.x) {
    if (threadIdx.x == 0) {
      warp_count = 0;
      block_count = 0;
    }
    __syncthreads();
    const int64_t e = window + threadIdx.x;
    if (e < last) {
      const int64_t p = order ? order[e] : e;
      const int32_t i = a.row_idx[p];
      const int64_t length = a.lrow_ptr[i + 1] - a.lrow_ptr[i];
      const int64_t above = (p < first_tail ? p : first_tail) - begin;
      if (length > skip_row) {
        /* summed by segments */
      } else if (length <= TSI_LU_TAIL_LONG_ROW)
        gather_entry<T>(a, values, map, p, begin, first_tail, tail_start);
      else if (length > TSI_LU_TAIL_COLUMN_SIDE * above)
        warp_rows[atomicAdd(&warp_count, 1)] = -(p + 1);
      else if (length <= block_row)
        warp_rows[atomicAdd(&warp_count, 1)] = p;
      else
        block_rows[atomicAdd(&block_count, 1)] = p;
    }
    __syncthreads();
    for (int w = threadIdx.x >> 5; w < warp_count; w += warps) {
      if (warp_rows[w] < 0)
        gather_entry_by_column<T>(a, values, -warp_rows[w] - 1, begin, first_tail, lane);
      else
        gather_entry_warp<T>(a, values, map, warp_rows[w], begin, first_tail, tail_start, lane);
    }
    if (block_count > 0)
      gather_entries_block<T>(a, values, map, block_rows, block_count, begin, first_tail, tail_start);
    __syncthreads(); /* the counts read by every thread before the next window clears them */
  }
}

/* The tail's columns gather the updates of the finished columns j <
 * tail_start (a block per column): the entries above tail_start level by
 * level (a level's entries do not update one another), a barrier between
 * levels, then the entries from tail_start down. With use_map (the dense
 * scratch, a slot per block), the column's rows above tail_start are mapped
 * in the block's slot first, so that a term's U(j, k) is one load instead
 * of a binary search over the column (a dependent load per halving of a
 * long column); the map is cleared after, leaving the slot zero. A split
 * column (split_index[c] >= 0) has had its entries above tail_start
 * gathered by tail_gather_pieces; its few rows from tail_start down search. */
template <typename T>
__global__ void __launch_bounds__(TSI_LU_TAIL_GATHER_THREADS)
    tail_gather(factor_args a, const T *values, int64_t tail_start, const int64_t *order_ptr, const int64_t *order,
                const int64_t *run_ptr, const int64_t *run_end, const int32_t *split_index, bool use_map,
                bool split_map, int64_t first_slot, int64_t block_row, int64_t skip_row) {
  using W = work_of<T>;
  int32_t *slot = use_map ? reinterpret_cast<int32_t *>((W *)a.scratch + (first_slot + blockIdx.x) * a.n) : NULL;
  for (int64_t c = blockIdx.x; c < a.n - tail_start; c += gridDim.x) {
    const int64_t k = tail_start + c, begin = a.col_ptr[k], end = a.col_ptr[k + 1];
    const int64_t first_tail = begin + (order_ptr[c + 1] - order_ptr[c]);
    const int32_t b = split_index ? split_index[c] : -1;
    const bool split = b >= 0;
    int32_t *split_slot = split_map && split ? reinterpret_cast<int32_t *>((W *)a.scratch + (int64_t)b * a.n) : NULL;
    int32_t *map = split ? split_slot : slot;
    if (map && !split) {
      for (int64_t p = begin + threadIdx.x; p < first_tail; p += blockDim.x)
        map[a.row_idx[p]] = (int32_t)(p - begin + 1);
      __syncthreads();
    }
    int64_t run_begin = order_ptr[c];
    for (int64_t r = run_ptr[c]; !split && r < run_ptr[c + 1]; r++) {
      const int64_t stop = run_end[r];
      gather_entries<T>(a, values, map, order, run_begin, stop, begin, first_tail, tail_start, block_row, INT64_MAX);
      __syncthreads(); /* the level's entries final before the next level reads them */
      run_begin = stop;
    }
    gather_entries<T>(a, values, map, NULL, first_tail, end, begin, first_tail, tail_start, block_row, skip_row);
    __syncthreads(); /* column k done before the block moves on (its runs' barriers assume the whole block) */
    if (map && !split) {
      for (int64_t p = begin + threadIdx.x; p < first_tail; p += blockDim.x)
        map[a.row_idx[p]] = 0;
      __syncthreads();
    }
  }
}

/* Split column b's rows above tail_start mapped (set) in scratch slot b,
 * or the map cleared, by many blocks: the pieces' one-load lookups. */
template <typename T>
__global__ void __launch_bounds__(TSI_LU_TAIL_GATHER_THREADS)
    tail_split_map(factor_args a, int64_t tail_start, const int64_t *order_ptr, const int32_t *split_cols, bool set) {
  const int64_t b = blockIdx.y, c = split_cols[b], begin = a.col_ptr[tail_start + c];
  const int64_t first_tail = begin + (order_ptr[c + 1] - order_ptr[c]);
  int32_t *map = reinterpret_cast<int32_t *>((work_of<T> *)a.scratch + b * a.n);
  for (int64_t p = begin + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < first_tail;
       p += (int64_t)gridDim.x * blockDim.x)
    map[a.row_idx[p]] = set ? (int32_t)(p - begin + 1) : 0;
}

/* One level of the split columns: block q gathers piece first_piece + q,
 * entries of one level of one column (tail_gather_order_gpu.c), which do
 * not read one another; the launches go by increasing level. With use_map,
 * split column b's rows are mapped in slot b (tail_split_map). */
template <typename T>
__global__ void __launch_bounds__(TSI_LU_TAIL_GATHER_THREADS)
    tail_gather_pieces(factor_args a, const T *values, int64_t tail_start, const int64_t *order_ptr,
                       const int64_t *order, const int32_t *split_index, const int32_t *piece_column,
                       const int64_t *piece_first, const int64_t *piece_last, int64_t first_piece, bool use_map,
                       int64_t block_row) {
  const int64_t q = first_piece + blockIdx.x, c = piece_column[q], begin = a.col_ptr[tail_start + c];
  const int64_t first_tail = begin + (order_ptr[c + 1] - order_ptr[c]);
  const int32_t *map =
      use_map ? reinterpret_cast<const int32_t *>((work_of<T> *)a.scratch + (int64_t)split_index[c] * a.n) : NULL;
  gather_entries<T>(a, values, map, order, piece_first[q], piece_last[q], begin, first_tail, tail_start, block_row,
                    INT64_MAX);
}

/* Segment s of a long entry (tail_segments_gpu.c): the sum of its terms
 * L(i, j) U(j, k) over its positions of row i of L (j below tail_start,
 * U(j, k) in column k above the tail and not zero), each thread summing its
 * positions in increasing order from zero, then the block's sums by a fixed
 * tree: a fixed order, so the same bits run after run, though not the row
 * walk's. U(j, k) from the split column's map where it has one, else by a
 * search of the column. */
template <typename T>
__global__ void __launch_bounds__(TSI_LU_TAIL_GATHER_THREADS)
    tail_segment_sums(factor_args a, const T *values, int64_t tail_start, const int64_t *order_ptr,
                      const int32_t *split_index, bool split_map, const int64_t *entry, const int32_t *entry_column,
                      const int64_t *entry_first, const int32_t *segment_entry, int64_t length, work_of<T> *partials) {
  using W = work_of<T>;
  __shared__ W warp_sums[TSI_LU_TAIL_GATHER_THREADS / 32];
  const W *acc = (const W *)a.acc;
  const int64_t s = blockIdx.x, q = segment_entry[s], p = entry[q], c = entry_column[q];
  const int64_t begin = a.col_ptr[tail_start + c], first_tail = begin + (order_ptr[c + 1] - order_ptr[c]);
  const int32_t b = split_map && split_index ? split_index[c] : -1;
  const int32_t *map = b >= 0 ? reinterpret_cast<const int32_t *>((const W *)a.scratch + (int64_t)b * a.n) : NULL;
  const int32_t i = a.row_idx[p];
  const int64_t row_end = a.lrow_ptr[i + 1], from = a.lrow_ptr[i] + (s - entry_first[q]) * length;
  const int64_t to = from + length < row_end ? from + length : row_end;
  W sum = work_zero<W>();
#pragma unroll 4
  for (int64_t e = from + threadIdx.x; e < to; e += blockDim.x) {
    const tail_term term = locate_tail_term(a, map, e, true, begin, first_tail, tail_start);
    const W u = term.place >= 0 ? acc[term.place] : work_zero<W>();
    if (term.place >= 0 && !is_zero(u))
      sum = plus_term(sum, term_product(widen(values[term.position]), u));
  }
  for (int delta = 16; delta > 0; delta >>= 1)
    sum = plus_term(sum, shuffled_down(sum, delta));
  if ((threadIdx.x & 31) == 0)
    warp_sums[threadIdx.x >> 5] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    W total = warp_sums[0];
    for (int w = 1; w < (int)(blockDim.x >> 5); w++)
      total = plus_term(total, warp_sums[w]);
    partials[s] = total;
  }
}

/* The long entries less their segments' sums, in segment order, a thread
 * an entry. */
template <typename T>
__global__ void tail_segment_fold(factor_args a, int64_t entries, const int64_t *entry, const int64_t *entry_first,
                                  const work_of<T> *partials) {
  using W = work_of<T>;
  W *acc = (W *)a.acc;
  const int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= entries)
    return;
  W x = acc[entry[q]];
  for (int64_t s = entry_first[q]; s < entry_first[q + 1]; s++)
    x = minus_term(x, partials[s]);
  acc[entry[q]] = x;
}

/* Column j of the tail: every block stores its share of column prev
 * (factored by the previous launch; a rail's column of 10^5 entries is
 * many blocks' work), block 0 its pivot and the pivot's outcome; every
 * block computes j's pivot and pushes L(:, j) * U(j, k) into the columns k
 * of row j of U, a target per block. A block that reads prev's pivot after
 * block 0 stored it (the same array with double factors) reads the
 * classified pivot, which classifies to itself: the same divisor. */
template <typename T>
__global__ void __launch_bounds__(TSI_LU_TAIL_STEP_THREADS)
    tail_step(factor_args a, T *values, int64_t j, int64_t prev) {
  using W = work_of<T>;
  W *acc = (W *)a.acc;
  const int32_t *row_idx = a.row_idx;
  if (prev >= 0) {
    const int64_t begin = a.col_ptr[prev], diag = a.diag_pos[prev], end = a.col_ptr[prev + 1];
    W pivot = acc[diag];
    const int kind = classify_pivot(&pivot, a.rule);
    const W d = divider(pivot);
    __syncthreads(); /* acc[diag] read by the block before it is overwritten */
    for (int64_t p = begin + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < end;
         p += (int64_t)gridDim.x * blockDim.x) {
      if (p == diag)
        continue;
      W v = acc[p];
      values[p] = p < diag ? narrow<T>(v) : narrow<T>(divide(v, d));
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      values[diag] = narrow<T>(pivot);
      a.kind[prev] = (signed char)kind;
    }
  }
  if (j < 0)
    return;
  const int64_t diag = a.diag_pos[j], l_end = a.col_ptr[j + 1];
  W pivot = acc[diag];
  (void)classify_pivot(&pivot, a.rule);
  const W d = divider(pivot);
  for (int64_t e = a.urow_ptr[j] + blockIdx.x; e < a.urow_ptr[j + 1]; e += gridDim.x) {
    const int32_t k = a.urow_col[e];
    const int64_t p_jk = a.urow_pos[e];
    const W u = acc[p_jk];
    if (is_zero(u))
      continue;
    const int64_t end_k = a.col_ptr[k + 1];
    for (int64_t q = diag + 1 + threadIdx.x; q < l_end; q += blockDim.x) {
      const W l = widen(narrow<T>(divide(acc[q], d))); /* the value column j stores */
      int64_t pos = find_row(row_idx, p_jk + 1, end_k, row_idx[q]);
      if (pos >= 0)
        acc[pos] = minus_product(acc[pos], l, u);
    }
  }
}

template <typename T>
static ts_status run_sparse_tail(const ts_lu *lu, const tsi_lu_device *dev, const factor_args &args,
                                 cudaStream_t stream) {
  T *values = (T *)dev->values;
  const int64_t n = dev->n, tail_start = dev->tail_start;
  /* The position map needs a zero dense slot (two int32 words per double)
   * for each block. */
  const bool use_map = dev->scratch_mode == TSI_LU_SCRATCH_DENSE && dev->scratch && !lu->switches.gpu_tail_search;
  const int64_t block_row =
      lu->switches.gpu_tail_block_row > 0 ? lu->switches.gpu_tail_block_row : TSI_LU_TAIL_BLOCK_ROW;
  /* The split columns' maps take the first slots and stay through
   * tail_gather (their rows from tail_start down look up in them too); its
   * blocks take the slots after them. */
  const bool split_map = use_map && dev->tail_pieces > 0 && dev->tail_split_columns < dev->scratch_slots &&
                         dev->tail_split_columns <= 65535;
  const int64_t first_slot = split_map ? dev->tail_split_columns : 0;
  int64_t gather_blocks = n - tail_start;
  if (gather_blocks > 65535)
    gather_blocks = 65535;
  if (use_map && gather_blocks > dev->scratch_slots - first_slot)
    gather_blocks = dev->scratch_slots - first_slot;
  const dim3 map_grid(TSI_LU_TAIL_MAP_BLOCKS, (unsigned)(split_map ? dev->tail_split_columns : 1));
  if (split_map)
    tail_split_map<T><<<map_grid, TSI_LU_TAIL_GATHER_THREADS, 0, stream>>>(args, tail_start, dev->tail_order_ptr,
                                                                           dev->tail_split_cols, true);
  for (int64_t s = 0; s < dev->tail_launches; s++) {
    const int64_t first = dev->tail_launch_ptr_host[s], pieces = dev->tail_launch_ptr_host[s + 1] - first;
    tail_gather_pieces<T><<<(unsigned)pieces, TSI_LU_TAIL_GATHER_THREADS, 0, stream>>>(
        args, values, tail_start, dev->tail_order_ptr, dev->tail_order, dev->tail_split_index, dev->tail_piece_column,
        dev->tail_piece_first, dev->tail_piece_last, first, split_map, block_row);
  }
  tail_gather<T><<<(unsigned)gather_blocks, TSI_LU_TAIL_GATHER_THREADS, 0, stream>>>(
      args, values, tail_start, dev->tail_order_ptr, dev->tail_order, dev->tail_run_ptr, dev->tail_run_end,
      dev->tail_split_index, use_map, split_map, first_slot, block_row, dev->tail_segment_row);
  if (dev->tail_segments > 0) {
    using W = work_of<T>;
    tail_segment_sums<T><<<(unsigned)dev->tail_segments, TSI_LU_TAIL_GATHER_THREADS, 0, stream>>>(
        args, values, tail_start, dev->tail_order_ptr, dev->tail_split_index, split_map, dev->tail_long_entry,
        dev->tail_long_column, dev->tail_long_first, dev->tail_segment_entry, dev->tail_segment_length,
        (W *)dev->tail_partials);
    tail_segment_fold<T><<<(unsigned)((dev->tail_long_entries + 127) / 128), 128, 0, stream>>>(
        args, dev->tail_long_entries, dev->tail_long_entry, dev->tail_long_first, (const W *)dev->tail_partials);
  }
  if (split_map)
    tail_split_map<T><<<map_grid, TSI_LU_TAIL_GATHER_THREADS, 0, stream>>>(args, tail_start, dev->tail_order_ptr,
                                                                           dev->tail_split_cols, false);
  double last_check = tsi_seconds();
  for (int64_t j = tail_start; j <= n; j++) {
    ts_status st = tsi_lu_gpu_check_cancel(lu->ctx, &last_check, j, n);
    if (st != TS_SUCCESS)
      return st;
    int64_t targets = j < n ? dev->urow_ptr_host[j + 1] - dev->urow_ptr_host[j] : 0;
    const int64_t stores = j > tail_start ? lu->lu_col_ptr[j] - lu->lu_col_ptr[j - 1] : 0;
    if (targets < (stores + TSI_LU_TAIL_STORE_ENTRIES - 1) / TSI_LU_TAIL_STORE_ENTRIES)
      targets = (stores + TSI_LU_TAIL_STORE_ENTRIES - 1) / TSI_LU_TAIL_STORE_ENTRIES;
    if (targets < 1)
      targets = 1;
    if (targets > TSI_LU_TAIL_STEP_BLOCKS)
      targets = TSI_LU_TAIL_STEP_BLOCKS;
    tail_step<T><<<(unsigned)targets, TSI_LU_TAIL_STEP_THREADS, 0, stream>>>(args, values, j < n ? j : -1,
                                                                             j > tail_start ? j - 1 : -1);
  }
  return TS_SUCCESS;
}

ts_status tsi_lu_sparse_tail_cuda(const ts_lu *lu, const tsi_lu_device *dev, const factor_args &args,
                                  cudaStream_t stream) {
  if (dev->parts == 2)
    return dev->single ? run_sparse_tail<tsi_complex64>(lu, dev, args, stream)
                       : run_sparse_tail<tsi_complex128>(lu, dev, args, stream);
  return dev->single ? run_sparse_tail<float>(lu, dev, args, stream) : run_sparse_tail<double>(lu, dev, args, stream);
}
