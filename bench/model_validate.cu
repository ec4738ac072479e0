/* Validation of the performance model (include/tessera/model.h): kernels
 * that took no part in the calibration, each described as rounds, predicted
 * from the parameters calibrated in the same run (or read with --params),
 * then measured (median of CUDA-event timed calls after a warm-up):
 *   - a streaming triad a = b + s*c at several sizes and occupancies (a
 *     shared-memory reservation caps the blocks per SM);
 *   - a strided gather (one float per 32-byte sector, sectors in order) and
 *     a random gather (sectors at random);
 *   - a 32x32-tile matrix transpose through shared memory, without padding
 *     (32-way bank conflicts on the column reads) and with one word of
 *     padding (none);
 *   - a tiled sum reduction (8 loads a thread, a shared-memory tree with a
 *     barrier a level, a second launch over the block sums);
 *   - tessera GEMM through the public API, every tile configuration
 *     (ts_gemm_config_describe gives its k-step round) at n = 1024-4096;
 *   - cuBLAS SGEMM (pedantic math) with --cublas-counts FILE: its kernel at
 *     each size described from Nsight Compute's counts of that kernel
 *     (scripts/ncu-gemm-counts.py: launch shape, warp instructions by kind,
 *     shared wavefronts, L2 and DRAM bytes), as the source is not at hand;
 *   - tessera SpMV through the public API (thread-, warp-, block-mapped,
 *     merge-path, work-oriented) on generated matrices, each predicted by
 *     ts_model_spmv_rank() from the matrix statistics.
 * Output: a CSV of every case (predicted, measured, error) and a Markdown
 * summary with the median absolute error per family and overall, and the
 * SpMV ranking: the model's pick against the measured best and AUTO's pick
 * (generated matrices and, with --matrices DIR, the corpus).
 *
 * --predict-only --params FILE --measured CSV re-predicts on the host, with
 * no GPU: every case is described exactly as the GPU run describes it (the
 * same sizes, launch shapes and descriptions; the SpMV matrices generated
 * again with the same seeds and their statistics computed on the host) and
 * predicted with the current predictor, and the measured times are taken
 * from the CSV of an earlier GPU run. Kernel register counts, which a GPU
 * run reads from the device, are taken as 32 here: the compiled counts of
 * the validation kernels for sm_90 (10 to 22, cuobjdump -res-usage) give
 * the same occupancy for their 256-thread blocks (8 blocks a SM). */
#include "tessera/gemm.h"
#include "tessera/model.h"
#include "tsb_cuda.h"

#include <cublas_v2.h>

#include <algorithm>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#define WARMUP 3
#define REPEAT 15

/* ---- kernels ------------------------------------------------------------------ */

__global__ void triad(float *__restrict__ a, const float *__restrict__ b, const float *__restrict__ c, float s,
                      size_t n) {
  extern __shared__ char spoiler[];
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = b[i] + s * c[i];
  if (n == 0) /* never: keeps the reservation */
    spoiler[threadIdx.x] = 0;
}

__global__ void gather(float *__restrict__ out, const float *__restrict__ in, size_t n, size_t in_floats, int random) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  size_t sector;
  if (random) {
    unsigned long long x = (i + 1) * 0x9e3779b97f4a7c15ULL;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 29;
    sector = (size_t)(x & (in_floats / 8 - 1));
  } else {
    sector = i & (in_floats / 8 - 1);
  }
  out[i] = __ldcs(in + sector * 8);
}

#define TILE 32
#define ROWS 8
template <int Pad> __global__ void transpose(float *__restrict__ out, const float *__restrict__ in, int n) {
  __shared__ float tile[TILE][TILE + Pad];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

#define RED_THREADS 256
#define RED_ITEMS 8
/* The block's sum into s[0] by a halving tree in shared memory. */
__device__ void block_tree_sum(float *s, float sum) {
  s[threadIdx.x] = sum;
  __syncthreads();
  for (int half = RED_THREADS / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
}

__global__ void reduce_blocks(const float *__restrict__ in, float *__restrict__ partial, size_t n) {
  __shared__ float s[RED_THREADS];
  size_t base = (size_t)blockIdx.x * RED_THREADS * RED_ITEMS + threadIdx.x;
  float v[RED_ITEMS];
#pragma unroll
  for (int k = 0; k < RED_ITEMS; k++)
    v[k] = base + k * RED_THREADS < n ? in[base + k * RED_THREADS] : 0.0f;
  float sum = 0;
#pragma unroll
  for (int k = 0; k < RED_ITEMS; k++)
    sum += v[k];
  block_tree_sum(s, sum);
  if (threadIdx.x == 0)
    partial[blockIdx.x] = s[0];
}

__global__ void reduce_final(const float *__restrict__ partial, int count, float *out) {
  __shared__ float s[RED_THREADS];
  float sum = 0;
  for (int i = threadIdx.x; i < count; i += RED_THREADS)
    sum += partial[i];
  block_tree_sum(s, sum);
  if (threadIdx.x == 0)
    *out = s[0];
}

/* ---- cases -------------------------------------------------------------------- */

struct job {
  int kind; /* 0 triad, 1 gather, 2 transpose, 3 reduce, 4 spmv */
  float *a, *b, *c;
  size_t n;
  int grid, threads;
  size_t shared;
  int random, pad, side;
  ts_context *ctx;
  ts_spmv_plan *plan;
  ts_buffer *x, *y;
};

static int run_job(void *user, void *stream_ptr) {
  job *j = (job *)user;
  cudaStream_t stream = (cudaStream_t)stream_ptr;
  switch (j->kind) {
  case 0:
    triad<<<j->grid, j->threads, j->shared, stream>>>(j->a, j->b, j->c, 1.5f, j->n);
    break;
  case 1:
    gather<<<j->grid, j->threads, 0, stream>>>(j->a, j->b, j->n, j->n, j->random);
    break;
  case 2: {
    dim3 grid(j->side / TILE, j->side / TILE), block(TILE, ROWS);
    if (j->pad)
      transpose<1><<<grid, block, 0, stream>>>(j->a, j->b, j->side);
    else
      transpose<0><<<grid, block, 0, stream>>>(j->a, j->b, j->side);
    break;
  }
  case 3:
    reduce_blocks<<<j->grid, RED_THREADS, 0, stream>>>(j->b, j->a, j->n);
    reduce_final<<<1, RED_THREADS, 0, stream>>>(j->a, j->grid, j->c);
    break;
  default: {
    ts_status st = ts_spmv_execute(j->plan, 1.0, j->x, 0.0, j->y);
    if (st != TS_SUCCESS) {
      fprintf(stderr, "ts_spmv_execute: %s\n", ts_last_error(j->ctx));
      return 1;
    }
    return 0;
  }
  }
  TSB_LAUNCH_TRY("validation kernel");
  return 0;
}

struct result {
  char family[32], name[96];
  double predicted_us, measured_us;
  double earlier_us; /* --predict-only: the earlier run's prediction */
  const char *bound;
};

static std::vector<result> results;

/* --predict-only: the measured times of an earlier GPU run, by case. */
static bool predict_only = false;
static bool show_breakdown = false; /* --breakdown: print each prediction's terms */
static std::vector<result> measured_rows;

static int measured_of(const char *family, const char *name, double *us, double *earlier_us) {
  for (const result &r : measured_rows)
    if (strcmp(r.family, family) == 0 && strcmp(r.name, name) == 0) {
      *us = r.measured_us;
      *earlier_us = r.predicted_us;
      return 0;
    }
  return 1;
}

/* Reads the CSV written by write_outputs(): '#' lines of run metadata (kept
 * in @p meta as measured_<key>), a header, then family,"case",predicted,
 * measured,error,bound. */
static int read_measured(const char *path, tsb_metadata *meta) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return 1;
  }
  char line[1024];
  bool header = true;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#') {
      char *colon = strchr(line, ':');
      if (colon && meta) {
        *colon = '\0';
        const char *key = line + 1 + strspn(line + 1, " ");
        if (strcmp(key, "date_utc") == 0 || strcmp(key, "commit") == 0 || strcmp(key, "device") == 0 ||
            strcmp(key, "command") == 0) {
          char name[64];
          snprintf(name, sizeof name, "measured_%s", key);
          tsb_metadata_set(meta, name, "%s", colon + 1 + strspn(colon + 1, " "));
        }
      }
      continue;
    }
    if (header) {
      header = false;
      continue;
    }
    result r = {};
    char *comma = strchr(line, ',');
    if (!comma || comma[1] != '"')
      continue;
    *comma = '\0';
    if (strlen(line) >= sizeof r.family)
      continue;
    memcpy(r.family, line, strlen(line) + 1);
    char *name = comma + 2, *end = strchr(name, '"');
    if (!end)
      continue;
    *end = '\0';
    if (strlen(name) >= sizeof r.name)
      continue;
    memcpy(r.name, name, strlen(name) + 1);
    double predicted = 0, measured = 0;
    if (sscanf(end + 1, ",%lf,%lf", &predicted, &measured) != 2)
      continue;
    r.predicted_us = predicted;
    r.measured_us = measured;
    measured_rows.push_back(r);
  }
  fclose(f);
  if (measured_rows.empty()) {
    fprintf(stderr, "no cases in %s\n", path);
    return 1;
  }
  return 0;
}

