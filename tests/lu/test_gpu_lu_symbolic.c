/* GPU symbolic LU factorization (out of core): the pattern of L + U, entry
 * map and counts equal the CPU's exactly, and a dense boolean elimination on
 * small random patterns; a tiny budget forces one row per chunk, a small one
 * many chunks, the same result; the paper's slots (two chunk sizes, or one)
 * as well; the tiers (symbolic_tiers_gpu.c) narrowed so that small matrices
 * go through every one of them: a bitmap window of 4096 bits, a hash set of
 * 8 words and rings of a few words send most rows to the reruns, and budgets
 * of a few thousand rows give the whole-bitmap tiers blocks of 64 to 512
 * threads a row; circuit-like matrices and the corpus's square matrices.
 * The context's CUDA backend sends the analysis to the GPU by itself. */
#include "test_gpu_lu_analysis.h"

static const analysis_setup cpu_setup = {TSI_LU_PHASE_CPU, TSI_LU_PHASE_CPU, 0, 0, 0, 0, 0, 0, 0};

static analysis_setup gpu_symbolic(int64_t budget, int one_chunk_size) {
  analysis_setup setup = {TSI_LU_PHASE_GPU, TSI_LU_PHASE_CPU, budget, one_chunk_size, 0, 0, 0, 0, 0};
  return setup;
}

/* The same with the per-row queue fixed: TSI_LU_FULL_QUEUE (the paper's
 * slots), or rings of a few words so that most rows outgrow them and rerun. */
static analysis_setup gpu_symbolic_queue(int64_t budget, int64_t queue_words) {
  analysis_setup setup = gpu_symbolic(budget, 0);
  setup.queue_words = queue_words;
  return setup;
}

/* The tiers narrowed: a window of 4096 bits, a hash set of 8 words, rings of
 * at most `ring` words. */
static analysis_setup gpu_symbolic_narrow(int64_t budget, int64_t ring) {
  analysis_setup setup = gpu_symbolic_queue(budget, ring);
  setup.window_bits = 4096;
  setup.hash_words = 8;
  return setup;
}

/* Bytes that hold `rows` slots of the second part (bitmap of n bits and a
 * queue of n words) with room to spare below the next row count. */
static int64_t budget_for_rows(int64_t n, int64_t rows) { return rows * 4 * (n + (n + 31) / 32 + 4); }

/* Bytes that hold about `rows` slots of the whole bitmap (and its summary)
 * with a ring of a few words. */
static int64_t budget_for_bitmaps(int64_t n, int64_t rows) {
  int64_t blocks = (n + 1023) / 1024;
  return rows * 4 * (blocks * 32 + blocks + 16);
}

/* Racecheck is slow on the sweeps' shared tails: random patterns only, fewer. */
static bool under_racecheck(void) {
  const char *tool = getenv("TESSERA_UNDER_SANITIZER");
  return tool && strcmp(tool, "racecheck") == 0;
}

