/* Host wall clock and summaries of repeated measurements (median, geomean). */
#define _POSIX_C_SOURCE 200809L
#include "tsb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double tsb_wall_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

tsb_stats tsb_stats_of(const double *samples, int n) {
  tsb_stats s = {0};
  if (n <= 0 || !samples)
    return s;
  double *sorted = malloc((size_t)n * sizeof *sorted);
  if (!sorted)
    return s;
  memcpy(sorted, samples, (size_t)n * sizeof *sorted);
  qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
  double sum = 0;
  for (int i = 0; i < n; i++)
    sum += sorted[i];
  s.samples = n;
  s.min = sorted[0];
  s.max = sorted[n - 1];
  s.mean = sum / n;
  s.median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  free(sorted);
  return s;
}

double tsb_geomean(const double *values, int n) {
  double log_sum = 0;
  int used = 0;
  for (int i = 0; i < n; i++) {
    if (values[i] > 0 && isfinite(values[i])) {
      log_sum += log(values[i]);
      used++;
    }
  }
  return used ? exp(log_sum / used) : 0;
}

double tsb_fraction_of(double gbps, double ceiling_gbps) { return ceiling_gbps > 0 ? gbps / ceiling_gbps : 0; }

double tsb_gbps(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e6) : 0; }
