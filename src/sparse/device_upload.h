/* Copies of host arrays in the context's GPU memory, for the sparse plans. */
#ifndef TESSERA_DEVICE_UPLOAD_H
#define TESSERA_DEVICE_UPLOAD_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *dst = a new GPU array holding the `bytes` bytes at src (one byte more
 * than asked, so that an empty array still has a valid address); *dst is
 * NULL after a failure. */
ts_status tsi_upload_array(ts_context *ctx, void **dst, const void *src, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
