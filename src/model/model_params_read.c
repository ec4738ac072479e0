/* Read the flat JSON object of ts_model_params_write_json(): a small
 * recursive-descent reader for exactly that shape (an object of strings,
 * numbers and arrays of numbers); every error names its line. */
#include "model/model_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A parameter file is a few kilobytes; refuse anything absurd. */
#define MAX_FILE_BYTES (1 << 20)
#define MAX_KEY 64

typedef struct reader {
  const char *text;
  size_t pos, size;
  int line;
  ts_context *ctx;
  const char *path;
} reader;

static ts_status fail(reader *r, const char *what) {
  return tsi_error(r->ctx, TS_ERROR_PARSE, "%s:%d: %s", r->path, r->line, what);
}

static void skip_space(reader *r) {
  while (r->pos < r->size) {
    char c = r->text[r->pos];
    if (c == '\n')
      r->line++;
    else if (c != ' ' && c != '\t' && c != '\r')
      return;
    r->pos++;
  }
}

static bool take(reader *r, char c) {
  skip_space(r);
  if (r->pos < r->size && r->text[r->pos] == c) {
    r->pos++;
    return true;
  }
  return false;
}

/* A string into out (size bytes with its NUL); escapes \" \\ \/ \n \t \uXXXX (ASCII). */
static ts_status read_string(reader *r, char *out, size_t size) {
  if (!take(r, '"'))
    return fail(r, "expected a string");
  size_t n = 0;
  while (r->pos < r->size) {
    char c = r->text[r->pos++];
    if (c == '"') {
      out[n] = '\0';
      return TS_SUCCESS;
    }
    if (c == '\n' || (unsigned char)c < 0x20)
      return fail(r, "control character or line break inside a string");
    if (c == '\\') {
      if (r->pos >= r->size)
        break;
      char e = r->text[r->pos++];
      if (e == 'n')
        c = '\n';
      else if (e == 't')
        c = '\t';
      else if (e == '"' || e == '\\' || e == '/')
        c = e;
      else if (e == 'u' && r->pos + 4 <= r->size) {
        char hex[5] = {0};
        memcpy(hex, r->text + r->pos, 4);
        char *end = NULL;
        long code = strtol(hex, &end, 16);
        if (end != hex + 4 || code < 1 || code > 0x7f)
          return fail(r, "unsupported \\u escape (ASCII only)");
        c = (char)code;
        r->pos += 4;
      } else
        return fail(r, "bad escape in a string");
    }
    if (n + 1 >= size)
      return fail(r, "string too long");
    out[n++] = c;
  }
  return fail(r, "unterminated string");
}

static bool digit_at(const reader *r, size_t at) { return at < r->size && r->text[at] >= '0' && r->text[at] <= '9'; }

/* A JSON number (RFC 8259, section 6: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?)
 * scanned within the text's bounds, then converted: the text is not
 * terminated after its last byte, so strtod must never see it directly. */
static ts_status read_number(reader *r, double *value) {
  skip_space(r);
  if (r->pos >= r->size)
    return fail(r, "expected a number, found the end of the file");
  size_t at = r->pos;
  if (r->text[at] == '-')
    at++;
  if (!digit_at(r, at))
    return fail(r, at >= r->size ? "expected a number, found the end of the file" : "expected a number");
  if (r->text[at] == '0')
    at++;
  else
    while (digit_at(r, at))
      at++;
  if (at < r->size && r->text[at] == '.') {
    at++;
    if (!digit_at(r, at))
      return fail(r, "malformed number: digits must follow the decimal point");
    while (digit_at(r, at))
      at++;
  }
  if (at < r->size && (r->text[at] == 'e' || r->text[at] == 'E')) {
    at++;
    if (at < r->size && (r->text[at] == '+' || r->text[at] == '-'))
      at++;
    if (!digit_at(r, at))
      return fail(r, "malformed number: digits must follow the exponent");
    while (digit_at(r, at))
      at++;
  }
  double v = 0.0;
  tsi_decimal_status status = tsi_decimal_to_double(r->text + r->pos, at - r->pos, &v);
  if (status == TSI_DECIMAL_NO_MEMORY)
    return tsi_error(r->ctx, TS_ERROR_OUT_OF_MEMORY, "%s:%d: cannot copy a long number", r->path, r->line);
  if (status != TSI_DECIMAL_OK || !isfinite(v))
    return fail(r, "malformed or out-of-range number");
  r->pos = at;
  *value = v;
  return TS_SUCCESS;
}

