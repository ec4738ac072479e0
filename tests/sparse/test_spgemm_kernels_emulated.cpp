/* SpGEMM's warp-sorted and dense-row kernels run on the host through
 * cuda_host_emulation.h (a host thread per GPU thread), against a
 * sequential Gustavson written here: the sorted bins' counts, columns and
 * values (bitwise: they add each entry's products in the order of A's
 * entries, as the reference does), the dense rows' counts with fewer slots
 * than rows, the dense rows' columns and values (bitwise), and the long
 * rows' columns and values (within a rounding bound: they add partial sums)
 * and the same bits twice, with every slot left zero; the dense bin by
 * expand, sort, compress (spgemm_kernels_rowsort.cuh) with CUB's stable
 * radix sort and scan done here, in chunks from one for all to a few
 * products (rows cut once, rows cut many times, a chunk between two cut
 * rows, empty rows, a block of rows), bitwise, the carry slots left clear,
 * with 64- and 32-bit keys, and its count over the flat products in waves
 * of three rows (bitmaps and bounds left clear).
 * The merged bin's analysis and numeric kernel (a thread a row), bitwise.
 * The three sorted bins in one launch against the reference, bitwise; the
 * few rows' grouping by bin and scan of C's offsets against a stable sort
 * and a sequential sum.
 * Rows: no products, products on empty rows of B, repeated columns, a
 * bin's most products, random ones; float and double. Also SpMM's warp sum
 * (spmm_warp_sum.cuh) against the sequential sum, bitwise. */
#include "cuda_host_emulation.h"

#include "spgemm_kernels_dense.cuh"
#include "spgemm_kernels_merge.cuh"
#include "spgemm_kernels_rowsort.cuh"
#include "spgemm_kernels_small.cuh"
#include "spgemm_kernels_sorted.cuh"
#include "spmm_warp_sum.cuh"

#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <random>

static int failures = 0, checks = 0;

#define EXPECT(cond, ...)                                                                                              \
  do {                                                                                                                 \
    checks++;                                                                                                          \
    if (!(cond)) {                                                                                                     \
      if (failures++ < 20) {                                                                                           \
        std::fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                                           \
        std::fprintf(stderr, __VA_ARGS__);                                                                             \
        std::fputc('\n', stderr);                                                                                      \
      }                                                                                                                \
    }                                                                                                                  \
  } while (0)

template <class T> struct csr {
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> off{0};
  std::vector<int32_t> idx;
  std::vector<T> val;
};

/* Row lengths drawn from `lengths`, distinct sorted columns below cols. */
template <class T>
static csr<T> random_csr(int64_t rows, int64_t cols, const std::vector<int> &lengths, std::mt19937 &rng) {
  csr<T> m;
  m.rows = rows;
  m.cols = cols;
  std::uniform_int_distribution<int> pick(0, (int)lengths.size() - 1);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (int64_t i = 0; i < rows; i++) {
    const int n = std::min<int64_t>(lengths[pick(rng)], cols);
    std::vector<int32_t> row;
    std::uniform_int_distribution<int32_t> col(0, (int32_t)cols - 1);
    std::map<int32_t, bool> seen;
    while ((int)row.size() < n) {
      const int32_t c = col(rng);
      if (!seen[c]) {
        seen[c] = true;
        row.push_back(c);
      }
    }
    std::sort(row.begin(), row.end());
    for (int32_t c : row) {
      m.idx.push_back(c);
      m.val.push_back((T)value(rng));
    }
    m.off.push_back((int64_t)m.idx.size());
  }
  return m;
}

/* Row i of A*B: columns sorted, each sum from its first product in the
 * order of A's entries. */
template <class T>
static void reference_row(const csr<T> &a, const csr<T> &b, int64_t i, std::vector<int32_t> &cols, std::vector<T> &vals,
                          int64_t *products) {
  std::map<int32_t, T> acc;
  *products = 0;
  for (int64_t ka = a.off[i]; ka < a.off[i + 1]; ka++) {
    const int32_t k = a.idx[ka];
    for (int64_t kb = b.off[k]; kb < b.off[k + 1]; kb++) {
      const T x = a.val[ka] * b.val[kb];
      auto it = acc.find(b.idx[kb]);
      if (it == acc.end())
        acc.emplace(b.idx[kb], x);
      else
        it->second += x;
      ++*products;
    }
  }
  cols.clear();
  vals.clear();
  for (auto &e : acc) {
    cols.push_back(e.first);
    vals.push_back(e.second);
  }
}