static const char *bound_name(int b) { return b == 0 ? "memory" : b == 1 ? "shared" : "operations"; }

static int measure(void *stream, job *j, double *us) {
  if (predict_only)
    return 0; /* taken from the measured CSV once the case is named */
  tsb_stats s;
  /* One timed call first: slow cases (over 10 ms) get fewer calls. */
  if (tsb_time_events(stream, 1, 1, run_job, j, &s) != 0)
    return 1;
  bool slow = s.median > 10.0;
  if (tsb_time_events(stream, slow ? 0 : WARMUP, slow ? 3 : REPEAT, run_job, j, &s) != 0)
    return 1;
  *us = s.median * 1e3;
  return 0;
}

static int record(const char *family, const char *name, double predicted_s, double measured_us, int bound) {
  double earlier_us = 0;
  if (predict_only && measured_of(family, name, &measured_us, &earlier_us)) {
    /* A case the earlier run did not have (a newer GEMM configuration). */
    printf("%-10s %-44s predicted %10.2f us  not in the measured CSV: left out\n", family, name, predicted_s * 1e6);
    return 0;
  }
  result r;
  snprintf(r.family, sizeof r.family, "%s", family);
  snprintf(r.name, sizeof r.name, "%s", name);
  r.predicted_us = predicted_s * 1e6;
  r.measured_us = measured_us;
  r.earlier_us = earlier_us;
  r.bound = bound_name(bound);
  results.push_back(r);
  printf("%-10s %-44s predicted %10.2f us  measured %10.2f us  error %+6.1f %%  (%s)\n", family, name, r.predicted_us,
         measured_us, 100.0 * (r.predicted_us - measured_us) / measured_us, r.bound);
  return 0;
}

static int registers_of(const void *kernel) {
  if (predict_only)
    return 32; /* the same occupancy as the compiled counts (file comment) */
  cudaFuncAttributes a;
  return cudaFuncGetAttributes(&a, kernel) == cudaSuccess ? a.numRegs : 32;
}

static int predict(const ts_model_params *p, ts_model_kernel *k, double *seconds, int *bound) {
  ts_model_breakdown b;
  ts_status st = ts_model_predict_ex(NULL, p, k, seconds, &b);
  if (st != TS_SUCCESS) {
    fprintf(stderr, "ts_model_predict: %s\n", ts_last_error(NULL));
    return 1;
  }
  *bound = b.bound;
  if (show_breakdown)
    printf("  %d blocks/SM, %.0f warps/SM, %.0f waves: memory %.2f, shared %.2f, operations %.2f, barriers %.2f, "
           "launch %.2f us\n",
           b.blocks_per_sm, b.warps_per_sm, b.waves, b.memory_s * 1e6, b.shared_s * 1e6, b.ops_s * 1e6,
           b.barrier_s * 1e6, b.launch_s * 1e6);
  return 0;
}

