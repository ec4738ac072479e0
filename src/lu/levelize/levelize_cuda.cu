/* Levels of the column dependency graph on the GPU (Xia, Jiang, Agrawal and
 * Ramnath, PPoPP 2023, section 3.3; Kahn, CACM 5(11), 1962): the graph of
 * levelize_cpu.c (column k depends on j < k when U(j, k) != 0 or
 * L(k, j) != 0, an edge found by both rules counted twice), built on the
 * device (in-degrees, U's strict part by rows), then Kahn's sort one level
 * at a time without returning to the host: a persistent cooperative kernel
 * with a grid-wide barrier per level, or one block iterating with block
 * barriers. The level of each column is its longest path from a source,
 * whatever the order of the queue, so a stable sort by level puts the
 * columns of a level in increasing order: the CPU's result exactly. */
#include "lu/levelize/levelize_internal.h"

#include <cooperative_groups.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

namespace cg = cooperative_groups;

typedef struct graph {
  int32_t n;
  const int64_t *col_ptr; /* L + U by columns, rows sorted */
  const int32_t *row_idx;
  const int64_t *diag;
  int64_t *u_row_ptr; /* U's strict part by rows: the columns k with U(j, k) */
  int32_t *u_col_idx;
  int32_t *in_degree;
  int32_t *level;     /* level of each column */
  int32_t *queue;     /* the columns in the order Kahn's sort places them */
  int32_t *added;     /* added[l]: columns placed in level l so far */
  int64_t *level_ptr; /* levels + 1 offsets into queue */
  int32_t *levels;
} graph;

/* One warp per column: in-degrees (U(:, k) above the diagonal, and one for
 * each L(k, j)) and the row counts of U's strict part, into u_row_ptr + 1. */
__global__ void count_edges(graph g) {
  int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (warp >= g.n)
    return;
  int32_t k = (int32_t)warp;
  if (lane == 0)
    atomicAdd(&g.in_degree[k], (int32_t)(g.diag[k] - g.col_ptr[k]));
  for (int64_t p = g.col_ptr[k] + lane; p < g.diag[k]; p += 32)
    atomicAdd((unsigned long long *)&g.u_row_ptr[g.row_idx[p] + 1], 1ull);
  for (int64_t p = g.diag[k] + 1 + lane; p < g.col_ptr[k + 1]; p += 32)
    atomicAdd(&g.in_degree[g.row_idx[p]], 1);
}

/* U's strict part by rows; `fill` starts as a copy of u_row_ptr. The order
 * within a row does not matter: only in-degrees are counted down. */
__global__ void fill_u_rows(graph g, unsigned long long *fill) {
  int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (warp >= g.n)
    return;
  int32_t k = (int32_t)warp;
  for (int64_t p = g.col_ptr[k] + lane; p < g.diag[k]; p += 32)
    g.u_col_idx[atomicAdd(&fill[g.row_idx[p]], 1ull)] = k;
}

/* The sources: level 0. */
__global__ void seed_sources(graph g) {
  int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= g.n)
    return;
  if (g.in_degree[k] == 0) {
    g.level[k] = 0;
    g.queue[atomicAdd(&g.added[0], 1)] = (int32_t)k;
  }
}

/* Count down the in-degree of column k; the last edge places it. */
static __device__ __forceinline__ void release(const graph &g, int32_t k, int32_t next_level, int64_t next_begin) {
  if (atomicSub(&g.in_degree[k], 1) == 1) {
    g.level[k] = next_level;
    g.queue[next_begin + atomicAdd(&g.added[next_level], 1)] = k;
  }
}

/* Kahn's sort by levels, each warp of `warps` taking the columns of the
 * current level in turn; `sync` is the barrier of all participants. Level l
 * spans queue[level_ptr[l], level_ptr[l + 1]); the columns it frees go after
 * it, counted in added[l + 1], which nobody changes once the barrier passed. */
