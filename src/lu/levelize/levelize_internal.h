/* The levelization: the levels of the column dependency graph of the
 * numeric factorization (level_ptr, level_cols, levels, and the statistics
 * levels and max_level_size), on the host (levelize_cpu.c) or on the GPU
 * (levelize_cuda.cu; TS_ERROR_UNSUPPORTED without CUDA or without a CUDA
 * context). Both give the same levels, each level's columns in increasing
 * order. */
#ifndef TESSERA_LU_LEVELIZE_INTERNAL_H
#define TESSERA_LU_LEVELIZE_INTERNAL_H

#include "lu/lu_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

ts_status tsi_lu_levelize_cpu(ts_lu *lu);
ts_status tsi_lu_levelize_cuda(ts_lu *lu);

#ifdef __cplusplus
}
#endif

#endif
