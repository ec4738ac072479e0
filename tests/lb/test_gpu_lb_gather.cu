/* The layer's gathered work on the GPU (lb/gather.cuh): a list of tiles that
 * are independent ranges of an atom array, in an order unrelated to the
 * atoms', expanded by every schedule, by the whole grid
 * (for_each_gathered_atom) and by each block alone on a list of its own kept
 * in shared memory (for_each_block_gathered_atom): every atom of every tile
 * visited exactly once and in its own tile, no atom outside the tiles
 * visited, for grids of 1, 3 and 2 x SMs blocks. Tile sizes mix empty tiles,
 * short ones, long ones and one longer than a block's threads many times
 * over. Under compute-sanitizer (TESSERA_UNDER_SANITIZER) the lists shrink. */
#include "tessera/lb.cuh"

#include "test_cuda_common.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace lb = tessera::lb;

#define BLOCK 256
/* Most tiles one block's own list holds (its shared memory). */
#define BLOCK_LIST 512

struct visit_record {
  int *visits;  /* per atom */
  int *tile_of; /* per atom: the last tile that visited it */
  __device__ void operator()(long long tile, long long atom) const {
    atomicAdd(visits + atom, 1);
    tile_of[atom] = (int)tile;
  }
};

template <class S>
__global__ void __launch_bounds__(BLOCK)
    grid_gather(int tiles, const long long *begin, const long long *end, visit_record record) {
  __shared__ lb::gather_storage<S, BLOCK> smem;
  lb::for_each_gathered_atom<S, BLOCK>(
      tiles,
      [=](int t) {
        return lb::atom_range{begin[t], end[t]};
      },
      smem, [=](int t, long long atom) { record(t, atom); });
}

/* Block b's own list: tiles [b * per_block, b * per_block + per_block), copied
 * into its shared memory first, as a persistent kernel keeps what it found. */
template <class S>
__global__ void __launch_bounds__(BLOCK)
    block_gather(int tiles, int per_block, const long long *begin, const long long *end, visit_record record) {
  __shared__ lb::block_gather_storage<S, BLOCK> smem;
  __shared__ long long own_begin[BLOCK_LIST], own_end[BLOCK_LIST];
  const int first = blockIdx.x * per_block;
  const int count = max(0, min(per_block, tiles - first));
  for (int t = threadIdx.x; t < count; t += BLOCK) {
    own_begin[t] = begin[first + t];
    own_end[t] = end[first + t];
  }
  __syncthreads();
  lb::for_each_block_gathered_atom<S, BLOCK>(
      count,
      [&](int t) {
        return lb::atom_range{own_begin[t], own_end[t]};
      },
      smem, [&](int t, long long atom) { record(first + t, atom); });
}

struct tile_list {
  std::vector<long long> begin, end;
  long long atoms; /* the atom array's length (room between tiles included) */
};

static unsigned long long rng_state = 0x2545f4914f6cdd1dull;
/* A pseudo-random count below 2^31 (test_common.h's splitmix64). */
static uint32_t next_random(void) { return (uint32_t)((test_random(&rng_state) + 1.0) * 1073741823.0); }

/* `tiles` tiles of mixed sizes laid out in a shuffled order, with a gap
 * after each one (atoms no tile owns: they must stay unvisited). */
static tile_list make_list(int tiles, bool small) {
  std::vector<long long> size(tiles);
  for (int t = 0; t < tiles; t++) {
    const uint32_t kind = next_random() % 16;
    size[t] = kind < 3 ? 0 : kind < 11 ? 1 + next_random() % 8 : kind < 15 ? 9 + next_random() % 300 : 0;
  }
  if (tiles > 2) {
    size[tiles / 2] = small ? 3000 : 40000; /* one tile longer than the block many times over */
    size[1] = 2 * BLOCK + 1;
  }
  std::vector<int> order(tiles);
  for (int t = 0; t < tiles; t++)
    order[t] = t;
  for (int t = tiles - 1; t > 0; t--)
    std::swap(order[t], order[next_random() % (t + 1)]);
  tile_list l;
  l.begin.resize(tiles);
  l.end.resize(tiles);
  long long at = 0;
  for (int k = 0; k < tiles; k++) {
    const int t = order[k];
    l.begin[t] = at;
    l.end[t] = at + size[t];
    at = l.end[t] + 1 + next_random() % 3;
  }
  l.atoms = at;
  return l;
}

template <class T> static T *device_copy(const std::vector<T> &v) {
  T *d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, (v.empty() ? 1 : v.size()) * sizeof(T)));
  if (!v.empty())
    CUDA_CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

