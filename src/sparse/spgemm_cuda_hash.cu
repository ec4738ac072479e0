/* SpGEMM's shared-memory hash bins: the t-th holds rows whose bound is at
 * most half of a table of S = 2^(t + 5) slots. The bin's schedule is a type of
 * the load-balancing layer: tables up to TSI_SPGEMM_WARP_TABLE take one warp
 * a row (lb::warp_mapped; 4 sub-groups of 8 lanes), larger ones one block a
 * row (lb::block_mapped; a sub-group a warp). The symbolic phase inserts every product's
 * column and counts the new ones; the numeric phase inserts them again,
 * sorts the table (bitonic; the empty slots sort last), and adds each
 * sub-group's products, in the order of A's entries, into partial sums of
 * its own at the column's place in the sorted keys, then writes the keys and
 * the partial sums' total in sub-group order. */
#include "spgemm_cuda_kernel.cuh"
#include "tessera/lb.cuh"

#include <type_traits>

namespace lb = tessera::lb;

namespace {

constexpr int kWarpGroups = 32 / TSI_SPGEMM_LANES_PER_PARTIAL;
/* Threads of a numeric block of warp-mapped rows (their partial sums take
 * more shared memory than the symbolic phase's keys alone). */
constexpr int kFillWarpBlock = 128;

/* The layer's schedule of a bin: warp_mapped for tables up to
 * TSI_SPGEMM_WARP_TABLE slots, block_mapped beyond. */
template <int S>
using schedule_of = typename std::conditional<(S <= TSI_SPGEMM_WARP_TABLE), lb::warp_mapped, lb::block_mapped>::type;

/* Threads of a row's group under schedule S in blocks of `block` threads. */
template <class S> __host__ __device__ constexpr int group_threads(int block) { return lb::tile_threads<S>(1, block); }

/* Sub-groups (lanes each) of a row's group: a warp's 4 groups of 8 lanes,
 * a block's warps. */
template <class S>
constexpr int sub_lanes = std::is_same<S, lb::warp_mapped>::value ? TSI_SPGEMM_LANES_PER_PARTIAL : 32;

/* Partial sums a row's group keeps: a warp's 4; a block's, one a warp as
 * far as TSI_SPGEMM_PARTIAL_BYTES holds them. */
template <class S, class T, int S_> __host__ __device__ constexpr int partials() {
  if constexpr (std::is_same<S, lb::warp_mapped>::value) {
    return kWarpGroups;
  } else {
    constexpr int fit = TSI_SPGEMM_PARTIAL_BYTES / (int)(S_ / 2 * sizeof(T));
    return fit > TSI_SPGEMM_BLOCK / 32 ? TSI_SPGEMM_BLOCK / 32 : fit < 1 ? 1 : fit;
  }
}

/* The group's barrier. */
template <class S> struct group_sync {
  __device__ void operator()() const {
    if constexpr (std::is_same<S, lb::warp_mapped>::value)
      __syncwarp();
    else
      __syncthreads();
  }
};
struct no_step {
  __device__ void operator()() const {}
};
/* The barrier of one sub-group of `lanes` lanes within a warp. */
struct sub_sync {
  unsigned mask;
  __device__ void operator()() const { __syncwarp(mask); }
};

/* Symbolic: each row's group inserts the row's products' columns into keys[S]
 * (a table of the group's own) and counts the new ones. */
template <int S> __global__ void __launch_bounds__(TSI_SPGEMM_BLOCK) count_rows(tsi_spgemm_args<float> a) {
  using Sched = schedule_of<S>;
  constexpr int G = group_threads<Sched>(TSI_SPGEMM_BLOCK), L = sub_lanes<Sched>;
  extern __shared__ int32_t shared_count[];
  const lb::lane_position at = lb::position_of(1, G);
  int32_t *keys = shared_count + (int(threadIdx.x) / G) * (S + 1);
  int32_t *found = keys + S;
  const group_sync<Sched> sync;
  for (int64_t r = at.group; r < a.count; r += at.groups) {
    const int64_t row = a.rows[r];
    for (int s = at.rank; s < S; s += G)
      keys[s] = TSI_SPGEMM_EMPTY;
    if (at.rank == 0)
      *found = 0;
    sync();
    tsi_spgemm_products(
        a, row, at.rank / L, G / L, at.rank % L, L,
        [&](int64_t, int64_t kb) {
          if (tsi_spgemm_insert(keys, S, a.b_cols[kb]))
            atomicAdd(found, 1);
        },
        no_step{});
    sync();
    if (at.rank == 0)
      a.row_nnz[row] = *found;
    sync();
  }
}

/*
 * Numeric: the row's columns inserted again, sorted (the empty slots last),
 * each of the first Q sub-groups' products added in the order of A's entries
 * into partial[q] at the column's place among the sorted keys, and the keys
 * and the partial sums' totals (in sub-group order) written to C.
 */
template <class T, int S> __global__ void __launch_bounds__(TSI_SPGEMM_BLOCK) fill_rows(tsi_spgemm_args<T> a) {
  using Sched = schedule_of<S>;
  constexpr int block = std::is_same<Sched, lb::warp_mapped>::value ? kFillWarpBlock : TSI_SPGEMM_BLOCK;
  constexpr int G = group_threads<Sched>(block), L = sub_lanes<Sched>, Q = partials<Sched, T, S>();
  constexpr size_t per_group = S * sizeof(int32_t) + Q * (S / 2) * sizeof(T);
  extern __shared__ __align__(16) unsigned char shared_fill[];
  const lb::lane_position at = lb::position_of(1, G);
  int32_t *keys = reinterpret_cast<int32_t *>(shared_fill + (int(threadIdx.x) / G) * per_group);
  T *partial = reinterpret_cast<T *>(reinterpret_cast<unsigned char *>(keys) + S * sizeof(int32_t));
  const group_sync<Sched> sync;
  const int rank = at.rank, group = rank / L, lane = rank % L;
  for (int64_t r = at.group; r < a.count; r += at.groups) {
    const int64_t row = a.rows[r];
    const int64_t out = a.c_off[row] - a.c_base;
    const int n = int(a.c_off[row + 1] - a.c_off[row]); /* at most S / 2 */
    for (int s = rank; s < S; s += G)
      keys[s] = TSI_SPGEMM_EMPTY;
    sync();
    tsi_spgemm_products(
        a, row, group, G / L, lane, L, [&](int64_t, int64_t kb) { (void)tsi_spgemm_insert(keys, S, a.b_cols[kb]); },
        no_step{});
    sync();
    tsi_spgemm_sort(keys, S, rank, G, sync);
    for (int s = rank; s < Q * n; s += G)
      partial[(s / n) * (S / 2) + s % n] = T(0);
    sync();
    if (group < Q) {
      T *mine = partial + group * (S / 2);
      tsi_spgemm_products(
          a, row, group, Q, lane, L,
          [&](int64_t ka, int64_t kb) { mine[tsi_spgemm_find(keys, n, a.b_cols[kb])] += a.a_vals[ka] * a.b_vals[kb]; },
          sub_sync{lb::group_mask(L)});
    }
    sync();
    for (int p = rank; p < n; p += G) {
      T sum = partial[p];
      for (int q = 1; q < Q; q++)
        sum += partial[q * (S / 2) + p];
      a.c_cols[out + p] = keys[p];
      a.c_vals[out + p] = sum;
    }
    sync();
  }
}

/* Launch with `shared` bytes of dynamic shared memory (opting in past the
 * default 48 KB). */
template <class Kernel, class Args>
cudaError_t launch(Kernel kernel, int64_t rows, int block, int group, size_t shared, const Args &args,
                   cudaStream_t stream) {
  if (rows <= 0)
    return cudaSuccess;
  cudaError_t err = tsi_spgemm_allow_shared(kernel, shared);
  if (err != cudaSuccess)
    return err;
  kernel<<<(unsigned)tsi_spgemm_blocks(rows, block / group), block, shared, stream>>>(args);
  return cudaPeekAtLastError();
}

template <int S> cudaError_t count_bin(const tsi_spgemm_args<float> &a, cudaStream_t stream) {
  constexpr int G = group_threads<schedule_of<S>>(TSI_SPGEMM_BLOCK);
  return launch(count_rows<S>, a.count, TSI_SPGEMM_BLOCK, G, (size_t)(TSI_SPGEMM_BLOCK / G) * (S + 1) * sizeof(int32_t),
                a, stream);
}

template <class T, int S> cudaError_t fill_bin(const tsi_spgemm_args<T> &a, cudaStream_t stream) {
  using Sched = schedule_of<S>;
  constexpr int block = std::is_same<Sched, lb::warp_mapped>::value ? kFillWarpBlock : TSI_SPGEMM_BLOCK;
  constexpr int G = group_threads<Sched>(block);
  const size_t per_group = S * sizeof(int32_t) + (size_t)partials<Sched, T, S>() * (S / 2) * sizeof(T);
  return launch(fill_rows<T, S>, a.count, block, G, (size_t)(block / G) * per_group, a, stream);
}

template <class T> cudaError_t fill_by_table(const tsi_spgemm_args<T> &a, int bin, cudaStream_t stream) {
  switch (bin - TSI_SPGEMM_HASH_BIN + 1) {
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
  switch (bin - TSI_SPGEMM_HASH_BIN + 1) {
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
