/* Checks for benchmark programs written in CUDA: every runtime call and every
 * launch is checked, and a failure names the call, file and line. */
#ifndef TESSERA_BENCH_TSB_CUDA_H
#define TESSERA_BENCH_TSB_CUDA_H

#include "tsb.h"

#include <cuda_runtime.h>
#include <stdio.h>

/* Evaluate a CUDA runtime call; on failure print it and return 1 from the
 * enclosing function (which must return int). */
#define TSB_CUDA_TRY(call)                                                                                             \
  do {                                                                                                                 \
    cudaError_t tsb_err_ = (call);                                                                                     \
    if (tsb_err_ != cudaSuccess) {                                                                                     \
      fprintf(stderr, "%s:%d: CUDA error: %s: %s (%s)\n", __FILE__, __LINE__, #call, cudaGetErrorString(tsb_err_),     \
              cudaGetErrorName(tsb_err_));                                                                             \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

/* After a <<<...>>> launch named @p what: its launch error, handled as above. */
#define TSB_LAUNCH_TRY(what)                                                                                           \
  do {                                                                                                                 \
    cudaError_t tsb_err_ = cudaGetLastError();                                                                         \
    if (tsb_err_ != cudaSuccess) {                                                                                     \
      fprintf(stderr, "%s:%d: launch of %s failed: %s (%s)\n", __FILE__, __LINE__, what, cudaGetErrorString(tsb_err_), \
              cudaGetErrorName(tsb_err_));                                                                             \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

/* A tessera call; on failure print its status and message and return 1. */
#define TSB_TS_TRY(ctx, call)                                                                                          \
  do {                                                                                                                 \
    ts_status tsb_st_ = (call);                                                                                        \
    if (tsb_st_ != TS_SUCCESS) {                                                                                       \
      fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call, ts_status_string(tsb_st_),              \
              ts_last_error(ctx));                                                                                     \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

#endif /* TESSERA_BENCH_TSB_CUDA_H */