static int run_triads(const ts_model_params *p, void *stream, float *a, float *b, float *c, size_t max_n, bool quick) {
  int regs = registers_of((const void *)triad);
  if (!predict_only)
    TSB_CUDA_TRY(
        cudaFuncSetAttribute(triad, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p->shared_per_block_optin));
  for (size_t n = (size_t)1 << 22; n <= max_n; n <<= (quick ? 4 : 2)) {
    for (int per_sm = 1; per_sm <= 8; per_sm *= 2) {
      job j = {};
      j.kind = 0;
      j.a = a;
      j.b = b;
      j.c = c;
      j.n = n;
      j.threads = 256;
      j.grid = (int)((n + 255) / 256);
      /* Reserve shared memory so that at most per_sm blocks fit an SM. */
      j.shared = per_sm == 8 ? 0 : (size_t)(p->shared_per_sm / per_sm) / 128 * 128 - p->shared_reserved_per_block;
      double us = NAN;
      if (measure(stream, &j, &us))
        return 1;
      ts_model_round r = {};
      r.coalesced_bytes = 12.0 * n;
      r.bytes_per_access = 4;
      r.independent_accesses = 2;
      r.dependent_accesses = 1;
      r.l2_resident = 12.0 * n <= 0.5 * p->l2_bytes;
      r.fp32_ops = (double)n;
      ts_model_kernel k = {};
      k.blocks = j.grid;
      k.threads_per_block = 256;
      k.registers_per_thread = regs;
      k.shared_bytes_per_block = (int64_t)j.shared;
      k.round_count = 1;
      k.rounds = &r;
      double t;
      int bound;
      if (predict(p, &k, &t, &bound))
        return 1;
      char name[96];
      snprintf(name, sizeof name, "n=2^%d, %d blocks/SM", (int)log2((double)n), per_sm);
      if (record("triad", name, t, us, bound))
        return 1;
    }
  }
  return 0;
}

static int run_gathers(const ts_model_params *p, void *stream, float *a, float *b, size_t max_n, bool quick) {
  int regs = registers_of((const void *)gather);
  for (int random = 0; random <= 1; random++)
    for (size_t n = (size_t)1 << 20; n <= max_n / 8; n <<= (quick ? 4 : 2)) {
      job j = {};
      j.kind = 1;
      j.a = a;
      j.b = b;
      j.n = n;
      j.random = random;
      j.threads = 256;
      j.grid = (int)((n + 255) / 256);
      double us = NAN;
      if (measure(stream, &j, &us))
        return 1;
      /* n threads read one float of a sector each out of n/8 sectors (the
       * input, 4n bytes): strided, thread i reads sector i mod n/8, so each
       * sector is read 8 times, in order; random, at random. An input that
       * fits half of L2 stays there from call to call: every sector comes
       * from L2. Otherwise each strided pass streams the input from DRAM
       * again (sector by sector in order), and random sectors are scattered
       * DRAM reads. The output is written coalesced. */
      bool fits = 4.0 * n <= 0.5 * p->l2_bytes;
      ts_model_round r = {};
      r.bytes_per_access = 32;
      r.independent_accesses = 1;
      r.dependent_accesses = 1;
      r.coalesced_bytes = 4.0 * n;
      if (fits)
        r.l2_bytes = 32.0 * n;
      else if (!random)
        r.coalesced_bytes += 32.0 * n;
      else
        r.scattered_bytes = 32.0 * n;
      ts_model_kernel k = {};
      k.blocks = j.grid;
      k.threads_per_block = 256;
      k.registers_per_thread = regs;
      k.round_count = 1;
      k.rounds = &r;
      double t;
      int bound;
      if (predict(p, &k, &t, &bound))
        return 1;
      char name[96];
      snprintf(name, sizeof name, "%s, n=2^%d", random ? "random sectors" : "strided sectors", (int)log2((double)n));
      if (record("gather", name, t, us, bound))
        return 1;
    }
  return 0;
}

static int run_transposes(const ts_model_params *p, void *stream, float *a, float *b, size_t max_n, bool quick) {
  for (int side = 2048; (size_t)side * side <= max_n; side *= (quick ? 4 : 2))
    for (int pad = 0; pad <= 1; pad++) {
      job j = {};
      j.kind = 2;
      j.a = a;
      j.b = b;
      j.side = side;
      j.pad = pad;
      double us = NAN;
      if (measure(stream, &j, &us))
        return 1;
      double n = (double)side * side;
      ts_model_round r[2] = {};
      /* Load the tile (4 rows a thread in flight), store it to shared memory. */
      r[0].coalesced_bytes = 4.0 * n;
      r[0].bytes_per_access = 4;
      r[0].independent_accesses = TILE / ROWS;
      r[0].dependent_accesses = 1;
      r[0].shared_requests = TILE / ROWS;
      r[0].conflict_degree = 1;
      r[0].barriers = 1;
      /* Read columns of the tile (32-way conflicts without padding), store. */
      r[1].coalesced_bytes = 4.0 * n;
      r[1].bytes_per_access = 4;
      r[1].independent_accesses = TILE / ROWS;
      r[1].dependent_accesses = 1;
      r[1].shared_requests = TILE / ROWS;
      r[1].conflict_degree = pad ? 1 : 32;
      ts_model_kernel k = {};
      k.blocks = (int64_t)(side / TILE) * (side / TILE);
      k.threads_per_block = TILE * ROWS;
      k.registers_per_thread = registers_of(pad ? (const void *)transpose<1> : (const void *)transpose<0>);
      k.shared_bytes_per_block = (int64_t)(TILE * (TILE + pad) * sizeof(float));
      k.round_count = 2;
      k.rounds = r;
      double t;
      int bound;
      if (predict(p, &k, &t, &bound))
        return 1;
      char name[96];
      snprintf(name, sizeof name, "%dx%d, %s", side, side, pad ? "padded" : "unpadded (32-way)");
      if (record("transpose", name, t, us, bound))
        return 1;
    }
  return 0;
}

static int run_reductions(const ts_model_params *p, void *stream, float *a, float *b, float *c, size_t max_n,
                          bool quick) {
  for (size_t n = (size_t)1 << 22; n <= max_n; n <<= (quick ? 4 : 2)) {
    job j = {};
    j.kind = 3;
    j.a = a;
    j.b = b;
    j.c = c;
    j.n = n;
    j.grid = (int)((n + RED_THREADS * RED_ITEMS - 1) / (RED_THREADS * RED_ITEMS));
    double us = NAN;
    if (measure(stream, &j, &us))
      return 1;
    ts_model_round r[2] = {};
    r[0].coalesced_bytes = 4.0 * n + 4.0 * j.grid;
    r[0].bytes_per_access = 4;
    r[0].independent_accesses = RED_ITEMS;
    r[0].dependent_accesses = 1;
    r[0].fp32_ops = (double)n;
    r[0].shared_requests = 1;
    r[0].barriers = 1;
    /* The tree: 8 levels, a barrier each; at a level of h active threads
     * ceil(h / 32) warps read two words and write one (4, 2, then 1 warp
     * for six levels: 12 warp-levels), and thread 0 reads the sum: 37
     * requests a block of 8 warps. */
    r[1].shared_requests = (3.0 * (4 + 2 + 6 * 1) + 1) / (RED_THREADS / 32);
    r[1].barriers = 8;
    ts_model_kernel k = {};
    k.blocks = j.grid;
    k.threads_per_block = RED_THREADS;
    k.registers_per_thread = registers_of((const void *)reduce_blocks);
    k.shared_bytes_per_block = RED_THREADS * 4;
    k.launches = 2; /* the final pass over the block sums is one more launch */
    k.round_count = 2;
    k.rounds = r;
    double t;
    int bound;
    if (predict(p, &k, &t, &bound))
      return 1;
    char name[96];
    snprintf(name, sizeof name, "n=2^%d, 2 launches", (int)log2((double)n));
    if (record("reduction", name, t, us, bound))
      return 1;
  }
  return 0;
}

