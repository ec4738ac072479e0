/* A benchmark's non-option argument, told apart from a mistyped option; the
 * names an --only list selects. */
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

bool tsb_name_selected(const char *only, const char *name) {
  if (!only)
    return true;
  for (const char *part = only;;) {
    const char *comma = strchr(part, ',');
    size_t length = comma ? (size_t)(comma - part) : strlen(part);
    const bool prefix = length > 0 && part[length - 1] == '*';
    length -= prefix ? 1 : 0;
    if (strncmp(name, part, length) == 0 && (prefix || name[length] == '\0'))
      return true;
    if (!comma)
      return false;
    part = comma + 1;
  }
}