template <class Barrier> static __device__ void kahn_levels(const graph &g, int64_t warp, int64_t warps, Barrier sync) {
  int lane = threadIdx.x & 31;
  bool leader = warp == 0 && lane == 0;
  int64_t begin = 0, end = *(volatile int32_t *)&g.added[0];
  int32_t l = 0;
  if (leader)
    g.level_ptr[0] = 0;
  while (begin < end) {
    for (int64_t s = begin + warp; s < end; s += warps) {
      int32_t j = g.queue[s];
      for (int64_t p = g.diag[j] + 1 + lane; p < g.col_ptr[j + 1]; p += 32)
        release(g, g.row_idx[p], l + 1, end);
      for (int64_t p = g.u_row_ptr[j] + lane; p < g.u_row_ptr[j + 1]; p += 32)
        release(g, g.u_col_idx[p], l + 1, end);
    }
    sync();
    if (leader)
      g.level_ptr[l + 1] = end;
    begin = end;
    end += *(volatile int32_t *)&g.added[l + 1];
    l++;
  }
  if (leader)
    *g.levels = l;
}

__global__ void __launch_bounds__(TSI_LU_LEVELIZE_THREADS) kahn_cooperative(graph g) {
  cg::grid_group grid = cg::this_grid();
  int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  kahn_levels(g, warp, warps, [&grid]() { grid.sync(); });
}

__global__ void __launch_bounds__(TSI_LU_LEVELIZE_SINGLE_BLOCK_THREADS) kahn_single_block(graph g) {
  kahn_levels(g, threadIdx.x >> 5, blockDim.x >> 5, []() { __syncthreads(); });
}

__global__ void column_numbers(int32_t *cols, int32_t n) {
  int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n)
    cols[k] = (int32_t)k;
}

typedef struct device_arrays {
  int64_t *col_ptr, *diag, *u_row_ptr, *level_ptr;
  int32_t *row_idx, *u_col_idx, *in_degree, *level, *queue, *added, *levels;
  unsigned long long *fill;
  uint32_t *sorted_level;
  int32_t *cols;
  void *temp;
} device_arrays;

/* Allocate `bytes` (at least 4) on the device, counting them in *held. */
static ts_status device_alloc(ts_lu *lu, void **ptr, int64_t bytes, int64_t *held) {
  if (bytes < 4)
    bytes = 4;
  ts_status st = tsi_cuda_malloc(lu->ctx, ptr, (size_t)bytes);
  if (st == TS_SUCCESS)
    *held += bytes;
  return st;
}

/* Launch Kahn's loop: cooperative when asked (or by default) and the device
 * allows it, else one block. */
static ts_status run_kahn(ts_lu *lu, graph *g, cudaStream_t stream) {
  ts_context *ctx = lu->ctx;
  int variant = lu->switches.levelize_variant;
  int cooperative = 0;
  (void)cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, ctx->device);
  if (variant == TSI_LU_LEVELIZE_COOPERATIVE && !cooperative)
    return tsi_error(ctx, TS_ERROR_UNSUPPORTED, "ts_lu_analyze: the device has no cooperative launch");
  if (variant == TSI_LU_LEVELIZE_SINGLE_BLOCK || !cooperative) {
    kahn_single_block<<<1, TSI_LU_LEVELIZE_SINGLE_BLOCK_THREADS, 0, stream>>>(*g);
    return tsi_cuda_check_launch(ctx, "LU levelization (one block)");
  }
  int per_sm = 0, sms = 0;
  cudaError_t err =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kahn_cooperative, TSI_LU_LEVELIZE_THREADS, 0);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device);
  if (err != cudaSuccess)
    return tsi_cuda_error(lu->ctx, err, "ts_lu_analyze: GPU levelization: occupancy");
  /* All resident blocks, but no more warps than columns. */
  int64_t blocks = (int64_t)per_sm * sms,
          wanted = ((int64_t)g->n * 32 + TSI_LU_LEVELIZE_THREADS - 1) / TSI_LU_LEVELIZE_THREADS;
  if (blocks > wanted)
    blocks = wanted;
  if (blocks < 1)
    blocks = 1;
  void *args[] = {g};
  err = cudaLaunchCooperativeKernel((const void *)kahn_cooperative, dim3((unsigned)blocks),
                                    dim3(TSI_LU_LEVELIZE_THREADS), args, 0, stream);
  if (err != cudaSuccess)
    return tsi_cuda_error(lu->ctx, err, "ts_lu_analyze: GPU levelization: cooperative launch");
  return tsi_cuda_check_launch(ctx, "LU levelization (cooperative)");
}

