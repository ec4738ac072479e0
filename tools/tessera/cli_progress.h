/* Progress of long steps on stderr, and Ctrl-C: the first SIGINT asks the
 * running library call to stop (through the progress callback, which then
 * returns non-zero and the call TS_ERROR_CANCELLED) and the command to stop
 * after the step it is in; the command then exits 130 with the one line
 * "tessera: cancelled". A second SIGINT ends the process at once. */
#ifndef TESSERA_CLI_PROGRESS_H
#define TESSERA_CLI_PROGRESS_H

#include "cli_options.h"
#include "tessera.h"

#include <stdbool.h>
#include <stdint.h>

/* Whether Ctrl-C (SIGINT) was pressed since cli_progress_attach(). */
bool cli_cancelled(void);

/* A command's progress. A step that the library or the CLI reports on
 * ("reading: 43%") prints nothing during its first two seconds, then an
 * update four times a second on a terminal (rewritten in place) or once a
 * second otherwise; once the command has run two seconds, each later step
 * is named as it starts ("factoring..."), so that a step that reports
 * nothing is still named. Shown when stderr is a terminal, or with
 * --progress; never with --quiet. */
typedef struct cli_progress {
  const char *label;    /* the step, "reading" */
  double command_start; /* when cli_progress_attach() ran */
  double start;         /* when the step began */
  double last_report;   /* when the last update was printed */
  int last_percent;     /* last percentage printed */
  bool enabled;         /* anything is shown */
  bool terminal;        /* stderr is a terminal: lines are rewritten */
  bool printed;         /* something of this step is on stderr */
} cli_progress;

/* Set up @p progress for the command's @p flags, install the SIGINT handler,
 * and make @p progress the progress callback of @p ctx (when not NULL). */
ts_status cli_progress_attach(ts_context *ctx, cli_progress *progress, const cli_output_flags *flags);

/* Start a step named @p label. Accepts a NULL @p progress. */
void cli_progress_begin(cli_progress *progress, const char *label);

/* @p done of @p total units of the current step (the library's callback, and
 * the CLI's own loops). Returns non-zero after Ctrl-C: stop. */
int cli_progress_report(cli_progress *progress, int64_t done, int64_t total);

/* End the step: "label: done in 3.1 s" if anything of it was shown and
 * @p status is success. Returns @p status, or TS_ERROR_CANCELLED when Ctrl-C
 * came during a step that succeeded. Accepts a NULL @p progress. */
ts_status cli_progress_end(cli_progress *progress, ts_status status);

#endif /* TESSERA_CLI_PROGRESS_H */