template <class T> struct product_case {
  csr<T> a, b;
  std::vector<int32_t> rows; /* the bin's rows */
  std::vector<int64_t> row_nnz, c_off;
  std::vector<int32_t> c_cols;
  std::vector<T> c_vals;
  std::vector<std::vector<int32_t>> want_cols;
  std::vector<std::vector<T>> want_vals;
  int64_t c_base = 0; /* c_off of C's first entry held in c_cols, c_vals */

  tsi_spgemm_args<T> args() {
    tsi_spgemm_args<T> x;
    x.a_off = a.off.data();
    x.a_cols = a.idx.data();
    x.a_vals = a.val.data();
    x.b_off = b.off.data();
    x.b_cols = b.idx.data();
    x.b_vals = b.val.data();
    x.b_width = b.cols;
    x.rows = rows.data();
    x.count = (int64_t)rows.size();
    x.row_nnz = row_nnz.data();
    x.c_off = c_off.data();
    x.c_base = c_base;
    x.c_cols = c_cols.data();
    x.c_vals = c_vals.data();
    return x;
  }
};

/* The rows of a*b whose products pass `keep`, with their reference rows and
 * C's offsets (other rows empty). */
template <class T, class Keep> static product_case<T> make_case(csr<T> a, csr<T> b, const Keep &keep) {
  product_case<T> c;
  c.a = std::move(a);
  c.b = std::move(b);
  c.want_cols.resize(c.a.rows);
  c.want_vals.resize(c.a.rows);
  c.c_off.assign(c.a.rows + 1, 0);
  for (int64_t i = 0; i < c.a.rows; i++) {
    int64_t products = 0;
    reference_row(c.a, c.b, i, c.want_cols[i], c.want_vals[i], &products);
    const bool kept = keep(products, c.a.off[i + 1] - c.a.off[i]);
    if (kept)
      c.rows.push_back((int32_t)i);
    c.c_off[i + 1] = c.c_off[i] + (kept ? (int64_t)c.want_cols[i].size() : 0);
  }
  std::shuffle(c.rows.begin(), c.rows.end(), std::mt19937(5));
  c.row_nnz.assign(c.a.rows, -1);
  c.c_cols.assign(c.c_off.back() + 1, -1);
  c.c_vals.assign(c.c_off.back() + 1, T(-7));
  return c;
}

template <class T> static void expect_counts(const char *what, const product_case<T> &c) {
  for (int32_t i : c.rows)
    EXPECT(c.row_nnz[i] == (int64_t)c.want_cols[i].size(), "%s: row %d counts %lld, want %zu", what, i,
           (long long)c.row_nnz[i], c.want_cols[i].size());
}

/* C's rows against the reference: columns equal, values bitwise or within
 * a bound of n products' rounding. */
template <class T> static void expect_rows(const char *what, const product_case<T> &c, bool bitwise) {
  const double u = sizeof(T) == 4 ? 6e-8 : 1.2e-16;
  for (int32_t i : c.rows) {
    const int64_t at = c.c_off[i];
    const int64_t n = (int64_t)c.want_cols[i].size();
    const double bound = (double)(c.a.off[i + 1] - c.a.off[i] + 2) * u * 4;
    for (int64_t e = 0; e < n; e++) {
      const T got = c.c_vals[at + e], want = c.want_vals[i][e];
      const bool same = bitwise ? std::memcmp(&got, &want, sizeof(T)) == 0
                                : std::fabs((double)got - (double)want) <= bound * (std::fabs((double)want) + 1);
      EXPECT(c.c_cols[at + e] == c.want_cols[i][e] && same,
             "%s: row %d entry %lld: column %d value %.9g, want column %d value %.9g", what, i, (long long)e,
             c.c_cols[at + e], (double)got, c.want_cols[i][e], (double)want);
    }
  }
}

/* The analysis of the sorted bins' rows as analyse_rows() calls it: a warp
 * a row, each row's products and (at most TSI_SPGEMM_SORTED_MOST of them)
 * its distinct columns, else -1; `products` gets each row's products. */
static void count_rows_kernel(tsi_spgemm_args<float> a, int64_t *products) {
  constexpr int W = TSI_SPGEMM_SORTED_WARPS;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  for (int64_t r = (int64_t)blockIdx.x * W + warp; r < a.count; r += (int64_t)gridDim.x * W) {
    unsigned long long n = 0;
    const int64_t found = tsi_spgemm_sorted_count(a, a.rows[r], lane, &n);
    if (lane == 0) {
      a.row_nnz[a.rows[r]] = found;
      products[a.rows[r]] = (int64_t)n;
    }
  }
}

/* Every row of the case (all of them, not only the bin's) through the
 * analysis: products exact, counts for rows of at most
 * TSI_SPGEMM_SORTED_MOST products, -1 beyond. */
