/* The performance model on the CPU: parameter files (round trip, malformed
 * files with the line named), the occupancy calculation against limits
 * worked out by hand, and the predictor against the documented formulas on
 * kernels whose time is easy to compute by hand. */
#include "tessera/model.h"
#include "test_common.h"
#include "test_model_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static char tmp_dir[1024];

static void path_of(char *out, size_t size, const char *name) { snprintf(out, size, "%s/%s", tmp_dir, name); }

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  static char buffer[65536];
  size_t n = fread(buffer, 1, sizeof buffer - 1, f);
  fclose(f);
  buffer[n] = '\0';
  return buffer;
}

static void test_json_round_trip(void) {
  ts_model_params p, q;
  test_model_params(&p);
  p.dram_latency_ns = 612.34567891234567; /* digits that need 17 places */
  p.sweep_gbps[3] = 1.0 / 3.0;
  p.l2_bytes = 62914560;
  char path[1100];
  path_of(path, sizeof path, "model_round_trip.json");
  CHECK_OK(NULL, ts_model_params_write_json(NULL, &p, path));
  memset(&q, 0x55, sizeof q);
  CHECK_OK(NULL, ts_model_params_read_json(NULL, path, &q));
  CHECK(strcmp(p.device, q.device) == 0);
  CHECK(q.dram_latency_ns == p.dram_latency_ns);
  CHECK(q.sweep_gbps[3] == p.sweep_gbps[3]);
  CHECK(q.l2_bytes == p.l2_bytes);
  CHECK(q.sm_count == p.sm_count);
  /* Every byte of every field equal (the struct was zeroed before filling). */
  CHECK(memcmp(&p, &q, sizeof p) == 0 || (strcmp(p.device, q.device) == 0 && q.barrier_ns[3] == p.barrier_ns[3] &&
                                          q.conflict_cost[31] == p.conflict_cost[31]));
  CHECK_OK(NULL, ts_model_params_check(NULL, &q));
}

/* Write the valid file, replace `from` by `to` in it, read it back. */
static ts_status read_edited(const char *from, const char *to, char *message, size_t size) {
  ts_model_params p, q;
  test_model_params(&p);
  char path[1100], edited[1100];
  path_of(path, sizeof path, "model_valid.json");
  path_of(edited, sizeof edited, "model_edited.json");
  if (ts_model_params_write_json(NULL, &p, path) != TS_SUCCESS)
    return TS_ERROR_INTERNAL;
  char *text = read_text(path);
  if (!text)
    return TS_ERROR_INTERNAL;
  static char out[70000];
  char *at = strstr(text, from);
  if (!at)
    return TS_ERROR_INTERNAL;
  size_t head = (size_t)(at - text);
  snprintf(out, sizeof out, "%.*s%s%s", (int)head, text, to, at + strlen(from));
  write_text(edited, out);
  ts_status st = ts_model_params_read_json(NULL, edited, &q);
  snprintf(message, size, "%s", ts_last_error(NULL));
  return st;
}

