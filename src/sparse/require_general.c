/* The refusal of symmetric storage by the sparse products: they read every
 * stored entry as it stands. */
#include "spmm_internal.h"

ts_status tsi_require_general(ts_context *ctx, const char *op, const char *name, const ts_csr *a) {
  if (a->symmetry == TS_GENERAL)
    return TS_SUCCESS;
  return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                   "%s: %s holds %s storage; expand it with ts_coo_expand_symmetric first", op, name,
                   ts_symmetry_name(a->symmetry));
}