/* ---- GEMM ------------------------------------------------------------------------ */

struct gemm_job {
  ts_context *ctx;
  ts_dtype dtype;
  int64_t n;
  ts_buffer *a, *b, *c;
  int config;
};

static int run_gemm(void *user, void *stream) {
  (void)stream;
  gemm_job *g = (gemm_job *)user;
  ts_gemm_options o = {};
  o.config = g->config;
  ts_status st = ts_gemm_ex(g->ctx, g->dtype, g->n, g->n, g->n, 1.0, g->a, g->n, g->b, g->n, 0.0, g->c, g->n, &o);
  if (st != TS_SUCCESS) {
    fprintf(stderr, "ts_gemm_ex: %s\n", ts_last_error(g->ctx));
    return 1;
  }
  return 0;
}

/* Instructions of one thread's k-step besides the FMAs and the memory
 * instructions that the description counts (global loads, shared loads and
 * stores, the barrier): integer address arithmetic, compares, moves, loop
 * control, and local-memory reloads where registers spill. Counted in the
 * SASS of tsi_gemm_kernel built for sm_90 along the full-tile path of the
 * k-loop: `cuobjdump -sass libtessera.so | scripts/gemm-sass-counts.py`
 * (on the GPU machine, commit 989a60e). They take issue slots (docs/model.md,
 * "Issue"). */
static double gemm_other_per_step(const char *name) {
  static const struct {
    const char *name;
    double other;
  } counts[] = {{"s128x128x8-2", 70}, {"s128x128x8-1", 56},   {"s128x128x16-1", 85},  {"s128x256x8-1", 76},
                {"s128x64x8-3", 76},  {"s64x64x8-6", 86},     {"d128x128x8-1", 59},   {"d128x64x8-2", 62},
                {"d64x64x8-2", 37},   {"s128x128x16-2", 104}, {"s256x128x16-1", 115}, {"s128x256x16-1", 118}};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
    if (strcmp(counts[i].name, name) == 0)
      return counts[i].other;
  return 0; /* a configuration not counted: FMAs and memory instructions only */
}

/* Every GEMM tile configuration (ts_gemm_config_describe: one k-step of a
 * block is one round) at square sizes: the k-steps of a block are identical
 * rounds, so their sum is one round with every count multiplied. A and B
 * tiles are read through L2 (each is shared by a row or column of blocks);
 * DRAM moves A, B and C once. */
static int run_gemms(const ts_model_params *p, ts_context *ctx, bool quick) {
  for (int id = 1; id <= ts_gemm_config_count(); id++) {
    ts_gemm_config_info info;
    TSB_TS_TRY(ctx, ts_gemm_config_describe(id, &info));
    for (int64_t n = 1024; n <= 4096; n *= (quick ? 4 : 2)) {
      size_t vs = ts_dtype_size(info.dtype);
      gemm_job g = {};
      g.ctx = ctx;
      g.dtype = info.dtype;
      g.n = n;
      g.config = id;
      size_t bytes = (size_t)(n * n) * vs;
      tsb_stats st = {};
      if (!predict_only) {
        TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, bytes, &g.a));
        TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, bytes, &g.b));
        TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, bytes, &g.c));
        TSB_TS_TRY(ctx, ts_buffer_fill_bytes(ctx, g.a, 0x3c));
        TSB_TS_TRY(ctx, ts_buffer_fill_bytes(ctx, g.b, 0x3c));
        int rc = tsb_time_events(ts_context_stream(ctx), 2, 5, run_gemm, &g, &st);
        ts_buffer_destroy(g.a);
        ts_buffer_destroy(g.b);
        ts_buffer_destroy(g.c);
        if (rc)
          return 1;
      }
      double tiles = (double)((n + info.block_m - 1) / info.block_m) * (double)((n + info.block_n - 1) / info.block_n);
      double steps = (double)((n + info.block_k - 1) / info.block_k);
      ts_model_round r = {};
      r.coalesced_bytes = 3.0 * (double)bytes;
      r.l2_bytes = tiles * steps * (double)info.global_bytes;
      r.bytes_per_access = (double)vs;
      r.independent_accesses = (double)info.global_bytes / vs / info.threads;
      r.dependent_accesses = steps;
      /* Fragment loads of 16 bytes a lane, contiguous words shared by the
       * lanes of a row: one 128-byte wavefront each; scalar stores. */
      r.shared_requests =
          steps * ((double)info.shared_reads / 16.0 / info.threads + (double)info.shared_writes / vs / info.threads);
      r.conflict_degree = 1;
      double fmas = tiles * steps * (double)info.fmas;
      if (info.dtype == TS_FLOAT32)
        r.fp32_ops = fmas;
      else
        r.fp64_ops = fmas;
      r.barriers = steps * info.barriers;
      r.int_ops = tiles * steps * info.threads * gemm_other_per_step(info.name);
      ts_model_kernel k = {};
      k.blocks = (int64_t)tiles;
      k.threads_per_block = info.threads;
      k.registers_per_thread = info.registers;
      k.shared_bytes_per_block = info.shared_bytes;
      k.round_count = 1;
      k.rounds = &r;
      double t;
      int bound;
      if (predict(p, &k, &t, &bound))
        return 1;
      char name[96];
      snprintf(name, sizeof name, "%s, n=%lld", info.name, (long long)n);
      if (record("gemm", name, t, st.median * 1e3, bound))
        return 1;
    }
  }
  return 0;
}

/* ---- cuBLAS SGEMM ------------------------------------------------------------------ */

/* One row of --cublas-counts (scripts/ncu-gemm-counts.py): the kernel
 * cuBLAS ran for an n^3 SGEMM and its counts (warp instructions unless
 * named otherwise). */
struct cublas_counts {
  int64_t n;
  double grid, threads, registers, shared_bytes, warp_instructions, ffma_thread, lds, sts, ldgsts, ldg, stg, bar,
      shared_wavefronts, l2_bytes, dram_bytes;
};
static std::vector<cublas_counts> cublas_rows;