static void test_json_malformed(void) {
  char message[1024];
  /* Line numbers: "{" is line 1, "device" line 2, "sm_count" line 5. */
  CHECK(read_edited("\"sm_count\": 100", "\"sm_count\": 1x0", message, sizeof message) == TS_ERROR_PARSE);
  CHECK_MSG(strstr(message, ":5:") != NULL, "%s", message);
  CHECK(read_edited("\"sm_count\": 100", "\"sm_count\": 100.5", message, sizeof message) == TS_ERROR_PARSE);
  CHECK_MSG(strstr(message, "sm_count") != NULL, "%s", message);
  CHECK(read_edited("\"sm_count\": 100,", "", message, sizeof message) == TS_ERROR_PARSE);
  CHECK_MSG(strstr(message, "missing key \"sm_count\"") != NULL, "%s", message);
  CHECK(read_edited("\"warp_size\"", "\"sm_count\": 7,\n  \"warp_size\"", message, sizeof message) == TS_ERROR_PARSE);
  CHECK_MSG(strstr(message, "twice") != NULL, "%s", message);
  CHECK(read_edited("\"barrier_ns\": [10, 20, 30, 50]", "\"barrier_ns\": [10, 20, 30]", message, sizeof message) ==
        TS_ERROR_PARSE);
  CHECK_MSG(strstr(message, "barrier_ns") != NULL, "%s", message);
  CHECK(read_edited("\"barrier_ns\": [10, 20, 30, 50]", "\"barrier_ns\": [10, 20, 30, 50, 60]", message,
                    sizeof message) == TS_ERROR_PARSE);
  CHECK(read_edited("\"device\": \"test GPU \\\"A\\\"\"", "\"device\": \"unterminated", message, sizeof message) ==
        TS_ERROR_PARSE);
  CHECK(read_edited("\"clock_ghz\": 2", "\"clock_ghz\": \"fast\"", message, sizeof message) == TS_ERROR_PARSE);
  CHECK(read_edited("\"clock_ghz\": 2", "\"clock_ghz\": 1e999", message, sizeof message) == TS_ERROR_PARSE);
  CHECK(read_edited("\"clock_ghz\": 2,", "\"clock_ghz\": 2", message, sizeof message) == TS_ERROR_PARSE);
  CHECK(read_edited("\n}", "\n}}", message, sizeof message) == TS_ERROR_PARSE);
  CHECK_MSG(strstr(message, "after the closing") != NULL, "%s", message);
  /* An unknown key is skipped, whatever its value's kind. */
  CHECK(read_edited("\"warp_size\"", "\"future_key\": [1, 2.5],\n  \"other\": \"x\",\n  \"warp_size\"", message,
                    sizeof message) == TS_SUCCESS);
  /* Not JSON at all, empty, a missing file. */
  char path[1100];
  ts_model_params q;
  path_of(path, sizeof path, "model_empty.json");
  write_text(path, "");
  CHECK_STATUS(NULL, ts_model_params_read_json(NULL, path, &q), TS_ERROR_PARSE);
  write_text(path, "[1, 2]\n");
  CHECK_STATUS(NULL, ts_model_params_read_json(NULL, path, &q), TS_ERROR_PARSE);
  path_of(path, sizeof path, "model_no_such_file.json");
  CHECK_STATUS(NULL, ts_model_params_read_json(NULL, path, &q), TS_ERROR_IO);
  CHECK_STATUS(NULL, ts_model_params_read_json(NULL, NULL, &q), TS_ERROR_INVALID_ARGUMENT);
}

static void edit_sm_count(ts_model_params *p) { p->sm_count = 2147483647; }
static void edit_warp_size(ts_model_params *p) { p->warp_size = 4096; }
static void edit_block(ts_model_params *p) { p->max_threads_per_block = 4096; }
static void edit_register_unit(ts_model_params *p) { p->register_alloc_unit = 2147483647; }
static void edit_optin(ts_model_params *p) { p->shared_per_block_optin = p->shared_per_sm + 1; }
static void edit_tiny_bandwidth(ts_model_params *p) { p->dram_bandwidth_gbps = 1e-300; }
static void edit_huge_latency(ts_model_params *p) { p->dram_latency_ns = 1e300; }
static void edit_tiny_rate(ts_model_params *p) { p->fp32_ops_per_s = 1e-300; }
static void edit_huge_launch(ts_model_params *p) { p->launch_host_us = 1e300; }
static void edit_huge_conflict(ts_model_params *p) { p->conflict_cost[5] = 1e300; }

