/* Decimal text of known length -> double with strtod, for readers whose
 * text has no terminator after a number (a file read into a buffer): the
 * characters are copied and terminated first, and '.' stands for the
 * decimal point whatever the program's locale. */
#include "internal.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

tsi_decimal_status tsi_decimal_to_double(const char *begin, size_t length, double *value) {
  char small[128];
  char *copy = length < sizeof small ? small : malloc(length + 1);
  if (!copy)
    return TSI_DECIMAL_NO_MEMORY;
  memcpy(copy, begin, length);
  copy[length] = '\0';
  const char *decimal_point = localeconv()->decimal_point;
  if (decimal_point && decimal_point[0] != '.' && decimal_point[0] != '\0' && decimal_point[1] == '\0') {
    char *dot = memchr(copy, '.', length);
    if (dot)
      *dot = decimal_point[0];
  }
  char *stop = NULL;
  double result = strtod(copy, &stop);
  bool complete = length > 0 && stop == copy + length;
  if (copy != small)
    free(copy);
  if (!complete)
    return TSI_DECIMAL_SYNTAX;
  *value = result;
  return TSI_DECIMAL_OK;
}
