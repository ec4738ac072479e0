/* The load-balancing layer on the GPU: for every schedule (and several group
 * sizes and grid sizes), every atom is visited exactly once in the right
 * tile, every tile is finished exactly once with the right reduction, float
 * sums match a double reference and repeat bitwise; stride ranges cover
 * their index sets exactly once; a persistent kernel on the infinite range
 * stops when the work runs out.
 *
 * Under compute-sanitizer (TESSERA_UNDER_SANITIZER names the tool) the
 * inputs shrink to tens of thousands of atoms that still reach every path:
 * several chunks per block, tiles split across threads and across 2 to 129
 * blocks (the last block's combine, with more than one record per thread),
 * runs of empty tiles longer than a chunk, partial last chunks and groups.
 * The mapped schedules then run on one resident block (grid-stride loops,
 * shared memory reused from tile to tile), and a resident count whose plan
 * repeats a smaller one's is skipped. Racecheck costs about 0.16 s per
 * kernel launch on the H200: it runs one kernel per case (the 16-byte tile
 * spans) once, only the schedules that use shared memory (not thread- and
 * warp-mapped; groups of 4 and 256 take the barriers of 32 and 1024), only
 * the inputs with more than one tile, and the mapped schedules only on the
 * irregular and heavy-tail ones. */
#include "tessera/lb.cuh"

#include "test_cuda_common.h"

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <vector>

namespace lb = tessera::lb;

/* ---- kernels written once, schedule as a type argument ---- */

template <class S, class Work> __global__ void record_atoms(lb::plan<int> p, Work w, int *tile_of, int *visits) {
  __shared__ lb::atom_storage<S, int> smem;
  lb::for_each_atom<S>(p, w, smem, [=](int tile, int atom) {
    tile_of[atom] = tile;
    atomicAdd(visits + atom, 1);
  });
}

/* Per tile: number of atoms, smallest and largest atom index. */
struct span {
  int count, lo, hi, unused;
};
struct span_op {
  __device__ span operator()(const span &a, const span &b) const {
    return span{a.count + b.count, a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi, 0};
  }
};

template <class S, class Work>
__global__ void tile_spans(lb::plan<int> p, Work w, int *visits, int *finished, span *out) {
  __shared__ lb::storage<S, span, int> smem;
  lb::for_each_tile_reduce<S>(
      p, w, smem, span{0, INT_MAX, INT_MIN, 0}, span_op{},
      [=](int atom) {
        atomicAdd(visits + atom, 1);
        return span{1, atom, atom, 0};
      },
      [=](int tile, span s) {
        atomicAdd(finished + tile, 1);
        out[tile] = s;
      });
}

template <class S, class Work> __global__ void tile_sums(lb::plan<int> p, Work w, const float *values, float *out) {
  __shared__ lb::storage<S, float, int> smem;
  lb::for_each_tile_reduce<S>(
      p, w, smem, 0.0f, lb::plus{}, [=](int atom) { return values[atom]; }, [=](int tile, float s) { out[tile] = s; });
}

/* ---- what runs ---- */

/* The kernels of one check and how often the float sums repeat. */
struct kernel_set {
  bool atoms;   /* for_each_atom: every atom once, in its tile */
  bool spans;   /* tile spans: every tile finished once, every atom valued once */
  int sum_runs; /* float sums against double, bitwise over the runs (0: none) */
};

struct selection {
  const char *name;
  bool small;         /* the inputs for compute-sanitizer */
  bool mapped_wide;   /* the mapped schedules on 5 and all resident blocks, not only 1 */
  bool racecheck;     /* shared-memory schedules and inputs of several tiles only */
  kernel_set kernels; /* per (schedule, input, resident blocks) */
};

static selection choose_selection(void) {
  const char *tool = getenv("TESSERA_UNDER_SANITIZER");
  if (!tool || !*tool)
    return selection{"full", false, true, false, kernel_set{true, true, 3}};
  if (strcmp(tool, "racecheck") == 0)
    return selection{"racecheck: small inputs of several tiles, shared-memory schedules, tile spans only, once", true,
                     false, true, kernel_set{false, true, 0}};
  return selection{"sanitizer: small inputs, sums twice", true, false, false, kernel_set{true, true, 2}};
}