static void test_random_patterns(ts_context *ctx) {
  unsigned long long state = 4242;
  int trials = under_racecheck() ? 6 : under_sanitizer() ? 12 : 60;
  for (int trial = 0; trial < trials; trial++) {
    int64_t n = 1 + (trial * 37) % 80;
    double density = trial % 3 == 0 ? 0.02 : trial % 3 == 1 ? 0.06 : 0.15;
    ts_csr *a = random_matrix(n, density, 1, &state);
    ts_lu_ordering ordering = trial % 2 ? lu_test_fill_ordering() : TS_LU_ORDER_NATURAL;
    ts_status st;
    ts_lu *cpu = analyze_on(NULL, a, ordering, cpu_setup, &st);
    CHECK_MSG(st == TS_SUCCESS, "trial %d: %s", trial, ts_last_error(NULL));
    ts_lu *gpu = analyze_on(ctx, a, ordering, gpu_symbolic(0, 0), &st);
    CHECK_MSG(st == TS_SUCCESS, "trial %d: %s", trial, ts_last_error(ctx));
    ts_lu *tiny = analyze_on(ctx, a, ordering, gpu_symbolic(1, 0), &st);
    CHECK_MSG(st == TS_SUCCESS, "trial %d: %s", trial, ts_last_error(ctx));
    ts_lu *rerun = analyze_on(ctx, a, ordering, gpu_symbolic_queue(0, 2), &st);
    CHECK_MSG(st == TS_SUCCESS, "trial %d: %s", trial, ts_last_error(ctx));
    ts_lu *paper = analyze_on(ctx, a, ordering, gpu_symbolic_queue(0, TSI_LU_FULL_QUEUE), &st);
    CHECK_MSG(st == TS_SUCCESS, "trial %d: %s", trial, ts_last_error(ctx));
    if (cpu && gpu && tiny && rerun && cpu->state == TSI_LU_ANALYZED) {
      unsigned char *dense = matched_dense_pattern(gpu, a);
      dense_symbolic(dense, n);
      CHECK_MSG(compare_pattern(gpu, dense) == 0, "trial %d (n %lld): GPU pattern against dense elimination", trial,
                (long long)n);
      free(dense);
      CHECK_MSG(same_symbolic(cpu, gpu, a), "trial %d: GPU and CPU analyses differ", trial);
      CHECK_MSG(same_symbolic(cpu, tiny, a), "trial %d: one row per chunk differs", trial);
      CHECK_MSG(same_symbolic(cpu, rerun, a), "trial %d: rings of 2 words (rows rerun) differ", trial);
      CHECK_MSG(same_symbolic(cpu, paper, a), "trial %d: the paper's slots differ", trial);
      CHECK_MSG(paper->stats.symbolic_chunks == (n > 1 ? 2 : 1), "trial %d: %lld chunks (paper's slots)", trial,
                (long long)paper->stats.symbolic_chunks);
      /* Under the default budget every row fits the last tier's one chunk. */
      CHECK_MSG(gpu->stats.symbolic_chunks == 1, "trial %d: %lld chunks", trial, (long long)gpu->stats.symbolic_chunks);
      CHECK_MSG(tiny->stats.symbolic_chunks == n, "trial %d: %lld chunks for %lld rows", trial,
                (long long)tiny->stats.symbolic_chunks, (long long)n);
      CHECK(gpu->stats.peak_device_bytes > 0 && cpu->stats.peak_device_bytes == 0);
    }
    ts_lu_destroy(cpu);
    ts_lu_destroy(gpu);
    ts_lu_destroy(tiny);
    ts_lu_destroy(rerun);
    ts_lu_destroy(paper);
    ts_csr_destroy(a);
  }
}

/* Circuit-like matrices: default budget (one chunk per part), one chunk
 * size, a budget of 48 rows of the second part (many chunks), and one row
 * per chunk on the smaller one. */
