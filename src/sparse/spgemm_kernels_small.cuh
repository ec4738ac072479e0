/* SpGEMM's symbolic steps for few rows in one launch each, where CUB's
 * stable radix sort (histogram, scan, one-sweep: three kernels past a few
 * thousand keys) and its scan (two kernels, and a memset before them) pay
 * a launch each of a few microseconds of host time: one block of
 * TSI_SPGEMM_SMALL_BLOCK threads, each taking a run of at most
 * TSI_SPGEMM_SMALL_ROWS / TSI_SPGEMM_SMALL_BLOCK consecutive rows.
 *  - tsi_spgemm_group_small(): the rows grouped by bin, in row order within
 *    a bin (what the stable sort on the bins' 4 bits gives): each thread
 *    counts its run's rows by bin, a block scan over (bin, thread) places
 *    them, each thread writes its run's rows in order.
 *  - tsi_spgemm_scan_small(): C's row offsets, c_off[0] = 0 included: each
 *    thread sums its run, a block scan places the runs.
 * Host-emulated in tests/sparse/test_spgemm_kernels_emulated.cpp. */
#ifndef TESSERA_SPGEMM_KERNELS_SMALL_CUH
#define TESSERA_SPGEMM_KERNELS_SMALL_CUH

#include "spgemm_cuda_args.cuh"

#define TSI_SPGEMM_SMALL_BLOCK 1024
#define TSI_SPGEMM_SMALL_ROWS 16384

static_assert(TSI_SPGEMM_SMALL_ROWS <= 65535, "a bin's places fit 16 bits");

/* Thread t's run of the n rows: [*begin, *end). */
__device__ inline void tsi_spgemm_small_run(int n, int *begin, int *end) {
  const int per = (n + TSI_SPGEMM_SMALL_BLOCK - 1) / TSI_SPGEMM_SMALL_BLOCK;
  const int b = int(threadIdx.x) * per;
  *begin = b < n ? b : n;
  *end = b + per < n ? b + per : n;
}

/* Rows ids[0 .. n - 1] (n at most TSI_SPGEMM_SMALL_ROWS) of bins
 * bins[0 .. n - 1] into list, grouped by bin, stable. */
__global__ void __launch_bounds__(TSI_SPGEMM_SMALL_BLOCK)
    tsi_spgemm_group_small(const unsigned char *bins, const int32_t *ids, int n, int32_t *list) {
  constexpr int B = TSI_SPGEMM_SMALL_BLOCK, K = TSI_SPGEMM_BINS;
  __shared__ unsigned short place[K][B];
  __shared__ int scratch[B / 32 + 1];
  const int t = int(threadIdx.x);
  int begin, end;
  tsi_spgemm_small_run(n, &begin, &end);
#pragma unroll
  for (int b = 0; b < K; b++)
    place[b][t] = 0;
  for (int i = begin; i < end; i++)
    place[bins[i]][t]++;
  __syncthreads();
  /* (bin, thread) in bin-major order: thread t scans entries t K .. t K + K - 1. */
  int count[K], mine = 0;
#pragma unroll
  for (int j = 0; j < K; j++) {
    const int f = t * K + j;
    count[j] = place[f / B][f % B];
    mine += count[j];
  }
  int total = 0;
  int at = tsi_spgemm_block_exclusive<int, B>(mine, scratch, &total);
#pragma unroll
  for (int j = 0; j < K; j++) {
    const int f = t * K + j;
    place[f / B][f % B] = (unsigned short)at;
    at += count[j];
  }
  __syncthreads();
  for (int i = begin; i < end; i++)
    list[place[bins[i]][t]++] = ids[i];
}

/* c_off[0] = 0 and c_off[i + 1] = c_off[i] + counts[i] for the n rows (n at
 * most TSI_SPGEMM_SMALL_ROWS). */
__global__ void __launch_bounds__(TSI_SPGEMM_SMALL_BLOCK)
    tsi_spgemm_scan_small(const int64_t *counts, int n, int64_t *c_off) {
  constexpr int B = TSI_SPGEMM_SMALL_BLOCK;
  __shared__ int64_t scratch[B / 32 + 1];
  int begin, end;
  tsi_spgemm_small_run(n, &begin, &end);
  int64_t mine = 0;
  for (int i = begin; i < end; i++)
    mine += counts[i];
  int64_t total = 0;
  int64_t run = tsi_spgemm_block_exclusive<int64_t, B>(mine, scratch, &total);
  if (threadIdx.x == 0)
    c_off[0] = 0;
  for (int i = begin; i < end; i++) {
    run += counts[i];
    c_off[i + 1] = run;
  }
}

#endif
