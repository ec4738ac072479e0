/* Status strings, version, and the per-context / per-thread error message. */
#include "core/internal.h"

#include <stdio.h>
#include <string.h>

const char *ts_status_string(ts_status status) {
  switch (status) {
  case TS_SUCCESS:
    return "success";
  case TS_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case TS_ERROR_INVALID_MATRIX:
    return "invalid matrix";
  case TS_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  case TS_ERROR_OVERFLOW:
    return "size overflow";
  case TS_ERROR_IO:
    return "input/output error";
  case TS_ERROR_PARSE:
    return "parse error";
  case TS_ERROR_UNSUPPORTED:
    return "unsupported";
  case TS_ERROR_NO_DEVICE:
    return "no usable CUDA device";
  case TS_ERROR_CUDA:
    return "CUDA error";
  case TS_ERROR_STRUCTURALLY_SINGULAR:
    return "structurally singular";
  case TS_ERROR_NUMERICALLY_SINGULAR:
    return "numerically singular";
  case TS_ERROR_NOT_ANALYZED:
    return "not analyzed";
  case TS_ERROR_NOT_FACTORED:
    return "not factored";
  case TS_ERROR_CANCELLED:
    return "cancelled";
  case TS_WARNING_PERTURBED_PIVOTS:
    return "tiny pivots perturbed (warning)";
  case TS_WARNING_PIVOTS_DEGRADED:
    return "pivots degraded since the analysis (warning)";
  case TS_ERROR_INTERNAL:
    return "internal error";
  }
  return "unknown status";
}

int ts_version(void) { return TESSERA_VERSION; }

size_t ts_dtype_size(ts_dtype dtype) {
  switch (dtype) {
  case TS_FLOAT32:
    return 4;
  case TS_FLOAT64:
  case TS_COMPLEX64:
    return 8;
  case TS_COMPLEX128:
    return 16;
  }
  return 0;
}

const char *ts_dtype_name(ts_dtype dtype) {
  switch (dtype) {
  case TS_FLOAT32:
    return "float32";
  case TS_FLOAT64:
    return "float64";
  case TS_COMPLEX64:
    return "complex64";
  case TS_COMPLEX128:
    return "complex128";
  }
  return "unknown";
}

const char *ts_backend_name(ts_backend backend) {
  switch (backend) {
  case TS_BACKEND_AUTO:
    return "auto";
  case TS_BACKEND_CPU:
    return "cpu";
  case TS_BACKEND_CUDA:
    return "cuda";
  }
  return "unknown";
}

static _Thread_local char thread_message[TSI_MESSAGE_SIZE];

char *tsi_message_slot(ts_context *ctx) { return ctx ? ctx->message : thread_message; }

ts_status(tsi_error)(ts_context *ctx, ts_status status, const char *format, ...) {
  char *slot = tsi_message_slot(ctx);
  va_list args;
  va_start(args, format);
  vsnprintf(slot, TSI_MESSAGE_SIZE, format, args);
  va_end(args);
  return status;
}

const char *ts_last_error(const ts_context *ctx) { return ctx ? ctx->message : thread_message; }