static double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/* ---- inputs ---- */

struct tile_set {
  const char *name;
  std::vector<int> offsets; /* tiles + 1 */
};

static const tile_set *find_case(const std::vector<tile_set> &cases, const char *name) {
  for (const tile_set &c : cases)
    if (strcmp(c.name, name) == 0)
      return &c;
  return nullptr;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t next_random(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 11);
}

static tile_set from_sizes(const char *name, const std::vector<int> &sizes) {
  tile_set t{name, std::vector<int>(1, 0)};
  for (int s : sizes)
    t.offsets.push_back(t.offsets.back() + s);
  return t;
}

/* Chunks hold 256 * V items: V = 8 for 4-byte values (2048 items), 3 for
 * the 16-byte spans (768). The small inputs keep every size that matters
 * above those. */
static std::vector<tile_set> make_cases(bool small, bool racecheck) {
  std::vector<tile_set> cases;
  if (!racecheck) {
    cases.push_back(from_sizes("no tiles", {}));
    cases.push_back(from_sizes("one atom", {1}));
    cases.push_back(from_sizes("one empty tile", {0}));
  }
  /* More empty tiles than a chunk holds (merge-path: two chunks or more;
   * work-oriented: one thread walks them all, past the staged slots). */
  cases.push_back(from_sizes("all empty", std::vector<int>(small ? 2100 : 10000, 0)));
  /* Small: 99,000 atoms are 129 span chunks, so on the whole device 129
   * blocks share the tile and the last block's threads take 2 records each. */
  cases.push_back(from_sizes("one long tile", {small ? 99000 : 200000}));
  /* Irregular: short random tiles, runs of empty tiles longer than a chunk,
   * a tile just above a chunk, a long tile in the middle, empties at the end. */
  std::vector<int> sizes;
  for (int i = 0; i < 100; i++)
    sizes.push_back(int(next_random() % 41));
  sizes.insert(sizes.end(), small ? 2100 : 5000, 0);
  for (int i = 0; i < 50; i++)
    sizes.push_back(int(next_random() % 9));
  sizes.push_back(small ? 5000 : 50000);
  for (int i = 0; i < 300; i++)
    sizes.push_back(i % 3 == 0 ? 0 : int(next_random() % 20));
  sizes.push_back(2049);
  sizes.push_back(1);
  sizes.insert(sizes.end(), 500, 0);
  cases.push_back(from_sizes("irregular", sizes));
  /* Many tiles, heavy-tailed sizes: many blocks and many split tiles (small:
   * 2000 tiles, about 46,000 atoms, 63 span chunks). */
  sizes.clear();
  for (int i = 0; i < (small ? 2000 : 30000); i++) {
    uint32_t r = next_random() % 1000;
    sizes.push_back(r < 900 ? int(r % 12) : r < 995 ? int(next_random() % 300) : int(next_random() % 3000));
  }
  cases.push_back(from_sizes("heavy tail", sizes));
  return cases;
}

/* ---- one schedule on one input ---- */

