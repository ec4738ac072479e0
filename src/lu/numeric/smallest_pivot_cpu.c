/* The smallest pivot of the host's factors (lu->pivot_now), keyed as the
 * device's reduction keys it (pivot_key.h), for the singularity policy's
 * look at pivots that are small without being tiny; a complex pivot by its
 * modulus. Where the column kernel tracked the least pivot magnitude and
 * the next larger one (least_known), and the two round to different single
 * precision ratios, no other column can share the least key: the least
 * column's key is the answer, without a pass over the pivots (a load each,
 * at random, from the factors). Otherwise the pass. The key is monotone in
 * the magnitude (a division by max|M| > 0, then a rounding), so both ways
 * give the same result. */
#include "core/complex_value.h"
#include "lu/numeric/numeric_internal.h"
#include "lu/numeric/pivot_key.h"

/* |u_kk| of the factors as stored, at position p of L + U. */
static double pivot_magnitude(const ts_lu *lu, int64_t p) {
  if (lu->complex_values && lu->options.float_factors)
    return tsi_z_abs(tsi_z_widen(((const tsi_complex64 *)lu->lu_values_f32)[p]));
  if (lu->complex_values)
    return tsi_z_abs(((const tsi_complex128 *)lu->lu_values)[p]);
  if (lu->options.float_factors)
    return fabs((double)lu->lu_values_f32[p]);
  return fabs(lu->lu_values[p]);
}

void tsi_lu_smallest_pivot_host(ts_lu *lu) {
  uint64_t smallest = ~(uint64_t)0;
  const int64_t *diag_pos = lu->diag_pos;
  const double max_m = lu->pivot_now.max_m > 0.0 ? lu->pivot_now.max_m : 1.0;
  /* The tally describes the pivots as the kernel stored them: used once. */
  const tsi_lu_pivot_quality q = lu->pivot_now;
  lu->pivot_now.least_known = 0;
  if (q.least_known && q.least_pivot_column >= 0 && q.least_pivot_column < lu->n) {
    const double least = q.least_pivot / max_m;
    if ((float)(q.next_pivot / max_m) > (float)least) {
      tsi_lu_pivot_key_decode(tsi_lu_pivot_key(least, q.least_pivot_column), &lu->pivot_now.smallest_pivot_ratio,
                              &lu->pivot_now.smallest_pivot_column);
      return;
    }
  }
  for (int64_t k = 0; k < lu->n; k++) {
    const uint64_t key = tsi_lu_pivot_key(pivot_magnitude(lu, diag_pos[k]) / max_m, k);
    smallest = key < smallest ? key : smallest;
  }
  tsi_lu_pivot_key_decode(smallest, &lu->pivot_now.smallest_pivot_ratio, &lu->pivot_now.smallest_pivot_column);
}
