/* tessera: the command-line tool's entry point; dispatches to a command of
 * the table in cli_commands.c. */
#include "cli_common.h"
#include "cli_suggest.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Build features, passed by tools/CMakeLists.txt. */
#ifndef TESSERA_CLI_WITH_CUDA
#define TESSERA_CLI_WITH_CUDA 0
#endif
#ifndef TESSERA_CLI_WITH_AMD
#define TESSERA_CLI_WITH_AMD 0
#endif
#ifndef TESSERA_CLI_WITH_OPENMP
#define TESSERA_CLI_WITH_OPENMP 0
#endif

static void print_general_help(FILE *out) {
  fputs("Usage: tessera COMMAND [options]\n"
        "       tessera help COMMAND | --help | --version\n"
        "\n"
        "Sparse and irregular computation on NVIDIA GPUs, with a CPU backend.\n"
        "\n"
        "Commands:\n",
        out);
  for (int i = 0; i < cli_command_count; i++)
    fprintf(out, "  %-9s %s\n", cli_commands[i]->name, cli_commands[i]->summary);
  fputs("\n"
        "Every command takes --help. Options take their value as the next argument\n"
        "or after '=' (--size 512, --size=512) and are written in full: an\n"
        "abbreviation such as --rep for --repeat is refused, so that a new option\n"
        "never changes what a command line means. '--' ends the options. Integers\n"
        "may be written 4096, 1e6 or 2^20. A file named '-' is standard input where\n"
        "a file is read and standard output where one is written (gzip input is\n"
        "recognised by its first bytes, also through a pipe); an output that names\n"
        "an input is refused, and outputs are written to a temporary file that\n"
        "replaces the target only when complete.\n"
        "\n"
        "--json prints one JSON object on stdout and nothing else there. Steps that\n"
        "last more than 2 s show their progress on stderr when it is a terminal\n"
        "(--progress: also when it is not; --quiet: never). Ctrl-C cancels the\n"
        "running step: a step that reports progress stops within about a second,\n"
        "any other when it ends; the exit status is then 130.\n"
        "\n" CLI_HELP_EXIT_STATUS,
        out);
}

static int print_version(void) {
  int v = ts_version();
  printf("tessera %d.%d.%d (library %d.%d.%d)\n", TESSERA_VERSION_MAJOR, TESSERA_VERSION_MINOR, TESSERA_VERSION_PATCH,
         v / 10000, v / 100 % 100, v % 100);
  printf("built with: CUDA backend %s, OpenMP %s, SuiteSparse AMD %s\n", TESSERA_CLI_WITH_CUDA ? "yes" : "no",
         TESSERA_CLI_WITH_OPENMP ? "yes" : "no", TESSERA_CLI_WITH_AMD ? "yes" : "no");
  ts_context *ctx = NULL;
  ts_status status = cli_context_create(TS_BACKEND_CUDA, &ctx);
  if (status == TS_SUCCESS) {
    ts_device_info info;
    if (ts_context_device_info(ctx, &info) == TS_SUCCESS)
      printf("GPU: %s (device %d, compute capability %d.%d)\n", info.name, info.ordinal, info.compute_major,
             info.compute_minor);
    ts_context_destroy(ctx);
  } else {
    printf("GPU: none usable (%s)\n", ts_last_error(NULL));
  }
  return CLI_EXIT_OK;
}

static const cli_command *find_command(const char *name) {
  for (int i = 0; i < cli_command_count; i++)
    if (strcmp(cli_commands[i]->name, name) == 0)
      return cli_commands[i];
  return NULL;
}

/* "unknown command 'slove'; did you mean 'solve'?", one line. */
static int unknown_command(const char *name) {
  const char *names[64];
  int count = 0;
  for (int i = 0; i < cli_command_count && count < 64; i++)
    names[count++] = cli_commands[i]->name;
  const char *closest = cli_suggest(name, names, count);
  if (closest)
    return cli_usage_error(NULL, "unknown command '%s'; did you mean '%s'?", name, closest);
  return cli_usage_error(NULL, "unknown command '%s'", name);
}

/* What a command printed on standard output reached it, or the exit
 * status says not: a report written to a full disk or a closed stream is
 * an error, not a success. */
static int checked_stdout(int status) {
  if ((fflush(stdout) == 0 && !ferror(stdout)) || status != CLI_EXIT_OK)
    return status; /* a command that failed has said why already */
  fprintf(stderr, "tessera: standard output: %s\n", strerror(errno));
  return CLI_EXIT_FAILURE;
}

static int run_command(int argc, char **argv);

int main(int argc, char **argv) { return checked_stdout(run_command(argc, argv)); }

static int run_command(int argc, char **argv) {
  if (argc < 2)
    return cli_usage_error(NULL, "missing COMMAND");
  const char *first = argv[1];
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
    print_general_help(stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(first, "--version") == 0 || strcmp(first, "version") == 0) {
    if (argc > 2)
      return cli_usage_error(NULL, "--version takes no argument");
    return print_version();
  }
  if (strcmp(first, "help") == 0) {
    if (argc < 3) {
      print_general_help(stdout);
      return CLI_EXIT_OK;
    }
    if (argc > 3)
      return cli_usage_error(NULL, "help takes one COMMAND");
    const cli_command *command = find_command(argv[2]);
    if (!command)
      return unknown_command(argv[2]);
    fputs(command->help, stdout);
    return CLI_EXIT_OK;
  }
  const cli_command *command = find_command(first);
  if (!command) {
    if (first[0] == '-' && first[1] != '\0') {
      static const char *const general_options[] = {"--help", "--version"};
      const char *closest = cli_suggest(first, general_options, 2);
      if (closest)
        return cli_usage_error(NULL, "unknown option '%s'; did you mean %s?", first, closest);
      return cli_usage_error(NULL, "unknown option '%s' (a COMMAND comes first)", first);
    }
    return unknown_command(first);
  }
  return command->run(argc - 1, argv + 1);
}
