/* The smallest pivot of the host's factors (lu->pivot_now), keyed as the
 * device's reduction keys it (pivot_key.h), for the singularity policy's
 * look at pivots that are small without being tiny; a complex pivot by its
 * modulus. */
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
  for (int64_t k = 0; k < lu->n; k++) {
    const uint64_t key = tsi_lu_pivot_key(pivot_magnitude(lu, diag_pos[k]) / max_m, k);
    smallest = key < smallest ? key : smallest;
  }
  tsi_lu_pivot_key_decode(smallest, &lu->pivot_now.smallest_pivot_ratio, &lu->pivot_now.smallest_pivot_column);
}
