/* One JSON object on a stream, written member by member (the --json output
 * of every command). */
#ifndef TESSERA_CLI_JSON_H
#define TESSERA_CLI_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CLI_JSON_MAX_DEPTH 8

typedef struct cli_json {
  FILE *out;
  int depth;
  bool first[CLI_JSON_MAX_DEPTH]; /* no member written yet at this depth */
} cli_json;

void cli_json_begin(cli_json *json, FILE *out);        /* opens the top object */
void cli_json_end(cli_json *json);                     /* closes it, with a newline */
void cli_json_object(cli_json *json, const char *key); /* opens a member object */
void cli_json_close(cli_json *json);                   /* closes a member object */
void cli_json_int(cli_json *json, const char *key, int64_t value);
void cli_json_real(cli_json *json, const char *key, double value);      /* null when not finite */
void cli_json_text(cli_json *json, const char *key, const char *value); /* null for NULL */
void cli_json_bool(cli_json *json, const char *key, bool value);
void cli_json_null(cli_json *json, const char *key);

#endif /* TESSERA_CLI_JSON_H */
