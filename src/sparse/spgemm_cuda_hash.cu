/* SpGEMM's shared-memory hash bins: bin b holds rows whose bound is at most
 * half of a table of S = 2^(b + 5) slots. Tables up to TSI_SPGEMM_WARP_TABLE
 * take one warp a row (4 sub-groups of 8 lanes), larger ones one block a row
 * (8 sub-groups of a warp). The symbolic phase inserts every product's
 * column and counts the new ones; the numeric phase inserts them again,
 * sorts the table (bitonic; the empty slots sort last), and adds each
 * sub-group's products, in the order of A's entries, into partial sums of
 * its own at the column's place in the sorted keys, then writes the keys and
 * the partial sums' total in sub-group order. */
#include "spgemm_cuda_kernel.cuh"

namespace {

constexpr int kWarpsPerCountBlock = TSI_SPGEMM_BLOCK / 32;
constexpr int kWarpsPerFillBlock = 4;
constexpr int kWarpGroups = 32 / TSI_SPGEMM_LANES_PER_PARTIAL;

/* Partial sums of a block-per-row numeric kernel: a warp each, as many as
 * TSI_SPGEMM_PARTIAL_BYTES holds (at most the block's warps). */
template <class T, int S> __host__ __device__ constexpr int block_partials() {
  constexpr int fit = TSI_SPGEMM_PARTIAL_BYTES / (int)(S / 2 * sizeof(T));
  return fit > TSI_SPGEMM_BLOCK / 32 ? TSI_SPGEMM_BLOCK / 32 : fit < 1 ? 1 : fit;
}

struct warp_sync {
  __device__ void operator()() const { __syncwarp(); }
};
struct block_sync {
  __device__ void operator()() const { __syncthreads(); }
};
struct no_step {
  __device__ void operator()() const {}
};
/* The barrier of one sub-group of `lanes` lanes within a warp. */
struct sub_sync {
  unsigned mask;
  __device__ void operator()() const { __syncwarp(mask); }
};

__device__ inline unsigned sub_mask(int lanes) {
  if (lanes >= 32)
    return 0xffffffffu;
  const unsigned base = unsigned(threadIdx.x & 31) & ~unsigned(lanes - 1);
  return ((1u << lanes) - 1u) << base;
}

/* Symbolic, one warp a row: keys[S] and a counter per warp. */
template <int S> __global__ void __launch_bounds__(TSI_SPGEMM_BLOCK) count_warp(tsi_spgemm_args<float> a) {
  extern __shared__ int32_t shared_count[];
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) & 31;
  int32_t *keys = shared_count + warp * S;
  int32_t *found = shared_count + kWarpsPerCountBlock * S + warp;
  constexpr int L = TSI_SPGEMM_LANES_PER_PARTIAL;
  const int64_t warps = (int64_t)gridDim.x * kWarpsPerCountBlock;
  for (int64_t r = (int64_t)blockIdx.x * kWarpsPerCountBlock + warp; r < a.count; r += warps) {
    const int64_t row = a.rows[r];
    for (int s = lane; s < S; s += 32)
      keys[s] = TSI_SPGEMM_EMPTY;
    if (lane == 0)
      *found = 0;
    __syncwarp();
    tsi_spgemm_products(
        a, row, lane / L, kWarpGroups, lane % L, L,
        [&](int64_t, int64_t kb) {
          if (tsi_spgemm_insert(keys, S, a.b_cols[kb]))
            atomicAdd(found, 1);
        },
        no_step{});
    __syncwarp();
    if (lane == 0)
      a.row_nnz[row] = *found;
    __syncwarp();
  }
}

/* Symbolic, one block a row. */
template <int S> __global__ void __launch_bounds__(TSI_SPGEMM_BLOCK) count_block(tsi_spgemm_args<float> a) {
  extern __shared__ int32_t shared_count[];
  int32_t *keys = shared_count;
  int32_t *found = shared_count + S;
  const int t = int(threadIdx.x);
  for (int64_t r = blockIdx.x; r < a.count; r += gridDim.x) {
    const int64_t row = a.rows[r];
    for (int s = t; s < S; s += TSI_SPGEMM_BLOCK)
      keys[s] = TSI_SPGEMM_EMPTY;
    if (t == 0)
      *found = 0;
    __syncthreads();
    tsi_spgemm_products(
        a, row, t / 32, TSI_SPGEMM_BLOCK / 32, t & 31, 32,
        [&](int64_t, int64_t kb) {
          if (tsi_spgemm_insert(keys, S, a.b_cols[kb]))
            atomicAdd(found, 1);
        },
        no_step{});
    __syncthreads();
    if (t == 0)
      a.row_nnz[row] = *found;
    __syncthreads();
  }
}