static int read_cublas_counts(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return 1;
  }
  char line[2048];
  while (fgets(line, sizeof line, f)) {
    cublas_counts c = {};
    long long n = 0;
    char *open_quote = strchr(line, '"'), *close_quote = open_quote ? strchr(open_quote + 1, '"') : NULL;
    if (sscanf(line, "%lld,", &n) != 1 || !close_quote)
      continue; /* the header */
    c.n = n;
    if (sscanf(close_quote + 1, ",%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &c.grid, &c.threads,
               &c.registers, &c.shared_bytes, &c.warp_instructions, &c.ffma_thread, &c.lds, &c.sts, &c.ldgsts, &c.ldg,
               &c.stg, &c.bar, &c.shared_wavefronts, &c.l2_bytes, &c.dram_bytes) != 15) {
      fprintf(stderr, "%s: a row without its 17 fields: %s", path, line);
      fclose(f);
      return 1;
    }
    cublas_rows.push_back(c);
  }
  fclose(f);
  return 0;
}

struct cublas_job {
  cublasHandle_t handle;
  int n;
  const float *a, *b;
  float *c;
};

static int run_cublas_job(void *user, void *stream) {
  (void)stream; /* the handle's stream */
  cublas_job *j = (cublas_job *)user;
  const float one = 1.0f, zero = 0.0f;
  return cublasSgemm(j->handle, CUBLAS_OP_N, CUBLAS_OP_N, j->n, j->n, j->n, &one, j->a, j->n, j->b, j->n, &zero, j->c,
                     j->n) == CUBLAS_STATUS_SUCCESS
             ? 0
             : 1;
}

/* The counted kernel as one round: every warp instruction of the count is
 * in the description once (FFMAs as FP32 operations, LDS/STS as shared
 * requests whose conflict degree is the wavefronts per request, LDGSTS/LDG/
 * STG as global accesses of l2_bytes / accesses bytes each, BAR as
 * barriers, the rest as integer and other instructions); a k-step is a
 * barrier interval, its global accesses in flight together. */
static void describe_cublas(const cublas_counts &c, ts_model_round *r, ts_model_kernel *k) {
  const double warps = c.grid * ceil(c.threads / 32.0);
  const double global = c.ldgsts + c.ldg + c.stg, shared = c.lds + c.sts;
  const double steps = c.bar / warps > 1 ? c.bar / warps : 1;
  *r = ts_model_round{};
  r->coalesced_bytes = c.dram_bytes;
  r->l2_bytes = c.l2_bytes > c.dram_bytes ? c.l2_bytes - c.dram_bytes : 0;
  r->bytes_per_access = global > 0 ? c.l2_bytes / (global * 32.0) : 4.0;
  r->independent_accesses = (c.ldgsts + c.ldg) / warps / steps;
  r->dependent_accesses = steps;
  r->shared_requests = shared / warps;
  int degree = shared > 0 ? (int)lround(c.shared_wavefronts / shared) : 1;
  r->conflict_degree = degree < 1 ? 1 : degree > 32 ? 32 : degree;
  r->fp32_ops = c.ffma_thread;
  double other = c.warp_instructions - c.ffma_thread / 32.0 - shared - global - c.bar;
  r->int_ops = other > 0 ? other * 32.0 : 0;
  r->barriers = c.bar / warps;
  *k = ts_model_kernel{};
  k->blocks = (int64_t)c.grid;
  k->threads_per_block = (int)c.threads;
  k->registers_per_thread = (int)c.registers;
  k->shared_bytes_per_block = (int64_t)c.shared_bytes;
  k->round_count = 1;
  k->rounds = r;
}

static int run_cublas(const ts_model_params *p, ts_context *ctx) {
  cublasHandle_t handle = NULL;
  if (!predict_only) {
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS ||
        cublasSetStream(handle, (cudaStream_t)ts_context_stream(ctx)) != CUBLAS_STATUS_SUCCESS ||
        cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH) != CUBLAS_STATUS_SUCCESS) {
      fprintf(stderr, "cuBLAS: cannot set up a handle\n");
      if (handle)
        cublasDestroy(handle);
      return 1;
    }
  }
  int rc = 0;
  for (const cublas_counts &c : cublas_rows) {
    double measured_us = 0;
    if (!predict_only) {
      size_t bytes = (size_t)(c.n * c.n) * sizeof(float);
      float *a = NULL, *b = NULL, *out = NULL;
      cublas_job j = {handle, (int)c.n, NULL, NULL, NULL};
      tsb_stats st = {};
      if (cudaMalloc((void **)&a, bytes) != cudaSuccess || cudaMalloc((void **)&b, bytes) != cudaSuccess ||
          cudaMalloc((void **)&out, bytes) != cudaSuccess || cudaMemset(a, 0x3c, bytes) != cudaSuccess ||
          cudaMemset(b, 0x3c, bytes) != cudaSuccess) {
        fprintf(stderr, "cuBLAS SGEMM n=%lld: cannot allocate its matrices\n", (long long)c.n);
        rc = 1;
      } else {
        j.a = a;
        j.b = b;
        j.c = out;
        rc = tsb_time_events(ts_context_stream(ctx), WARMUP, REPEAT, run_cublas_job, &j, &st);
        measured_us = st.median * 1e3;
      }
      cudaFree(a);
      cudaFree(b);
      cudaFree(out);
      if (rc)
        break;
    }
    ts_model_round r;
    ts_model_kernel k;
    describe_cublas(c, &r, &k);
    double t;
    int bound;
    if ((rc = predict(p, &k, &t, &bound)) != 0)
      break;
    char name[96];
    snprintf(name, sizeof name, "cuBLAS SGEMM n=%lld", (long long)c.n);
    if ((rc = record("cublas", name, t, measured_us, bound)) != 0)
      break;
  }
  if (handle)
    cublasDestroy(handle);
  return rc;
}

/* ---- SpMV ------------------------------------------------------------------------ */

struct ranking {
  char matrix[96];
  int64_t nnz;
  ts_schedule model_pick, measured_best, auto_pick;
  double model_pick_us, best_us, auto_us;
};
static std::vector<ranking> rankings;

static const ts_schedule spmv_schedules[TS_MODEL_SPMV_SCHEDULES] = {TS_SCHEDULE_THREAD_MAPPED, TS_SCHEDULE_WARP_MAPPED,
                                                                    TS_SCHEDULE_BLOCK_MAPPED, TS_SCHEDULE_MERGE_PATH,
                                                                    TS_SCHEDULE_WORK_ORIENTED};