ts_status tsi_lu_levelize_cuda(ts_lu *lu) {
  ts_context *ctx = lu->ctx;
  if (!ctx || ctx->backend != TS_BACKEND_CUDA)
    return tsi_error(ctx, TS_ERROR_UNSUPPORTED, "ts_lu_analyze: GPU levelization needs a CUDA context");
  const int64_t n = lu->n, nnz = lu->lu_nnz;
  if (n >= INT32_MAX)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "ts_lu_analyze: order %lld too large for the GPU levelization",
                     (long long)n);
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  device_arrays d;
  memset(&d, 0, sizeof d);
  int64_t *level_ptr = NULL;
  int32_t *level_cols = NULL;
  int64_t held = 0, peak = 0;
  int32_t levels = 0;
  cudaError_t err;
  const int64_t ptr_bytes = (n + 1) * (int64_t)sizeof(int64_t), col_bytes = n * (int64_t)sizeof(int32_t);
  unsigned warp_blocks = (unsigned)((n * 32 + TSI_LU_LEVELIZE_THREADS - 1) / TSI_LU_LEVELIZE_THREADS);
  unsigned thread_blocks = (unsigned)((n + TSI_LU_LEVELIZE_THREADS - 1) / TSI_LU_LEVELIZE_THREADS);
  graph g;
  size_t scan_bytes = 0, sort_bytes = 0;
  int end_bit = 1;

  if (n == 0) {
    level_ptr = (int64_t *)tsi_calloc_array(1, sizeof(int64_t));
    level_cols = (int32_t *)tsi_malloc_array(1, sizeof(int32_t));
    if (!level_ptr || !level_cols) {
      st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the levels");
      goto cleanup;
    }
    goto done;
  }
  if ((st = device_alloc(lu, (void **)&d.col_ptr, ptr_bytes, &held)) != TS_SUCCESS ||
      (st = device_alloc(lu, (void **)&d.diag, n * (int64_t)sizeof(int64_t), &held)) != TS_SUCCESS ||
      (st = device_alloc(lu, (void **)&d.row_idx, nnz * (int64_t)sizeof(int32_t), &held)) != TS_SUCCESS ||
      (st = device_alloc(lu, (void **)&d.u_row_ptr, ptr_bytes, &held)) != TS_SUCCESS ||
      (st = device_alloc(lu, (void **)&d.fill, ptr_bytes, &held)) != TS_SUCCESS ||
      (st = device_alloc(lu, (void **)&d.in_degree, col_bytes, &held)) != TS_SUCCESS ||
      (st = device_alloc(lu, (void **)&d.level, col_bytes, &held)) != TS_SUCCESS ||
      (st = device_alloc(lu, (void **)&d.queue, col_bytes, &held)) != TS_SUCCESS ||
      (st = device_alloc(lu, (void **)&d.added, (n + 1) * (int64_t)sizeof(int32_t), &held)) != TS_SUCCESS ||
      (st = device_alloc(lu, (void **)&d.level_ptr, ptr_bytes, &held)) != TS_SUCCESS ||
      (st = device_alloc(lu, (void **)&d.levels, sizeof(int32_t), &held)) != TS_SUCCESS)
    goto cleanup;
  if ((st = tsi_cuda_memcpy_to_device(ctx, d.col_ptr, lu->lu_col_ptr, (size_t)ptr_bytes)) != TS_SUCCESS ||
      (st = tsi_cuda_memcpy_to_device(ctx, d.diag, lu->diag_pos, (size_t)n * sizeof(int64_t))) != TS_SUCCESS ||
      (st = tsi_cuda_memcpy_to_device(ctx, d.row_idx, lu->lu_row_idx, (size_t)nnz * sizeof(int32_t))) != TS_SUCCESS ||
      (st = tsi_cuda_memset(ctx, d.u_row_ptr, 0, (size_t)ptr_bytes)) != TS_SUCCESS ||
      (st = tsi_cuda_memset(ctx, d.in_degree, 0, (size_t)col_bytes)) != TS_SUCCESS ||
      (st = tsi_cuda_memset(ctx, d.added, 0, (size_t)(n + 1) * sizeof(int32_t))) != TS_SUCCESS)
    goto cleanup;
  g.n = (int32_t)n;
  g.col_ptr = d.col_ptr;
  g.row_idx = d.row_idx;
  g.diag = d.diag;
  g.u_row_ptr = d.u_row_ptr;
  g.u_col_idx = NULL;
  g.in_degree = d.in_degree;
  g.level = d.level;
  g.queue = d.queue;
  g.added = d.added;
  g.level_ptr = d.level_ptr;
  g.levels = d.levels;

  /* The graph: in-degrees, then U's strict part by rows (count, scan, fill). */
  count_edges<<<warp_blocks, TSI_LU_LEVELIZE_THREADS, 0, stream>>>(g);
  if ((st = tsi_cuda_check_launch(ctx, "LU levelization: in-degrees")) != TS_SUCCESS)
    goto cleanup;
  if ((err = cub::DeviceScan::InclusiveSum(NULL, scan_bytes, d.u_row_ptr + 1, d.u_row_ptr + 1, (int)n, stream)) !=
      cudaSuccess) {
    st = tsi_cuda_error(lu->ctx, err, "ts_lu_analyze: GPU levelization: scan size");
    goto cleanup;
  }
  {
    /* Levels fit in the bits of n: the radix sort looks at those only. */
    while (end_bit < 31 && ((int64_t)1 << end_bit) <= n)
      end_bit++;
    if ((err = cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, (uint32_t *)d.level, d.sorted_level, d.queue, d.queue,
                                               (int)n, 0, end_bit, stream)) != cudaSuccess) {
      st = tsi_cuda_error(lu->ctx, err, "ts_lu_analyze: GPU levelization: sort size");
      goto cleanup;
    }
    int64_t temp_bytes = (int64_t)(scan_bytes > sort_bytes ? scan_bytes : sort_bytes);
    if ((st = device_alloc(lu, &d.temp, temp_bytes, &held)) != TS_SUCCESS)
      goto cleanup;
  }
  if ((err = cub::DeviceScan::InclusiveSum(d.temp, scan_bytes, d.u_row_ptr + 1, d.u_row_ptr + 1, (int)n, stream)) !=
      cudaSuccess) {
    st = tsi_cuda_error(lu->ctx, err, "ts_lu_analyze: GPU levelization: scan");
    goto cleanup;
  }
  {
    int64_t u_entries = 0;
    if ((st = tsi_cuda_memcpy_to_host(ctx, &u_entries, d.u_row_ptr + n, sizeof(int64_t))) != TS_SUCCESS ||
        (st = device_alloc(lu, (void **)&d.u_col_idx, u_entries * (int64_t)sizeof(int32_t), &held)) != TS_SUCCESS ||
        (st = tsi_cuda_memcpy_device(ctx, d.fill, d.u_row_ptr, (size_t)ptr_bytes)) != TS_SUCCESS)
      goto cleanup;
  }
  g.u_col_idx = d.u_col_idx;
  fill_u_rows<<<warp_blocks, TSI_LU_LEVELIZE_THREADS, 0, stream>>>(g, d.fill);
  if ((st = tsi_cuda_check_launch(ctx, "LU levelization: U by rows")) != TS_SUCCESS)
    goto cleanup;

  /* Kahn's sort, all levels in one launch. */
  seed_sources<<<thread_blocks, TSI_LU_LEVELIZE_THREADS, 0, stream>>>(g);
  if ((st = tsi_cuda_check_launch(ctx, "LU levelization: sources")) != TS_SUCCESS)
    goto cleanup;
  if ((st = run_kahn(lu, &g, stream)) != TS_SUCCESS)
    goto cleanup;
  if ((st = tsi_cuda_memcpy_to_host(ctx, &levels, d.levels, sizeof(int32_t))) != TS_SUCCESS)
    goto cleanup;

  /* Columns by (level, column): a stable radix sort of the levels, columns
   * in increasing order as values (the level and queue arrays are reused). */
  if ((st = device_alloc(lu, (void **)&d.sorted_level, col_bytes, &held)) != TS_SUCCESS ||
      (st = device_alloc(lu, (void **)&d.cols, col_bytes, &held)) != TS_SUCCESS)
    goto cleanup;
  column_numbers<<<thread_blocks, TSI_LU_LEVELIZE_THREADS, 0, stream>>>(d.cols, (int32_t)n);
  if ((st = tsi_cuda_check_launch(ctx, "LU levelization: column numbers")) != TS_SUCCESS)
    goto cleanup;
  if ((err = cub::DeviceRadixSort::SortPairs(d.temp, sort_bytes, (uint32_t *)d.level, d.sorted_level, d.cols, d.queue,
                                             (int)n, 0, end_bit, stream)) != cudaSuccess) {
    st = tsi_cuda_error(lu->ctx, err, "ts_lu_analyze: GPU levelization: sort");
    goto cleanup;
  }
  peak = held;
  level_ptr = (int64_t *)tsi_malloc_array(levels + 1, sizeof(int64_t));
  level_cols = (int32_t *)tsi_malloc_array(n, sizeof(int32_t));
  if (!level_ptr || !level_cols) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_lu_analyze: cannot allocate the levels of %lld columns",
                   (long long)n);
    goto cleanup;
  }
  if ((st = tsi_cuda_memcpy_to_host(ctx, level_ptr, d.level_ptr, (size_t)(levels + 1) * sizeof(int64_t))) !=
          TS_SUCCESS ||
      (st = tsi_cuda_memcpy_to_host(ctx, level_cols, d.queue, (size_t)col_bytes)) != TS_SUCCESS)
    goto cleanup;
  if (level_ptr[levels] != n) {
    st = tsi_error(ctx, TS_ERROR_INTERNAL, "ts_lu_analyze: %lld of %lld columns left out of the levels",
                   (long long)(n - level_ptr[levels]), (long long)n);
    goto cleanup;
  }
