/* SpMM's warp over a group of rows (spmm_warp_rows.cuh) run on the host
 * through cuda_host_emulation.h (a host thread per GPU thread), against the
 * sequential sum written here, bitwise: each row of C from zero, its
 * nonzeros in storage order. Groups of 1 to 32 rows with empty rows (first,
 * last, in runs, a group of nothing but empty rows), rows longer than the
 * 32 nonzeros a warp loads at once, lanes past the width, one and two
 * slices a lane; float and double, 1, 2 and 4 columns a vector; every row,
 * or only those of up to 31 nonzeros (or only the empty ones) with the
 * longer ones left untouched, as split-rows asks. Also the stacked order of
 * thread-mapped's items (tsi_spmm_stack_item): each item once, a block's
 * warps a stride apart. */
#include "cuda_host_emulation.h"

#include "spmm_warp_rows.cuh"
#include "test_common.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

/* Warp w sums rows firsts[w] .. firsts[w] + counts[w] - 1 of a row-major B
 * of width S * 32 V (lane l's vector of slice s: columns s * 32 V + l V ..);
 * lanes at or past ok_lanes hold no columns of the last slice. C's rows not
 * stored keep their initial value. */
template <class T, int V, int S>
static void warp_rows_kernel(const int64_t *offsets, const int32_t *cols, const T *vals, const T *b, int64_t width,
                             const int64_t *firsts, const int *counts, int64_t longest, int ok_lanes, T *c) {
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int64_t at = (int64_t)blockIdx.x * (blockDim.x / 32) + warp;
  bool ok[S];
  for (int s = 0; s < S; s++)
    ok[s] = s + 1 < S || lane < ok_lanes;
  tsi_spmm_warp_rows<T, V, S>(
      offsets, cols, vals, firsts[at], counts[at], longest, ok,
      [&](int32_t index, int s, T(&got)[V]) {
        for (int v = 0; v < V; v++)
          got[v] = b[(int64_t)index * width + (s * 32 + lane) * V + v];
      },
      [&](int64_t row, const T(&acc)[S * V]) {
        for (int s = 0; s < S; s++)
          if (ok[s])
            for (int v = 0; v < V; v++)
              c[row * width + (s * 32 + lane) * V + v] = acc[s * V + v];
      });
}

template <class T, int V, int S> static void test_warp_rows(std::mt19937 &rng, int64_t longest) {
  const int64_t width = S * 32 * V, b_rows = 70;
  const int ok_lanes = 27;
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::uniform_int_distribution<int32_t> col(0, (int32_t)b_rows - 1);
  /* Groups: counts 1 .. 32, lengths cycling through empty, short and
   * long rows; one group of empty rows only. */
  const int counts_of[] = {1, 2, 3, 5, 8, 13, 31, 32, 32, 7, 4, 16};
  const int warps = 12;
  const int64_t lengths[] = {0, 5, 0, 0, 1, 33, 7, 64, 2, 0, 31, 32, 3, 100, 0, 6};
  std::vector<int64_t> firsts(warps), offsets{0};
  std::vector<int> counts(warps);
  int64_t rows = 0, cycle = 0;
  for (int w = 0; w < warps; w++) {
    firsts[w] = rows;
    counts[w] = counts_of[w];
    for (int r = 0; r < counts[w]; r++) {
      const int64_t len = w == 10 ? 0 : lengths[cycle++ % 16];
      offsets.push_back(offsets.back() + len);
    }
    rows += counts[w];
  }
  const int64_t nnz = offsets.back();
  std::vector<int32_t> cols((size_t)nnz);
  std::vector<T> vals((size_t)nnz), b((size_t)(b_rows * width)), c((size_t)(rows * width), T(-7));
  for (auto &x : cols)
    x = col(rng);
  for (auto &x : vals)
    x = (T)value(rng);
  for (auto &x : b)
    x = (T)value(rng);
  emu::launch(warps / 4, 128, warp_rows_kernel<T, V, S>, offsets.data(), cols.data(), vals.data(), b.data(), width,
              firsts.data(), counts.data(), longest, ok_lanes, c.data());
  int64_t wrong = 0, first_row = -1, first_col = -1;
  double first_got = 0, first_want = 0;
  for (int64_t i = 0; i < rows; i++) {
    for (int64_t j = 0; j < width; j++) {
      const bool held = j < (S - 1) * 32 * V || (j - (S - 1) * 32 * V) / V < ok_lanes;
      T want = T(-7);
      if (held && offsets[i + 1] - offsets[i] <= longest) {
        want = T(0);
        for (int64_t k = offsets[i]; k < offsets[i + 1]; k++)
          want += vals[k] * b[(int64_t)cols[k] * width + j];
      }
      const T got = c[(size_t)(i * width + j)];
      if (std::memcmp(&got, &want, sizeof(T)) != 0 && wrong++ == 0) {
        first_row = i;
        first_col = j;
        first_got = (double)got;
        first_want = (double)want;
      }
    }
  }
  CHECK_MSG(wrong == 0,
            "warp rows (%s, V %d, S %d, longest %lld): %lld entries differ, first row %lld column %lld: %.9g, want "
            "%.9g",
            sizeof(T) == 4 ? "float" : "double", V, S, (long long)longest, (long long)wrong, (long long)first_row,
            (long long)first_col, first_got, first_want);
}

