/* Errors of the CLI: usage errors (exit 2), library errors (exit 1) and
 * cancellation (exit 130), each one line on stderr. */
#include "cli_errors.h"
#include "cli_progress.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int cli_usage_error(const char *command, const char *format, ...) {
  char message[768];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  if (command)
    fprintf(stderr, "tessera %s: %s (see 'tessera %s --help')\n", command, message, command);
  else
    fprintf(stderr, "tessera: %s (see 'tessera --help')\n", message);
  return CLI_EXIT_USAGE;
}

static char cli_error_detail[768];

void cli_set_error(const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(cli_error_detail, sizeof cli_error_detail, format, args);
  va_end(args);
}

const char *cli_error_message(const ts_context *ctx) {
  return cli_error_detail[0] ? cli_error_detail : ts_last_error(ctx);
}

int cli_library_error(const ts_context *ctx, ts_status status) {
  if (status == TS_ERROR_CANCELLED || cli_cancelled()) {
    fprintf(stderr, "tessera: cancelled\n");
    return CLI_EXIT_CANCELLED;
  }
  const char *detail = cli_error_message(ctx);
  /* A reader of standard output that went away (`tessera convert A.mtx - | head`)
   * ends the command quietly, as SIGPIPE ends other tools. */
  if (status == TS_ERROR_IO && detail && strstr(detail, "standard output") && strstr(detail, strerror(EPIPE)))
    return CLI_EXIT_BROKEN_PIPE;
  /* Some messages already start with the status text; say it once. */
  const char *name = ts_status_string(status);
  size_t name_length = strlen(name);
  if (detail && strncmp(detail, name, name_length) == 0 && strncmp(detail + name_length, ": ", 2) == 0)
    detail += name_length + 2;
  if (detail && *detail)
    fprintf(stderr, "tessera: %s: %s\n", name, detail);
  else
    fprintf(stderr, "tessera: %s\n", name);
  return CLI_EXIT_FAILURE;
}
