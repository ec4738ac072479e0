/* The fixed cost of one level of a persistent graph kernel: the layer's grid
 * barrier alone, and with the two ways of summing a level's vertex and edge
 * counts over the grid that the BFS kernel has used or tried: atomics on one
 * pair of counters that every thread reads back after the barrier (with
 * relaxed atomic loads, which go to L2, or with plain loads as the kernel
 * does, which an SM's first warp brings into L1 for the others), the same
 * counters read by one thread a block and shared through shared memory, or
 * a slot a block summed by every block after the barrier. A
 * persistent grid runs many empty levels; the time per level is what a
 * frontier of a few vertices pays besides its own work (the road-like
 * grid's thousands of narrow levels). Grids of one and two blocks a
 * multiprocessor of TSI_GRAPH_BLOCK-sized blocks (512 threads). */
#include "tessera/lb.cuh"
#include "tsb_cuda.h"

#include <cuda/atomic>
#include <stdlib.h>
#include <string.h>

namespace lb = tessera::lb;

#define BLOCK 512
#define WARPS (BLOCK / 32)
#define MAX_GRID 4096

enum protocol { BARRIER_ONLY = 0, SHARED_COUNTERS = 1, BLOCK_SLOTS = 2, ONE_READER = 3, PLAIN_LOADS = 4 };

struct level_state {
  lb::grid_barrier_state barrier;
  unsigned long long found[3], edges[3]; /* SHARED_COUNTERS, ONE_READER, PLAIN_LOADS: level l's in slot l % 3 */
  ulonglong2 slots[2][MAX_GRID];         /* BLOCK_SLOTS: level l's in [l & 1] */
};

/* Sums of x and y over the block, valid in thread 0. */
__device__ void block_sum_pair(unsigned long long &x, unsigned long long &y, unsigned long long (*scratch)[2]) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int d = 16; d >= 1; d /= 2) {
    x += __shfl_down_sync(0xffffffffu, x, d);
    y += __shfl_down_sync(0xffffffffu, y, d);
  }
  if (lane == 0) {
    scratch[warp][0] = x;
    scratch[warp][1] = y;
  }
  __syncthreads();
  if (warp == 0) {
    x = lane < WARPS ? scratch[lane][0] : 0ull;
    y = lane < WARPS ? scratch[lane][1] : 0ull;
    for (int d = 16; d >= 1; d /= 2) {
      x += __shfl_down_sync(0xffffffffu, x, d);
      y += __shfl_down_sync(0xffffffffu, y, d);
    }
  }
  __syncthreads();
}

template <int P> __global__ void __launch_bounds__(BLOCK) levels_kernel(level_state *s, int levels, int *checksum) {
  __shared__ unsigned long long scratch[WARPS][2];
  __shared__ unsigned long long totals[2];
  lb::grid_barrier_view barrier = lb::grid_barrier_join(&s->barrier);
  lb::grid_barrier(barrier);
  unsigned long long seen = 0;
  for (int level = 0; level < levels; level++) {
    if (P == BARRIER_ONLY) {
      lb::grid_barrier(barrier);
      continue;
    }
    /* One vertex of one edge a block of every eighth: a narrow frontier. */
    unsigned long long found = threadIdx.x == 0 && (blockIdx.x & 7) == 0, edges = found;
    if (P == SHARED_COUNTERS || P == ONE_READER || P == PLAIN_LOADS) {
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> level_found(s->found[level % 3]);
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> level_edges(s->edges[level % 3]);
      if (P == SHARED_COUNTERS) {
        seen += level_found.load(cuda::std::memory_order_relaxed) + level_edges.load(cuda::std::memory_order_relaxed);
      } else if (P == PLAIN_LOADS) {
        seen += s->found[level % 3] + s->edges[level % 3];
      } else {
        if (threadIdx.x == 0) {
          totals[0] = level_found.load(cuda::std::memory_order_relaxed);
          totals[1] = level_edges.load(cuda::std::memory_order_relaxed);
        }
        __syncthreads();
        seen += totals[0] + totals[1];
      }
      if (blockIdx.x == 0 && threadIdx.x == 0)
        s->found[(level + 2) % 3] = s->edges[(level + 2) % 3] = 0ull;
      block_sum_pair(found, edges, scratch);
      if (threadIdx.x == 0 && found > 0) {
        atomicAdd(&s->found[(level + 1) % 3], found);
        atomicAdd(&s->edges[(level + 1) % 3], edges);
      }
      lb::grid_barrier(barrier);
    } else {
      unsigned long long level_found = 0, level_edges = 0;
      for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) {
        const ulonglong2 slot = __ldcg(&s->slots[level & 1][b]);
        level_found += slot.x;
        level_edges += slot.y;
      }
      block_sum_pair(level_found, level_edges, scratch);
      if (threadIdx.x == 0) {
        totals[0] = level_found;
        totals[1] = level_edges;
      }
      __syncthreads();
      seen += totals[0] + totals[1];
      block_sum_pair(found, edges, scratch);
      if (threadIdx.x == 0)
        s->slots[(level + 1) & 1][blockIdx.x] = make_ulonglong2(found, edges);
      lb::grid_barrier(barrier);
    }
  }
  if (seen == 1)
    atomicAdd(checksum, 1);
}