static int run_spmv_matrix(const ts_model_params *p, ts_context *ctx, const char *name, ts_csr *a, bool validate) {
  ts_csr_stats stats;
  TSB_TS_TRY(ctx, ts_csr_stats_compute(ctx, a, &stats));
  ts_model_spmv_estimate est[TS_MODEL_SPMV_SCHEDULES];
  int count = 0;
  TSB_TS_TRY(ctx, ts_model_spmv_rank(ctx, p, &stats, a->dtype, est, &count));
  if (predict_only) { /* the predictions only; the ranking table needs AUTO, not in the CSV */
    for (int i = 0; i < TS_MODEL_SPMV_SCHEDULES && validate; i++)
      for (int e = 0; e < count; e++) {
        if (est[e].schedule != spmv_schedules[i])
          continue;
        char label[96];
        snprintf(label, sizeof label, "%s, %s", name, ts_schedule_name(est[e].schedule));
        if (record("spmv", label, est[e].seconds, 0, 0))
          return 1;
      }
    return 0;
  }
  size_t vs = ts_dtype_size(a->dtype);
  ts_buffer *x = NULL, *y = NULL;
  TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)a->cols * vs + 8, &x));
  TSB_TS_TRY(ctx, ts_buffer_create(ctx, TS_MEMORY_DEVICE, (size_t)a->rows * vs + 8, &y));
  TSB_TS_TRY(ctx, ts_buffer_fill_bytes(ctx, x, 0x3c)); /* small positive values in either type */
  ranking rk = {};
  snprintf(rk.matrix, sizeof rk.matrix, "%s", name);
  rk.nnz = a->nnz;
  rk.model_pick = est[0].schedule;
  rk.best_us = INFINITY;
  double measured[TS_SCHEDULE_COUNT] = {0};
  for (int s = 0; s <= TS_MODEL_SPMV_SCHEDULES; s++) {
    ts_schedule schedule = s < TS_MODEL_SPMV_SCHEDULES ? spmv_schedules[s] : TS_SCHEDULE_AUTO;
    ts_spmv_options o = {};
    o.schedule = schedule;
    job j = {};
    j.kind = 4;
    j.ctx = ctx;
    j.x = x;
    j.y = y;
    TSB_TS_TRY(ctx, ts_spmv_plan_create_ex(ctx, a, &o, &j.plan));
    double us = NAN;
    int rc = measure(ts_context_stream(ctx), &j, &us);
    ts_schedule ran = ts_spmv_plan_schedule(j.plan);
    ts_spmv_plan_destroy(j.plan);
    if (rc)
      return 1;
    if (schedule == TS_SCHEDULE_AUTO) {
      rk.auto_pick = ran;
      rk.auto_us = us;
      continue;
    }
    measured[schedule] = us;
    if (us < rk.best_us) {
      rk.best_us = us;
      rk.measured_best = schedule;
    }
    double predicted = 0;
    for (int e = 0; e < count; e++)
      if (est[e].schedule == schedule)
        predicted = est[e].seconds;
    char label[96];
    snprintf(label, sizeof label, "%s, %s", name, ts_schedule_name(schedule));
    if (validate && record("spmv", label, predicted, us, 0))
      return 1;
  }
  rk.model_pick_us = measured[rk.model_pick];
  rankings.push_back(rk);
  ts_buffer_destroy(x);
  ts_buffer_destroy(y);
  return 0;
}

static int run_spmv(const ts_model_params *p, ts_context *ctx, bool quick, const char *matrices_dir) {
  struct gen {
    const char *name;
    int kind;
    int64_t size;
  } gens[] = {
      {"laplacian2d_1024", 0, 1024},   {"laplacian2d_2048", 0, 2048},
      {"laplacian3d_128", 1, 128},     {"uniform_1M_x16", 2, 1 << 20},
      {"uniform_2M_x8", 2, 1 << 21},   {"powerlaw_1M_16M", 3, 1 << 20},
      {"powerlaw_2M_16M", 3, 1 << 21}, {"rmat_19", 4, 19},
      {"banded_1M_w32", 5, 1 << 20},
  };
  int count = (int)(sizeof gens / sizeof gens[0]);
  for (int i = 0; i < count; i++) {
    if (quick && i % 3 != 0)
      continue;
    ts_csr *a = NULL;
    ts_status st;
    switch (gens[i].kind) {
    case 0:
      st = ts_gen_laplacian_2d(ctx, gens[i].size, gens[i].size, TS_FLOAT32, &a);
      break;
    case 1:
      st = ts_gen_laplacian_3d(ctx, gens[i].size, gens[i].size, gens[i].size, TS_FLOAT32, &a);
      break;
    case 2:
      st =
          ts_gen_random_uniform(ctx, gens[i].size, gens[i].size, gens[i].size == (1 << 20) ? 16 : 8, 7, TS_FLOAT32, &a);
      break;
    case 3:
      st = ts_gen_power_law(ctx, gens[i].size, gens[i].size, (int64_t)1 << 24, 0.9, 11, TS_FLOAT32, &a);
      break;
    case 4: {
      ts_rmat_params rp = ts_rmat_graph500((int)gens[i].size, 16);
      st = ts_gen_rmat(ctx, &rp, 5, TS_FLOAT32, &a);
      break;
    }
    default:
      st = ts_gen_banded(ctx, gens[i].size, 16, 16, 3, TS_FLOAT32, &a);
    }
    if (st != TS_SUCCESS) {
      fprintf(stderr, "generating %s: %s\n", gens[i].name, ts_last_error(ctx));
      return 1;
    }
    int rc = run_spmv_matrix(p, ctx, gens[i].name, a, true);
    ts_csr_destroy(a);
    if (rc)
      return 1;
  }
  if (!matrices_dir)
    return 0;
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", matrices_dir);
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("corpus: no %s; skipped\n", path);
    return 0;
  }
  char line[512];
  bool header = true;
  while (fgets(line, sizeof line, f)) {
    if (header) {
      header = false;
      continue;
    }
    char *tab = strchr(line, '\t');
    if (!tab)
      continue;
    *tab = '\0';
    snprintf(path, sizeof path, "%s/%s.mtx", matrices_dir, line);
    ts_csr *a = NULL;
    ts_status st = ts_mm_read_csr(ctx, path, TS_FLOAT32, &a, NULL);
    if (st != TS_SUCCESS) {
      printf("corpus: %s skipped (%s)\n", line, ts_last_error(ctx));
      continue;
    }
    int rc = run_spmv_matrix(p, ctx, line, a, false);
    ts_csr_destroy(a);
    if (rc) {
      fclose(f);
      return 1;
    }
  }
  fclose(f);
  return 0;
}

