/* Exit statuses of the tessera CLI and how its errors are reported: one
 * line on stderr for each. */
#ifndef TESSERA_CLI_ERRORS_H
#define TESSERA_CLI_ERRORS_H

#include "tessera.h"

/* Exit statuses of every command. */
enum {
  CLI_EXIT_OK = 0,           /* success */
  CLI_EXIT_FAILURE = 1,      /* a library error or a failed check */
  CLI_EXIT_USAGE = 2,        /* bad command line */
  CLI_EXIT_CANCELLED = 130,  /* Ctrl-C (SIGINT): 128 + the signal's number, as shells report it */
  CLI_EXIT_BROKEN_PIPE = 141 /* standard output's reader went away: as a process ended by SIGPIPE */
};

/* The exit-status table of `tessera --help` (docs/CLI.md repeats it). */
#define CLI_HELP_EXIT_STATUS                                                                                           \
  "Exit status:\n"                                                                                                     \
  "  0    success (and every check asked for passed)\n"                                                                \
  "  1    an error of the library or of a file, or a failed check\n"                                                   \
  "  2    a bad command line (unknown command or option, bad value, missing\n"                                         \
  "       argument, an output that names an input)\n"                                                                  \
  "  130  cancelled by Ctrl-C (SIGINT)\n"                                                                              \
  "  141  standard output closed by its reader (as SIGPIPE), nothing printed\n"

/* Print "tessera COMMAND: MESSAGE (see 'tessera COMMAND --help')" as one
 * line on stderr; returns CLI_EXIT_USAGE. @p command may be NULL. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int cli_usage_error(const char *command, const char *format, ...);

/* Detail of a failure found by the CLI itself (not by a library call),
 * printed by the next cli_library_error(). */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void cli_set_error(const char *format, ...);

/* Print "tessera: <status>: <detail>" on stderr, the detail being the
 * message of cli_set_error() if one was set, else ts_last_error(ctx), and
 * return CLI_EXIT_FAILURE; after Ctrl-C (or TS_ERROR_CANCELLED) print
 * "tessera: cancelled" and return CLI_EXIT_CANCELLED. */
int cli_library_error(const ts_context *ctx, ts_status status);

/* The detail cli_library_error() would print for a failure: the message of
 * cli_set_error() if one was set, else ts_last_error(ctx) (for a --json
 * error object). */
const char *cli_error_message(const ts_context *ctx);

#endif /* TESSERA_CLI_ERRORS_H */
