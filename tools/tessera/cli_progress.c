/* Progress on stderr and the SIGINT flag behind cancellation. */
#define _POSIX_C_SOURCE 200809L

#include "cli_progress.h"
#include "cli_common.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Quiet for the first seconds so that quick commands print nothing extra. */
#define CLI_PROGRESS_DELAY_S 2.0

static volatile sig_atomic_t cancel_requested;

static void on_interrupt(int signal_number) {
  (void)signal_number;
  cancel_requested = 1;
}

/* No SA_RESTART: a read blocked on a pipe or a terminal returns EINTR, so
 * that Ctrl-C ends a command waiting for input. SA_RESETHAND: the second
 * Ctrl-C takes the default action and ends the process. */
static void install_interrupt_handler(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, NULL);
}

bool cli_cancelled(void) { return cancel_requested != 0; }

static int progress_callback(void *user, int64_t done, int64_t total) { return cli_progress_report(user, done, total); }

ts_status cli_progress_attach(ts_context *ctx, cli_progress *progress, const cli_output_flags *flags) {
  memset(progress, 0, sizeof *progress);
  progress->terminal = isatty(STDERR_FILENO) != 0;
  progress->enabled = !flags->quiet && (progress->terminal || flags->progress);
  progress->command_start = cli_now();
  install_interrupt_handler();
  return ctx ? ts_context_set_progress(ctx, progress_callback, progress) : TS_SUCCESS;
}

int cli_progress_report(cli_progress *progress, int64_t done, int64_t total) {
  if (cli_cancelled())
    return 1;
  if (!progress || !progress->enabled || !progress->label)
    return 0;
  double now = cli_now();
  if (now - progress->start < CLI_PROGRESS_DELAY_S)
    return 0;
  double interval = progress->terminal ? 0.25 : 1.0;
  if (progress->printed && now - progress->last_report < interval)
    return 0;
  int percent = total > 0 ? (int)(100.0 * (double)done / (double)total) : -1;
  if (percent > 100)
    percent = 100;
  if (progress->printed && percent == progress->last_percent)
    return 0;
  if (percent >= 0)
    fprintf(stderr, progress->terminal ? "\r%s: %3d%%" : "%s: %d%%\n", progress->label, percent);
  else
    fprintf(stderr, progress->terminal ? "\r%s: %lld" : "%s: %lld\n", progress->label, (long long)done);
  fflush(stderr);
  progress->printed = true;
  progress->last_percent = percent;
  progress->last_report = now;
  return 0;
}

void cli_progress_begin(cli_progress *progress, const char *label) {
  if (!progress)
    return;
  progress->label = label;
  progress->start = cli_now();
  progress->last_report = progress->start;
  progress->last_percent = -1;
  progress->printed = false;
  if (progress->enabled && progress->start - progress->command_start >= CLI_PROGRESS_DELAY_S) {
    fprintf(stderr, progress->terminal ? "\r%s..." : "%s...\n", label);
    fflush(stderr);
    progress->printed = true;
  }
}

ts_status cli_progress_end(cli_progress *progress, ts_status status) {
  if (!TS_IS_ERROR(status) && cli_cancelled())
    status = TS_ERROR_CANCELLED;
  if (!progress || !progress->label)
    return status;
  if (progress->printed && status == TS_SUCCESS) {
    double seconds = cli_now() - progress->start;
    /* Trailing spaces cover a longer "label: 100%" on a terminal. */
    fprintf(stderr, progress->terminal ? "\r%s: done in %.1f s    \n" : "%s: done in %.1f s\n", progress->label,
            seconds);
    fflush(stderr);
  } else if (progress->printed && progress->terminal) {
    fputc('\n', stderr); /* the error message gets a line of its own */
  }
  progress->printed = false;
  progress->label = NULL;
  return status;
}
