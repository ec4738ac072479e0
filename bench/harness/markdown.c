/* The Markdown summary a benchmark writes beside its CSV, and printed as it
 * is written. */
#include "tsb.h"

#include <stdarg.h>
#include <string.h>

void tsb_markdown_path(const char *csv_path, char *out, size_t size) {
  snprintf(out, size, "%s", csv_path);
  char *dot = strrchr(out, '.');
  char *slash = strrchr(out, '/');
  if (dot && (!slash || dot > slash))
    *dot = '\0';
  strncat(out, ".md", size - strlen(out) - 1);
}

void tsb_tee(FILE *file, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vprintf(format, args);
  va_end(args);
  if (file) {
    va_start(args, format);
    vfprintf(file, format, args);
    va_end(args);
  }
}
