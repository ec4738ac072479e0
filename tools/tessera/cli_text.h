/* The text report of a command: "label   value" lines with the values in
 * one column. */
#ifndef TESSERA_CLI_TEXT_H
#define TESSERA_CLI_TEXT_H

#include <stdio.h>

/* Print "label" padded to 18 characters, a space, then the formatted value and a newline. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void cli_line(FILE *out, const char *label, const char *format, ...);

#endif /* TESSERA_CLI_TEXT_H */