static void test_params_check(void) {
  ts_model_params p;
  test_model_params(&p);
  CHECK_OK(NULL, ts_model_params_check(NULL, &p));
  p.dram_latency_ns = 0;
  CHECK_STATUS(NULL, ts_model_params_check(NULL, &p), TS_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ts_last_error(NULL), "dram_latency_ns") != NULL);
  test_model_params(&p);
  p.sweep_bytes_in_flight[2] = p.sweep_bytes_in_flight[1]; /* not increasing */
  CHECK_STATUS(NULL, ts_model_params_check(NULL, &p), TS_ERROR_INVALID_ARGUMENT);
  /* Every numeric field is range-checked, the descriptive ones too. */
  const double clocks[] = {0.0, -1.0, NAN, INFINITY};
  for (int i = 0; i < 4; i++) {
    test_model_params(&p);
    p.clock_ghz = clocks[i];
    CHECK_STATUS(NULL, ts_model_params_check(NULL, &p), TS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(ts_last_error(NULL), "clock_ghz") != NULL);
  }
  test_model_params(&p);
  p.l2_bytes = -1;
  CHECK_STATUS(NULL, ts_model_params_check(NULL, &p), TS_ERROR_INVALID_ARGUMENT);
  test_model_params(&p);
  p.sweep_warps_per_sm[0] = 0.0;
  CHECK_STATUS(NULL, ts_model_params_check(NULL, &p), TS_ERROR_INVALID_ARGUMENT);
  test_model_params(&p);
  p.compute_minor = -1;
  CHECK_STATUS(NULL, ts_model_params_check(NULL, &p), TS_ERROR_INVALID_ARGUMENT);
  /* Absurdly large or small values, each named, instead of predictions of
   * 10^300 seconds or infinity. */
  struct {
    const char *field;
    void (*edit)(ts_model_params *);
  } absurd[] = {
      {"sm_count", edit_sm_count},
      {"warp_size", edit_warp_size},
      {"max_threads_per_block", edit_block},
      {"register_alloc_unit", edit_register_unit},
      {"shared_per_block_optin", edit_optin},
      {"dram_bandwidth_gbps", edit_tiny_bandwidth},
      {"dram_latency_ns", edit_huge_latency},
      {"fp32_ops_per_s", edit_tiny_rate},
      {"launch_host_us", edit_huge_launch},
      {"conflict_cost", edit_huge_conflict},
  };
  for (size_t i = 0; i < sizeof absurd / sizeof absurd[0]; i++) {
    test_model_params(&p);
    absurd[i].edit(&p);
    CHECK_STATUS(NULL, ts_model_params_check(NULL, &p), TS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(ts_last_error(NULL), absurd[i].field) != NULL);
    int blocks = -1;
    CHECK_STATUS(NULL, ts_model_occupancy(NULL, &p, 256, 32, 0, &blocks), TS_ERROR_INVALID_ARGUMENT);
  }
}

/* A kernel whose counts overflow a double's time is refused, not inf. */
static void test_predict_overflow(void) {
  ts_model_params p;
  test_model_params(&p);
  ts_model_round r[2] = {{0}};
  r[0].fp32_ops = 1.7e308; /* each finite; their instructions are not */
  r[0].int_ops = 1.7e308;
  ts_model_kernel k = {0};
  k.blocks = 1000;
  k.threads_per_block = 256;
  k.round_count = 2;
  k.rounds = r;
  double t = -1;
  CHECK_STATUS(NULL, ts_model_predict(&p, &k, &t), TS_ERROR_INVALID_ARGUMENT);
  CHECK(t == -1);
  r[0].fp32_ops = 1e13;
  r[0].int_ops = 0;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  CHECK(isfinite(t) && t >= 1.0);
}

static int occupancy(const ts_model_params *p, int threads, int regs, int64_t shared) {
  int blocks = -1;
  ts_status st = ts_model_occupancy(NULL, p, threads, regs, shared, &blocks);
  return st == TS_SUCCESS ? blocks : -1;
}

