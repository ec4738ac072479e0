/* The GPU numeric phase's choice of dense scratch slots
 * (tsi_lu_dense_scratch_slots), checked without a GPU: against a
 * restatement of its rule up to n = 2^20 (where it must not change what was
 * measured), and on the cases that set it: the matrices measured on the
 * H200, the 4.2 M-row mesh that fell to the sparse scratch, forced modes,
 * little memory, and sizes whose bytes would overflow. */
#include "lu/numeric/numeric_internal.h"
#include "test_common.h"

#define GIB ((int64_t)1 << 30)

/* The rule before the cap grew with n: 2 GiB or a quarter of the free
 * memory, at most 2048 slots, at least min(widest, 128) to go dense. */
static int64_t capped_rule(int64_t n, int64_t widest, int64_t free_bytes, int mode) {
  if (mode == TSI_LU_SCRATCH_SPARSE)
    return 0;
  int64_t budget = free_bytes / 4 < 2 * GIB ? free_bytes / 4 : 2 * GIB;
  int64_t fit = budget / (n * 8);
  int64_t wanted = widest > 2048 ? 2048 : (widest < 8 ? 8 : widest);
  int64_t least = wanted > 128 ? 128 : wanted;
  if (mode != TSI_LU_SCRATCH_DENSE && fit < least)
    return 0;
  int64_t slots = fit < wanted ? fit : wanted;
  return slots < 8 ? 8 : slots;
}

int main(void) {
  /* Unchanged where it was measured: n up to 2^20, every mode, a spread of
   * level widths and free memory. */
  const int64_t ns[] = {1, 7, 1000, 99856, 500000, 1000000, (int64_t)1 << 20};
  const int64_t widths[] = {1, 5, 100, 2048, 5000, 498000};
  const int64_t frees[] = {0, 64 << 20, GIB, 8 * GIB, 100 * GIB};
  int mismatches = 0;
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
      for (size_t f = 0; f < sizeof frees / sizeof frees[0]; f++)
        for (int mode = TSI_LU_SCRATCH_AUTO; mode <= TSI_LU_SCRATCH_SPARSE; mode++) {
          int64_t got = tsi_lu_dense_scratch_slots(ns[i], widths[w], frees[f], mode);
          int64_t want = capped_rule(ns[i], widths[w], frees[f], mode);
          if (got != want && mismatches++ < 5)
            fprintf(stderr, "n %lld widest %lld free %lld mode %d: %lld slots, the capped rule %lld\n",
                    (long long)ns[i], (long long)widths[w], (long long)frees[f], mode, (long long)got, (long long)want);
        }
  CHECK_MSG(mismatches == 0, "%d cases differ from the 2 GiB rule at n <= 2^20", mismatches);

  /* The measured configurations. */
  CHECK(tsi_lu_dense_scratch_slots(99856, 2048, 100 * GIB, TSI_LU_SCRATCH_AUTO) == 2048);    /* circuit grid */
  CHECK(tsi_lu_dense_scratch_slots(1000000, 497998, 100 * GIB, TSI_LU_SCRATCH_AUTO) == 268); /* 1000^2 mesh */
  /* The 2048^2 mesh: 64 slots under the 2 GiB cap (sparse); now 256 dense
   * ones while a quarter of the free memory holds them... */
  const int64_t mesh = 4194304;
  CHECK(capped_rule(mesh, 2093054, 100 * GIB, TSI_LU_SCRATCH_AUTO) == 0);
  CHECK(tsi_lu_dense_scratch_slots(mesh, 2093054, 100 * GIB, TSI_LU_SCRATCH_AUTO) == 256);
  /* ... and still sparse when it does not hold 128 of them (a quarter of
   * 16 GiB is 128 slots of 32 MiB: just enough; of 15 GiB, not). */
  CHECK(tsi_lu_dense_scratch_slots(mesh, 2093054, 16 * GIB, TSI_LU_SCRATCH_AUTO) == 128);
  CHECK(tsi_lu_dense_scratch_slots(mesh, 2093054, 15 * GIB, TSI_LU_SCRATCH_AUTO) == 0);
  /* Narrow levels want fewer slots than the cap allows. */
  CHECK(tsi_lu_dense_scratch_slots(mesh, 100, 100 * GIB, TSI_LU_SCRATCH_AUTO) == 100);
  /* Forced modes. */
  CHECK(tsi_lu_dense_scratch_slots(mesh, 2093054, 0, TSI_LU_SCRATCH_DENSE) == 8);
  CHECK(tsi_lu_dense_scratch_slots(1000, 2048, 100 * GIB, TSI_LU_SCRATCH_SPARSE) == 0);
  /* No order, and orders whose n-vector bytes overflow: no dense scratch. */
  CHECK(tsi_lu_dense_scratch_slots(0, 10, 100 * GIB, TSI_LU_SCRATCH_AUTO) == 0);
  CHECK(tsi_lu_dense_scratch_slots(INT64_MAX / 4, 10, INT64_MAX, TSI_LU_SCRATCH_DENSE) == 0);
  CHECK(tsi_lu_dense_scratch_slots(INT64_MAX / 2048, 4096, INT64_MAX, TSI_LU_SCRATCH_AUTO) == 0);
  return test_finish();
}