static void test_circuits(ts_context *ctx) {
  const int64_t sizes[2] = {2000, 30000};
  const ts_lu_ordering ordering = lu_test_fill_ordering();
  for (int s = 0; s < 2; s++) {
    int64_t n = under_sanitizer() ? sizes[s] / 10 : sizes[s];
    ts_csr *a = circuit(n, 11 + (uint64_t)s);
    CHECK(a != NULL);
    if (!a)
      continue;
    ts_status st;
    ts_lu *cpu = analyze_on(NULL, a, ordering, cpu_setup, &st);
    CHECK_OK(NULL, st);
    ts_lu *whole = analyze_on(ctx, a, ordering, gpu_symbolic(0, 0), &st);
    CHECK_OK(ctx, st);
    CHECK_MSG(same_symbolic(cpu, whole, a), "n %lld: default budget", (long long)n);
    ts_lu *single = analyze_on(ctx, a, ordering, gpu_symbolic(0, 1), &st);
    CHECK_OK(ctx, st);
    CHECK_MSG(same_symbolic(cpu, single, a), "n %lld: one chunk size", (long long)n);
    /* The default budget holds every row of the 2000 in one chunk of the
     * last tier (a queue of n words; the rows in flight are capped by the
     * device's resident warps, which any GPU has for 2000); one chunk size
     * asks nothing of the tiers. */
    if (n <= 2000)
      CHECK(whole && whole->stats.symbolic_chunks == 1 && single && single->stats.symbolic_chunks == 1);
    else
      CHECK(whole && whole->stats.symbolic_chunks >= 1 && single && single->stats.symbolic_chunks >= 1);
    /* The paper's slots (a queue of n words) under a budget of 48 of them. */
    ts_lu *chunked = analyze_on(ctx, a, ordering, gpu_symbolic_queue(budget_for_rows(n, 48), TSI_LU_FULL_QUEUE), &st);
    CHECK_OK(ctx, st);
    CHECK_MSG(same_symbolic(cpu, chunked, a), "n %lld: 48 rows per chunk", (long long)n);
    /* The same budget with the tiers: where their ring is shorter than the
     * order, its slots are smaller than the paper's and more rows run at once;
     * and rings of 16 words (most rows rerun). */
    ts_lu *shortened = analyze_on(ctx, a, ordering, gpu_symbolic(budget_for_rows(n, 48), 0), &st);
    CHECK_OK(ctx, st);
    CHECK_MSG(same_symbolic(cpu, shortened, a), "n %lld: tiers", (long long)n);
    const long long shortened_chunks = shortened ? (long long)shortened->stats.symbolic_chunks : -1,
                    chunked_chunks = chunked ? (long long)chunked->stats.symbolic_chunks : -1;
    if (n > TSI_LU_SYMBOLIC_FULL_RING_WORDS)
      CHECK_MSG(shortened_chunks >= 0 && shortened_chunks < chunked_chunks, "n %lld: %lld chunks tiered, %lld paper",
                (long long)n, shortened_chunks, chunked_chunks);
    ts_lu *rerun = analyze_on(ctx, a, ordering, gpu_symbolic_queue(budget_for_rows(n, 48), 16), &st);
    CHECK_OK(ctx, st);
    CHECK_MSG(same_symbolic(cpu, rerun, a), "n %lld: rings of 16 words", (long long)n);
    ts_lu_destroy(shortened);
    ts_lu_destroy(rerun);
    /* Every tier: the narrowed window, hash set and rings, under budgets of
     * about 1024 to 4096 whole-bitmap slots (on a large GPU, blocks of 64 to
     * 512 threads a row), and the default. */
    const int64_t narrow_rows[4] = {0, 1024, 2048, 4096};
    for (int b = 0; b < 4; b++) {
      int64_t budget = narrow_rows[b] ? budget_for_bitmaps(n, narrow_rows[b]) : 0;
      ts_lu *narrow = analyze_on(ctx, a, ordering, gpu_symbolic_narrow(budget, 8), &st);
      CHECK_OK(ctx, st);
      CHECK_MSG(same_symbolic(cpu, narrow, a), "n %lld: narrowed tiers, budget %lld", (long long)n, (long long)budget);
      ts_lu_destroy(narrow);
    }
    /* The second half in chunks of 48 rows, the first in larger ones. */
    int64_t least = (n - n / 2 + 47) / 48;
    CHECK_MSG(chunked && chunked->stats.symbolic_chunks > least && chunked->stats.symbolic_chunks < 3 * least,
              "n %lld: %lld chunks", (long long)n, chunked ? (long long)chunked->stats.symbolic_chunks : -1LL);
    CHECK(chunked && whole && chunked->stats.peak_device_bytes < whole->stats.peak_device_bytes);
    analysis_setup one_size = gpu_symbolic_queue(budget_for_rows(n, 48), TSI_LU_FULL_QUEUE);
    one_size.one_chunk_size = 1;
    ts_lu *one_chunk_size = analyze_on(ctx, a, ordering, one_size, &st);
    CHECK_OK(ctx, st);
    CHECK(same_symbolic(cpu, one_chunk_size, a));
    CHECK(one_chunk_size && chunked && one_chunk_size->stats.symbolic_chunks >= chunked->stats.symbolic_chunks);
    /* The unified-memory variants (the ablation's baseline): the same
     * chunks as the explicit run with the full queue, the same pattern. */
    for (int memory = TSI_LU_SYMBOLIC_MANAGED; memory <= TSI_LU_SYMBOLIC_MANAGED_PREFETCH; memory++) {
      analysis_setup unified = gpu_symbolic_queue(budget_for_rows(n, 48), TSI_LU_FULL_QUEUE);
      unified.symbolic_memory = memory;
      ts_lu *managed = analyze_on(ctx, a, ordering, unified, &st);
      CHECK_OK(ctx, st);
      CHECK_MSG(same_symbolic(cpu, managed, a), "n %lld: unified memory variant %d", (long long)n, memory);
      CHECK(managed && chunked && managed->stats.symbolic_chunks == chunked->stats.symbolic_chunks);
      ts_lu_destroy(managed);
    }
    if (s == 0) {
      ts_lu *tiny = analyze_on(ctx, a, ordering, gpu_symbolic(1, 0), &st);
      CHECK_OK(ctx, st);
      CHECK(same_symbolic(cpu, tiny, a));
      CHECK(tiny && tiny->stats.symbolic_chunks == n);
      ts_lu_destroy(tiny);
    }
    ts_lu_destroy(cpu);
    ts_lu_destroy(whole);
    ts_lu_destroy(single);
    ts_lu_destroy(chunked);
    ts_lu_destroy(one_chunk_size);
    ts_csr_destroy(a);
  }
}

