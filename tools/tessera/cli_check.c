/* Entry-by-entry checks against a double-precision reference. */
#include "cli_check.h"

#include "cli_text.h"

#include <float.h>
#include <math.h>

double cli_entry_error(double got, double reference, double bound, ts_dtype dtype, int64_t *beyond_range) {
  const double largest = dtype == TS_FLOAT32 ? (double)FLT_MAX : DBL_MAX;
  if (!(bound < 0.5 * largest)) { /* NaN and infinity included */
    (*beyond_range)++;
    return 0.0;
  }
  const double difference = fabs(got - reference);
  /* A NaN or infinite result gives a NaN or infinite error, which fails. */
  return difference == 0.0 ? 0.0 : bound > 0.0 ? difference / bound : INFINITY;
}

void cli_check_print(FILE *out, const char *relative_to, double error, double tolerance, int64_t beyond_range,
                     ts_dtype dtype) {
  const char *verdict = error <= tolerance ? "PASS" : "FAIL";
  if (beyond_range > 0)
    cli_line(out, "check",
             "max error %.3g relative to %s (tolerance %.3g): %s; %lld entries not checked (their %s "
             "pass %s precision's range)",
             error, relative_to, tolerance, verdict, (long long)beyond_range, relative_to,
             dtype == TS_FLOAT32 ? "single" : "double");
  else
    cli_line(out, "check", "max error %.3g relative to %s (tolerance %.3g): %s", error, relative_to, tolerance,
             verdict);
}