done : {
  int64_t widest = 0;
  for (int64_t l = 0; l < levels; l++)
    if (level_ptr[l + 1] - level_ptr[l] > widest)
      widest = level_ptr[l + 1] - level_ptr[l];
  lu->levels = levels;
  lu->level_ptr = level_ptr;
  lu->level_cols = level_cols;
  level_ptr = NULL;
  level_cols = NULL;
  lu->stats.levels = levels;
  lu->stats.max_level_size = widest;
  if (peak > lu->stats.peak_device_bytes)
    lu->stats.peak_device_bytes = peak;
}
cleanup:
  if (st != TS_SUCCESS)
    (void)cudaStreamSynchronize(stream);
  tsi_cuda_free(d.col_ptr);
  tsi_cuda_free(d.diag);
  tsi_cuda_free(d.u_row_ptr);
  tsi_cuda_free(d.level_ptr);
  tsi_cuda_free(d.row_idx);
  tsi_cuda_free(d.u_col_idx);
  tsi_cuda_free(d.in_degree);
  tsi_cuda_free(d.level);
  tsi_cuda_free(d.queue);
  tsi_cuda_free(d.added);
  tsi_cuda_free(d.levels);
  tsi_cuda_free(d.fill);
  tsi_cuda_free(d.sorted_level);
  tsi_cuda_free(d.cols);
  tsi_cuda_free(d.temp);
  free(level_ptr);
  free(level_cols);
  return st;
}