typedef struct corpus_run {
  ts_context *ctx;
  int analysed, singular;
} corpus_run;

static void corpus_matrix(const char *name, const ts_csr *a, void *user) {
  corpus_run *run = user;
  const ts_lu_ordering ordering = lu_test_fill_ordering();
  ts_status cpu_status, gpu_status, chunked_status;
  ts_lu *cpu = analyze_on(NULL, a, ordering, cpu_setup, &cpu_status);
  ts_lu *gpu = analyze_on(run->ctx, a, ordering, gpu_symbolic(0, 0), &gpu_status);
  ts_lu *chunked = analyze_on(run->ctx, a, ordering,
                              gpu_symbolic_queue(budget_for_rows(a->rows, 16), TSI_LU_FULL_QUEUE), &chunked_status);
  ts_status rerun_status, narrow_status;
  ts_lu *rerun = analyze_on(run->ctx, a, ordering, gpu_symbolic_queue(budget_for_rows(a->rows, 16), 8), &rerun_status);
  ts_lu *narrow = analyze_on(run->ctx, a, ordering, gpu_symbolic_narrow(0, 4), &narrow_status);
  CHECK_MSG(gpu_status == cpu_status && chunked_status == cpu_status && rerun_status == cpu_status &&
                narrow_status == cpu_status,
            "%s: statuses %d (CPU) %d %d %d %d (GPU): %s", name, (int)cpu_status, (int)gpu_status, (int)chunked_status,
            (int)rerun_status, (int)narrow_status, ts_last_error(run->ctx));
  if (cpu_status == TS_SUCCESS && gpu_status == TS_SUCCESS && chunked_status == TS_SUCCESS &&
      rerun_status == TS_SUCCESS && narrow_status == TS_SUCCESS) {
    run->analysed++;
    CHECK_MSG(same_symbolic(cpu, gpu, a), "%s: GPU and CPU analyses differ", name);
    CHECK_MSG(same_symbolic(cpu, chunked, a), "%s: 16 rows per chunk differs", name);
    CHECK_MSG(same_symbolic(cpu, rerun, a), "%s: rings of 8 words differ", name);
    CHECK_MSG(same_symbolic(cpu, narrow, a), "%s: the narrowed tiers differ", name);
    CHECK_MSG(a->rows < 64 || chunked->stats.symbolic_chunks > 2, "%s: %lld chunks", name,
              (long long)chunked->stats.symbolic_chunks);
  } else if (cpu_status == TS_ERROR_STRUCTURALLY_SINGULAR) {
    run->singular++;
  }
  ts_lu_destroy(cpu);
  ts_lu_destroy(gpu);
  ts_lu_destroy(chunked);
  ts_lu_destroy(rerun);
  ts_lu_destroy(narrow);
}

