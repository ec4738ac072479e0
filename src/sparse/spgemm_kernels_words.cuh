/* SpGEMM's bitmap accumulators: the warp reductions and the writing of a
 * bitmap's columns as C's sorted entries, shared by the pool's kernels
 * (spgemm_kernels_dense.cuh) and the shared-memory ones
 * (spgemm_kernels_dense_shared.cuh). */
#ifndef TESSERA_SPGEMM_KERNELS_WORDS_CUH
#define TESSERA_SPGEMM_KERNELS_WORDS_CUH

#include "spgemm_cuda_args.cuh"

/*
 * A warp's 32 words of a bitmap written out as C's columns: lane l holds
 * word `word` (of index word_base + l) and the place `pos` in C of its first
 * column; the words are taken in turn, the lanes over a word's 32 columns,
 * and emit(col, at) called for each set bit with its place (so that the
 * warp's accesses by column are coalesced).
 */
template <class Emit>
__device__ void tsi_spgemm_emit_words(unsigned word, int64_t pos, int word_base, int lane, const Emit &emit) {
  const unsigned bit = 1u << lane;
  for (int i = 0; i < 32; i++) {
    const unsigned wi = __shfl_sync(0xffffffffu, word, i);
    const int64_t at = __shfl_sync(0xffffffffu, pos, i);
    if (wi & bit)
      emit((word_base + i) * 32 + lane, at + __popc(wi & (bit - 1u)));
  }
}

/*
 * A warp's row of C from a bitmap accumulator: the words between the row's
 * least and greatest column (lo, hi: warp-wide; hi < 0 for none) read by
 * read_word(w) in order, a word a lane, each word's columns written from
 * place `at` of c_cols and c_vals with their values, a lane a column
 * (tsi_spgemm_emit_words()); the words are left zero for the next row.
 */
template <class T, class ReadWord>
__device__ void tsi_spgemm_warp_write_row(unsigned *bits, const T *values, int lo, int hi, int64_t at, int32_t *c_cols,
                                          T *c_vals, int lane, const ReadWord &read_word) {
  for (int first = lo >> 5; hi >= 0 && first <= (hi >> 5); first += 32) {
    const int w = first + lane;
    const unsigned word = w <= (hi >> 5) ? read_word(w) : 0u;
    const int count = __popc(word);
    const int incl = tsi_spgemm_warp_inclusive_sum(count, lane);
    if (w <= (hi >> 5))
      bits[w] = 0u;
    tsi_spgemm_emit_words(word, at + incl - count, first, lane, [&](int col, int64_t out) {
      c_cols[out] = col;
      c_vals[out] = values[col];
    });
    at += __shfl_sync(0xffffffffu, incl, 31);
  }
}

__device__ inline int tsi_spgemm_warp_min(int x) {
  for (int d = 16; d > 0; d /= 2)
    x = min(x, __shfl_xor_sync(0xffffffffu, x, d));
  return x;
}
__device__ inline int tsi_spgemm_warp_max(int x) {
  for (int d = 16; d > 0; d /= 2)
    x = max(x, __shfl_xor_sync(0xffffffffu, x, d));
  return x;
}

#endif
