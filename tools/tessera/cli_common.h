/* Shared pieces of the tessera command-line tool: option parsing, number
 * forms, JSON output, timing, progress on stderr, error reporting, and the
 * matrix, statistics and SpMV helpers that several commands use. */
#ifndef TESSERA_CLI_COMMON_H
#define TESSERA_CLI_COMMON_H

#include "tessera.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses of every command. */
enum {
  CLI_EXIT_OK = 0,           /* success */
  CLI_EXIT_FAILURE = 1,      /* a library error or a failed check */
  CLI_EXIT_USAGE = 2,        /* bad command line */
  CLI_EXIT_INTERRUPTED = 130 /* Ctrl-C during a long operation */
};

/* cli_parse() returns this after printing --help: the command exits 0. */
#define CLI_HELP_SHOWN (-1)

/* ---- commands -------------------------------------------------------------- */

typedef struct cli_command {
  const char *name;                  /* "demo" */
  const char *summary;               /* one line for the general help */
  const char *help;                  /* full text of `tessera NAME --help` */
  int (*run)(int argc, char **argv); /* argv[0] is the command name */
} cli_command;

extern const cli_command cli_command_demo;
extern const cli_command cli_command_info;
extern const cli_command cli_command_convert;
extern const cli_command cli_command_gen;
extern const cli_command cli_command_spmv;

/* ---- option parsing -------------------------------------------------------- */

typedef enum cli_option_kind {
  CLI_FLAG,  /* no value; target is bool */
  CLI_INT,   /* target is int64_t; range [imin, imax] */
  CLI_REAL,  /* target is double; range [rmin, rmax] */
  CLI_TEXT,  /* target is const char * */
  CLI_CHOICE /* target is int: index of the value in choices */
} cli_option_kind;

typedef struct cli_option {
  const char *name;           /* "--size" */
  const char *alias;          /* "-o", or NULL */
  cli_option_kind kind;       /* what the value is */
  void *target;               /* where the value goes */
  int64_t imin, imax;         /* CLI_INT range */
  double rmin, rmax;          /* CLI_REAL range */
  const char *const *choices; /* CLI_CHOICE: NULL-terminated names */
  bool seen;                  /* set by cli_parse() when given */
} cli_option;

/* Choices shared by several commands; the index is the enum value. */
extern const char *const cli_backend_choices[];   /* auto, cpu, cuda = ts_backend */
extern const char *const cli_precision_choices[]; /* single, double = ts_dtype */

/*
 * Parse argv[1..argc-1] of command @p command: options from @p options (as
 * "--name value" or "--name=value"), up to @p max_positional positional
 * arguments into @p positional ("--" ends the options); @p positional_names
 * names them for the message when fewer than @p min_positional are given
 * (NULL when none are taken). Returns 0, or
 * CLI_EXIT_USAGE after printing the reason on stderr, or CLI_HELP_SHOWN
 * after printing @p help on stdout.
 */
int cli_parse(const char *command, const char *help, int argc, char **argv, cli_option *options, int option_count,
              const char *const *positional_names, const char **positional, int min_positional, int max_positional,
              int *positional_count);

/* Print "tessera COMMAND: MESSAGE" and the --help hint on stderr; returns CLI_EXIT_USAGE. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int cli_usage_error(const char *command, const char *format, ...);

/* Whether the option @p name (as given in the table) appeared on the command line. */
bool cli_option_seen(const cli_option *options, int option_count, const char *name);

/*
 * Number forms: an integer written as 4096, 1e6, 1.5e3 (an exact integer) or
 * 2^20; a real written as any finite C floating-point literal (0.57, 1e-3).
 * Return false for anything else, or an integer beyond int64.
 */
bool cli_parse_integer(const char *text, int64_t *value);
bool cli_parse_real(const char *text, double *value);

/* ---- errors, timing, progress ---------------------------------------------- */

/* Print "tessera: <status string>: <detail>" on stderr, where the detail is
 * the message of cli_set_error() if one was set, else ts_last_error(ctx);
 * returns CLI_EXIT_FAILURE (CLI_EXIT_INTERRUPTED after Ctrl-C). */
int cli_library_error(const ts_context *ctx, ts_status status);

/* Detail of a failure found by the CLI itself (not by a library call). */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void cli_set_error(const char *format, ...);

/* Seconds on a monotonic clock. */
double cli_now(void);

/* Progress of long operations, on stderr. A phase that the library reports
 * on ("reading: 43%") prints nothing during its first two seconds, then a
 * few updates a second, with carriage returns on a terminal and plain lines
 * otherwise. Once the command has run two seconds, each later phase is
 * announced as it starts ("converting...") so that a slow step is named. */