/*
 * Numeric for one row by a group of `threads` threads (rank 0 ..), in
 * sub-groups of L lanes of which the first Q add partial sums: keys[S] and
 * partial[Q][S / 2] in shared memory, sync() the group's barrier.
 */
template <class T, int S, int L, int Q, class Sync>
__device__ void fill_row(const tsi_spgemm_args<T> &a, int64_t row, int rank, int threads, int32_t *keys, T *partial,
                         Sync sync) {
  const int64_t out = a.c_off[row] - a.c_base;
  const int n = int(a.c_off[row + 1] - a.c_off[row]); /* at most S / 2 */
  const int group = rank / L, lane = rank % L, groups = threads / L;
  for (int s = rank; s < S; s += threads)
    keys[s] = TSI_SPGEMM_EMPTY;
  sync();
  tsi_spgemm_products(
      a, row, group, groups, lane, L, [&](int64_t, int64_t kb) { (void)tsi_spgemm_insert(keys, S, a.b_cols[kb]); },
      no_step{});
  sync();
  tsi_spgemm_sort(keys, S, rank, threads, sync);
  for (int s = rank; s < Q * n; s += threads)
    partial[(s / n) * (S / 2) + s % n] = T(0);
  sync();
  if (group < Q) {
    T *mine = partial + group * (S / 2);
    tsi_spgemm_products(
        a, row, group, Q, lane, L,
        [&](int64_t ka, int64_t kb) { mine[tsi_spgemm_find(keys, n, a.b_cols[kb])] += a.a_vals[ka] * a.b_vals[kb]; },
        sub_sync{sub_mask(L)});
  }
  sync();
  for (int p = rank; p < n; p += threads) {
    T sum = partial[p];
    for (int q = 1; q < Q; q++)
      sum += partial[q * (S / 2) + p];
    a.c_cols[out + p] = keys[p];
    a.c_vals[out + p] = sum;
  }
  sync();
}

/* Numeric, one warp a row: per warp keys[S] then partial[kWarpGroups][S/2]. */
template <class T, int S> __global__ void __launch_bounds__(32 * kWarpsPerFillBlock) fill_warp(tsi_spgemm_args<T> a) {
  extern __shared__ __align__(16) unsigned char shared_fill[];
  constexpr size_t per_warp = S * sizeof(int32_t) + kWarpGroups * (S / 2) * sizeof(T);
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) & 31;
  int32_t *keys = reinterpret_cast<int32_t *>(shared_fill + warp * per_warp);
  T *partial = reinterpret_cast<T *>(shared_fill + warp * per_warp + S * sizeof(int32_t));
  const int64_t warps = (int64_t)gridDim.x * kWarpsPerFillBlock;
  for (int64_t r = (int64_t)blockIdx.x * kWarpsPerFillBlock + warp; r < a.count; r += warps)
    fill_row<T, S, TSI_SPGEMM_LANES_PER_PARTIAL, kWarpGroups>(a, a.rows[r], lane, 32, keys, partial, warp_sync{});
}

/* Numeric, one block a row: keys[S] then partial[Q][S/2]. */
template <class T, int S> __global__ void __launch_bounds__(TSI_SPGEMM_BLOCK) fill_block(tsi_spgemm_args<T> a) {
  extern __shared__ __align__(16) unsigned char shared_fill[];
  int32_t *keys = reinterpret_cast<int32_t *>(shared_fill);
  T *partial = reinterpret_cast<T *>(shared_fill + S * sizeof(int32_t));
  for (int64_t r = blockIdx.x; r < a.count; r += gridDim.x)
    fill_row<T, S, 32, block_partials<T, S>()>(a, a.rows[r], int(threadIdx.x), TSI_SPGEMM_BLOCK, keys, partial,
                                               block_sync{});
}

/* Launch with `shared` bytes of dynamic shared memory (opting in once past
 * the default 48 KB). */