static void test_corpus(ts_context *ctx) {
  corpus_run run = {ctx, 0, 0};
  int seen = for_each_corpus_matrix(corpus_matrix, &run);
  if (seen < 0) {
    printf("SKIPPED: corpus (TESSERA_MATRICES not set)\n");
    return;
  }
  printf("corpus: %d analysed on the GPU, %d structurally singular\n", run.analysed, run.singular);
  CHECK(run.analysed >= (under_sanitizer() ? 5 : 20));
}

/* An analysis through the public options, asking for the phases' backends. */
static ts_lu *analyze_asking(ts_context *ctx, const ts_csr *a, ts_backend symbolic, ts_backend levelize) {
  ts_lu_options asked = {0};
  asked.ordering = lu_test_fill_ordering();
  asked.symbolic_backend = symbolic;
  asked.levelize_backend = levelize;
  ts_lu *lu = NULL;
  CHECK_OK(ctx, ts_lu_create(ctx, &asked, &lu));
  if (lu)
    CHECK_OK(ctx, ts_lu_analyze(lu, a));
  return lu;
}

/* With a CUDA context the analysis stays on the host unless the options ask
 * (ts_lu_options.symbolic_backend, levelize_backend): the host phases are the
 * faster ones for the sizes the GPU factors. A forced GPU phase without a
 * CUDA context is refused. */
static void test_dispatch(ts_context *ctx) {
  ts_csr *a = circuit(under_sanitizer() ? 300 : 3000, 5);
  analysis_setup automatic = {TSI_LU_PHASE_AUTO, TSI_LU_PHASE_AUTO, 0, 0, 0, 0, 0, 0, 0};
  ts_status st;
  ts_lu *cpu = analyze_on(NULL, a, lu_test_fill_ordering(), automatic, &st);
  CHECK_OK(NULL, st);
  ts_lu *gpu = analyze_on(ctx, a, lu_test_fill_ordering(), automatic, &st);
  CHECK_OK(ctx, st);
  CHECK(cpu && gpu && cpu->stats.peak_device_bytes == 0 && gpu->stats.peak_device_bytes == 0);
  CHECK(same_symbolic(cpu, gpu, a) && same_levels(cpu, gpu));
  ts_lu *gpu_levels_lu = analyze_asking(ctx, a, TS_BACKEND_AUTO, TS_BACKEND_CUDA);
  CHECK(gpu_levels_lu && same_levels(cpu, gpu_levels_lu) && gpu_levels_lu->stats.peak_device_bytes > 0);
  ts_lu_destroy(gpu_levels_lu);
  ts_lu *gpu_symbolic_lu = analyze_asking(ctx, a, TS_BACKEND_CUDA, TS_BACKEND_AUTO);
  CHECK(gpu_symbolic_lu && same_symbolic(cpu, gpu_symbolic_lu, a) && gpu_symbolic_lu->stats.symbolic_chunks >= 1);
  ts_lu_destroy(gpu_symbolic_lu);
  ts_lu *refused = analyze_on(NULL, a, lu_test_fill_ordering(), gpu_symbolic(0, 0), &st);
  CHECK(st == TS_ERROR_UNSUPPORTED);
  CHECK(strstr(ts_last_error(NULL), "CUDA") != NULL);
  ts_lu_destroy(refused);
  ts_lu_destroy(cpu);
  ts_lu_destroy(gpu);
  ts_csr_destroy(a);
}

int main(void) {
  ts_context *ctx = cuda_context();
  if (!ctx)
    return test_skip("no usable CUDA device");
  test_random_patterns(ctx);
  if (under_racecheck()) {
    printf("racecheck: six random patterns only (circuits, dispatch and corpus not run)\n");
  } else {
    test_circuits(ctx);
    test_dispatch(ctx);
    test_corpus(ctx);
  }
  ts_context_destroy(ctx);
  return test_finish();
}