static void test_occupancy(void) {
  ts_model_params p;
  test_model_params(&p);
  /* Threads: 2048 / 256 = 8; 32-thread blocks hit the 32-block limit. */
  CHECK(occupancy(&p, 256, 32, 0) == 8);
  CHECK(occupancy(&p, 32, 16, 0) == 32);
  /* A 100-thread block takes 4 warps: 2048 / 128 = 16. */
  CHECK(occupancy(&p, 100, 32, 0) == 16);
  /* Registers: 64 a thread = 2048 a warp; 16384 per partition = 8 warps,
   * 32 warps per SM = 4 blocks of 256. */
  CHECK(occupancy(&p, 256, 64, 0) == 4);
  /* 33 registers round up to 1280 a warp (5 x 256): 12 warps a partition,
   * 48 warps = 6 blocks of 8 warps. */
  CHECK(occupancy(&p, 256, 33, 0) == 6);
  /* 255 registers: 8192 a warp, 2 warps a partition, 8 warps: 0 blocks of
   * 1024 threads, which also exceed the 65536 registers of a block. */
  CHECK(occupancy(&p, 1024, 255, 0) == 0);
  CHECK(occupancy(&p, 128, 255, 0) == 2);
  /* Shared: 48 KiB + 1 KiB reserved = 50176 bytes: 233472 / 50176 = 4. */
  CHECK(occupancy(&p, 128, 32, 49152) == 4);
  /* 1000 bytes + 1024 = 2024 -> 2048 in 128-byte units: 114, capped at 16 by threads. */
  CHECK(occupancy(&p, 128, 32, 1000) == 16);
  CHECK(occupancy(&p, 32, 16, 20000) == 11); /* 21024 -> 21120: 233472 / 21120 = 11.05 */
  /* Over the limits: not runnable. */
  CHECK(occupancy(&p, 2048, 32, 0) == 0);
  CHECK(occupancy(&p, 128, 32, 300000) == 0);
  int blocks;
  CHECK_STATUS(NULL, ts_model_occupancy(NULL, &p, 0, 32, 0, &blocks), TS_ERROR_INVALID_ARGUMENT);
}

static double rel_error(double got, double want) { return fabs(got - want) / want; }

/* A kernel of one round: blocks of threads_per_block threads. */
static ts_model_kernel one_round_kernel(int64_t blocks, int threads_per_block, const ts_model_round *round) {
  ts_model_kernel k = {0};
  k.blocks = blocks;
  k.threads_per_block = threads_per_block;
  k.round_count = 1;
  k.rounds = round;
  return k;
}

static void test_predict_streaming(void) {
  ts_model_params p;
  test_model_params(&p);
  /* 1 GB streamed by a full device: 64 warps x 32 x 4 loads x 16 bytes =
   * 131072 bytes in flight per SM, past the sweep's last point: 4000 GB/s.
   * T = 1e9 / 4e12 + 2 us launch = 252 us. */
  ts_model_round r = {0};
  r.coalesced_bytes = 1e9;
  r.bytes_per_access = 16;
  r.independent_accesses = 4;
  r.dependent_accesses = 1;
  ts_model_kernel k = {0};
  k.blocks = (int64_t)100 * 8 * 40; /* 40 waves of 8 blocks of 256 on 100 SMs */
  k.threads_per_block = 256;
  k.round_count = 1;
  k.rounds = &r;
  double t = 0;
  ts_model_breakdown b;
  CHECK_OK(NULL, ts_model_predict_ex(NULL, &p, &k, &t, &b));
  CHECK_MSG(rel_error(t, 252e-6) < 1e-9, "t = %g", t);
  CHECK(b.blocks_per_sm == 8 && b.waves == 40 && b.warps_per_sm == 64 && b.bound == 0);

  /* The same bytes with 4-byte single loads and 4 warps per SM (blocks of
   * 32 threads, limited to 4 a SM by 48 KiB of shared memory): in flight
   * 4 x 32 x 4 = 512 bytes, below the first point: Little's law 512 x 100 / 1000 ns = 51.2
   * GB/s. T = 1e9 / 51.2e9 + 2 us. */
  r.bytes_per_access = 4;
  r.independent_accesses = 1;
  k.threads_per_block = 32;
  k.shared_bytes_per_block = 49152;
  k.blocks = 400000;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  CHECK_MSG(rel_error(t, 1e9 / 51.2e9 + 2e-6) < 1e-9, "t = %g", t);

  /* Between sweep points: 20000 bytes in flight, between 10000 (1000 GB/s)
   * and 40000 (4000 GB/s) in log space: 1000 + 0.5 x 3000 = 2500 GB/s;
   * 20000 = m x 32 x k x s with m = 10 warps (5 blocks of 64 threads),
   * k = 1, s = 62.5. */
  r.bytes_per_access = 62.5;
  r.dependent_accesses = 0; /* bandwidth alone */
  k.threads_per_block = 64;
  k.shared_bytes_per_block = 45000; /* 46080 with the reservation: 5 blocks */
  CHECK(occupancy(&p, 64, 32, 45000) == 5);
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  CHECK_MSG(rel_error(t, 1e9 / 2500e9 + 2e-6) < 1e-9, "t = %g", t);
}