static void check_sorted_count(const char *what, const product_case<float> &c, unsigned grid) {
  product_case<float> f;
  f.a = c.a;
  f.b = c.b;
  for (int64_t i = 0; i < c.a.rows; i++)
    f.rows.push_back((int32_t)(c.a.rows - 1 - i));
  f.row_nnz.assign(c.a.rows, -2);
  std::vector<int64_t> products(c.a.rows, -2);
  emu::launch(grid, TSI_SPGEMM_SORTED_WARPS * 32, count_rows_kernel, f.args(), products.data());
  int sorted = 0, beyond = 0;
  for (int64_t i = 0; i < c.a.rows; i++) {
    int64_t want = 0;
    for (int64_t ka = c.a.off[i]; ka < c.a.off[i + 1]; ka++)
      want += c.b.off[c.a.idx[ka] + 1] - c.b.off[c.a.idx[ka]];
    const int64_t count = want <= TSI_SPGEMM_SORTED_MOST ? (int64_t)c.want_cols[i].size() : -1;
    sorted += want <= TSI_SPGEMM_SORTED_MOST;
    beyond += want > TSI_SPGEMM_SORTED_MOST;
    EXPECT(products[i] == want && f.row_nnz[i] == count, "%s: row %lld: %lld products counting %lld, want %lld, %lld",
           what, (long long)i, (long long)products[i], (long long)f.row_nnz[i], (long long)want, (long long)count);
  }
  EXPECT(sorted > 0 && beyond > 0, "%s: %d rows of the sorted bins, %d beyond: want both", what, sorted, beyond);
}

template <class T, int N, class K> static void run_fill_sorted(product_case<T> &c, unsigned grid) {
  emu::launch(grid, TSI_SPGEMM_SORTED_WARPS * 32, tsi_spgemm_fill_sorted<T, N, K>, c.args());
}

/* A B whose rows are empty, short or repeated columns' worth, so that the
 * products of a row of A meet on few columns. */
template <class T> static csr<T> narrow_b(int64_t rows, int64_t cols, std::mt19937 &rng) {
  return random_csr<T>(rows, cols, {0, 0, 1, 2, 3, 5, 8}, rng);
}

template <class T, int N> static void test_sorted(std::mt19937 &rng) {
  char what[80];
  std::snprintf(what, sizeof what, "sorted bin of %d (%s)", N, sizeof(T) == 4 ? "float" : "double");
  /* Narrow B (many repeats), wide B (few), A rows of up to 70 entries on
   * mostly empty rows of B, and short A rows on rows of B past the sorted
   * bins' most (one entry alone beyond them). */
  for (int shape = 0; shape < 4; shape++) {
    csr<T> b = shape == 0   ? narrow_b<T>(200, 12, rng)
               : shape == 1 ? random_csr<T>(200, 5000, {0, 1, 4, 9, 17, 31}, rng)
               : shape == 2 ? random_csr<T>(200, 300, {0, 0, 0, 0, 0, 0, 0, 1, N}, rng)
                            : random_csr<T>(200, 1000, {0, 1, 3, 30, 129, 300}, rng);
    csr<T> a = shape < 3 ? random_csr<T>(150, 200, {0, 1, 2, 3, 5, 9, 20, 33, 70}, rng)
                         : random_csr<T>(150, 200, {1, 1, 2, 3}, rng);
    product_case<T> c = make_case(std::move(a), std::move(b), [](int64_t p, int64_t) { return p <= N; });
    if constexpr (sizeof(T) == 4) {
      check_sorted_count(what, c, 3);
    } else {
      /* The analysis reads columns only: run it on a float copy. */
      product_case<float> f;
      f.a.rows = c.a.rows;
      f.a.off = c.a.off;
      f.a.idx = c.a.idx;
      f.a.val.assign(c.a.val.size(), 0.0f);
      f.b.rows = c.b.rows;
      f.b.cols = c.b.cols;
      f.b.off = c.b.off;
      f.b.idx = c.b.idx;
      f.b.val.assign(c.b.val.size(), 0.0f);
      f.want_cols = c.want_cols;
      check_sorted_count(what, f, 2);
    }
    /* 32-bit keys (column << log2(N) | j), then 64-bit ones. */
    run_fill_sorted<T, N, uint32_t>(c, 2);
    expect_rows(what, c, true);
    std::fill(c.c_cols.begin(), c.c_cols.end(), -1);
    std::fill(c.c_vals.begin(), c.c_vals.end(), T(-7));
    run_fill_sorted<T, N, unsigned long long>(c, 3);
    expect_rows(what, c, true);
    EXPECT(!c.rows.empty(), "%s: shape %d has no rows in the bin", what, shape);
  }
}

/* The three sorted bins' rows of one product in one launch (blocks split
 * 2, 1, 2 between the bins), into one C, bitwise. */
