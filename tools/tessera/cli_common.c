/* Command-line plumbing shared by every tessera command: options, number
 * forms, errors, timing, progress on stderr, JSON on stdout. */
#define _POSIX_C_SOURCE 200809L

#include "cli_common.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const cli_backend_choices[] = {"auto", "cpu", "cuda", NULL};
const char *const cli_precision_choices[] = {"single", "double", NULL};

/* ---- option parsing -------------------------------------------------------- */

int cli_usage_error(const char *command, const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, "tessera%s%s: ", command ? " " : "", command ? command : "");
  vfprintf(stderr, format, args);
  va_end(args);
  fprintf(stderr, "\nTry 'tessera%s%s --help'.\n", command ? " " : "", command ? command : "");
  return CLI_EXIT_USAGE;
}

bool cli_option_seen(const cli_option *options, int option_count, const char *name) {
  for (int i = 0; i < option_count; i++)
    if (strcmp(options[i].name, name) == 0)
      return options[i].seen;
  return false;
}

/* Digits only, with an optional leading sign. */
static bool is_plain_integer(const char *text) {
  const char *p = text;
  if (*p == '+' || *p == '-')
    p++;
  if (!isdigit((unsigned char)*p))
    return false;
  while (isdigit((unsigned char)*p))
    p++;
  return *p == '\0';
}

static bool parse_plain_integer(const char *text, int64_t *value) {
  if (!is_plain_integer(text))
    return false;
  errno = 0;
  long long v = strtoll(text, NULL, 10);
  if (errno == ERANGE)
    return false;
  *value = (int64_t)v;
  return true;
}

bool cli_parse_integer(const char *text, int64_t *value) {
  if (!text || !*text)
    return false;
  if (parse_plain_integer(text, value))
    return true;
  const char *caret = strchr(text, '^');
  if (caret) {
    /* base^exponent, both plain non-negative integers: 2^20 */
    char base_text[32];
    size_t base_length = (size_t)(caret - text);
    if (base_length == 0 || base_length >= sizeof base_text)
      return false;
    memcpy(base_text, text, base_length);
    base_text[base_length] = '\0';
    int64_t base, exponent;
    if (!parse_plain_integer(base_text, &base) || !parse_plain_integer(caret + 1, &exponent))
      return false;
    if (base < 0 || exponent < 0 || base_text[0] == '+' || caret[1] == '+')
      return false;
    int64_t result = 1;
    for (int64_t i = 0; i < exponent; i++) {
      if (base != 0 && result > INT64_MAX / base)
        return false;
      result *= base;
      if (result == 0 || result == 1)
        break; /* 0^n and 1^n stay put */
    }
    *value = result;
    return true;
  }
  /* Scientific notation that names an exact integer: 1e6, 1.5e3. */
  for (const char *p = text; *p; p++)
    if (!isdigit((unsigned char)*p) && !strchr("+-.eE", *p))
      return false;
  double real;
  if (!cli_parse_real(text, &real))
    return false;
  if (real != floor(real) || fabs(real) >= 9.2e18)
    return false;
  *value = (int64_t)real;
  return true;
}

bool cli_parse_real(const char *text, double *value) {
  if (!text || !*text || isspace((unsigned char)*text))
    return false;
  for (const char *p = text; *p; p++)
    if (!isdigit((unsigned char)*p) && !strchr("+-.eE", *p))
      return false; /* no hex, inf, nan */
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
    return false;
  *value = v;
  return true;
}

static bool option_matches(const cli_option *option, const char *arg, const char **inline_value) {
  const char *names[2] = {option->name, option->alias};
  for (int k = 0; k < 2; k++) {
    const char *name = names[k];
    if (!name)
      continue;
    size_t length = strlen(name);
    if (strncmp(arg, name, length) != 0)
      continue;
    if (arg[length] == '\0') {
      *inline_value = NULL;
      return true;
    }
    if (arg[length] == '=' && name[1] == '-') {
      *inline_value = arg + length + 1;
      return true;
    }
  }
  return false;
}

static int store_option_value(const char *command, cli_option *option, const char *value) {
  switch (option->kind) {
  case CLI_FLAG:
    return cli_usage_error(command, "option %s takes no value", option->name);
  case CLI_INT: {
    int64_t v;
    if (!cli_parse_integer(value, &v))
      return cli_usage_error(command, "invalid value '%s' for %s: expected an integer such as 4096, 1e6 or 2^20", value,
                             option->name);
    if (v < option->imin || v > option->imax)
      return cli_usage_error(command, "%s %s is out of range (%lld to %lld)", option->name, value,
                             (long long)option->imin, (long long)option->imax);
    *(int64_t *)option->target = v;
    return 0;
  }
  case CLI_REAL: {
    double v;
    if (!cli_parse_real(value, &v))
      return cli_usage_error(command, "invalid value '%s' for %s: expected a number such as 0.25 or 1e-3", value,
                             option->name);
    if (v < option->rmin || v > option->rmax)
      return cli_usage_error(command, "%s %s is out of range (%g to %g)", option->name, value, option->rmin,
                             option->rmax);
    *(double *)option->target = v;
    return 0;
  }
  case CLI_TEXT:
    if (!*value)
      return cli_usage_error(command, "option %s needs a non-empty value", option->name);
    *(const char **)option->target = value;
    return 0;
  case CLI_CHOICE:
    for (int i = 0; option->choices[i]; i++) {
      if (strcmp(option->choices[i], value) == 0) {
        *(int *)option->target = i;
        return 0;
      }
    }
    {
      char list[256] = "";
      for (int i = 0; option->choices[i]; i++) {
        if (i)
          strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, option->choices[i], sizeof list - strlen(list) - 1);
      }
      return cli_usage_error(command, "invalid value '%s' for %s: expected one of %s", value, option->name, list);
    }
  }
  return cli_usage_error(command, "internal error: option %s has an unknown kind", option->name);
}