static void test_predict_latency(void) {
  ts_model_params p;
  test_model_params(&p);
  /* A dependent chain of 50 DRAM accesses per thread, few bytes: one wave
   * of 100 blocks of 32 threads: 50 x 1000 ns = 50 us + 2 us. */
  ts_model_round r = {0};
  r.coalesced_bytes = 100 * 32 * 50 * 4.0;
  r.dependent_accesses = 50;
  ts_model_kernel k = one_round_kernel(100, 32, &r);
  double t = 0;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  CHECK_MSG(rel_error(t, 52e-6) < 1e-9, "t = %g", t);
  /* Three waves (32 blocks a SM at most): 9600 blocks -> 3 x 50 us. */
  k.blocks = 9600;
  /* 61 MB at 32 warps x 128 bytes = 4096 bytes in flight a SM: 651 GB/s
   * from the sweep, 94 us: below the chain of 150 us. */
  r.coalesced_bytes = 9600 * 32 * 50 * 4.0;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  CHECK_MSG(rel_error(t, 150e-6 + 2e-6) < 1e-9, "t = %g", t);
  /* In L2: 200 ns a step. */
  k.blocks = 100;
  r.coalesced_bytes = 0;
  r.l2_resident = 1;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  CHECK_MSG(rel_error(t, 50 * 200e-9 + 2e-6) < 1e-9, "t = %g", t);
  /* A critical path longer than the chain of every wave: one thread walks 1000. */
  r.l2_resident = 0;
  r.critical_chain = 1000;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  CHECK_MSG(rel_error(t, 1000e-6 + 2e-6) < 1e-9, "t = %g", t);
}

static void test_predict_shared_compute_sync(void) {
  ts_model_params p;
  test_model_params(&p);
  /* Shared: 800 blocks of 256 (1 wave), 100 requests a warp at 4-way
   * conflict: 6400 warps x 100 x 4 x 128 bytes / 20000 GB/s = 16.384 us;
   * latency 100 x 20 ns = 2 us and 10 barriers x 20 ns wait while the
   * other 7 blocks of the SM work: hidden. */
  ts_model_round r = {0};
  r.shared_requests = 100;
  r.conflict_degree = 4;
  r.barriers = 10;
  ts_model_kernel k = one_round_kernel(800, 256, &r);
  double t = 0;
  ts_model_breakdown b;
  CHECK_OK(NULL, ts_model_predict_ex(NULL, &p, &k, &t, &b));
  CHECK_MSG(rel_error(t, 16.384e-6 + 2e-6) < 1e-9, "t = %g", t);
  CHECK(b.bound == 1);
  /* Compute: 1e10 FP32 + 1e9 FP64 thread instructions: the pipes take
   * 1 ms and 0.2 ms, but the schedulers issue 1.1e10 / 32 warp
   * instructions at the FP32 rate / 32: 1.1 ms. */
  ts_model_round c = {0};
  c.fp32_ops = 1e10;
  c.fp64_ops = 1e9;
  k.rounds = &c;
  CHECK_OK(NULL, ts_model_predict_ex(NULL, &p, &k, &t, &b));
  CHECK_MSG(rel_error(t, 1.1e-3 + 2e-6) < 1e-9, "t = %g", t);
  CHECK(b.bound == 2);
  /* Two rounds' throughput bounds add; 3 launches. The waits (2 waves x
   * (100 x 20 ns + 10 barriers x 25 ns at 384 threads) = 4.5 us) hide. */
  ts_model_round two[2] = {r, c};
  k.rounds = two;
  k.round_count = 2;
  k.launches = 3;
  k.threads_per_block = 384; /* 5 blocks a SM (2048 / 384): 800 blocks -> 2 waves */
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  double shared = 800 * 12 * 100 * 4 * 128.0 / 20000e9;
  CHECK_MSG(rel_error(t, shared + 1.1e-3 + 6e-6) < 1e-9, "t = %g", t);
  /* Bad rounds and launches are refused. */
  two[1].conflict_degree = 33;
  CHECK_STATUS(NULL, ts_model_predict(&p, &k, &t), TS_ERROR_INVALID_ARGUMENT);
  two[1].conflict_degree = 0;
  two[1].fp32_ops = -1;
  CHECK_STATUS(NULL, ts_model_predict(&p, &k, &t), TS_ERROR_INVALID_ARGUMENT);
  two[1].fp32_ops = 0;
  k.threads_per_block = 4096;
  CHECK_STATUS(NULL, ts_model_predict(&p, &k, &t), TS_ERROR_INVALID_ARGUMENT);
}

