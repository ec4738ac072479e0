/* KLU's phases as callbacks of the LU benchmarks (bench/lu_cpu.c,
 * bench/lu_solvers.c): one thread, KLU's defaults, A given by columns. Include
 * after <klu.h>. */
#ifndef TESSERA_BENCH_LU_KLU_PHASES_H
#define TESSERA_BENCH_LU_KLU_PHASES_H

#include <string.h>

typedef struct klu_state {
  int n;
  int *col_ptr, *row_idx;
  double *values;
  klu_common common;
  klu_symbolic *symbolic;
  klu_numeric *numeric;
  const double *b;
  double *x;
} klu_state;

static int klu_run_analyze(void *p) {
  klu_state *s = p;
  klu_free_symbolic(&s->symbolic, &s->common);
  s->symbolic = klu_analyze(s->n, s->col_ptr, s->row_idx, &s->common);
  return s->symbolic ? 0 : 1;
}
static int klu_run_factor(void *p) {
  klu_state *s = p;
  klu_free_numeric(&s->numeric, &s->common);
  s->numeric = klu_factor(s->col_ptr, s->row_idx, s->values, s->symbolic, &s->common);
  return s->numeric && s->common.status == KLU_OK ? 0 : 1;
}
static int klu_run_refactor(void *p) {
  klu_state *s = p;
  return klu_refactor(s->col_ptr, s->row_idx, s->values, s->symbolic, s->numeric, &s->common) &&
                 s->common.status == KLU_OK
             ? 0
             : 1;
}
static int klu_run_solve(void *p) {
  klu_state *s = p;
  memcpy(s->x, s->b, (size_t)s->n * sizeof(double));
  return klu_solve(s->symbolic, s->numeric, s->n, 1, s->x, &s->common) ? 0 : 1;
}

#endif
