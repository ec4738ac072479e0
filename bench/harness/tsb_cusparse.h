/* Checks for benchmarks that call cuSPARSE as their anchor. */
#ifndef TESSERA_BENCH_TSB_CUSPARSE_H
#define TESSERA_BENCH_TSB_CUSPARSE_H

#include "tsb_cuda.h"

#include <cusparse.h>

/* Evaluate a cuSPARSE call; on failure print it and return 1 from the
 * enclosing function (which must return int). */
#define TSB_CUSPARSE_TRY(call)                                                                                         \
  do {                                                                                                                 \
    cusparseStatus_t tsb_sp_ = (call);                                                                                 \
    if (tsb_sp_ != CUSPARSE_STATUS_SUCCESS) {                                                                          \
      fprintf(stderr, "%s:%d: cuSPARSE error: %s: %s\n", __FILE__, __LINE__, #call, cusparseGetErrorString(tsb_sp_));  \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

#endif /* TESSERA_BENCH_TSB_CUSPARSE_H */