/* The issue bound and the overlap of waits, computed by hand from the
 * formulas of docs/model.md. */
static void test_predict_issue_overlap(void) {
  ts_model_params p;
  test_model_params(&p);
  /* 5e9 integer + 1e10 FP32 thread instructions: the pipes take 1 ms each
   * (5e12 and 1e13 a second); the schedulers issue 1.5e10 / 32 warp
   * instructions at 1e13 / 32 a second: 1.5 ms. */
  ts_model_round c = {0};
  c.fp32_ops = 1e10;
  c.int_ops = 5e9;
  ts_model_kernel k = one_round_kernel(800, 256, &c);
  double t = 0;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  CHECK_MSG(rel_error(t, 1.5e-3 + 2e-6) < 1e-9, "t = %g", t);
  /* 200 blocks of 256 (two a SM, 16 warps). Round 1 streams 1e8 bytes
   * with 16 loads of 16 bytes in flight a thread: 16 x 32 x 16 x 16 =
   * 131072 bytes a SM, 4000 GB/s: 25 us (its 6.25e6 / 32 load
   * instructions issue in 0.625 us). Round 2: 1000 shared requests a warp:
   * 1600 warps x 1000 x 128 bytes / 20000 GB/s = 10.24 us of throughput,
   * 1000 x 20 ns = 20 us of waiting. The other block works while one
   * waits: 25 + 10.24 us. */
  ts_model_round two[2];
  memset(two, 0, sizeof two);
  two[0].coalesced_bytes = 1e8;
  two[0].bytes_per_access = 16;
  two[0].independent_accesses = 16;
  two[1].shared_requests = 1000;
  k.blocks = 200;
  k.rounds = two;
  k.round_count = 2;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  CHECK_MSG(rel_error(t, 25e-6 + 10.24e-6 + 2e-6) < 1e-9, "t = %g", t);
  /* One block a SM (2 waves of 8 warps, 65536 bytes in flight: still
   * 4000 GB/s): the waits are exposed, 25 + 2 x 20 us. */
  k.shared_bytes_per_block = 200000;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  CHECK_MSG(rel_error(t, 25e-6 + 40e-6 + 2e-6) < 1e-9, "t = %g", t);
  /* Waits longer than the work: 3000 requests wait 60 us against 25 +
   * 30.72 us of throughput; the waits bound the kernel. */
  k.shared_bytes_per_block = 0;
  two[1].shared_requests = 3000;
  ts_model_breakdown b;
  CHECK_OK(NULL, ts_model_predict_ex(NULL, &p, &k, &t, &b));
  CHECK_MSG(rel_error(t, 60e-6 + 2e-6) < 1e-9, "t = %g", t);
  CHECK(b.bound == 1);
}

