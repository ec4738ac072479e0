/* What the tests written in CUDA share: a CUDA call checked as a test check,
 * and the device they run on (or a visible skip where there is none). */
#ifndef TESSERA_TEST_CUDA_COMMON_H
#define TESSERA_TEST_CUDA_COMMON_H

#include "test_common.h"

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                                                               \
  do {                                                                                                                 \
    cudaError_t cuda_check_err = (call);                                                                               \
    CHECK_MSG(cuda_check_err == cudaSuccess, "%s: %s", #call, cudaGetErrorString(cuda_check_err));                     \
  } while (0)

/* Device 0's multiprocessor count, or 0 where no CUDA device is usable (the
 * caller then returns test_skip()). */
static inline int test_cuda_multiprocessors(void) {
  int devices = 0, sm_count = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
    return 0;
  if (cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess)
    return 0;
  return sm_count;
}

#endif