/* Every atom of tile t visited once, by t; every other atom never. */
static void check_visits(const char *what, const tile_list &l, const int *d_visits, const int *d_tile_of) {
  std::vector<int> visits(l.atoms), tile_of(l.atoms);
  CUDA_CHECK(cudaMemcpy(visits.data(), d_visits, l.atoms * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(tile_of.data(), d_tile_of, l.atoms * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<int> owner(l.atoms, -1);
  for (size_t t = 0; t < l.begin.size(); t++)
    for (long long a = l.begin[t]; a < l.end[t]; a++)
      owner[a] = (int)t;
  long long wrong = 0, first_wrong = -1;
  for (long long a = 0; a < l.atoms; a++) {
    const bool ok = owner[a] < 0 ? visits[a] == 0 : visits[a] == 1 && tile_of[a] == owner[a];
    if (!ok && wrong++ == 0)
      first_wrong = a;
  }
  CHECK_MSG(wrong == 0, "%s: %lld atoms wrong; first %lld (owner %d, visits %d, tile %d)", what, wrong, first_wrong,
            first_wrong >= 0 ? owner[first_wrong] : 0, first_wrong >= 0 ? visits[first_wrong] : 0,
            first_wrong >= 0 ? tile_of[first_wrong] : 0);
}

/* GridForm: the grid's form too (not for work_oriented, whose grid form needs a persistent kernel). */
template <class S, bool GridForm = true>
static void check_schedule(const char *name, const tile_list &l, const int *grids, int grid_count) {
  const int tiles = (int)l.begin.size();
  long long *d_begin = device_copy(l.begin), *d_end = device_copy(l.end);
  int *d_visits = nullptr, *d_tile_of = nullptr;
  CUDA_CHECK(cudaMalloc(&d_visits, l.atoms * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_tile_of, l.atoms * sizeof(int)));
  const visit_record record{d_visits, d_tile_of};
  char what[160];
  for (int g = 0; g < grid_count; g++) {
    if constexpr (GridForm) {
      CUDA_CHECK(cudaMemset(d_visits, 0, l.atoms * sizeof(int)));
      grid_gather<S><<<grids[g], BLOCK>>>(tiles, d_begin, d_end, record);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaDeviceSynchronize());
      snprintf(what, sizeof what, "%s, the grid's list, %d tiles, %d blocks", name, tiles, grids[g]);
      check_visits(what, l, d_visits, d_tile_of);
    }
    /* The block form: the tiles dealt out in lists of up to BLOCK_LIST a block. */
    const int per_block = std::min(BLOCK_LIST, (tiles + grids[g] - 1) / grids[g]);
    const int blocks = (tiles + per_block - 1) / per_block;
    CUDA_CHECK(cudaMemset(d_visits, 0, l.atoms * sizeof(int)));
    block_gather<S><<<blocks, BLOCK>>>(tiles, per_block, d_begin, d_end, record);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    snprintf(what, sizeof what, "%s, each block's own list of %d tiles, %d blocks", name, per_block, blocks);
    check_visits(what, l, d_visits, d_tile_of);
  }
  CUDA_CHECK(cudaFree(d_begin));
  CUDA_CHECK(cudaFree(d_end));
  CUDA_CHECK(cudaFree(d_visits));
  CUDA_CHECK(cudaFree(d_tile_of));
}

int main(void) {
  const int sm_count = test_cuda_multiprocessors();
  if (sm_count == 0)
    return test_skip("no usable CUDA device");
  const bool small = getenv("TESSERA_UNDER_SANITIZER") != nullptr;
  const int grids[3] = {1, 3, 2 * sm_count};
  const int sizes[3] = {1, 700, small ? 2000 : 20000};
  for (int size : sizes) {
    const tile_list l = make_list(size, small);
    printf("list of %d tiles, %lld atoms\n", size, l.atoms);
    check_schedule<lb::thread_mapped>("thread-mapped", l, grids, 3);
    check_schedule<lb::warp_mapped>("warp-mapped", l, grids, 3);
    check_schedule<lb::lane_mapped<4>>("4 lanes a tile", l, grids, 3);
    check_schedule<lb::group_mapped<8>>("group-mapped 8", l, grids, 3);
    check_schedule<lb::group_mapped<32>>("group-mapped 32", l, grids, 3);
    check_schedule<lb::block_mapped>("block-mapped", l, grids, 3);
    check_schedule<lb::grid_mapped>("grid-mapped", l, grids, 3);
    /* The grid's work-oriented form needs a persistent kernel (a grid barrier): the graph tests run it. */
    check_schedule<lb::work_oriented, false>("work-oriented", l, grids, 3);
  }
  return test_finish();
}
