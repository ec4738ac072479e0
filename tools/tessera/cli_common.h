/* What every tessera command uses: the library, the option parser, errors
 * and exit statuses, progress and Ctrl-C, the JSON writer, the text lines,
 * standard input and output, and the shared matrix helpers. */
#ifndef TESSERA_CLI_COMMON_H
#define TESSERA_CLI_COMMON_H

#include "tessera.h"

#include "cli_command.h"
#include "cli_errors.h"
#include "cli_files.h"
#include "cli_json.h"
#include "cli_matrix.h"
#include "cli_options.h"
#include "cli_progress.h"
#include "cli_text.h"

/* Choices shared by several commands; the index is the enum value. */
extern const char *const cli_backend_choices[];   /* auto, cpu, cuda = ts_backend */
extern const char *const cli_precision_choices[]; /* single, double = ts_dtype */

/* Create a context for a --backend choice; quiet about the reason (the caller reports it). */
ts_status cli_context_create(ts_backend backend, ts_context **ctx);

/* When --backend auto fell back to the CPU: the line "no GPU   <reason>; the
 * CPU backend runs instead" of a text report (nothing otherwise), and the
 * JSON member "fallback_reason" (null otherwise), from
 * ts_context_fallback_reason(). */
void cli_fallback_print(FILE *out, const ts_context *ctx);
void cli_fallback_json(cli_json *json, const ts_context *ctx);

/* Seconds on a monotonic clock. */
double cli_now(void);

#endif /* TESSERA_CLI_COMMON_H */
