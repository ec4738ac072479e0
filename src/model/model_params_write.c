/* ts_model_params as a flat JSON object: one member per line, numbers with
 * 17 significant digits (a double reads back exactly). */
#include "model/model_internal.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void write_real(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.17g", v);
  else
    fputs("null", f); /* JSON has no infinities; the reader refuses it */
}

static void write_text(FILE *f, const char *s, size_t size) {
  fputc('"', f);
  for (size_t i = 0; i < size && s[i]; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

ts_status ts_model_params_write_json(ts_context *ctx, const ts_model_params *params, const char *path) {
  if (!params || !path)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_model_params_write_json: NULL argument");
  FILE *f = fopen(path, "w");
  if (!f)
    return tsi_error(ctx, TS_ERROR_IO, "ts_model_params_write_json: cannot open %s: %s", path, strerror(errno));
  const char *base = (const char *)params;
  fputs("{\n", f);
  for (int i = 0; i < tsi_model_field_count; i++) {
    const tsi_model_field *fd = &tsi_model_fields[i];
    fprintf(f, "  \"%s\": ", fd->key);
    switch (fd->kind) {
    case TSI_FIELD_TEXT:
      write_text(f, base + fd->offset, (size_t)fd->count);
      break;
    case TSI_FIELD_INT:
      fprintf(f, "%d", *(const int *)(const void *)(base + fd->offset));
      break;
    case TSI_FIELD_INT64:
      fprintf(f, "%lld", (long long)*(const int64_t *)(const void *)(base + fd->offset));
      break;
    case TSI_FIELD_REAL:
      write_real(f, *(const double *)(const void *)(base + fd->offset));
      break;
    case TSI_FIELD_REALS: {
      const double *v = (const double *)(const void *)(base + fd->offset);
      fputc('[', f);
      for (int j = 0; j < fd->count; j++) {
        if (j)
          fputs(", ", f);
        write_real(f, v[j]);
      }
      fputc(']', f);
      break;
    }
    }
    fputs(i + 1 < tsi_model_field_count ? ",\n" : "\n", f);
  }
  fputs("}\n", f);
  bool failed = ferror(f) != 0;
  if (fclose(f) != 0)
    failed = true;
  if (failed)
    return tsi_error(ctx, TS_ERROR_IO, "ts_model_params_write_json: writing %s failed", path);
  return TS_SUCCESS;
}