typedef struct cli_progress {
  const char *label;    /* "reading", "generating" */
  double command_start; /* when cli_progress_attach() ran */
  double start;         /* when the phase began */
  double last_report;   /* when the last update was printed */
  int last_percent;     /* last percentage printed */
  bool enabled;         /* false with --quiet */
  bool terminal;        /* stderr is a terminal */
  bool printed;         /* something of this phase is on screen */
} cli_progress;

/* Install Ctrl-C handling and the progress callback on @p ctx. After a
 * Ctrl-C, the running library call is cancelled if it reports progress, and
 * the next cli_progress_begin() or cli_progress_end() ends the process with
 * status 130; a second Ctrl-C ends it at once. */
ts_status cli_progress_attach(ts_context *ctx, cli_progress *progress, bool quiet);
/* Start a phase named @p label. */
void cli_progress_begin(cli_progress *progress, const char *label);
/* End the phase: "label: done in 3.1 s" if anything of it was printed and
 * @p status is success. (Both accept a NULL @p progress.) */
void cli_progress_end(cli_progress *progress, ts_status status);
/* Whether Ctrl-C was pressed. */
bool cli_interrupted(void);

/* Create a context for a --backend choice; quiet about the reason (the caller reports it). */
ts_status cli_context_create(ts_backend backend, ts_context **ctx);

/* ---- JSON on stdout -------------------------------------------------------- */

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

/* ---- matrices and statistics ----------------------------------------------- */

/* A matrix read from a Matrix Market file and expanded to general storage. */
typedef struct cli_matrix {
  ts_csr *csr;         /* general storage, sorted, duplicates summed */
  ts_mm_info header;   /* what the file declared */
  int64_t stored;      /* entries as stored in the file */
  int64_t expanded;    /* entries after symmetric expansion (before merging duplicates) */
  double read_seconds; /* time to read, expand and convert */
} cli_matrix;

/* Read @p path as @p dtype, expand symmetric storage, convert to CSR. */
ts_status cli_matrix_read(ts_context *ctx, cli_progress *progress, const char *path, ts_dtype dtype,
                          cli_matrix *matrix);
void cli_matrix_release(cli_matrix *matrix);

/* Names for the header fields. */
const char *cli_mm_format_name(ts_mm_format format);
const char *cli_mm_field_name(ts_mm_field field);

/* Key-value lines and JSON members for ::ts_csr_stats. */
void cli_stats_print(FILE *out, const ts_csr_stats *stats);
void cli_stats_json(cli_json *json, const ts_csr_stats *stats);

/* AMD fill estimate: on success *available is true and the counts are set;
 * TS_ERROR_UNSUPPORTED (a build without SuiteSparse) gives success with
 * *available false and the reason copied into @p reason. */
typedef struct cli_fill {
  bool available;
  int64_t lu_nnz; /* nnz(L+U) */
  int64_t l_nnz;  /* nnz(L) */
  double ratio;   /* nnz(L+U) / nnz(A) */
  char reason[256];
} cli_fill;
ts_status cli_fill_compute(ts_context *ctx, const ts_csr *a, cli_fill *fill);
void cli_fill_print(FILE *out, const cli_fill *fill);
void cli_fill_json(cli_json *json, const cli_fill *fill);

/* Print a labelled line: "label          value" with a fixed key width. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void cli_line(FILE *out, const char *label, const char *format, ...);

/* ---- SpMV timing and check (demo, spmv) ------------------------------------ */

typedef struct cli_spmv_result {
  ts_backend backend;    /* resolved backend */
  ts_device_info device; /* device behind the context */
  int64_t rows, cols, nnz;
  ts_dtype dtype;
  int64_t repeat;   /* calls per burst */
  int bursts;       /* timed bursts */
  double first_ms;  /* the first call, synchronised (includes one-off costs) */
  double median_ms; /* median over bursts of the per-call time */
  double min_ms;    /* fastest burst, per call */
  int64_t bytes;    /* compulsory traffic per call (ts_spmv_plan_bytes) */
  double gbps;      /* bytes / median time */
  double max_error; /* max_i |y_i - yref_i| / (|A||x|)_i */
  double tolerance; /* the bound the error is checked against */
  bool pass;        /* max_error <= tolerance */
} cli_spmv_result;

/* Time y = A*x through the plan API (@p repeat calls per burst, 0 = about
 * 0.1 s per burst) and check y against ts_csr_spmv_host in double. */
ts_status cli_spmv_measure(ts_context *ctx, cli_progress *progress, const ts_csr *a, int64_t repeat,
                           cli_spmv_result *result);

/* The table (or the JSON members) of a result; @p matrix names the matrix. */
void cli_spmv_print(FILE *out, const char *matrix, const cli_spmv_result *result);
void cli_spmv_json(cli_json *json, const char *matrix, const cli_spmv_result *result);

#endif /* TESSERA_CLI_COMMON_H */
