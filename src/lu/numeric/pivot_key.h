/* The smallest pivot of a factorization, found the same way on the host and
 * on the device: |u_kk| / max|M| rounded to single precision in the high 32 bits
 * (non-negative floats order as their bit patterns do) and the column k in
 * the low ones, so the minimum key is the smallest pivot to single precision,
 * the first column among equals, whatever the order of the reduction. */
#ifndef TESSERA_LU_NUMERIC_PIVOT_KEY_H
#define TESSERA_LU_NUMERIC_PIVOT_KEY_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define TSI_LU_HOST_DEVICE __host__ __device__
#else
#define TSI_LU_HOST_DEVICE
#endif

static inline TSI_LU_HOST_DEVICE uint64_t tsi_lu_pivot_key(double ratio, int64_t k) {
  const float rounded = (float)ratio;
  uint32_t bits;
  memcpy(&bits, &rounded, sizeof bits);
  return ((uint64_t)bits << 32) | (uint32_t)k;
}

/* The ratio and its column from a key; a key of all ones (no column) gives
 * an infinite ratio and column -1. */
static inline void tsi_lu_pivot_key_decode(uint64_t key, double *ratio, int64_t *column) {
  if (key == ~(uint64_t)0) {
    *ratio = (double)INFINITY;
    *column = -1;
    return;
  }
  const uint32_t bits = (uint32_t)(key >> 32);
  float rounded;
  memcpy(&rounded, &bits, sizeof rounded);
  *ratio = (double)rounded;
  *column = (int64_t)(key & 0xffffffffu);
}

#endif