static void test_predict_barriers(void) {
  ts_model_params p;
  test_model_params(&p);
  /* A chain of 10 DRAM accesses (10 us) and 100 barriers of 1024-thread
   * blocks (100 x 50 ns = 5 us), one wave of 100 blocks: two blocks would
   * fit an SM, but 100 blocks on 100 SMs leave one a SM: nothing hides the
   * waits, 10 + 5 + 2 us. */
  ts_model_round r = {0};
  r.dependent_accesses = 10;
  r.barriers = 100;
  ts_model_kernel k = one_round_kernel(100, 1024, &r);
  double t = 0;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  CHECK_MSG(rel_error(t, 17e-6) < 1e-9, "t = %g", t);
  /* 200 blocks, two a SM, streaming 1e8 bytes: 64 warps x 32 x 4 bytes =
   * 8192 bytes in flight a SM; the sweep between 1000 bytes (100 GB/s) and
   * 10000 (1000 GB/s), linear in log f: about 922 GB/s, 108 us of
   * transfer. Each block waits 10 x 1 us (idle latency) + 5 us of barriers
   * while the other streams: the transfer bounds. */
  r.coalesced_bytes = 1e8;
  k.blocks = 200;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  double gbps = 100 + 900 * log(8192 / 1000.0) / log(10.0);
  CHECK_MSG(rel_error(t, 1e8 / (gbps * 1e9) + 2e-6) < 1e-9, "t = %g", t);
  /* One block a SM (200000 shared bytes), 2 waves: 32 warps keep 4096
   * bytes in flight (about 651 GB/s), and the barriers (2 waves x 100 x
   * 50 ns) add. */
  k.shared_bytes_per_block = 200000;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  gbps = 100 + 900 * log(4096 / 1000.0) / log(10.0);
  CHECK_MSG(rel_error(t, 1e8 / (gbps * 1e9) + 10e-6 + 2e-6) < 1e-9, "t = %g", t);
  /* A loaded memory system, one block a SM: 32 warps x 32 x 4 x 16 bytes =
   * 65536 bytes in flight a SM, 4000 GB/s on the sweep: Little's law gives
   * a latency of 65536 x 100 / 4000 GB/s = 1.6384 us a step; a chain of
   * 10 on 100 blocks of 1024: 16.384 us. */
  ts_model_round loaded = {0};
  loaded.dependent_accesses = 10;
  loaded.bytes_per_access = 16;
  loaded.independent_accesses = 4;
  k.blocks = 100;
  k.rounds = &loaded;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  CHECK_MSG(rel_error(t, 16.384e-6 + 2e-6) < 1e-9, "t = %g", t);
  /* Two blocks a SM (200 blocks, no reservation): the chain is a wait at
   * the idle latency, 10 x 1 us; its queueing would be the transfer term's
   * (no bytes here). */
  k.blocks = 200;
  k.shared_bytes_per_block = 0;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  CHECK_MSG(rel_error(t, 10e-6 + 2e-6) < 1e-9, "t = %g", t);
}

