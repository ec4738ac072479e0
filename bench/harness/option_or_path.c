/* A benchmark's non-option argument, told apart from a mistyped option. */
#include "tsb.h"

#include <string.h>

int tsb_option_or_path(const char *program, const char *arg, const char *usage) {
  if (arg[0] != '-')
    return -1;
  if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
    printf("usage: %s %s\n", program, usage);
    return 0;
  }
  fprintf(stderr, "%s: unknown option %s\nusage: %s %s\n", program, arg, program, usage);
  return 2;
}
