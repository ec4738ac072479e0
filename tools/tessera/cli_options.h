/* The command line of one command: its options (parsed with getopt_long),
 * its positional arguments, and the number forms its values may take. */
#ifndef TESSERA_CLI_OPTIONS_H
#define TESSERA_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

/* Entries of a fixed array. */
#define CLI_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* cli_parse() returns this after printing --help: the command exits 0. */
#define CLI_HELP_SHOWN (-1)

typedef enum cli_option_kind {
  CLI_FLAG,  /* no value; target is bool */
  CLI_INT,   /* target is int64_t; range [imin, imax] */
  CLI_REAL,  /* target is double; range [rmin, rmax] */
  CLI_TEXT,  /* target is const char * */
  CLI_CHOICE /* target is int: index of the value in choices */
} cli_option_kind;

typedef struct cli_option {
  const char *name;           /* "--size" */
  char short_name;            /* 'o' for -o, or 0 */
  cli_option_kind kind;       /* what the value is */
  void *target;               /* where the value goes */
  int64_t imin, imax;         /* CLI_INT range */
  double rmin, rmax;          /* CLI_REAL range */
  const char *const *choices; /* CLI_CHOICE: NULL-terminated names */
  bool seen;                  /* set by cli_parse() when given */
} cli_option;

/* The options that every command takes for its output. */
typedef struct cli_output_flags {
  bool json;     /* one JSON object on stdout */
  bool quiet;    /* no progress on stderr */
  bool progress; /* progress on stderr even when it is not a terminal */
} cli_output_flags;

#define CLI_OUTPUT_OPTIONS(flags)                                                                                      \
  {.name = "--json", .kind = CLI_FLAG, .target = &(flags).json},                                                       \
      {.name = "--quiet", .kind = CLI_FLAG, .target = &(flags).quiet}, {                                               \
    .name = "--progress", .kind = CLI_FLAG, .target = &(flags).progress                                                \
  }

/* Their lines in a command's help (the option column is 30 wide). */
#define CLI_HELP_OUTPUT_OPTIONS                                                                                        \
  "  --json                      print one JSON object on stdout, nothing else\n"                                      \
  "  --progress                  show progress on stderr even when it is not a\n"                                      \
  "                              terminal (a line a second)\n"                                                         \
  "  --quiet                     no progress on stderr (wins over --progress)\n"                                       \
  "  -h, --help                  show this help\n"

/* What a command accepts. */
typedef struct cli_syntax {
  const char *command;                 /* "solve", "model predict": names the command in messages */
  const char *help;                    /* printed on stdout by -h or --help */
  cli_option *options;                 /* the options (their `seen` fields are set) */
  int option_count;                    /* at most CLI_MAX_OPTIONS */
  const char *const *positional_names; /* "A", "B": named when missing; NULL when none are taken */
  int min_positional;                  /* required positional arguments */
  int max_positional;                  /* accepted positional arguments */
} cli_syntax;

#define CLI_MAX_OPTIONS 64

/*
 * Parse argv[1..argc-1] with getopt_long: options as "--name value" or
 * "--name=value" (short ones as "-o value" or "-ovalue"), in any order with
 * the positional arguments, which go into @p positional in the order given
 * ("--" ends the options; "-" is a positional argument: standard input or
 * output). Long options are matched in full only: getopt_long's
 * abbreviations are refused, so that a new option never changes what an
 * existing command line means. Returns 0, CLI_EXIT_USAGE after printing one
 * line on stderr (with a "did you mean" for a mistyped option), or
 * CLI_HELP_SHOWN after printing the help. @p positional_count may be NULL.
 */
int cli_parse(const cli_syntax *syntax, int argc, char **argv, const char **positional, int *positional_count);

/* Whether the option @p name (as in the table) appeared on the command line. */
bool cli_option_seen(const cli_option *options, int option_count, const char *name);

/*
 * Number forms: an integer written as 4096, 1e6, 1.5e3 (an exact integer) or
 * 2^20; a real written as any finite decimal or scientific literal (0.57,
 * 1e-3). Return false for anything else, or an integer beyond int64.
 */
bool cli_parse_integer(const char *text, int64_t *value);
bool cli_parse_real(const char *text, double *value);

#endif /* TESSERA_CLI_OPTIONS_H */
