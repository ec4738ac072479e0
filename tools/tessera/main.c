/* tessera: the command-line tool's entry point; dispatches to a command. */
#include "cli_common.h"

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

extern const cli_command cli_command_solve;  /* cmd_solve.c */
extern const cli_command cli_command_sort;   /* cmd_sort.c */
extern const cli_command cli_command_gemm;   /* cmd_gemm.c */
extern const cli_command cli_command_search; /* cmd_search.c */
extern const cli_command cli_command_model;  /* cmd_model.c */

static const cli_command *const commands[] = {
    &cli_command_demo,  &cli_command_info, &cli_command_convert, &cli_command_gen,  &cli_command_spmv,
    &cli_command_solve, &cli_command_sort, &cli_command_search,  &cli_command_gemm, &cli_command_model,
};
#define COMMAND_COUNT ((int)(sizeof commands / sizeof commands[0]))

static void print_general_help(FILE *out) {
  fputs("Usage: tessera COMMAND [options]\n"
        "       tessera help COMMAND | --help | --version\n"
        "\n"
        "Sparse and irregular computation on NVIDIA GPUs, with a CPU backend.\n"
        "\n"
        "Commands:\n",
        out);
  for (int i = 0; i < COMMAND_COUNT; i++)
    fprintf(out, "  %-9s %s\n", commands[i]->name, commands[i]->summary);
  fputs("\n"
        "Every command takes --help. Options take their value as the next argument\n"
        "or after '=' (--size 512, --size=512); '--' ends the options. Integers may\n"
        "be written 4096, 1e6 or 2^20. --json prints one JSON object on stdout;\n"
        "progress of long operations goes to stderr (after 2 s; --quiet hides it).\n"
        "\n"
        "Exit status: 0 success, 1 library error or failed check, 2 bad command\n"
        "line, 130 interrupted.\n",
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
  for (int i = 0; i < COMMAND_COUNT; i++)
    if (strcmp(commands[i]->name, name) == 0)
      return commands[i];
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    print_general_help(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *first = argv[1];
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
    print_general_help(stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(first, "--version") == 0 || strcmp(first, "version") == 0)
    return print_version();
  if (strcmp(first, "help") == 0) {
    if (argc < 3) {
      print_general_help(stdout);
      return CLI_EXIT_OK;
    }
    if (argc > 3)
      return cli_usage_error(NULL, "help takes one COMMAND");
    const cli_command *command = find_command(argv[2]);
    if (!command)
      return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
    fputs(command->help, stdout);
    return CLI_EXIT_OK;
  }
  const cli_command *command = find_command(first);
  if (!command) {
    if (first[0] == '-')
      return cli_usage_error(NULL, "unknown option '%s'", first);
    return cli_usage_error(NULL, "unknown command '%s'", first);
  }
  return command->run(argc - 1, argv + 1);
}