template <class T> static T *device_copy(const std::vector<T> &v) {
  T *d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, (v.size() + 1) * sizeof(T)));
  if (!v.empty())
    CUDA_CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T> static std::vector<T> host_copy(const T *d, size_t n) {
  std::vector<T> v(n);
  if (n)
    CUDA_CHECK(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

template <class S, class T, class Work> struct planned {
  lb::plan<int> plan;
  void *workspace = nullptr;
  planned(const Work &w, int resident) {
    size_t bytes = lb::workspace_bytes<S, T, int>(w.tiles, w.atoms);
    if (bytes)
      CUDA_CHECK(cudaMalloc(&workspace, bytes));
    plan = lb::make_plan<S, T, int>(w.tiles, w.atoms, resident, workspace);
    CUDA_CHECK(lb::prepare<S>(plan, w, 0));
  }
  ~planned() { cudaFree(workspace); }
};

template <class S, class Work>
static void check_schedule(const char *schedule, const tile_set &c, const Work &w, int resident,
                           const kernel_set &kernels) {
  const int tiles = int(c.offsets.size()) - 1, atoms = c.offsets.back();
  const int block = lb::block_threads<S>;
  std::vector<int> expected_tile(atoms);
  for (int t = 0; t < tiles; t++)
    for (int a = c.offsets[t]; a < c.offsets[t + 1]; a++)
      expected_tile[a] = t;

  int *tile_of = device_copy(std::vector<int>(atoms, -1));
  int *visits = device_copy(std::vector<int>(atoms, 0));
  int *finished = device_copy(std::vector<int>(tiles, 0));
  span *spans = device_copy(std::vector<span>(tiles, span{-1, -1, -1, 0}));

  /* Every atom once, in its tile. */
  if (kernels.atoms) {
    planned<S, int, Work> p(w, resident);
    if (p.plan.grid > 0)
      record_atoms<S><<<p.plan.grid, block>>>(p.plan, w, tile_of, visits);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<int> got_tile = host_copy(tile_of, atoms), got_visits = host_copy(visits, atoms);
    int wrong = 0, first = -1;
    for (int a = 0; a < atoms; a++)
      if (got_visits[a] != 1 || got_tile[a] != expected_tile[a]) {
        if (first < 0)
          first = a;
        wrong++;
      }
    CHECK_MSG(wrong == 0, "%s, %s, resident %d (grid %d): %d atoms wrong, first %d (visits %d, tile %d, want %d)",
              schedule, c.name, resident, p.plan.grid, wrong, first, first >= 0 ? got_visits[first] : 0,
              first >= 0 ? got_tile[first] : 0, first >= 0 ? expected_tile[first] : 0);
  }

  /* Every tile finished once with its atoms' span; every atom valued once. */
  if (kernels.spans) {
    CUDA_CHECK(cudaMemset(visits, 0, (atoms + 1) * sizeof(int)));
    planned<S, span, Work> p(w, resident);
    if (p.plan.grid > 0)
      tile_spans<S><<<p.plan.grid, block>>>(p.plan, w, visits, finished, spans);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<int> got_visits = host_copy(visits, atoms), got_finished = host_copy(finished, tiles);
    std::vector<span> got = host_copy(spans, tiles);
    int wrong_atoms = 0, wrong_tiles = 0, first = -1;
    for (int a = 0; a < atoms; a++)
      wrong_atoms += got_visits[a] != 1;
    for (int t = 0; t < tiles; t++) {
      int size = c.offsets[t + 1] - c.offsets[t];
      bool ok = got_finished[t] == 1 && got[t].count == size &&
                (size == 0 ? got[t].lo == INT_MAX && got[t].hi == INT_MIN
                           : got[t].lo == c.offsets[t] && got[t].hi == c.offsets[t + 1] - 1);
      if (!ok) {
        if (first < 0)
          first = t;
        wrong_tiles++;
      }
    }
    CHECK_MSG(wrong_atoms == 0, "%s, %s, resident %d: %d atoms not valued exactly once", schedule, c.name, resident,
              wrong_atoms);
    CHECK_MSG(wrong_tiles == 0,
              "%s, %s, resident %d (grid %d): %d tiles wrong, first %d (finished %d, count %d lo %d hi %d, want "
              "%d atoms from %d)",
              schedule, c.name, resident, p.plan.grid, wrong_tiles, first, first >= 0 ? got_finished[first] : 0,
              first >= 0 ? got[first].count : 0, first >= 0 ? got[first].lo : 0, first >= 0 ? got[first].hi : 0,
              first >= 0 ? c.offsets[first + 1] - c.offsets[first] : 0, first >= 0 ? c.offsets[first] : 0);
  }

  /* Float sums against a double reference, bitwise equal over the runs. */
  if (kernels.sum_runs > 0) {
    std::vector<float> values(atoms);
    for (int a = 0; a < atoms; a++)
      values[a] = float(int(next_random() % 2001) - 1000) / 37.0f;
    float *d_values = device_copy(values);
    float *d_out = device_copy(std::vector<float>(tiles, 0.0f));
    planned<S, float, Work> p(w, resident);
    std::vector<float> first_run;
    for (int run = 0; run < kernels.sum_runs; run++) {
      CUDA_CHECK(cudaMemset(d_out, 0xff, (tiles + 1) * sizeof(float))); /* poison: NaN */
      if (p.plan.grid > 0)
        tile_sums<S><<<p.plan.grid, block>>>(p.plan, w, d_values, d_out);
      CUDA_CHECK(cudaGetLastError());
      std::vector<float> out = host_copy(d_out, tiles);
      if (run == 0) {
        int wrong = 0, first = -1;
        for (int t = 0; t < tiles; t++) {
          double ref = 0, mag = 0;
          for (int a = c.offsets[t]; a < c.offsets[t + 1]; a++) {
            ref += values[a];
            mag += fabs(values[a]);
          }
          if (!(fabs(out[t] - ref) <= 1e-5 * mag + 1e-6)) {
            if (first < 0)
              first = t;
            wrong++;
          }
        }
        CHECK_MSG(wrong == 0, "%s, %s, resident %d: %d tile sums wrong, first %d", schedule, c.name, resident, wrong,
                  first);
        first_run = out;
      } else {
        CHECK_MSG(memcmp(out.data(), first_run.data(), tiles * sizeof(float)) == 0,
                  "%s, %s, resident %d: run %d differs from run 0", schedule, c.name, resident, run);
      }
    }
    cudaFree(d_values);
    cudaFree(d_out);
  }
  cudaFree(tile_of);
  cudaFree(visits);
  cudaFree(finished);
  cudaFree(spans);
}

template <class S>
static void check_all_cases(const char *schedule, const std::vector<tile_set> &cases, int sm_count,
                            const selection &sel) {
  const auto start = std::chrono::steady_clock::now();
  const int64_t failures_before = test_failed;
  /* One resident block (a single block, or few blocks with many chunks
   * each), a handful, and the whole device. The mapped schedules only cap
   * their grid with it: one resident block (4 blocks, grid-stride) covers
   * their paths. */
  const bool chunked = lb::detail::traits<S>::chunked;
  const int residents[] = {1, 5, 8 * sm_count};
  const int resident_count = chunked || sel.mapped_wide ? 3 : 1;
  for (const tile_set &c : cases) {
    const int tiles = int(c.offsets.size()) - 1, atoms = c.offsets.back();
    /* Racecheck: the irregular and heavy-tail inputs hold every shared-memory
     * path of the mapped schedules (sets of empty tiles, tiles longer than a
     * chunk); the single long tile and the empty tiles are for the chunked ones. */
    if (sel.racecheck && !chunked && (tiles < 2 || atoms == 0))
      continue;
    int *d_offsets = device_copy(c.offsets);
    lb::csr_work<int> w = lb::make_csr_work(tiles, atoms, d_offsets);
    for (int r = 0; r < resident_count; r++) {
      /* The sanitizer skips a resident count whose plan (grid and chunks per
       * block; spans have the most chunks) repeats a smaller one's. */
      auto plan_of = [&](int resident) { return lb::make_plan<S, span, int>(tiles, atoms, resident, nullptr); };
      const lb::plan<int> p = plan_of(residents[r]);
      bool repeated = false;
      for (int q = 0; q < r && sel.small; q++)
        repeated |= plan_of(residents[q]).grid == p.grid && plan_of(residents[q]).per_block == p.per_block;
      if (!repeated)
        check_schedule<S>(schedule, c, w, residents[r], sel.kernels);
    }
    cudaFree(d_offsets);
  }
  printf("%-24s %s in %.2f s\n", schedule, test_failed == failures_before ? "ok" : "FAILED", seconds_since(start));
  fflush(stdout);
}

/* The same tiles described as sorted COO row indices. */
template <class S> static void check_coo(const char *schedule, const tile_set &c, int sm_count, const selection &sel) {
  const int tiles = int(c.offsets.size()) - 1, atoms = c.offsets.back();
  std::vector<int> rows(atoms);
  for (int t = 0; t < tiles; t++)
    for (int a = c.offsets[t]; a < c.offsets[t + 1]; a++)
      rows[a] = t;
  int *d_rows = device_copy(rows);
  lb::coo_work<int, int> w = lb::make_coo_work(tiles, atoms, (const int *)d_rows);
  check_schedule<S>(schedule, c, w, 8 * sm_count, kernel_set{sel.kernels.atoms, true, 0});
  cudaFree(d_rows);
}

/* ---- ranges ---- */

__global__ void cover_ranges(int n, int *grid_hits, int *block_hits, int *warp_hits, int *step_hits) {
  for (int i : lb::grid_stride_range(0, n))
    atomicAdd(grid_hits + i, 1);
  for (int i : lb::block_stride_range(0, n))
    atomicAdd(block_hits + blockIdx.x * n + i, 1);
  int warp = int(threadIdx.x) / 32, warps = int(blockDim.x) / 32;
  for (int i : lb::warp_stride_range(0, n))
    atomicAdd(warp_hits + (blockIdx.x * warps + warp) * n + i, 1);
  /* A step range of this thread: first = thread, step = 7, beyond n. */
  int thread = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (thread < 7)
    for (int i : lb::make_step_range(thread, n, 7))
      atomicAdd(step_hits + i, 1);
}

/* Persistent: each thread takes items from a shared counter until none are
 * left; counts its loop turns. */
__global__ void persistent_items(int n, int *next, int *hits, int *turns) {
  int count = 0;
  for (int turn : lb::make_infinite_range(0)) {
    int item = atomicAdd(next, 1);
    if (item >= n)
      break;
    atomicAdd(hits + item, 1);
    count = turn + 1;
  }
  atomicAdd(turns, count);
}

static void check_ranges(void) {
  const int n = 1237, blocks = 3, threads = 96;
  int *grid_hits = device_copy(std::vector<int>(n, 0));
  int *block_hits = device_copy(std::vector<int>(blocks * n, 0));
  int *warp_hits = device_copy(std::vector<int>(blocks * 3 * n, 0));
  int *step_hits = device_copy(std::vector<int>(n, 0));
  cover_ranges<<<blocks, threads>>>(n, grid_hits, block_hits, warp_hits, step_hits);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> g = host_copy(grid_hits, n), b = host_copy(block_hits, blocks * n),
                   w = host_copy(warp_hits, blocks * 3 * n), s = host_copy(step_hits, n);
  int bad_grid = 0, bad_block = 0, bad_warp = 0, bad_step = 0;
  for (int i = 0; i < n; i++) {
    bad_grid += g[i] != 1;
    bad_step += s[i] != 1;
  }
  for (int i = 0; i < blocks * n; i++)
    bad_block += b[i] != 1;
  for (int i = 0; i < blocks * 3 * n; i++)
    bad_warp += w[i] != 1;
  CHECK_MSG(bad_grid == 0, "grid-stride range: %d indices not visited once", bad_grid);
  CHECK_MSG(bad_block == 0, "block-stride range: %d (block, index) pairs not visited once", bad_block);
  CHECK_MSG(bad_warp == 0, "warp-stride range: %d (warp, index) pairs not visited once", bad_warp);
  CHECK_MSG(bad_step == 0, "step range: %d indices not visited once", bad_step);
  cudaFree(grid_hits);
  cudaFree(block_hits);
  cudaFree(warp_hits);
  cudaFree(step_hits);

  /* Host side: the same types iterate on the CPU. */
  std::vector<int> seen;
  for (int i : lb::make_step_range(3, 20, 4))
    seen.push_back(i);
  CHECK(seen == std::vector<int>({3, 7, 11, 15, 19}));
  seen.clear();
  for (int i : lb::make_step_range(5, 5, 1))
    seen.push_back(i);
  CHECK(seen.empty());
  long long last = -1;
  for (long long i : lb::make_infinite_range(10ll, 5ll)) {
    if (i > 1000)
      break;
    last = i;
  }
  CHECK(last == 1000);

  const int items = 50000;
  int *next = device_copy(std::vector<int>(1, 0));
  int *hits = device_copy(std::vector<int>(items, 0));
  int *turns = device_copy(std::vector<int>(1, 0));
  persistent_items<<<4, 128>>>(items, next, hits, turns);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize()); /* returns: every thread left the infinite range */
  std::vector<int> h = host_copy(hits, items), t = host_copy(turns, 1);
  int bad = 0;
  for (int i = 0; i < items; i++)
    bad += h[i] != 1;
  CHECK_MSG(bad == 0, "persistent kernel: %d items not taken once", bad);
  CHECK_MSG(t[0] == items, "persistent kernel: %d loop turns with work, want %d", t[0], items);
  cudaFree(next);
  cudaFree(hits);
  cudaFree(turns);
}

/* Binary searches on the host (they are host-device). */
struct array_at {
  const int *values;
  __host__ __device__ int operator()(int i) const { return values[i]; }
};

static void check_searches(void) {
  const int ends[] = {0, 0, 3, 3, 7, 10};
  array_at at{ends};
  CHECK(lb::upper_bound_index(0, 6, 0, at) == 2);
  CHECK(lb::upper_bound_index(0, 6, 3, at) == 4);
  CHECK(lb::upper_bound_index(0, 6, 9, at) == 5);
  CHECK(lb::upper_bound_index(0, 6, 10, at) == 6);
  CHECK(lb::lower_bound_index(0, 6, 3, at) == 2);
  CHECK(lb::lower_bound_index(0, 6, 11, at) == 6);
  CHECK(lb::upper_bound_index(0, 0, 5, at) == 0);
}

int main(void) {
  const int sm_count = test_cuda_multiprocessors();
  if (sm_count == 0)
    return test_skip("no usable CUDA device");

  const selection sel = choose_selection();
  std::vector<tile_set> cases = make_cases(sel.small, sel.racecheck);
  long long total_atoms = 0;
  for (const tile_set &c : cases)
    total_atoms += c.offsets.back();
  printf("selection: %s; %zu inputs, %lld atoms in all; resident blocks 1, 5, %d (mapped schedules: %s)\n", sel.name,
         cases.size(), total_atoms, 8 * sm_count, sel.mapped_wide ? "all three" : "1 only");
  fflush(stdout);
  const auto start = std::chrono::steady_clock::now();

  check_searches();
  check_ranges();
  const bool all = !sel.racecheck;
  if (all) {
    check_all_cases<lb::thread_mapped>("thread-mapped", cases, sm_count, sel);
    check_all_cases<lb::warp_mapped>("warp-mapped", cases, sm_count, sel);
  }
  check_all_cases<lb::block_mapped>("block-mapped", cases, sm_count, sel);
  check_all_cases<lb::group_mapped<1>>("group-mapped 1", cases, sm_count, sel);
  if (all)
    check_all_cases<lb::group_mapped<4>>("group-mapped 4", cases, sm_count, sel);
  check_all_cases<lb::group_mapped<32>>("group-mapped 32", cases, sm_count, sel);
  /* 64 and 128: several units of warps per block, each on its named barrier. */
  check_all_cases<lb::group_mapped<64>>("group-mapped 64", cases, sm_count, sel);
  check_all_cases<lb::group_mapped<128>>("group-mapped 128", cases, sm_count, sel);
  if (all)
    check_all_cases<lb::group_mapped<256>>("group-mapped 256", cases, sm_count, sel);
  check_all_cases<lb::group_mapped<1024>>("group-mapped 1024", cases, sm_count, sel);
  check_all_cases<lb::merge_path>("merge-path", cases, sm_count, sel);
  check_all_cases<lb::work_oriented>("work-oriented", cases, sm_count, sel);
  /* The irregular tiles again, described as sorted COO rows. */
  const tile_set *irregular = find_case(cases, "irregular");
  CHECK(irregular != nullptr);
  if (irregular) {
    check_coo<lb::merge_path>("merge-path (COO)", *irregular, sm_count, sel);
    check_coo<lb::group_mapped<32>>("group-mapped 32 (COO)", *irregular, sm_count, sel);
  }
  printf("all schedules in %.2f s\n", seconds_since(start));
  return test_finish();
}