template <class T> static void test_sorted_joint(std::mt19937 &rng) {
  char what[80];
  std::snprintf(what, sizeof what, "sorted bins in one launch (%s)", sizeof(T) == 4 ? "float" : "double");
  csr<T> b = random_csr<T>(200, 1000, {0, 1, 4, 9, 17, 31}, rng);
  csr<T> a = random_csr<T>(300, 200, {0, 1, 2, 3, 5, 9, 20, 33, 70}, rng);
  product_case<T> c = make_case(std::move(a), std::move(b), [](int64_t p, int64_t) { return p > 0 && p <= 128; });
  std::vector<int32_t> bins[3];
  for (int32_t i : c.rows) {
    int64_t p = 0;
    for (int64_t ka = c.a.off[i]; ka < c.a.off[i + 1]; ka++)
      p += c.b.off[c.a.idx[ka] + 1] - c.b.off[c.a.idx[ka]];
    bins[p <= 32 ? 0 : p <= 64 ? 1 : 2].push_back(i);
  }
  tsi_spgemm_args<T> args[3];
  for (int k = 0; k < 3; k++) {
    args[k] = c.args();
    args[k].rows = bins[k].data();
    args[k].count = (int64_t)bins[k].size();
    EXPECT(!bins[k].empty(), "%s: bin %d has no rows", what, k + 1);
  }
  emu::launch(5, TSI_SPGEMM_SORTED_WARPS * 32, tsi_spgemm_fill_sorted_bins<T>, args[0], args[1], args[2], 2u, 1u);
  expect_rows(what, c, true);
}

/* The few rows' steps: the grouping by bin against a stable sort of the
 * rows by bin, the scan against a sequential sum (counts past 2^32 too),
 * from no rows to TSI_SPGEMM_SMALL_ROWS, some with two bins only. */
static void test_small(std::mt19937 &rng) {
  std::uniform_int_distribution<int> pick_bin(0, TSI_SPGEMM_BINS - 1);
  std::uniform_int_distribution<int64_t> pick_count(0, 1 << 20);
  for (int n : {0, 1, 33, 1000, 1025, TSI_SPGEMM_SMALL_ROWS}) {
    std::vector<unsigned char> bins((size_t)n);
    std::vector<int32_t> ids((size_t)n), list((size_t)n + 1, -1), order((size_t)n);
    for (int i = 0; i < n; i++) {
      bins[i] = (unsigned char)(n == 1000 ? (i % 3 ? 5 : TSI_SPGEMM_BINS - 1) : pick_bin(rng));
      ids[i] = 7 * i + 3;
    }
    emu::launch(1, TSI_SPGEMM_SMALL_BLOCK, tsi_spgemm_group_small, bins.data(), ids.data(), n, list.data());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return bins[x] < bins[y]; });
    int wrong = 0;
    for (int i = 0; i < n; i++)
      wrong += list[i] != ids[order[i]];
    EXPECT(wrong == 0 && list[n] == -1, "grouping %d rows by bin: %d rows out of place", n, wrong);
    std::vector<int64_t> counts((size_t)n), c_off((size_t)n + 2, -5);
    for (int i = 0; i < n; i++)
      counts[i] = pick_count(rng) * (i % 7 == 0 ? 1000003 : 1);
    emu::launch(1, TSI_SPGEMM_SMALL_BLOCK, tsi_spgemm_scan_small, counts.data(), n, c_off.data());
    int64_t run = 0;
    wrong = c_off[0] != 0 || c_off[n + 1] != -5;
    for (int i = 0; i < n; i++) {
      run += counts[i];
      wrong += c_off[i + 1] != run;
    }
    EXPECT(wrong == 0, "scanning %d rows' counts: %d offsets wrong", n, wrong);
  }
}

/* The merged bin: the analysis of every row (products exact for rows of at
 * most TSI_SPGEMM_MERGE_ENTRIES entries of A; the count for rows of 1 ..
 * `most` products; 0 without products; -1 otherwise) and the numeric
 * kernel on the bin's rows, bitwise. Rows of A of up to twice the bin's
 * entries, rows of B empty to long, narrow B (columns met many times) and
 * wide; bounds of 64 products and of none. */
