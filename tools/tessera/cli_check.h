/* Checking a computed result entry by entry against a double-precision
 * reference, as spmv, spmm and spgemm do. */
#ifndef TESSERA_CLI_CHECK_H
#define TESSERA_CLI_CHECK_H

#include "tessera.h"

#include <stdint.h>
#include <stdio.h>

/* The error of one computed entry against its reference, relative to the
 * entry's magnitude bound (|A||x| or |A||B| of that entry; 0 must give the
 * reference exactly). An entry whose bound reaches half the largest finite
 * value of the result's type, or passes double's, may overflow however it is
 * summed: it adds no error and is counted in *beyond_range instead (a
 * product of entries of 1e300, a float result past 3.4e38). */
double cli_entry_error(double got, double reference, double bound, ts_dtype dtype, int64_t *beyond_range);

/* The check line of a text report: "max error E relative to WHAT
 * (tolerance T): PASS", and how many entries were beyond the type's range. */
void cli_check_print(FILE *out, const char *relative_to, double error, double tolerance, int64_t beyond_range,
                     ts_dtype dtype);

#endif /* TESSERA_CLI_CHECK_H */
