/* SpMV timing and check for the CLI (demo, spmv), with a schedule, a group
 * size and the transpose. */
#ifndef TESSERA_CLI_SPMV_H
#define TESSERA_CLI_SPMV_H

#include "cli_common.h"

/* One timed and checked SpMV. */
typedef struct cli_spmv_result {
  ts_backend backend;    /* resolved backend */
  ts_device_info device; /* device behind the context */
  char fallback[256];    /* why --backend auto runs on the CPU; empty when it does not */
  int64_t rows, cols, nnz;
  ts_dtype dtype;
  int64_t repeat;       /* calls per burst */
  int bursts;           /* timed bursts */
  double first_ms;      /* the first call, synchronised (includes one-off costs) */
  double median_ms;     /* median over bursts of the per-call time */
  double min_ms;        /* fastest burst, per call */
  int64_t bytes;        /* compulsory traffic per call (ts_spmv_plan_bytes) */
  double gbps;          /* bytes / median time */
  double max_error;     /* max_i |y_i - yref_i| / (|A||x|)_i */
  double tolerance;     /* the bound the error is checked against */
  int64_t beyond_range; /* rows whose |A||x| passes the type's range, not checked */
  bool pass;            /* max_error <= tolerance */
} cli_spmv_result;

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
  bool all_requested;    /* --schedule all on the CPU backend: its one implementation, run once */
} cli_spmv_run;

/* Time y = op(A)*x through ts_spmv_plan_create_ex and check y against
 * ts_csr_spmv_host on op(A) in double. */
ts_status cli_spmv_measure_run(ts_context *ctx, cli_progress *progress, const ts_csr *a,
                               const cli_spmv_request *request, cli_spmv_run *run);

/* The key-value table of one run (with its schedule and reason), or its JSON
 * members. On the CPU backend, which has one implementation, the schedule is
 * said to be recorded, not used (JSON: "schedule_used": false). */
void cli_spmv_run_print(FILE *out, const char *matrix, const cli_spmv_run *run);
void cli_spmv_run_json(cli_json *json, const char *matrix, const cli_spmv_run *run);

/* --schedule all on the CUDA backend: the shared lines, then one row per
 * run; in JSON the shared members, then an object "schedules" keyed by
 * requested schedule name. */
void cli_spmv_runs_print(FILE *out, const char *matrix, const cli_spmv_run *runs, int count);
void cli_spmv_runs_json(cli_json *json, const char *matrix, const cli_spmv_run *runs, int count);

#endif /* TESSERA_CLI_SPMV_H */
