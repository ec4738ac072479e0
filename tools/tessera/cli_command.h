/* A tessera command, and the table of them (cli_commands.c). */
#ifndef TESSERA_CLI_COMMAND_H
#define TESSERA_CLI_COMMAND_H

typedef struct cli_command {
  const char *name;                  /* "demo" */
  const char *summary;               /* one line for the general help */
  const char *help;                  /* full text of `tessera NAME --help` */
  int (*run)(int argc, char **argv); /* argv[0] is the command name; returns the exit status */
} cli_command;

/* Every command, in the order of `tessera --help`. */
extern const cli_command *const cli_commands[];
extern const int cli_command_count;

#endif /* TESSERA_CLI_COMMAND_H */