static ts_status read_value(reader *r, const tsi_model_field *fd, char *base) {
  ts_status st;
  double v = 0;
  char message[160];
  switch (fd->kind) {
  case TSI_FIELD_TEXT:
    return read_string(r, base + fd->offset, (size_t)fd->count);
  case TSI_FIELD_INT:
  case TSI_FIELD_INT64:
    st = read_number(r, &v);
    if (st != TS_SUCCESS)
      return st;
    if (v != floor(v) || fabs(v) > (fd->kind == TSI_FIELD_INT ? (double)INT_MAX : 9.0e15)) {
      snprintf(message, sizeof message, "\"%s\" must be an integer in range", fd->key);
      return fail(r, message);
    }
    if (fd->kind == TSI_FIELD_INT)
      *(int *)(void *)(base + fd->offset) = (int)v;
    else
      *(int64_t *)(void *)(base + fd->offset) = (int64_t)v;
    return TS_SUCCESS;
  case TSI_FIELD_REAL:
    return read_number(r, (double *)(void *)(base + fd->offset));
  case TSI_FIELD_REALS: {
    double *out = (double *)(void *)(base + fd->offset);
    if (!take(r, '[')) {
      snprintf(message, sizeof message, "\"%s\" must be an array of %d numbers", fd->key, fd->count);
      return fail(r, message);
    }
    for (int j = 0; j < fd->count; j++) {
      if (j > 0 && !take(r, ',')) {
        snprintf(message, sizeof message, "\"%s\" must be an array of exactly %d numbers", fd->key, fd->count);
        return fail(r, message);
      }
      st = read_number(r, &out[j]);
      if (st != TS_SUCCESS)
        return st;
    }
    if (!take(r, ']')) {
      snprintf(message, sizeof message, "\"%s\" must be an array of exactly %d numbers", fd->key, fd->count);
      return fail(r, message);
    }
    return TS_SUCCESS;
  }
  }
  return fail(r, "internal: unknown field kind");
}

/* Skip the value of an unknown key: a string, number, or array of numbers. */
static ts_status skip_value(reader *r) {
  char scratch[512];
  double v;
  skip_space(r);
  if (r->pos < r->size && r->text[r->pos] == '"')
    return read_string(r, scratch, sizeof scratch);
  if (take(r, '[')) {
    if (take(r, ']'))
      return TS_SUCCESS;
    do {
      ts_status st = read_number(r, &v);
      if (st != TS_SUCCESS)
        return st;
    } while (take(r, ','));
    return take(r, ']') ? TS_SUCCESS : fail(r, "expected ']'");
  }
  return read_number(r, &v);
}

static ts_status parse(reader *r, ts_model_params *params) {
  bool seen[128] = {false};
  if (tsi_model_field_count > 128)
    return tsi_error(r->ctx, TS_ERROR_INTERNAL, "ts_model_params_read_json: too many fields");
  if (!take(r, '{'))
    return fail(r, "expected '{' (a JSON object)");
  bool first = true;
  while (!take(r, '}')) {
    if (!first && !take(r, ','))
      return fail(r, "expected ',' or '}'");
    first = false;
    char key[MAX_KEY];
    ts_status st = read_string(r, key, sizeof key);
    if (st != TS_SUCCESS)
      return st;
    if (!take(r, ':'))
      return fail(r, "expected ':' after a key");
    int found = -1;
    for (int i = 0; i < tsi_model_field_count; i++)
      if (strcmp(tsi_model_fields[i].key, key) == 0)
        found = i;
    if (found < 0) {
      st = skip_value(r);
    } else {
      if (seen[found]) {
        char message[128];
        snprintf(message, sizeof message, "key \"%s\" given twice", key);
        return fail(r, message);
      }
      seen[found] = true;
      st = read_value(r, &tsi_model_fields[found], (char *)params);
    }
    if (st != TS_SUCCESS)
      return st;
    skip_space(r);
    if (r->pos >= r->size)
      return fail(r, "unexpected end of the file inside the object");
  }
  skip_space(r);
  if (r->pos != r->size)
    return fail(r, "text after the closing '}'");
  for (int i = 0; i < tsi_model_field_count; i++)
    if (!seen[i]) {
      char message[128];
      snprintf(message, sizeof message, "missing key \"%s\"", tsi_model_fields[i].key);
      return fail(r, message);
    }
  return TS_SUCCESS;
}

ts_status ts_model_params_read_json(ts_context *ctx, const char *path, ts_model_params *params) {
  if (!path || !params)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_model_params_read_json: NULL argument");
  ts_status st = TS_SUCCESS;
  char *text = NULL;
  FILE *f = fopen(path, "rb");
  if (!f)
    return tsi_error(ctx, TS_ERROR_IO, "ts_model_params_read_json: cannot open %s: %s", path, strerror(errno));
  text = (char *)tsi_malloc_array(MAX_FILE_BYTES + 1, 1);
  if (!text) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "ts_model_params_read_json: out of memory");
    goto cleanup;
  }
  size_t size = fread(text, 1, MAX_FILE_BYTES + 1, f);
  if (size <= MAX_FILE_BYTES)
    text[size] = '\0'; /* the reader keeps within size; this is for safety only */
  if (ferror(f)) {
    st = tsi_error(ctx, TS_ERROR_IO, "ts_model_params_read_json: reading %s failed", path);
    goto cleanup;
  }
  if (size > MAX_FILE_BYTES) {
    st = tsi_error(ctx, TS_ERROR_PARSE, "%s: larger than %d bytes: not a parameter file", path, MAX_FILE_BYTES);
    goto cleanup;
  }
  if (memchr(text, '\0', size)) {
    st = tsi_error(ctx, TS_ERROR_PARSE, "%s: contains a NUL byte: not a JSON text file", path);
    goto cleanup;
  }
  memset(params, 0, sizeof *params);
  reader r = {text, 0, size, 1, ctx, path};
  st = parse(&r, params);
cleanup:
  free(text);
  fclose(f);
  return st;
}