template <class T> static void test_merge(std::mt19937 &rng) {
  char what[80];
  std::snprintf(what, sizeof what, "merged bin (%s)", sizeof(T) == 4 ? "float" : "double");
  constexpr int E = TSI_SPGEMM_MERGE_ENTRIES;
  for (int shape = 0; shape < 3; shape++) {
    const int most = shape == 2 ? 1 << 20 : 64;
    csr<T> b = shape == 0 ? narrow_b<T>(300, 12, rng) : random_csr<T>(300, 4000, {0, 1, 2, 5, 9, 17, 40, 150}, rng);
    csr<T> a = random_csr<T>(200, 300, {0, 1, 2, 3, E - 1, E, E + 1, 2 * E}, rng);
    product_case<T> c = make_case(std::move(a), std::move(b),
                                  [&](int64_t p, int64_t entries) { return p > 0 && p <= most && entries <= E; });
    int merged = 0, beyond = 0;
    const tsi_spgemm_args<T> args = c.args();
    for (int64_t i = 0; i < c.a.rows; i++) {
      int64_t want = 0;
      for (int64_t ka = c.a.off[i]; ka < c.a.off[i + 1]; ka++)
        want += c.b.off[c.a.idx[ka] + 1] - c.b.off[c.a.idx[ka]];
      const bool short_row = c.a.off[i + 1] - c.a.off[i] <= E;
      const int64_t count = !short_row || want > most ? -1 : (int64_t)c.want_cols[i].size();
      unsigned long long products = 7;
      const int64_t got = tsi_spgemm_merge_count(args, i, most, &products);
      merged += count > 0;
      beyond += count < 0;
      EXPECT(got == count && products == (unsigned long long)(short_row ? want : 0),
             "%s: row %lld: count %lld products %llu, want %lld, %lld", what, (long long)i, (long long)got, products,
             (long long)count, (long long)(short_row ? want : 0));
    }
    EXPECT(merged > 0 && beyond > 0, "%s: shape %d: %d rows merged, %d not: want both", what, shape, merged, beyond);
    emu::launch(2, TSI_SPGEMM_MERGE_BLOCK, tsi_spgemm_fill_merge<T>, c.args());
    expect_rows(what, c, true);
    std::fill(c.c_cols.begin(), c.c_cols.end(), -1);
    std::fill(c.c_vals.begin(), c.c_vals.end(), T(-7));
    emu::launch(1, TSI_SPGEMM_MERGE_BLOCK, tsi_spgemm_fill_merge_staged<T>, c.args());
    expect_rows(what, c, true);
  }
}

template <class T> static void test_dense(std::mt19937 &rng) {
  const char *type = sizeof(T) == 4 ? "float" : "double";
  char what[80];
  /* Long rows of A over B rows of 0 to 60 entries in 3,000 columns, and
   * some short ones (the kernels take any row). */
  csr<T> b = random_csr<T>(2500, 3000, {0, 1, 7, 20, 60}, rng);
  csr<T> a = random_csr<T>(14, 2500, {0, 3, 40, 600, 1300, 2500}, rng);
  product_case<T> c = make_case(std::move(a), std::move(b), [](int64_t, int64_t) { return true; });
  const int64_t cols = c.b.cols;
  const size_t bitmap = tsi_spgemm_bitmap_bytes(cols);
  const size_t part = ((size_t)cols * sizeof(T) + 255) / 256 * 256;
  const int slots = 3;
  /* Symbolic, with a slot as tsi_spgemm_slot_bytes() lays it out. */
  {
    std::vector<unsigned char> pool((size_t)slots * tsi_spgemm_slot_bytes(cols, TS_FLOAT32), 0);
    product_case<float> f;
    f.a.rows = c.a.rows;
    f.a.off = c.a.off;
    f.a.idx = c.a.idx;
    f.b.cols = c.b.cols;
    f.b.off = c.b.off;
    f.b.idx = c.b.idx;
    f.rows = c.rows;
    f.row_nnz.assign(c.a.rows, -1);
    emu::launch(slots, TSI_SPGEMM_DENSE_COUNT_BLOCK, tsi_spgemm_count_dense_rows, f.args(), pool.data(),
                tsi_spgemm_slot_bytes(cols, TS_FLOAT32));
    std::snprintf(what, sizeof what, "dense rows' count (%s)", type);
    for (int32_t i : c.rows)
      EXPECT(f.row_nnz[i] == (int64_t)c.want_cols[i].size(), "%s: row %d counts %lld, want %zu", what, i,
             (long long)f.row_nnz[i], c.want_cols[i].size());
    EXPECT(std::count(pool.begin(), pool.end(), 0) == (long)pool.size(), "%s: the bitmaps are not left clear", what);
  }
  /* Numeric of the dense rows, a warp a slot (fewer slots than rows): the
   * sequential sums, bitwise; the bitmaps left clear. */
  {
    const size_t dense_slot = tsi_spgemm_slot_bytes(cols, sizeof(T) == 4 ? TS_FLOAT32 : TS_FLOAT64);
    const int warps = 5;
    std::vector<unsigned char> pool((size_t)warps * dense_slot, 0);
    std::fill(c.c_vals.begin(), c.c_vals.end(), T(-7));
    emu::launch(1, TSI_SPGEMM_DENSE_FILL_WARPS * 32, tsi_spgemm_fill_dense_rows<T>, c.args(), pool.data(), dense_slot,
                bitmap, (int64_t)warps);
    std::snprintf(what, sizeof what, "dense rows' numeric (%s)", type);
    expect_rows(what, c, true);
    bool clear = true;
    for (int w = 0; w < warps; w++)
      clear = clear && std::count(pool.begin() + (long)(w * dense_slot), pool.begin() + (long)(w * dense_slot + bitmap),
                                  0) == (long)bitmap;
    EXPECT(clear, "%s: the bitmaps are not left clear", what);
  }
  /* Numeric of the long rows, twice: the same bits, every slot left zero. */
  const size_t slot = bitmap + TSI_SPGEMM_LONG_WARPS * part;
  std::vector<unsigned char> pool((size_t)slots * slot, 0);
  emu::launch(slots, TSI_SPGEMM_LONG_BLOCK, tsi_spgemm_fill_long_rows<T>, c.args(), pool.data(), slot, bitmap, part);
  std::snprintf(what, sizeof what, "long rows' numeric (%s)", type);
  expect_rows(what, c, false);
  EXPECT(std::count(pool.begin(), pool.end(), 0) == (long)pool.size(), "%s: the slots are not left zero", what);
  const std::vector<T> first = c.c_vals;
  emu::launch(slots - 1, TSI_SPGEMM_LONG_BLOCK, tsi_spgemm_fill_long_rows<T>, c.args(), pool.data(), slot, bitmap,
              part);
  EXPECT(std::memcmp(first.data(), c.c_vals.data(), first.size() * sizeof(T)) == 0,
         "%s: a second run (fewer slots) gave other bits", what);
}