/* ---- output ---------------------------------------------------------------------- */

static double median_abs_error(const char *family, bool earlier = false) {
  std::vector<double> e;
  for (const result &r : results)
    if (!family || strcmp(r.family, family) == 0)
      e.push_back(fabs((earlier ? r.earlier_us : r.predicted_us) - r.measured_us) / r.measured_us * 100.0);
  if (e.empty())
    return NAN;
  std::sort(e.begin(), e.end());
  size_t n = e.size();
  return n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
}

static int write_outputs(const tsb_metadata *meta, const ts_model_params *p, const char *csv, const char *md) {
  const char *cols[] = {"family",    "case",  "predicted_us",         "measured_us",
                        "error_pct", "bound", "earlier_predicted_us", "earlier_error_pct"};
  tsb_table *t = tsb_table_create(predict_only ? 8 : 6, cols);
  if (!t)
    return 1;
  for (const result &r : results) {
    tsb_table_cell(t, "%s", r.family);
    tsb_table_cell(t, "%s", r.name);
    tsb_table_cell(t, "%.3f", r.predicted_us);
    tsb_table_cell(t, "%.3f", r.measured_us);
    tsb_table_cell(t, "%.1f", 100.0 * (r.predicted_us - r.measured_us) / r.measured_us);
    tsb_table_cell(t, "%s", r.bound);
    if (predict_only) {
      tsb_table_cell(t, "%.3f", r.earlier_us);
      tsb_table_cell(t, "%.1f", 100.0 * (r.earlier_us - r.measured_us) / r.measured_us);
    }
  }
  int rc = tsb_table_write_csv(t, meta, csv);
  FILE *f = fopen(md, "w");
  if (!f) {
    tsb_table_destroy(t);
    return 1;
  }
  fprintf(f, "# Performance model: prediction against measurement\n\n");
  if (predict_only)
    fprintf(f, "Re-predicted on the host: the measured times are those of an earlier GPU run (its date, commit, "
               "device and command are the measured_* lines below); the predictions are recomputed at this commit "
               "(`commit`) from the calibration file named in `parameters`, with every case described as that run "
               "described it. The SpMV ranking table is left out (it needs AUTO's times, not in the CSV).\n\n");
  tsb_metadata_print(meta, f, "- ");
  fprintf(f,
          "\nCalibration (%s): DRAM latency %.0f ns, L2 latency %.0f ns, shared latency %.1f ns, "
          "DRAM %.0f GB/s (random sectors %.0f), L2 %.0f GB/s, shared %.0f GB/s, FP32 %.3g FMA/s, launch %.2f us "
          "(device) / %.2f us (host).\n\n",
          predict_only ? "file" : "same run", p->dram_latency_ns, p->l2_latency_ns, p->shared_latency_ns,
          p->dram_bandwidth_gbps, p->dram_random_gbps, p->l2_bandwidth_gbps, p->shared_bandwidth_gbps,
          p->fp32_ops_per_s, p->launch_device_us, p->launch_host_us);
  if (predict_only)
    fprintf(f, "## Median absolute error\n\n| family | cases | median abs error | earlier run's predictions |\n"
               "|---|---|---|---|\n");
  else
    fprintf(f, "## Median absolute error\n\n| family | cases | median abs error |\n|---|---|---|\n");
  const char *families[] = {"triad", "gather", "transpose", "reduction", "gemm", "cublas", "spmv"};
  for (const char *fam : families) {
    int n = 0;
    for (const result &r : results)
      n += strcmp(r.family, fam) == 0;
    if (n && predict_only)
      fprintf(f, "| %s | %d | %.1f %% | %.1f %% |\n", fam, n, median_abs_error(fam), median_abs_error(fam, true));
    else if (n)
      fprintf(f, "| %s | %d | %.1f %% |\n", fam, n, median_abs_error(fam));
  }
  if (predict_only)
    fprintf(f, "| **all** | %zu | **%.1f %%** | %.1f %% |\n\n", results.size(), median_abs_error(NULL),
            median_abs_error(NULL, true));
  else
    fprintf(f, "| **all** | %zu | **%.1f %%** |\n\n", results.size(), median_abs_error(NULL));
  fprintf(f, "## Every case\n\n");
  tsb_table_print_markdown(t, NULL, f);
  if (!rankings.empty()) {
    int model_best = 0, auto_best = 0;
    double model_loss = 0, auto_loss = 0;
    fprintf(f, "\n## SpMV: the model's pick against the measured best and AUTO\n\n");
    fprintf(f, "| matrix | nnz | model pick | measured best | AUTO | model / best | AUTO / best |\n"
               "|---|---|---|---|---|---|---|\n");
    for (const ranking &r : rankings) {
      double mr = r.model_pick_us / r.best_us, ar = r.auto_us / r.best_us;
      model_best += mr <= 1.05;
      auto_best += ar <= 1.05;
      model_loss += log(mr);
      auto_loss += log(ar);
      fprintf(f, "| %s | %lld | %s | %s | %s | %.2f | %.2f |\n", r.matrix, (long long)r.nnz,
              ts_schedule_name(r.model_pick), ts_schedule_name(r.measured_best), ts_schedule_name(r.auto_pick), mr, ar);
    }
    size_t n = rankings.size();
    fprintf(f,
            "\nWithin 5 %% of the best: model %d of %zu, AUTO %d of %zu. Geometric mean of time over the best: "
            "model %.3f, AUTO %.3f.\n",
            model_best, n, auto_best, n, exp(model_loss / n), exp(auto_loss / n));
    printf("SpMV ranking: model within 5%% of best on %d of %zu (geomean %.3f), AUTO %d of %zu (geomean %.3f)\n",
           model_best, n, exp(model_loss / n), auto_best, n, exp(auto_loss / n));
  }
  fclose(f);
  tsb_table_destroy(t);
  return rc;
}

/* The table files and the median errors on stdout. */
static int finish(const tsb_metadata *meta, const ts_model_params *p, const char *csv, const char *md) {
  int rc = write_outputs(meta, p, csv, md);
  printf("median absolute error: %.1f %% over %zu cases (triad %.1f, gather %.1f, transpose %.1f, reduction %.1f, "
         "gemm %.1f, cublas %.1f, spmv %.1f)\n",
         median_abs_error(NULL), results.size(), median_abs_error("triad"), median_abs_error("gather"),
         median_abs_error("transpose"), median_abs_error("reduction"), median_abs_error("gemm"),
         median_abs_error("cublas"), median_abs_error("spmv"));
  return rc;
}