template <class Kernel, class Args>
cudaError_t launch(Kernel kernel, int64_t groups, int per_block, int threads, size_t shared, const Args &args,
                   cudaStream_t stream) {
  if (groups <= 0)
    return cudaSuccess;
  if (shared > 48 * 1024) {
    cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
    if (err != cudaSuccess)
      return err;
  }
  kernel<<<(unsigned)tsi_spgemm_blocks(groups, per_block), threads, shared, stream>>>(args);
  return cudaPeekAtLastError();
}

template <int S> cudaError_t count_bin(const tsi_spgemm_args<float> &a, cudaStream_t stream) {
  if constexpr (S <= TSI_SPGEMM_WARP_TABLE)
    return launch(count_warp<S>, a.count, kWarpsPerCountBlock, TSI_SPGEMM_BLOCK,
                  (size_t)kWarpsPerCountBlock * (S + 1) * sizeof(int32_t), a, stream);
  else
    return launch(count_block<S>, a.count, 1, TSI_SPGEMM_BLOCK, (size_t)(S + 1) * sizeof(int32_t), a, stream);
}

template <class T, int S> cudaError_t fill_bin(const tsi_spgemm_args<T> &a, cudaStream_t stream) {
  if constexpr (S <= TSI_SPGEMM_WARP_TABLE) {
    const size_t per_warp = S * sizeof(int32_t) + kWarpGroups * (S / 2) * sizeof(T);
    return launch(fill_warp<T, S>, a.count, kWarpsPerFillBlock, 32 * kWarpsPerFillBlock, kWarpsPerFillBlock * per_warp,
                  a, stream);
  } else {
    const size_t shared = S * sizeof(int32_t) + (size_t)block_partials<T, S>() * (S / 2) * sizeof(T);
    return launch(fill_block<T, S>, a.count, 1, TSI_SPGEMM_BLOCK, shared, a, stream);
  }
}

template <class T> cudaError_t fill_by_table(const tsi_spgemm_args<T> &a, int bin, cudaStream_t stream) {
  switch (bin) {
  case 1:
    return fill_bin<T, 64>(a, stream);
  case 2:
    return fill_bin<T, 128>(a, stream);
  case 3:
    return fill_bin<T, 256>(a, stream);
  case 4:
    return fill_bin<T, 512>(a, stream);
  case 5:
    return fill_bin<T, 1024>(a, stream);
  case 6:
    return fill_bin<T, 2048>(a, stream);
  default:
    return fill_bin<T, 4096>(a, stream);
  }
}

} // namespace

static_assert(TSI_SPGEMM_FIRST_TABLE << (TSI_SPGEMM_SHARED_BINS - 1) == 4096, "bins 1-7: tables of 64 to 4096 slots");

cudaError_t tsi_spgemm_hash_count(const tsi_spgemm_device *d, int bin, cudaStream_t stream) {
  tsi_spgemm_args<float> a = tsi_spgemm_make_args<float>(d, NULL, 0, NULL, NULL);
  a.rows = d->row_list + d->bin_first[bin];
  a.count = d->bin_rows[bin];
  switch (bin) {
  case 1:
    return count_bin<64>(a, stream);
  case 2:
    return count_bin<128>(a, stream);
  case 3:
    return count_bin<256>(a, stream);
  case 4:
    return count_bin<512>(a, stream);
  case 5:
    return count_bin<1024>(a, stream);
  case 6:
    return count_bin<2048>(a, stream);
  default:
    return count_bin<4096>(a, stream);
  }
}

cudaError_t tsi_spgemm_hash_fill(const tsi_spgemm_device *d, int bin, const int64_t *c_off, int64_t c_base,
                                 int32_t *c_cols, void *c_vals, cudaStream_t stream) {
  if (d->dtype == TS_FLOAT32) {
    tsi_spgemm_args<float> a = tsi_spgemm_make_args<float>(d, c_off, c_base, c_cols, c_vals);
    a.rows = d->row_list + d->bin_first[bin];
    a.count = d->bin_rows[bin];
    return fill_by_table(a, bin, stream);
  }
  tsi_spgemm_args<double> a = tsi_spgemm_make_args<double>(d, c_off, c_base, c_cols, c_vals);
  a.rows = d->row_list + d->bin_first[bin];
  a.count = d->bin_rows[bin];
  return fill_by_table(a, bin, stream);
}
