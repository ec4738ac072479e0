/* The operands of C = A*B, checked once for the plan and the host call. */
#include "spgemm_internal.h"
#include "spmm_internal.h"

ts_status tsi_spgemm_check_operands(ts_context *ctx, const char *op, const ts_csr *a, const ts_csr *b) {
  if (!a || !b)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", op, a ? "B" : "A");
  if (ts_dtype_size(a->dtype) == 0 || ts_dtype_size(b->dtype) == 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown value type %d", op,
                     (int)(ts_dtype_size(a->dtype) == 0 ? a->dtype : b->dtype));
  ts_status st = tsi_require_real(ctx, op, "A", a->dtype);
  if (st == TS_SUCCESS)
    st = tsi_require_real(ctx, op, "B", b->dtype);
  if (st != TS_SUCCESS)
    return st;
  if (a->dtype != b->dtype)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: A holds %s values and B %s; convert one of them", op,
                     a->dtype == TS_FLOAT32 ? "float" : "double", b->dtype == TS_FLOAT32 ? "float" : "double");
  st = tsi_require_general(ctx, op, "A", a);
  if (st == TS_SUCCESS)
    st = tsi_require_general(ctx, op, "B", b);
  if (st != TS_SUCCESS)
    return st;
  if (a->cols != b->rows)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: A is %lld x %lld and B %lld x %lld: A's columns must equal B's rows", op, (long long)a->rows,
                     (long long)a->cols, (long long)b->rows, (long long)b->cols);
  st = ts_csr_check(ctx, a);
  if (st == TS_SUCCESS)
    st = ts_csr_check(ctx, b);
  return st;
}