int cli_parse(const char *command, const char *help, int argc, char **argv, cli_option *options, int option_count,
              const char *const *positional_names, const char **positional, int min_positional, int max_positional,
              int *positional_count) {
  int count = 0;
  bool options_ended = false;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    bool is_option = !options_ended && arg[0] == '-' && arg[1] != '\0';
    if (!is_option) {
      if (count >= max_positional)
        return cli_usage_error(command, "unexpected argument '%s'", arg);
      positional[count++] = arg;
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      options_ended = true;
      continue;
    }
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(help, stdout);
      return CLI_HELP_SHOWN;
    }
    cli_option *option = NULL;
    const char *value = NULL;
    for (int k = 0; k < option_count && !option; k++)
      if (option_matches(&options[k], arg, &value))
        option = &options[k];
    if (!option)
      return cli_usage_error(command, "unknown option '%s'", arg);
    if (option->kind == CLI_FLAG) {
      if (value)
        return cli_usage_error(command, "option %s takes no value", option->name);
      *(bool *)option->target = true;
    } else {
      if (!value) {
        if (i + 1 >= argc)
          return cli_usage_error(command, "option %s needs a value", option->name);
        value = argv[++i];
      }
      int rc = store_option_value(command, option, value);
      if (rc != 0)
        return rc;
    }
    option->seen = true;
  }
  if (count < min_positional)
    return cli_usage_error(command, "missing %s", positional_names ? positional_names[count] : "argument");
  if (positional_count)
    *positional_count = count;
  return 0;
}

/* ---- errors, timing -------------------------------------------------------- */

static volatile sig_atomic_t interrupt_requested;

/* The first Ctrl-C asks the running library call to stop (through the
 * progress callback) and the command to stop at its next step; a second one
 * ends the process at once, for a step that does not report progress. */
static void on_interrupt(int signal_number) {
  interrupt_requested = 1;
  signal(signal_number, SIG_DFL);
}

/* Called between steps: end the command if Ctrl-C was pressed. */
static void exit_if_interrupted(const cli_progress *progress) {
  if (interrupt_requested) {
    bool line_open = progress && progress->printed && progress->terminal;
    fprintf(stderr, "%stessera: interrupted\n", line_open ? "\n" : "");
    exit(CLI_EXIT_INTERRUPTED);
  }
}

bool cli_interrupted(void) { return interrupt_requested != 0; }

static char cli_error_detail[512];

void cli_set_error(const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(cli_error_detail, sizeof cli_error_detail, format, args);
  va_end(args);
}

int cli_library_error(const ts_context *ctx, ts_status status) {
  if (cli_interrupted()) {
    fprintf(stderr, "tessera: interrupted\n");
    return CLI_EXIT_INTERRUPTED;
  }
  const char *detail = cli_error_detail[0] ? cli_error_detail : ts_last_error(ctx);
  /* Some messages already start with the status text; say it once. */
  const char *name = ts_status_string(status);
  size_t name_length = strlen(name);
  if (detail && strncmp(detail, name, name_length) == 0 && strncmp(detail + name_length, ": ", 2) == 0)
    detail += name_length + 2;
  if (detail && *detail)
    fprintf(stderr, "tessera: %s: %s\n", ts_status_string(status), detail);
  else
    fprintf(stderr, "tessera: %s\n", ts_status_string(status));
  return CLI_EXIT_FAILURE;
}

double cli_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

ts_status cli_context_create(ts_backend backend, ts_context **ctx) {
  ts_context_options options = {0};
  options.backend = backend;
  return ts_context_create(ctx, &options);
}

/* ---- progress -------------------------------------------------------------- */

/* Quiet for the first seconds so that quick commands print nothing extra. */
#define CLI_PROGRESS_DELAY_S 2.0

static int report_progress(void *user, int64_t done, int64_t total) {
  cli_progress *progress = user;
  if (cli_interrupted())
    return 1; /* the library call stops with "cancelled" */
  if (!progress->enabled || !progress->label)
    return 0;
  double now = cli_now();
  if (now - progress->start < CLI_PROGRESS_DELAY_S)
    return 0;
  /* A terminal line is rewritten four times a second; a log gets a line a second. */
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

ts_status cli_progress_attach(ts_context *ctx, cli_progress *progress, bool quiet) {
  memset(progress, 0, sizeof *progress);
  progress->enabled = !quiet;
  progress->terminal = isatty(STDERR_FILENO) != 0;
  progress->command_start = cli_now();
  signal(SIGINT, on_interrupt);
  return ts_context_set_progress(ctx, report_progress, progress);
}

void cli_progress_begin(cli_progress *progress, const char *label) {
  exit_if_interrupted(progress);
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

void cli_progress_end(cli_progress *progress, ts_status status) {
  exit_if_interrupted(progress);
  if (!progress)
    return;
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
}

/* ---- JSON ------------------------------------------------------------------ */

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

/* ---- text output ----------------------------------------------------------- */

void cli_line(FILE *out, const char *label, const char *format, ...) {
  fprintf(out, "%-18s ", label);
  va_list args;
  va_start(args, format);
  vfprintf(out, format, args);
  va_end(args);
  fputc('\n', out);
}
