/* How many dense scratch columns the GPU's left-looking levels get (host
 * rule, kept apart from the kernels so that it is tested without a GPU). */
#include "lu/lu_numeric_cuda.h"

/* Dense scratch: at most this many bytes (and a quarter of the free device
 * memory), and no more than this many slots. Dense scratch with fewer slots
 * than the widest level still beat the sparse scratch: circuit grid
 * n = 99,856, 1,344 slots for levels of up to 2,048 columns: 716 ms against
 * 1,547 (H200, bench/lu_numeric_gpu, commit fc0c307). */
#define TSI_LU_SCRATCH_BYTES ((int64_t)2 << 30)
#define TSI_LU_SCRATCH_SLOTS 2048
#define TSI_LU_SCRATCH_MIN_SLOTS 128
/* Past n = 2^20 the byte cap above would leave fewer slots than this; the
 * cap grows instead to keep them, within the quarter of the free memory.
 * The 1000^2 2-D Laplacian (n = 10^6) factored with 268 slots at 6 Gflop/s
 * (H200, 2026-11-30); the 2048^2 one (n = 4.2 M) fell to the sparse scratch
 * with 64 slots under the 2 GiB cap and did not finish in 300 s (2026-12-01).
 * The larger cap has not been measured yet (bench/notes/lu-numeric.md). */
#define TSI_LU_SCRATCH_LARGE_N_SLOTS 256

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
