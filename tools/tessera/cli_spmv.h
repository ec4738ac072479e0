/* SpMV timing and check for the CLI with a schedule, a group size and the
 * transpose (demo, spmv); cli_spmv_measure() of cli_common.h is the AUTO,
 * y = A*x case of it. */
#ifndef TESSERA_CLI_SPMV_H
#define TESSERA_CLI_SPMV_H

#include "cli_common.h"

/* --schedule choices; the index is the ts_schedule, and "all" comes last. */
extern const char *const cli_schedule_choices[];
#define CLI_SCHEDULE_ALL TS_SCHEDULE_COUNT

/* What to run. */
typedef struct cli_spmv_request {
  ts_schedule schedule; /* AUTO or one schedule */
  int group_size;       /* 0 = chosen by the plan */
  ts_operation op;      /* A or A^T */
  int64_t repeat;       /* calls per burst; 0 = about 0.1 s per burst */
} cli_spmv_request;

/* One run: timing and check, and what the plan chose. */
typedef struct cli_spmv_run {
  cli_spmv_result result; /* rows, cols and nnz are A's */
  ts_operation op;
  ts_schedule requested; /* as asked (AUTO or a schedule) */
  ts_schedule schedule;  /* what the plan ran */
  int group_size;        /* 0 unless group-mapped */
  char explain[512];     /* ts_spmv_plan_explain() */
} cli_spmv_run;

/* Time y = op(A)*x through ts_spmv_plan_create_ex and check y against
 * ts_csr_spmv_host on op(A) in double. */
ts_status cli_spmv_measure_run(ts_context *ctx, cli_progress *progress, const ts_csr *a,
                               const cli_spmv_request *request, cli_spmv_run *run);

/* The key-value table of one run (with its schedule and reason), or its JSON members. */
void cli_spmv_run_print(FILE *out, const char *matrix, const cli_spmv_run *run);
void cli_spmv_run_json(cli_json *json, const char *matrix, const cli_spmv_run *run);

/* --schedule all: the shared lines, then one row per run; in JSON the shared
 * members, then an object "schedules" keyed by requested schedule name. */
void cli_spmv_runs_print(FILE *out, const char *matrix, const cli_spmv_run *runs, int count);
void cli_spmv_runs_json(cli_json *json, const char *matrix, const cli_spmv_run *runs, int count);

#endif /* TESSERA_CLI_SPMV_H */
