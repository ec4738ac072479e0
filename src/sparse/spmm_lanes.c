/* The vector thread of a GPU SpMM for a width and B's layout: with a
 * row-major B a lane loads `vector` consecutive columns of a row of B at
 * once (16 bytes when the width and leading dimension allow) and a vector
 * thread has as many lanes as cover the width, up to a warp; with a
 * column-major B a thread holds TSI_SPMM_COLMAJOR_COLUMNS columns alone.
 * With passes over bands of columns the vector also divides the columns
 * between band starts, so that every band starts on one. */
#include "spmm_internal.h"

tsi_spmm_lanes tsi_spmm_lanes_for(ts_dtype dtype, int64_t width, const tsi_dense_shape *b, const tsi_dense_shape *c) {
  return tsi_spmm_lanes_for_band(dtype, width, width, b, c);
}

tsi_spmm_lanes tsi_spmm_lanes_for_band(ts_dtype dtype, int64_t width, int64_t align, const tsi_dense_shape *b,
                                       const tsi_dense_shape *c) {
  tsi_spmm_lanes l;
  l.vector = 1;
  l.lanes = 1;
  l.columns = 1;
  if (b->layout == TS_LAYOUT_COL_MAJOR) {
    l.columns = TSI_SPMM_COLMAJOR_COLUMNS;
  } else {
    const int widest = dtype == TS_FLOAT32 ? 4 : 2; /* 16 bytes */
    for (int v = widest; v > 1; v /= 2) {
      if (width % v == 0 && align % v == 0 && b->ld % v == 0) {
        l.vector = v;
        break;
      }
    }
    const int64_t vectors = (width + l.vector - 1) / l.vector;
    while (l.lanes < 32 && l.lanes < vectors)
      l.lanes *= 2;
  }
  l.slice = (int64_t)l.lanes * l.vector * l.columns;
  l.slices = (width + l.slice - 1) / l.slice;
  l.c_vector = l.vector > 1 && c->layout == TS_LAYOUT_ROW_MAJOR && c->ld % l.vector == 0;
  return l;
}
