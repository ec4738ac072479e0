/* The context of a command, the shared --backend and --precision choices,
 * and the CLI's clock. */
#define _POSIX_C_SOURCE 200809L

#include "cli_common.h"

#include <time.h>

const char *const cli_backend_choices[] = {"auto", "cpu", "cuda", NULL};
const char *const cli_precision_choices[] = {"single", "double", NULL};

ts_status cli_context_create(ts_backend backend, ts_context **ctx) {
  ts_context_options options = {0};
  options.backend = backend;
  return ts_context_create(ctx, &options);
}

void cli_fallback_print(FILE *out, const ts_context *ctx) {
  const char *reason = ts_context_fallback_reason(ctx);
  if (reason)
    cli_line(out, "no GPU", "%s; the CPU backend runs instead", reason);
}

void cli_fallback_json(cli_json *json, const ts_context *ctx) {
  cli_json_text(json, "fallback_reason", ts_context_fallback_reason(ctx));
}

double cli_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}
