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
 * (a table of the group's own) and counts the new ones; block `block` of the
 * `blocks` that share the bin. */
template <int S> __device__ void count_rows_in(const tsi_spgemm_args<float> &a, long long block, long long blocks) {
  using Sched = schedule_of<S>;
  constexpr int G = group_threads<Sched>(TSI_SPGEMM_BLOCK), L = sub_lanes<Sched>;
  extern __shared__ int32_t shared_count[];
  const lb::lane_position at = lb::position_of(1, G, block, blocks);
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

template <int S> __global__ void __launch_bounds__(TSI_SPGEMM_BLOCK) count_rows(tsi_spgemm_args<float> a) {
  count_rows_in<S>(a, blockIdx.x, gridDim.x);
}

/* The hash bins of a phase in one launch: bin t's rows (a[t]) take blocks
 * first[t] .. first[t + 1] - 1. */
template <class T> struct bins_args {
  tsi_spgemm_args<T> a[TSI_SPGEMM_SHARED_BINS];
  unsigned first[TSI_SPGEMM_SHARED_BINS + 1];
};

/* The bin of this block (the first bin whose range holds it). */
template <class T> __device__ int bin_of_block(const bins_args<T> &h) {
  int t = 0;
  while (t + 1 < TSI_SPGEMM_SHARED_BINS && blockIdx.x >= h.first[t + 1])
    t++;
  return t;
}

__global__ void __launch_bounds__(TSI_SPGEMM_BLOCK) count_bins(bins_args<float> h) {
  const int t = bin_of_block(h);
  const long long block = blockIdx.x - h.first[t], blocks = h.first[t + 1] - h.first[t];
  switch (t) {
  case 0:
    return count_rows_in<64>(h.a[0], block, blocks);
  case 1:
    return count_rows_in<128>(h.a[1], block, blocks);
  case 2:
    return count_rows_in<256>(h.a[2], block, blocks);
  case 3:
    return count_rows_in<512>(h.a[3], block, blocks);
  case 4:
    return count_rows_in<1024>(h.a[4], block, blocks);
  case 5:
    return count_rows_in<2048>(h.a[5], block, blocks);
  default:
    return count_rows_in<4096>(h.a[6], block, blocks);
  }
}

/*
 * Numeric: the row's columns inserted again, sorted (the empty slots last),
 * each of the first Q sub-groups' products added in the order of A's entries
 * into partial[q] at the column's place among the sorted keys, and the keys
 * and the partial sums' totals (in sub-group order) written to C; the
 * block at `place` of the `blocks` that share the bin.
 */
template <class T, int S> __device__ void fill_rows_in(const tsi_spgemm_args<T> &a, long long place, long long blocks) {
  using Sched = schedule_of<S>;
  constexpr int block = std::is_same<Sched, lb::warp_mapped>::value ? kFillWarpBlock : TSI_SPGEMM_BLOCK;
  constexpr int G = group_threads<Sched>(block), L = sub_lanes<Sched>, Q = partials<Sched, T, S>();
  constexpr size_t per_group = S * sizeof(int32_t) + Q * (S / 2) * sizeof(T);
  extern __shared__ __align__(16) unsigned char shared_fill[];
  const lb::lane_position at = lb::position_of(1, G, place, blocks);
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

template <class T, int S> __global__ void __launch_bounds__(TSI_SPGEMM_BLOCK) fill_rows(tsi_spgemm_args<T> a) {
  fill_rows_in<T, S>(a, blockIdx.x, gridDim.x);
}

/* The numeric phase's hash bins in two launches: the warps' tables (bins
 * 0-3, blocks of kFillWarpBlock threads) and the blocks' (bins 4-6). */
template <class T> __global__ void __launch_bounds__(TSI_SPGEMM_BLOCK) fill_warp_bins(bins_args<T> h) {
  const int t = bin_of_block(h);
  const long long block = blockIdx.x - h.first[t], blocks = h.first[t + 1] - h.first[t];
  switch (t) {
  case 0:
    return fill_rows_in<T, 64>(h.a[0], block, blocks);
  case 1:
    return fill_rows_in<T, 128>(h.a[1], block, blocks);
  case 2:
    return fill_rows_in<T, 256>(h.a[2], block, blocks);
  default:
    return fill_rows_in<T, 512>(h.a[3], block, blocks);
  }
}
template <class T> __global__ void __launch_bounds__(TSI_SPGEMM_BLOCK) fill_block_bins(bins_args<T> h) {
  const int t = bin_of_block(h);
  const long long block = blockIdx.x - h.first[t], blocks = h.first[t + 1] - h.first[t];
  switch (t) {
  case 4:
    return fill_rows_in<T, 1024>(h.a[4], block, blocks);
  case 5:
    return fill_rows_in<T, 2048>(h.a[5], block, blocks);
  default:
    return fill_rows_in<T, 4096>(h.a[6], block, blocks);
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

/* Dynamic shared memory and groups a block of bin t's kernels (tables of
 * 64 << t slots). */
template <int S> constexpr size_t count_bytes() {
  return (size_t)(TSI_SPGEMM_BLOCK / group_threads<schedule_of<S>>(TSI_SPGEMM_BLOCK)) * (S + 1) * sizeof(int32_t);
}
template <int S> constexpr int count_groups() {
  return TSI_SPGEMM_BLOCK / group_threads<schedule_of<S>>(TSI_SPGEMM_BLOCK);
}
template <class T, int S> constexpr int fill_block() {
  return std::is_same<schedule_of<S>, lb::warp_mapped>::value ? kFillWarpBlock : TSI_SPGEMM_BLOCK;
}
template <class T, int S> constexpr int fill_groups() {
  return fill_block<T, S>() / group_threads<schedule_of<S>>(fill_block<T, S>());
}
template <class T, int S> constexpr size_t fill_bytes() {
  return (size_t)fill_groups<T, S>() *
         (S * sizeof(int32_t) + (size_t)partials<schedule_of<S>, T, S>() * (S / 2) * sizeof(T));
}

/* Rows of the hash bins at most for one launch a phase (more rows keep the
 * bins' own kernels, of fewer registers each). */
constexpr int64_t kFusedRows = 65536;

template <class T>
bins_args<T> make_bins(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols,
                       void *c_vals) {
  bins_args<T> h;
  for (int t = 0; t < TSI_SPGEMM_SHARED_BINS; t++) {
    h.a[t] = tsi_spgemm_make_args<T>(d, c_off, c_base, c_cols, c_vals);
    h.a[t].rows = d->row_list + d->bin_first[TSI_SPGEMM_HASH_BIN + t];
    h.a[t].count = d->bin_rows[TSI_SPGEMM_HASH_BIN + t];
  }
  return h;
}

/* Bins t0 .. t1 - 1 in one launch of `block` threads when at least two hold
 * rows and all together at most kFusedRows (groups[t] and bytes[t]: bin t's
 * groups a block and shared memory); false when they take a launch each. */
template <class T, class Kernel>
bool launch_bins(Kernel kernel, bins_args<T> h, int t0, int t1, int block, const int *groups, const size_t *bytes,
                 cudaStream_t stream, cudaError_t *err) {
  int bins = 0;
  int64_t rows = 0;
  for (int t = t0; t < t1; t++) {
    bins += h.a[t].count > 0;
    rows += h.a[t].count;
  }
  if (bins < 2 || rows > kFusedRows)
    return false;
  unsigned at = 0;
  size_t shared = 0;
  for (int t = 0; t < TSI_SPGEMM_SHARED_BINS; t++) {
    h.first[t] = at;
    if (t >= t0 && t < t1 && h.a[t].count > 0) {
      at += (unsigned)tsi_spgemm_blocks(h.a[t].count, groups[t]);
      shared = bytes[t] > shared ? bytes[t] : shared;
    }
  }
  h.first[TSI_SPGEMM_SHARED_BINS] = at;
  *err = tsi_spgemm_allow_shared(kernel, shared);
  if (*err == cudaSuccess) {
    kernel<<<at, block, shared, stream>>>(h);
    *err = cudaPeekAtLastError();
  }
  return true;
}

template <class T>
cudaError_t fill_all(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols, void *c_vals,
                     cudaStream_t stream) {
  static constexpr int groups[] = {fill_groups<T, 64>(),  fill_groups<T, 128>(),  fill_groups<T, 256>(),
                                   fill_groups<T, 512>(), fill_groups<T, 1024>(), fill_groups<T, 2048>(),
                                   fill_groups<T, 4096>()};
  static constexpr size_t bytes[] = {fill_bytes<T, 64>(),  fill_bytes<T, 128>(),  fill_bytes<T, 256>(),
                                     fill_bytes<T, 512>(), fill_bytes<T, 1024>(), fill_bytes<T, 2048>(),
                                     fill_bytes<T, 4096>()};
  static_assert(fill_block<T, 512>() == kFillWarpBlock && fill_block<T, 1024>() == TSI_SPGEMM_BLOCK,
                "bins 0-3 take warps, 4-6 blocks");
  const bins_args<T> h = make_bins<T>(d, c_off, c_base, c_cols, c_vals);
  cudaError_t err = cudaSuccess;
  const bool warps = launch_bins(fill_warp_bins<T>, h, 0, 4, kFillWarpBlock, groups, bytes, stream, &err);
  for (int t = 0; !warps && err == cudaSuccess && t < 4; t++)
    if (h.a[t].count > 0)
      err = fill_by_table(h.a[t], TSI_SPGEMM_HASH_BIN + t, stream);
  bool blocks = false;
  if (err == cudaSuccess)
    blocks =
        launch_bins(fill_block_bins<T>, h, 4, TSI_SPGEMM_SHARED_BINS, TSI_SPGEMM_BLOCK, groups, bytes, stream, &err);
  for (int t = 4; !blocks && err == cudaSuccess && t < TSI_SPGEMM_SHARED_BINS; t++)
    if (h.a[t].count > 0)
      err = fill_by_table(h.a[t], TSI_SPGEMM_HASH_BIN + t, stream);
  return err;
}

} // namespace

static_assert(TSI_SPGEMM_FIRST_TABLE << (TSI_SPGEMM_SHARED_BINS - 1) == 4096, "bins 1-7: tables of 64 to 4096 slots");
static_assert(TSI_SPGEMM_SHARED_BINS == 7, "the joint kernels' cases");

cudaError_t tsi_spgemm_hash_count_all(const tsi_spgemm_device *d, cudaStream_t stream) {
  static constexpr int groups[] = {count_groups<64>(),   count_groups<128>(),  count_groups<256>(), count_groups<512>(),
                                   count_groups<1024>(), count_groups<2048>(), count_groups<4096>()};
  static constexpr size_t bytes[] = {count_bytes<64>(),   count_bytes<128>(),  count_bytes<256>(), count_bytes<512>(),
                                     count_bytes<1024>(), count_bytes<2048>(), count_bytes<4096>()};
  cudaError_t err = cudaSuccess;
  if (launch_bins(count_bins, make_bins<float>(d, NULL, 0, NULL, NULL), 0, TSI_SPGEMM_SHARED_BINS, TSI_SPGEMM_BLOCK,
                  groups, bytes, stream, &err))
    return err;
  for (int b = TSI_SPGEMM_HASH_BIN; err == cudaSuccess && b < TSI_SPGEMM_DENSE_BIN; b++)
    if (d->bin_rows[b] > 0)
      err = tsi_spgemm_hash_count(d, b, stream);
  return err;
}

cudaError_t tsi_spgemm_hash_fill_all(const tsi_spgemm_device *d, const int64_t *c_off, int64_t c_base, int32_t *c_cols,
                                     void *c_vals, cudaStream_t stream) {
  if (d->dtype == TS_FLOAT32)
    return fill_all<float>(d, c_off, c_base, c_cols, c_vals, stream);
  return fill_all<double>(d, c_off, c_base, c_cols, c_vals, stream);
}

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
