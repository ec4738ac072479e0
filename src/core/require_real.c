/* The refusal of complex values by the calls that compute in real
 * arithmetic only (graphs, the products other than SpMV, GEMM, the
 * generators): one message for all of them; and the value types' names in
 * messages. */
#include "core/internal.h"

ts_status tsi_require_real(ts_context *ctx, const char *op, const char *what, ts_dtype dtype) {
  if (!TS_DTYPE_IS_COMPLEX(dtype))
    return TS_SUCCESS;
  return tsi_error(ctx, TS_ERROR_UNSUPPORTED, "%s: %s holds complex values (%s); this call takes real values only", op,
                   what, ts_dtype_name(dtype));
}

const char *tsi_value_type_name(ts_dtype dtype) {
  return dtype == TS_FLOAT32 ? "float" : dtype == TS_FLOAT64 ? "double" : ts_dtype_name(dtype);
}