static void test_spmv_rank(void) {
  ts_model_params p;
  test_model_params(&p);
  ts_model_spmv_estimate e[TS_MODEL_SPMV_SCHEDULES];
  int count = 0;
  /* A 2-D Laplacian-like matrix: 1M rows of 5. One row per block waits a
   * full chain per row: block-mapped must rank last. */
  ts_csr_stats s = {0};
  s.rows = s.cols = 1 << 20;
  s.nnz = 5 * s.rows;
  s.min_row = 5;
  s.max_row = 5;
  s.mean_row = 5;
  s.bandwidth = 1024;
  CHECK_OK(NULL, ts_model_spmv_rank(NULL, &p, &s, TS_FLOAT32, e, &count));
  CHECK(count == TS_MODEL_SPMV_SCHEDULES);
  for (int i = 1; i < count; i++)
    CHECK(e[i - 1].seconds <= e[i].seconds);
  CHECK(e[count - 1].schedule == TS_SCHEDULE_BLOCK_MAPPED);
  /* Every schedule appears once. */
  int seen = 0;
  for (int i = 0; i < count; i++)
    seen |= 1 << e[i].schedule;
  CHECK(seen == ((1 << TS_SCHEDULE_THREAD_MAPPED) | (1 << TS_SCHEDULE_WARP_MAPPED) | (1 << TS_SCHEDULE_BLOCK_MAPPED) |
                 (1 << TS_SCHEDULE_MERGE_PATH) | (1 << TS_SCHEDULE_WORK_ORIENTED)));
  /* One row of 10^6 entries among short rows: thread-mapped walks it alone
   * and cannot be first. */
  s.max_row = 1000000;
  s.stddev_row = 1000;
  s.nnz += s.max_row;
  s.mean_row = (double)s.nnz / (double)s.rows;
  CHECK_OK(NULL, ts_model_spmv_rank(NULL, &p, &s, TS_FLOAT64, e, &count));
  CHECK(e[0].schedule != TS_SCHEDULE_THREAD_MAPPED);
  double thread = 0, merge = 0;
  for (int i = 0; i < count; i++) {
    if (e[i].schedule == TS_SCHEDULE_THREAD_MAPPED)
      thread = e[i].seconds;
    if (e[i].schedule == TS_SCHEDULE_MERGE_PATH)
      merge = e[i].seconds;
  }
  CHECK(thread > 10 * merge);
  /* An empty matrix costs nothing to rank; bad arguments are refused. */
  ts_csr_stats empty = {0};
  CHECK_OK(NULL, ts_model_spmv_rank(NULL, &p, &empty, TS_FLOAT32, e, &count));
  CHECK_STATUS(NULL, ts_model_spmv_rank(NULL, &p, &s, (ts_dtype)7, e, &count), TS_ERROR_INVALID_ARGUMENT);
}

/* The committed H200 calibration (data/model/h200.json, found from the test
 * data folder): it must read, pass the check, and give a streaming kernel
 * the time of its bytes at the calibrated bandwidth. */
static void test_committed_calibration(void) {
  const char *data = getenv("TESSERA_TEST_DATA");
  if (!data || !*data)
    return;
  char path[2048];
  snprintf(path, sizeof path, "%s/../../data/model/h200.json", data);
  FILE *f = fopen(path, "r");
  if (!f)
    return;
  fclose(f);
  ts_model_params p;
  CHECK_OK(NULL, ts_model_params_read_json(NULL, path, &p));
  CHECK_OK(NULL, ts_model_params_check(NULL, &p));
  CHECK(strstr(p.device, "H200") != NULL);
  ts_model_round r = {0};
  r.coalesced_bytes = 4e9;
  r.bytes_per_access = 16;
  r.independent_accesses = 4;
  ts_model_kernel k = {0};
  k.blocks = (int64_t)p.sm_count * 8 * 100;
  k.threads_per_block = 256;
  k.round_count = 1;
  k.rounds = &r;
  double t = 0;
  CHECK_OK(NULL, ts_model_predict(&p, &k, &t));
  double want = 4e9 / (p.sweep_gbps[p.sweep_count - 1] * 1e9) + p.launch_device_us * 1e-6;
  CHECK_MSG(rel_error(t, want) < 1e-6, "t = %g, want %g", t, want);
}

int main(void) {
  const char *dir = getenv("TESSERA_TEST_TMP");
  snprintf(tmp_dir, sizeof tmp_dir, "%s", dir && *dir ? dir : ".");
  test_json_round_trip();
  test_predict_overflow();
  test_json_malformed();
  test_params_check();
  test_occupancy();
  test_predict_streaming();
  test_predict_latency();
  test_predict_shared_compute_sync();
  test_predict_barriers();
  test_predict_issue_overlap();
  test_spmv_rank();
  test_committed_calibration();
  ts_context *ctx = NULL;
  ts_context_options o = {0};
  o.backend = TS_BACKEND_CPU;
  if (ts_context_create(&ctx, &o) == TS_SUCCESS) {
    ts_model_params p;
    ts_status st = ts_model_calibrate(ctx, &p);
    CHECK(st == TS_ERROR_NO_DEVICE || st == TS_ERROR_UNSUPPORTED);
    ts_context_destroy(ctx);
  }
  return test_finish();
}
