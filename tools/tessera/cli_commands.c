/* The command table: the one list of tessera's commands, in the order of
 * `tessera --help`. main.c dispatches through it, and the general help and
 * the "did you mean" for a mistyped command read it.
 *
 * To add a command NAME:
 *   1. write tools/tessera/cmd_NAME.c (the build takes every .c file of this
 *      folder) ending in
 *        const cli_command cli_command_NAME = {.name = "NAME", .summary = "...",
 *                                              .help = NAME_help, .run = run_NAME};
 *      with its options in a cli_syntax parsed by cli_parse() and
 *      CLI_OUTPUT_OPTIONS (--json, --quiet, --progress) among them (cmd_info.c
 *      is a short example);
 *   2. add the line X(NAME) below, where it should appear in the help.
 * Then give it a row in docs/CLI.md's command table and its tests in
 * tests/cli/ (tests/cli/cli_json_every_command.cmake fails until the new
 * command has a --json run there). */
#include "cli_command.h"

#define CLI_COMMAND_TABLE(X)                                                                                           \
  X(demo)                                                                                                              \
  X(info)                                                                                                              \
  X(convert)                                                                                                           \
  X(gen)                                                                                                               \
  X(spmv)                                                                                                              \
  X(spmm)                                                                                                              \
  X(spgemm)                                                                                                            \
  X(bfs)                                                                                                               \
  X(sssp)                                                                                                              \
  X(solve)                                                                                                             \
  X(sort)                                                                                                              \
  X(search)                                                                                                            \
  X(gemm)                                                                                                              \
  X(model)

#define CLI_DECLARE_COMMAND(name) extern const cli_command cli_command_##name;
CLI_COMMAND_TABLE(CLI_DECLARE_COMMAND)

#define CLI_COMMAND_ENTRY(name) &cli_command_##name,
const cli_command *const cli_commands[] = {CLI_COMMAND_TABLE(CLI_COMMAND_ENTRY)};
const int cli_command_count = (int)(sizeof cli_commands / sizeof cli_commands[0]);