static int measure(tsb_table *t, level_state *state, int *checksum, int protocol, const char *name, int grid,
                   int levels) {
  const void *kernels[] = {(const void *)levels_kernel<BARRIER_ONLY>, (const void *)levels_kernel<SHARED_COUNTERS>,
                           (const void *)levels_kernel<BLOCK_SLOTS>, (const void *)levels_kernel<ONE_READER>,
                           (const void *)levels_kernel<PLAIN_LOADS>};
  void *args[] = {&state, &levels, &checksum};
  cudaEvent_t start, stop;
  if (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess)
    return 1;
  double ms_best = 1e30;
  for (int run = 0; run < 4; run++) { /* the first a warm-up, the best of the other three */
    if (cudaMemset(state, 0, sizeof *state) != cudaSuccess || cudaEventRecord(start) != cudaSuccess ||
        cudaLaunchCooperativeKernel(kernels[protocol], grid, BLOCK, args, 0, 0) != cudaSuccess ||
        cudaEventRecord(stop) != cudaSuccess || cudaEventSynchronize(stop) != cudaSuccess) {
      fprintf(stderr, "error: %s: %s\n", name, cudaGetErrorString(cudaGetLastError()));
      return 1;
    }
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, start, stop);
    if (run > 0 && ms < ms_best)
      ms_best = ms;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  tsb_table_cell(t, "%s", name);
  tsb_table_cell(t, "%d", grid);
  tsb_table_cell(t, "%d", levels);
  tsb_table_cell(t, "%.3f", ms_best * 1e3 / levels);
  return 0;
}

int main(int argc, char **argv) {
  const char *csv_path = "bench-out/grid_barrier_costs.csv";
  for (int i = 1; i < argc; i++) {
    int rc = tsb_option_or_path(argv[0], argv[i], "[CSV_PATH]   (default bench-out/grid_barrier_costs.csv)");
    if (rc >= 0)
      return rc;
    csv_path = argv[i];
  }
  ts_context_options options;
  memset(&options, 0, sizeof options);
  options.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &options) != TS_SUCCESS) {
    fprintf(stderr, "error: %s\n", ts_last_error(NULL));
    return 2;
  }
  const char *columns[] = {"protocol", "blocks", "levels", "us_per_level"};
  tsb_table *t = tsb_table_create(4, columns);
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_print(&meta, stdout, "# ");
  int sms = 0, cooperative = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0);
  level_state *state = NULL;
  int *checksum = NULL;
  int failed = !t || !cooperative || sms * 2 > MAX_GRID || cudaMalloc(&state, sizeof *state) != cudaSuccess ||
               cudaMalloc(&checksum, sizeof *checksum) != cudaSuccess;
  const char *names[] = {"grid barrier alone", "counters: atomics, read by every thread",
                         "counters: a slot a block, summed by every block",
                         "counters: atomics, read by one thread a block",
                         "counters: atomics, plain loads by every thread"};
  for (int per_sm = 1; per_sm <= 2 && !failed; per_sm++)
    for (int p = 0; p < 5 && !failed; p++)
      failed = measure(t, state, checksum, p, names[p], per_sm * sms, 20000);
  if (!failed)
    failed = tsb_table_write_csv(t, &meta, csv_path);
  if (t && tsb_table_rows(t) > 0) {
    printf("\n## Grid barrier and level counters (microseconds a level)\n\n");
    tsb_table_print_markdown(t, &meta, stdout);
  }
  tsb_table_destroy(t);
  cudaFree(state);
  cudaFree(checksum);
  ts_context_destroy(ctx);
  if (failed) {
    fprintf(stderr, "grid_barrier_costs: FAILED\n");
    return 1;
  }
  printf("\nwrote %s\n", csv_path);
  return 0;
}
