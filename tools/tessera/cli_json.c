/* The JSON writer of --json: strings escaped per RFC 8259, non-finite
 * numbers written as null, members indented two spaces a level. */
#include "cli_json.h"

#include <math.h>

static void json_write_string(FILE *out, const char *text) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    switch (*p) {
    case '"':
      fputs("\\\"", out);
      break;
    case '\\':
      fputs("\\\\", out);
      break;
    case '\n':
      fputs("\\n", out);
      break;
    case '\r':
      fputs("\\r", out);
      break;
    case '\t':
      fputs("\\t", out);
      break;
    default:
      if (*p < 0x20)
        fprintf(out, "\\u%04x", *p);
      else
        fputc(*p, out);
    }
  }
  fputc('"', out);
}

/* Comma, newline and indentation before a member, then its key. */
static void json_key(cli_json *json, const char *key) {
  if (!json->first[json->depth])
    fputc(',', json->out);
  json->first[json->depth] = false;
  fprintf(json->out, "\n%*s", 2 * json->depth, "");
  json_write_string(json->out, key);
  fputs(": ", json->out);
}

void cli_json_begin(cli_json *json, FILE *out) {
  json->out = out;
  json->depth = 1;
  json->first[1] = true;
  fputc('{', out);
}

void cli_json_end(cli_json *json) {
  fputs("\n}\n", json->out);
  fflush(json->out);
  json->depth = 0;
}

void cli_json_object(cli_json *json, const char *key) {
  json_key(json, key);
  fputc('{', json->out);
  if (json->depth + 1 < CLI_JSON_MAX_DEPTH)
    json->depth++;
  json->first[json->depth] = true;
}

void cli_json_close(cli_json *json) {
  bool empty = json->first[json->depth];
  if (json->depth > 1)
    json->depth--;
  if (empty)
    fputc('}', json->out);
  else
    fprintf(json->out, "\n%*s}", 2 * json->depth, "");
}

void cli_json_int(cli_json *json, const char *key, int64_t value) {
  json_key(json, key);
  fprintf(json->out, "%lld", (long long)value);
}

void cli_json_real(cli_json *json, const char *key, double value) {
  json_key(json, key);
  if (isfinite(value))
    fprintf(json->out, "%.10g", value);
  else
    fputs("null", json->out);
}

void cli_json_text(cli_json *json, const char *key, const char *value) {
  json_key(json, key);
  if (value)
    json_write_string(json->out, value);
  else
    fputs("null", json->out);
}

void cli_json_bool(cli_json *json, const char *key, bool value) {
  json_key(json, key);
  fputs(value ? "true" : "false", json->out);
}

void cli_json_null(cli_json *json, const char *key) {
  json_key(json, key);
  fputs("null", json->out);
}