/* The dense bin by expand, sort, compress, as spgemm_cuda_rowsort.cu runs
 * it, the CUB calls done on the host: the stable sort by key, the scan. */
template <class T, class K> static void run_rowsort(product_case<T> &c, int64_t capacity, int flush_threads) {
  const int64_t a_nnz = (int64_t)c.a.idx.size(), n_rows = (int64_t)c.rows.size();
  std::vector<int64_t> entry_start(a_nnz + 1, 0), row_start(n_rows + 1, 0);
  tsi_spgemm_args<T> a = c.args();
  emu::launch(2, 64, tsi_spgemm_rowsort_lengths<T>, a, entry_start.data());
  int64_t run = 0;
  for (int64_t e = 0; e <= a_nnz; e++) {
    const int64_t x = entry_start[e];
    entry_start[e] = run;
    run += x;
  }
  emu::launch(2, 32, tsi_spgemm_rowsort_row_starts<T>, a, entry_start.data(), a_nnz, row_start.data());
  const int64_t products = row_start[n_rows];
  if (products == 0)
    return;
  /* Symbolic: waves of `slots` rows, a bitmap each. */
  const int64_t slots = std::min<int64_t>(n_rows, 3);
  {
    const size_t bitmap_only = tsi_spgemm_bitmap_bytes(c.b.cols);
    std::vector<unsigned char> pool((size_t)slots * bitmap_only, 0);
    std::vector<int> bounds(2 * slots, 5);
    tsi_spgemm_rowsort_args<T> s;
    s.a = a;
    s.entry_start = entry_start.data();
    s.row_start = row_start.data();
    std::fill(c.row_nnz.begin(), c.row_nnz.end(), -1);
    emu::launch(1, 32, tsi_spgemm_rowsort_clear_bounds, bounds.data(), slots);
    for (int64_t first = 0; first < n_rows; first += slots) {
      const int64_t wave = std::min(slots, n_rows - first);
      emu::launch(2, 64, tsi_spgemm_rowsort_mark<T>, s, first, wave, pool.data(), bitmap_only, bounds.data());
      emu::launch((unsigned)wave, 64, tsi_spgemm_rowsort_count_wave<T>, s, first, pool.data(), bitmap_only,
                  bounds.data());
    }
    expect_counts("rowsort's count", c);
    EXPECT(std::count(pool.begin(), pool.end(), 0) == (long)pool.size(), "rowsort's count: bitmaps left set");
    bool reset = true;
    for (int64_t j = 0; j < slots; j++)
      reset = reset && bounds[2 * j] == TSI_SPGEMM_EMPTY && bounds[2 * j + 1] == -1;
    EXPECT(reset, "rowsort's count: bounds not reset");
  }
  int col_bits = 1;
  while (((int64_t)1 << col_bits) < c.b.cols)
    col_bits++;
  const int64_t chunks = (products + capacity - 1) / capacity;
  std::vector<int32_t> table(3 * chunks, -9);
  const size_t bitmap = tsi_spgemm_bitmap_bytes(c.b.cols);
  const size_t slot = tsi_spgemm_slot_bytes(c.b.cols, sizeof(T) == 4 ? TS_FLOAT32 : TS_FLOAT64);
  std::vector<unsigned char> carry(2 * slot, 0);
  tsi_spgemm_rowsort_args<T> s;
  s.a = a;
  s.entry_start = entry_start.data();
  s.row_start = row_start.data();
  s.chunk_first = table.data();
  s.chunk_incoming = table.data() + chunks;
  s.chunk_slot = table.data() + 2 * chunks;
  s.carry = carry.data();
  s.carry_slot_bytes = slot;
  s.bitmap_bytes = bitmap;
  s.capacity = capacity;
  s.products = products;
  s.chunks = chunks;
  s.col_bits = col_bits;
  emu::launch(1, 32, tsi_spgemm_rowsort_chunk_table<T>, s, table.data(), table.data() + chunks,
              table.data() + 2 * chunks);
  const int64_t held = std::min(capacity, std::max<int64_t>(products, 1)); /* a chunk holds at most this many */
  std::vector<K> keys(held);
  std::vector<T> vals(held);
  std::vector<int32_t> ranks(held);
  for (int64_t ch = 0; ch < chunks; ch++) {
    const int64_t n = std::min(capacity, products - ch * capacity);
    const unsigned grid = (unsigned)std::min<int64_t>(3, (n + 63) / 64);
    emu::launch(grid, 64, tsi_spgemm_rowsort_expand<T, K>, s, ch, keys.data(), vals.data());
    std::vector<std::pair<K, T>> pairs(n);
    for (int64_t p = 0; p < n; p++)
      pairs[p] = {keys[p], vals[p]};
    std::stable_sort(pairs.begin(), pairs.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
    for (int64_t p = 0; p < n; p++) {
      keys[p] = pairs[p].first;
      vals[p] = pairs[p].second;
    }
    emu::launch(grid, 64, tsi_spgemm_rowsort_heads<K>, (const K *)keys.data(), n, ranks.data());
    int32_t heads = 0;
    for (int64_t p = 0; p < n; p++) {
      const int32_t x = ranks[p];
      ranks[p] = heads;
      heads += x;
    }
    emu::launch(grid, 64, tsi_spgemm_rowsort_reduce<T, K>, s, ch, (const K *)keys.data(), (const T *)vals.data(),
                (const int32_t *)ranks.data());
    emu::launch(1, (unsigned)flush_threads, tsi_spgemm_rowsort_flush<T>, s, ch);
  }
  bool clear = true;
  for (int q = 0; q < 2; q++)
    clear = clear &&
            std::count(carry.begin() + (long)(q * slot), carry.begin() + (long)(q * slot + bitmap), 0) == (long)bitmap;
  EXPECT(clear, "rowsort, chunks of %lld: the carry bitmaps are not left clear", (long long)capacity);
}

template <class T, class K> static void test_rowsort(std::mt19937 &rng) {
  const char *type = sizeof(T) == 4 ? "float" : "double";
  char what[120];
  /* Rows of A of 0 to 800 entries over B rows of 0 to 60 entries in 3,000
   * columns (a row of many thousand products, rows of a few, rows of none):
   * the bin's rows in row order, as the stable sort by bin leaves them. */
  csr<T> b = random_csr<T>(1500, 3000, {0, 1, 7, 20, 60}, rng);
  csr<T> a = random_csr<T>(12, 1500, {0, 2, 40, 300, 800}, rng);
  product_case<T> c = make_case(std::move(a), std::move(b), [](int64_t, int64_t) { return true; });
  std::sort(c.rows.begin(), c.rows.end());
  /* (Chunks of 1 to 3 products below: every product a cut; each emulated
   * launch starts its threads, so smaller chunks here only cost time.) */
  for (int64_t capacity : {(int64_t)1 << 24, (int64_t)20000, (int64_t)4093, (int64_t)613}) {
    std::fill(c.c_cols.begin(), c.c_cols.end(), -1);
    std::fill(c.c_vals.begin(), c.c_vals.end(), T(-7));
    run_rowsort<T, K>(c, capacity, capacity < 1000 ? 64 : 1024);
    std::snprintf(what, sizeof what, "rowsort, chunks of %lld products (%s, %zu-byte keys)", (long long)capacity, type,
                  sizeof(K));
    expect_rows(what, c, true);
  }
  /* A few rows in chunks of one to three products: every product a chunk,
   * a row cut at every product; a subset of rows (a block of rows whose C
   * starts at c_base). */
  csr<T> b2 = random_csr<T>(40, 70, {0, 1, 3, 9}, rng);
  csr<T> a2 = random_csr<T>(6, 40, {0, 1, 5, 12}, rng);
  product_case<T> c2 = make_case(std::move(a2), std::move(b2), [](int64_t, int64_t) { return true; });
  std::sort(c2.rows.begin(), c2.rows.end());
  for (int64_t capacity : {(int64_t)1, (int64_t)2, (int64_t)3}) {
    std::fill(c2.c_cols.begin(), c2.c_cols.end(), -1);
    std::fill(c2.c_vals.begin(), c2.c_vals.end(), T(-7));
    run_rowsort<T, K>(c2, capacity, 32);
    std::snprintf(what, sizeof what, "rowsort, chunks of %lld products (%s, %zu-byte keys)", (long long)capacity, type,
                  sizeof(K));
    expect_rows(what, c2, true);
  }
  /* Rows 2 .. 4 only, C held from row 2's entries on (c_base), as
   * ts_spgemm_blocked() runs a block. */
  product_case<T> c3 = c2;
  c3.rows.assign({2, 3, 4});
  c3.c_base = c3.c_off[2];
  c3.c_cols.assign(c3.c_off[5] - c3.c_base + 1, -1);
  c3.c_vals.assign(c3.c_off[5] - c3.c_base + 1, T(-7));
  run_rowsort<T, K>(c3, 2, 32);
  bool same = true;
  for (int32_t i : c3.rows)
    for (size_t e = 0; e < c3.want_cols[i].size(); e++) {
      const int64_t at = c3.c_off[i] - c3.c_base + (int64_t)e;
      same = same && c3.c_cols[at] == c3.want_cols[i][e] &&
             std::memcmp(&c3.c_vals[at], &c3.want_vals[i][e], sizeof(T)) == 0;
    }
  std::snprintf(what, sizeof what, "rowsort, a block of rows (%s)", type);
  EXPECT(same, "%s: columns or values differ", what);
}

/* SpMM's warp sum: one warp a (row, step) over a row-major B of width
 * 32 V (each lane V columns), lanes past `ok_lanes` holding none. */
template <class T, int V> struct warp_sum_case {
  std::vector<int32_t> cols;
  std::vector<T> vals, b, got;
  int64_t width;
};

template <class T, int V>
static void warp_sum_kernel(const int32_t *cols, const T *vals, const T *b, int64_t width, const int64_t *firsts,
                            const int64_t *ends, const int64_t *steps, int ok_lanes, T *out) {
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int64_t at = (int64_t)blockIdx.x * (blockDim.x / 32) + warp;
  T acc[V];
  tsi_spmm_warp_sum<T, V>(
      cols, vals, firsts[at], ends[at], steps[at], lane < ok_lanes,
      [&](int32_t index, T(&got)[V]) {
        for (int v = 0; v < V; v++)
          got[v] = b[(int64_t)index * width + lane * V + v];
      },
      acc);
  for (int v = 0; v < V; v++)
    out[at * width + lane * V + v] = lane < ok_lanes ? acc[v] : T(0);
}

template <class T, int V> static void test_warp_sum(std::mt19937 &rng) {
  const int64_t width = 32 * V, b_rows = 90;
  const int warps = 16;
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::uniform_int_distribution<int32_t> col(0, (int32_t)b_rows - 1);
  std::vector<int32_t> cols(400);
  std::vector<T> vals(400), b((size_t)(b_rows * width));
  for (auto &c : cols)
    c = col(rng);
  for (auto &v : vals)
    v = (T)value(rng);
  for (auto &v : b)
    v = (T)value(rng);
  /* Rows of 0, 1, 5, 31, 32, 33, 100 nonzeros, steps 1 to 3. */
  const int64_t lengths[] = {0, 1, 5, 31, 32, 33, 100, 7};
  std::vector<int64_t> firsts(warps), ends(warps), steps(warps);
  for (int w = 0; w < warps; w++) {
    firsts[w] = 3 * w;
    steps[w] = 1 + w % 3;
    ends[w] = std::min<int64_t>(firsts[w] + lengths[w % 8] * steps[w], (int64_t)cols.size());
  }
  const int ok_lanes = 29;
  std::vector<T> out((size_t)(warps * width), T(-9));
  emu::launch(warps / 4, 128, warp_sum_kernel<T, V>, cols.data(), vals.data(), b.data(), width, firsts.data(),
              ends.data(), steps.data(), ok_lanes, out.data());
  for (int w = 0; w < warps; w++) {
    for (int64_t c = 0; c < width; c++) {
      T want = T(0);
      if (c < ok_lanes * V)
        for (int64_t k = firsts[w]; k < ends[w]; k += steps[w])
          want += vals[k] * b[(int64_t)cols[k] * width + c];
      const T got = out[(size_t)(w * width + c)];
      EXPECT(std::memcmp(&got, &want, sizeof(T)) == 0, "warp sum (%s, V %d): warp %d column %lld: %.9g, want %.9g",
             sizeof(T) == 4 ? "float" : "double", V, w, (long long)c, (double)got, (double)want);
    }
  }
}

int main() {
  std::mt19937 rng(20261204);
  test_sorted<float, 32>(rng);
  test_sorted<float, 64>(rng);
  test_sorted<float, 128>(rng);
  test_sorted<double, 32>(rng);
  test_sorted<double, 64>(rng);
  test_sorted<double, 128>(rng);
  test_sorted_joint<float>(rng);
  test_sorted_joint<double>(rng);
  test_small(rng);
  test_merge<float>(rng);
  test_merge<double>(rng);
  test_dense<float>(rng);
  test_dense<double>(rng);
  test_rowsort<float, unsigned long long>(rng);
  test_rowsort<double, unsigned long long>(rng);
  test_rowsort<float, uint32_t>(rng);
  test_rowsort<double, uint32_t>(rng);
  test_warp_sum<float, 4>(rng);
  test_warp_sum<double, 2>(rng);
  test_warp_sum<float, 1>(rng);
  std::printf("%d passed, %d failed\n", checks - failures, failures);
  return failures ? 1 : 0;
}