/* --predict-only: every case described and predicted on the host (a CPU
 * context: no GPU needed), measured times from an earlier run's CSV. */
static int predict_offline(const char *params_in, const char *measured, const char *csv, const char *md, bool quick,
                           int argc, char **argv) {
  ts_context_options o = {};
  o.backend = TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &o) != TS_SUCCESS) {
    fprintf(stderr, "ts_context_create: %s\n", ts_last_error(NULL));
    return 1;
  }
  ts_model_params p;
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  int rc = ts_model_params_read_json(ctx, params_in, &p) != TS_SUCCESS;
  if (rc)
    fprintf(stderr, "%s: %s\n", params_in, ts_last_error(ctx));
  if (!rc)
    rc = read_measured(measured, &meta);
  if (!rc) {
    tsb_metadata_set(&meta, "timing",
                     "measured times from %s (an earlier GPU run: measured_* above); predictions "
                     "recomputed on the host at this commit",
                     measured);
    tsb_metadata_set(&meta, "parameters", "%s", params_in);
    size_t max_n = (size_t)1 << (quick ? 26 : 28);
    rc = run_triads(&p, NULL, NULL, NULL, NULL, max_n, quick);
    if (!rc)
      rc = run_gathers(&p, NULL, NULL, NULL, max_n, quick);
    if (!rc)
      rc = run_transposes(&p, NULL, NULL, NULL, max_n, quick);
    if (!rc)
      rc = run_reductions(&p, NULL, NULL, NULL, NULL, max_n, quick);
    if (!rc)
      rc = run_gemms(&p, ctx, quick);
    if (!rc)
      rc = run_cublas(&p, ctx);
    if (!rc)
      rc = run_spmv(&p, ctx, quick, NULL);
  }
  if (!rc)
    rc = finish(&meta, &p, csv, md);
  ts_context_destroy(ctx);
  return rc;
}

int main(int argc, char **argv) {
  const char *csv = "model-validate.csv", *md = NULL, *params_in = NULL, *params_out = NULL, *matrices = NULL;
  const char *measured = NULL;
  bool quick = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (strcmp(argv[i], "--params") == 0 && i + 1 < argc)
      params_in = argv[++i];
    else if (strcmp(argv[i], "--params-out") == 0 && i + 1 < argc)
      params_out = argv[++i];
    else if (strcmp(argv[i], "--md") == 0 && i + 1 < argc)
      md = argv[++i];
    else if (strcmp(argv[i], "--breakdown") == 0)
      show_breakdown = true;
    else if (strcmp(argv[i], "--predict-only") == 0)
      predict_only = true;
    else if (strcmp(argv[i], "--measured") == 0 && i + 1 < argc)
      measured = argv[++i];
    else if (strcmp(argv[i], "--matrices") == 0 && i + 1 < argc)
      matrices = argv[++i];
    else if (strcmp(argv[i], "--cublas-counts") == 0 && i + 1 < argc) {
      if (read_cublas_counts(argv[++i]))
        return 1;
    } else if (argv[i][0] != '-')
      csv = argv[i];
    else {
      fprintf(stderr,
              "usage: model_validate [--quick] [--params FILE | --params-out FILE] [--matrices DIR] "
              "[--cublas-counts FILE] [--md FILE] [CSV]\n"
              "       model_validate --predict-only --params FILE --measured CSV [--cublas-counts FILE] [--breakdown] "
              "[--md FILE] [CSV]\n");
      return 2;
    }
  }
  if (predict_only && (!params_in || !measured)) {
    fprintf(stderr, "model_validate: --predict-only needs --params FILE and --measured CSV\n");
    return 2;
  }
  char md_default[1024];
  if (!md) {
    snprintf(md_default, sizeof md_default, "%s", csv);
    char *dot = strrchr(md_default, '.');
    if (dot)
      strcpy(dot, ".md");
    else
      strncat(md_default, ".md", sizeof md_default - strlen(md_default) - 1);
    md = md_default;
  }
  if (predict_only)
    return predict_offline(params_in, measured, csv, md, quick, argc, argv);
  ts_context_options o = {};
  o.backend = TS_BACKEND_CUDA;
  ts_context *ctx = NULL;
  if (ts_context_create(&ctx, &o) != TS_SUCCESS) {
    printf("no usable GPU: %s\n", ts_last_error(NULL));
    return 0;
  }
  ts_model_params p;
  if (params_in) {
    TSB_TS_TRY(ctx, ts_model_params_read_json(ctx, params_in, &p));
  } else {
    double t0 = tsb_wall_seconds();
    TSB_TS_TRY(ctx, ts_model_calibrate(ctx, &p));
    printf("calibrated in %.1f s\n", tsb_wall_seconds() - t0);
    if (params_out)
      TSB_TS_TRY(ctx, ts_model_params_write_json(ctx, &p, params_out));
  }
  tsb_metadata meta;
  tsb_metadata_collect(&meta, ctx, argc, argv);
  tsb_metadata_set(&meta, "timing", "median of %d CUDA-event timed calls after %d warm-up calls", REPEAT, WARMUP);
  tsb_metadata_set(&meta, "parameters", "%s", params_in ? params_in : "calibrated in this run");

  size_t max_n = (size_t)1 << (quick ? 26 : 28); /* floats per buffer */
  float *a = NULL, *b = NULL, *c = NULL;
  TSB_CUDA_TRY(cudaMalloc((void **)&a, max_n * sizeof(float)));
  TSB_CUDA_TRY(cudaMalloc((void **)&b, max_n * sizeof(float)));
  TSB_CUDA_TRY(cudaMalloc((void **)&c, max_n * sizeof(float)));
  TSB_CUDA_TRY(cudaMemset(b, 0, max_n * sizeof(float)));
  TSB_CUDA_TRY(cudaMemset(c, 0, max_n * sizeof(float)));
  void *stream = ts_context_stream(ctx);
  int rc = run_triads(&p, stream, a, b, c, max_n, quick);
  if (!rc)
    rc = run_gathers(&p, stream, a, b, max_n, quick);
  if (!rc)
    rc = run_transposes(&p, stream, a, b, max_n, quick);
  if (!rc)
    rc = run_reductions(&p, stream, a, b, c, max_n, quick);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  if (!rc)
    rc = run_gemms(&p, ctx, quick);
  if (!rc)
    rc = run_cublas(&p, ctx);
  if (!rc)
    rc = run_spmv(&p, ctx, quick, matrices);
  if (!rc)
    rc = finish(&meta, &p, csv, md);
  ts_context_destroy(ctx);
  return rc;
}
