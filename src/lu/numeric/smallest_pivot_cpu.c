/* The smallest pivot of the host's factors (lu->pivot_now), keyed as the
 * device's reduction keys it (pivot_key.h), for the singularity policy's
 * look at pivots that are small without being tiny. */
#include "lu/numeric/numeric_internal.h"
#include "lu/numeric/pivot_key.h"

void tsi_lu_smallest_pivot_host(ts_lu *lu) {
  uint64_t smallest = ~(uint64_t)0;
  const int64_t *diag_pos = lu->diag_pos;
  const double max_m = lu->pivot_now.max_m > 0.0 ? lu->pivot_now.max_m : 1.0;
  if (lu->options.float_factors) {
    for (int64_t k = 0; k < lu->n; k++) {
      const uint64_t key = tsi_lu_pivot_key(fabs((double)lu->lu_values_f32[diag_pos[k]]) / max_m, k);
      smallest = key < smallest ? key : smallest;
    }
  } else {
    for (int64_t k = 0; k < lu->n; k++) {
      const uint64_t key = tsi_lu_pivot_key(fabs(lu->lu_values[diag_pos[k]]) / max_m, k);
      smallest = key < smallest ? key : smallest;
    }
  }
  tsi_lu_pivot_key_decode(smallest, &lu->pivot_now.smallest_pivot_ratio, &lu->pivot_now.smallest_pivot_column);
}