/* Thread-mapped's stacked order (tsi_spmm_stack_item) for groups x passes
 * items as the launcher sets it up: every (group, pass) once; in the
 * stacked part the W warps of a block share a pass and walk groups `stride`
 * apart; at a stride of one group and one pass, the plain order. */
static void test_stack_order(unsigned groups, unsigned passes, unsigned stride) {
  constexpr unsigned W = 8;
  const unsigned band = stride * W, stacked = groups / band * band * passes, items = groups * passes;
  std::vector<unsigned char> seen((size_t)items, 0);
  int64_t bad = 0;
  for (unsigned g = 0; g < items; g++) {
    unsigned group = ~0u, pass = ~0u;
    tsi_spmm_stack_item<W>(g, passes, stride, stacked, group, pass);
    if (group >= groups || pass >= passes || seen[(size_t)group * passes + pass]++) {
      bad++;
      continue;
    }
    unsigned first = 0, first_pass = 0;
    tsi_spmm_stack_item<W>(g - g % W, passes, stride, stacked, first, first_pass);
    if (g < stacked && (pass != first_pass || group != first + g % W * stride))
      bad++;
    if (stride == 1 && passes == 1 && group != g)
      bad++;
  }
  CHECK_MSG(bad == 0, "stacked order (%u groups, %u passes, stride %u): %lld items misplaced", groups, passes, stride,
            (long long)bad);
}

int main() {
  std::mt19937 rng(20261204);
  /* Bands: none whole, one exactly, several with a tail of a few groups;
   * one to three passes; strides of one group, a few and many. */
  for (unsigned passes : {1u, 2u, 3u})
    for (unsigned stride : {1u, 2u, 3u, 32u, 97u})
      for (unsigned groups : {1u, 7u, 8u, 8u * stride, 8u * stride + 5, 3 * 8u * stride + 1, 1000u})
        test_stack_order(groups, passes, stride);
  /* Every row, then rows of more than 31 nonzeros left out (split-rows),
   * then all but the empty ones. */
  for (int64_t longest : {INT64_MAX, (int64_t)31, (int64_t)0}) {
    test_warp_rows<float, 4, 1>(rng, longest);
    test_warp_rows<float, 4, 2>(rng, longest);
    test_warp_rows<float, 2, 1>(rng, longest);
    test_warp_rows<float, 1, 2>(rng, longest);
    test_warp_rows<double, 2, 1>(rng, longest);
    test_warp_rows<double, 2, 2>(rng, longest);
    test_warp_rows<double, 1, 1>(rng, longest);
  }
  return test_finish();
}
