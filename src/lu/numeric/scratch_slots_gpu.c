/* How many dense scratch columns the GPU's left-looking levels get (host
 * rule, kept apart from the kernels so that it is tested without a GPU). */
#include "lu/numeric/numeric_internal.h"

int64_t tsi_lu_dense_scratch_slots(int64_t n, int64_t widest_level, int64_t free_bytes, int mode) {
  if (n <= 0 || n > INT64_MAX / (int64_t)sizeof(double) || mode == TSI_LU_SCRATCH_SPARSE)
    return 0;
  const int64_t column_bytes = n * (int64_t)sizeof(double);
  int64_t cap = TSI_LU_SCRATCH_BYTES;
  if (n <= INT64_MAX / ((int64_t)sizeof(double) * TSI_LU_SCRATCH_LARGE_N_SLOTS) &&
      TSI_LU_SCRATCH_LARGE_N_SLOTS * column_bytes > cap)
    cap = TSI_LU_SCRATCH_LARGE_N_SLOTS * column_bytes;
  const int64_t quarter = free_bytes > 0 ? free_bytes / 4 : 0;
  const int64_t fit = (quarter < cap ? quarter : cap) / column_bytes;
  int64_t wanted = widest_level < TSI_LU_SCRATCH_SLOTS ? widest_level : TSI_LU_SCRATCH_SLOTS;
  if (wanted < 8)
    wanted = 8;
  const int64_t least = wanted < TSI_LU_SCRATCH_MIN_SLOTS ? wanted : TSI_LU_SCRATCH_MIN_SLOTS;
  if (mode != TSI_LU_SCRATCH_DENSE && fit < least)
    return 0; /* automatic: too few slots fit, sparse */
  int64_t slots = wanted < fit ? wanted : fit;
  return slots < 8 ? 8 : slots;
}
