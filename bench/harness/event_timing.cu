/* CUDA-event timing of a callback: per-call medians after a warm-up, and the
 * per-call device and host cost of a burst ending in one synchronisation. */
#include "tsb_cuda.h"

#include <stdlib.h>

static int run_warmup(cudaStream_t stream, int warmup, tsb_work_fn fn, void *user) {
  for (int i = 0; i < warmup; i++) {
    if (fn(user, stream) != 0) {
      fprintf(stderr, "error: the timed work failed during warm-up call %d\n", i);
      return 1;
    }
  }
  TSB_CUDA_TRY(cudaStreamSynchronize(stream));
  TSB_CUDA_TRY(cudaGetLastError());
  return 0;
}

static int time_events(cudaStream_t stream, int warmup, int repeat, tsb_work_fn fn, void *user, cudaEvent_t *events,
                       double *samples, tsb_stats *out) {
  if (run_warmup(stream, warmup, fn, user) != 0)
    return 1;
  for (int i = 0; i < repeat; i++) {
    TSB_CUDA_TRY(cudaEventRecord(events[2 * i], stream));
    if (fn(user, stream) != 0) {
      fprintf(stderr, "error: the timed work failed on call %d\n", i);
      (void)cudaStreamSynchronize(stream);
      return 1;
    }
    TSB_CUDA_TRY(cudaEventRecord(events[2 * i + 1], stream));
  }
  TSB_CUDA_TRY(cudaStreamSynchronize(stream));
  TSB_CUDA_TRY(cudaGetLastError());
  for (int i = 0; i < repeat; i++) {
    float ms = 0;
    TSB_CUDA_TRY(cudaEventElapsedTime(&ms, events[2 * i], events[2 * i + 1]));
    samples[i] = ms;
  }
  *out = tsb_stats_of(samples, repeat);
  return 0;
}

extern "C" int tsb_time_events(void *stream, int warmup, int repeat, tsb_work_fn fn, void *user, tsb_stats *out) {
  if (!fn || !out || repeat <= 0 || warmup < 0) {
    fprintf(stderr, "error: tsb_time_events: bad arguments\n");
    return 1;
  }
  cudaEvent_t *events = (cudaEvent_t *)calloc((size_t)repeat * 2, sizeof *events);
  double *samples = (double *)malloc((size_t)repeat * sizeof *samples);
  int created = 0, failed = 0;
  if (!events || !samples) {
    fprintf(stderr, "error: tsb_time_events: out of host memory\n");
    failed = 1;
  }
  for (; !failed && created < 2 * repeat; created++) {
    cudaError_t err = cudaEventCreate(&events[created]);
    if (err != cudaSuccess) {
      fprintf(stderr, "error: cudaEventCreate: %s\n", cudaGetErrorString(err));
      failed = 1;
      break;
    }
  }
  if (!failed)
    failed = time_events((cudaStream_t)stream, warmup, repeat, fn, user, events, samples, out);
  for (int i = 0; i < created; i++)
    (void)cudaEventDestroy(events[i]);
  free(events);
  free(samples);
  return failed;
}

static int time_bursts(cudaStream_t stream, int warmup, int calls, int bursts, tsb_work_fn fn, void *user,
                       cudaEvent_t start, cudaEvent_t stop, double *device_us, double *host_us) {
  if (run_warmup(stream, warmup, fn, user) != 0)
    return 1;
  for (int b = 0; b < bursts; b++) {
    double t0 = tsb_wall_seconds();
    TSB_CUDA_TRY(cudaEventRecord(start, stream));
    for (int i = 0; i < calls; i++) {
      if (fn(user, stream) != 0) {
        fprintf(stderr, "error: the timed work failed in burst %d, call %d\n", b, i);
        (void)cudaStreamSynchronize(stream);
        return 1;
      }
    }
    TSB_CUDA_TRY(cudaEventRecord(stop, stream));
    TSB_CUDA_TRY(cudaEventSynchronize(stop));
    double t1 = tsb_wall_seconds();
    TSB_CUDA_TRY(cudaGetLastError());
    float ms = 0;
    TSB_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
    device_us[b] = 1e3 * ms / calls;
    host_us[b] = 1e6 * (t1 - t0) / calls;
  }
  return 0;
}

extern "C" int tsb_time_burst(void *stream, int warmup, int calls, int bursts, tsb_work_fn fn, void *user,
                              tsb_burst *out) {
  if (!fn || !out || calls <= 0 || bursts <= 0 || warmup < 0) {
    fprintf(stderr, "error: tsb_time_burst: bad arguments\n");
    return 1;
  }
  double *device_us = (double *)malloc((size_t)bursts * sizeof(double));
  double *host_us = (double *)malloc((size_t)bursts * sizeof(double));
  cudaEvent_t start = NULL, stop = NULL;
  int failed = !device_us || !host_us;
  if (failed)
    fprintf(stderr, "error: tsb_time_burst: out of host memory\n");
  if (!failed && (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess)) {
    fprintf(stderr, "error: cudaEventCreate: %s\n", cudaGetErrorString(cudaGetLastError()));
    failed = 1;
  }
  if (!failed)
    failed = time_bursts((cudaStream_t)stream, warmup, calls, bursts, fn, user, start, stop, device_us, host_us);
  if (!failed) {
    out->calls = calls;
    out->bursts = bursts;
    out->device_us_per_call = tsb_stats_of(device_us, bursts).median;
    out->host_us_per_call = tsb_stats_of(host_us, bursts).median;
  }
  if (start)
    (void)cudaEventDestroy(start);
  if (stop)
    (void)cudaEventDestroy(stop);
  free(device_us);
  free(host_us);
  return failed;
}
