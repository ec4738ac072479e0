/* The "label   value" line of every text report. */
#include "cli_text.h"

#include <stdarg.h>

void cli_line(FILE *out, const char *label, const char *format, ...) {
  fprintf(out, "%-18s ", label);
  va_list args;
  va_start(args, format);
  vfprintf(out, format, args);
  va_end(args);
  fputc('\n', out);
}
