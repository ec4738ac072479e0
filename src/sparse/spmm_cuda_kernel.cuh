/* SpMM on the load-balancing layer: what every SpMM kernel shares (its
 * arguments, a vector thread's columns, the loop over a row's nonzeros that
 * loads a slice of B per nonzero, the store into C, the partial-row records)
 * and the dispatch from the plan's value type, B's layout and vector width
 * to template arguments. The schedules' kernels are in spmm_cuda_rows.cu
 * (thread-, warp-, group-, block-mapped), spmm_cuda_parts.cu (merge-path,
 * work-oriented) and spmm_cuda_split.cu (split-rows). */
#ifndef TESSERA_SPMM_CUDA_KERNEL_CUH
#define TESSERA_SPMM_CUDA_KERNEL_CUH

#include "cuda_arch_limits.cuh"
#include "spmm_internal.h"
#include "spmm_warp_rows.cuh"
#include "spmm_warp_sum.cuh"
#include "tessera/lb.cuh"

#include <cuda_runtime.h>
#include <type_traits>

namespace lb = tessera::lb;

/* Bounds of every SpMM kernel (see TSI_SPMM_MIN_BLOCKS). */
#define TSI_SPMM_BOUNDS __launch_bounds__(TSI_SPMM_BLOCK, tsi_min_blocks_per_sm(TSI_SPMM_BLOCK, TSI_SPMM_MIN_BLOCKS))

/* A kernel's arguments, passed by value. */
template <class T> struct tsi_spmm_args {
  lb::csr_work<int64_t> work; /* rows as tiles, nonzeros as atoms */
  const int32_t *cols;
  const T *vals;
  const T *b;
  T *c;
  int64_t width, ld_b, ld_c;
  int64_t slices, slice; /* column slices and the columns of one */
  int lanes;             /* of a vector thread */
  bool c_rows;           /* C row-major */
  bool c_vector;         /* C stored `vector` values at a time */
  T alpha, beta;
};

/* `V` consecutive values: 16-byte loads and stores where V * sizeof(T) is 16
 * or 8 bytes (the plan only picks V > 1 when every address is aligned).
 * store_streaming() marks the lines evict-first (st.global.cs): C is
 * written once and not read again by the call, so it should not push the
 * rows of B that later rows gather out of L2. */
template <class T, int V> struct tsi_spmm_vec {
  static __device__ void load(const T *p, T (&out)[V]) {
#pragma unroll
    for (int v = 0; v < V; v++)
      out[v] = __ldg(p + v);
  }
  static __device__ void load_plain(const T *p, T (&out)[V]) {
#pragma unroll
    for (int v = 0; v < V; v++)
      out[v] = p[v];
  }
  static __device__ void load_l2(const T *p, T (&out)[V]) {
#pragma unroll
    for (int v = 0; v < V; v++)
      out[v] = __ldcg(p + v);
  }
  static __device__ void store(T *p, const T (&in)[V]) {
#pragma unroll
    for (int v = 0; v < V; v++)
      p[v] = in[v];
  }
  static __device__ void store_streaming(T *p, const T (&in)[V]) {
#pragma unroll
    for (int v = 0; v < V; v++)
      __stcs(p + v, in[v]);
  }
};
template <> struct tsi_spmm_vec<float, 4> {
  static __device__ void load(const float *p, float (&out)[4]) {
    const float4 x = __ldg(reinterpret_cast<const float4 *>(p));
    out[0] = x.x, out[1] = x.y, out[2] = x.z, out[3] = x.w;
  }
  static __device__ void load_l2(const float *p, float (&out)[4]) {
    const float4 x = __ldcg(reinterpret_cast<const float4 *>(p));
    out[0] = x.x, out[1] = x.y, out[2] = x.z, out[3] = x.w;
  }
  static __device__ void load_plain(const float *p, float (&out)[4]) {
    const float4 x = *reinterpret_cast<const float4 *>(p);
    out[0] = x.x, out[1] = x.y, out[2] = x.z, out[3] = x.w;
  }
  static __device__ void store(float *p, const float (&in)[4]) {
    *reinterpret_cast<float4 *>(p) = make_float4(in[0], in[1], in[2], in[3]);
  }
  static __device__ void store_streaming(float *p, const float (&in)[4]) {
    __stcs(reinterpret_cast<float4 *>(p), make_float4(in[0], in[1], in[2], in[3]));
  }
};
template <> struct tsi_spmm_vec<float, 2> {
  static __device__ void load(const float *p, float (&out)[2]) {
    const float2 x = __ldg(reinterpret_cast<const float2 *>(p));
    out[0] = x.x, out[1] = x.y;
  }
  static __device__ void load_l2(const float *p, float (&out)[2]) {
    const float2 x = __ldcg(reinterpret_cast<const float2 *>(p));
    out[0] = x.x, out[1] = x.y;
  }
  static __device__ void load_plain(const float *p, float (&out)[2]) {
    const float2 x = *reinterpret_cast<const float2 *>(p);
    out[0] = x.x, out[1] = x.y;
  }
  static __device__ void store(float *p, const float (&in)[2]) {
    *reinterpret_cast<float2 *>(p) = make_float2(in[0], in[1]);
  }
  static __device__ void store_streaming(float *p, const float (&in)[2]) {
    __stcs(reinterpret_cast<float2 *>(p), make_float2(in[0], in[1]));
  }
};
template <> struct tsi_spmm_vec<double, 2> {
  static __device__ void load(const double *p, double (&out)[2]) {
    const double2 x = __ldg(reinterpret_cast<const double2 *>(p));
    out[0] = x.x, out[1] = x.y;
  }
  static __device__ void load_l2(const double *p, double (&out)[2]) {
    const double2 x = __ldcg(reinterpret_cast<const double2 *>(p));
    out[0] = x.x, out[1] = x.y;
  }
  static __device__ void load_plain(const double *p, double (&out)[2]) {
    const double2 x = *reinterpret_cast<const double2 *>(p);
    out[0] = x.x, out[1] = x.y;
  }
  static __device__ void store(double *p, const double (&in)[2]) {
    *reinterpret_cast<double2 *>(p) = make_double2(in[0], in[1]);
  }
  static __device__ void store_streaming(double *p, const double (&in)[2]) {
    __stcs(reinterpret_cast<double2 *>(p), make_double2(in[0], in[1]));
  }
};

/* The columns of C one lane holds in one slice: R vectors of V columns,
 * vector r at slice * slice_width + (r * lanes + lane) * V; ok(r) is false
 * past the width (a partial last slice). */
struct tsi_spmm_columns {
  int64_t first, width;
  int step;
  __device__ int64_t at(int r) const { return first + (int64_t)r * step; }
  __device__ bool ok(int r) const { return at(r) < width; }
};

template <class T, int V>
__device__ inline tsi_spmm_columns tsi_spmm_columns_of(const tsi_spmm_args<T> &a, int64_t slice, int lane) {
  tsi_spmm_columns c;
  c.first = slice * a.slice + (int64_t)lane * V;
  c.width = a.width;
  c.step = a.lanes * V;
  return c;
}

/* Tile g of count * slices as (x, slice): slices of one x next to each other
 * for a row-major B (the lanes of neighbouring vector threads read one row of
 * B), x next to each other for a column-major B (neighbouring threads gather
 * one column of B and store one column of C). */
template <bool BRow>
__device__ inline void tsi_spmm_split_index(int64_t g, int64_t count, int64_t slices, int64_t &x, int64_t &slice) {
  if (BRow) {
    x = g / slices;
    slice = g - x * slices;
  } else {
    slice = g / count;
    x = g - slice * count;
  }
}

template <int N, class T> __device__ inline void tsi_spmm_zero(T (&acc)[N]) {
#pragma unroll
  for (int i = 0; i < N; i++)
    acc[i] = T(0);
}

/* fn(x, columns) for every x below count and every column slice, one vector
 * thread each (grid-stride over the pairs, split as tsi_spmm_split_index). */
template <class T, int V, bool BRow, class Fn>
__device__ void tsi_spmm_for_each_slice(const tsi_spmm_args<T> &a, int64_t count, const Fn &fn) {
  const lb::lane_position at = lb::position_of(a.lanes, a.lanes);
  const int64_t total = count * a.slices;
  for (int64_t g = at.group; g < total; g += at.groups) {
    int64_t x, slice;
    tsi_spmm_split_index<BRow>(g, count, a.slices, x, slice);
    fn(x, tsi_spmm_columns_of<T, V>(a, slice, at.lane));
  }
}

/*
 * acc[r * V + v] = sum of a_k * B(col_k, at(r) + v) over k = first, first +
 * step, ... below end, added in that order from zero for every column: a
 * batch of TSI_SPMM_ATOM_BATCH nonzeros' indices and values is loaded, then
 * all their slices of B (predicated), then they are added in order; a
 * vector thread of a whole warp loads them as tsi_spmm_warp_sum() does.
 */
template <class T, int V, int R, bool BRow>
__device__ void tsi_spmm_sum(const tsi_spmm_args<T> &a, const tsi_spmm_columns &col, int64_t first, int64_t end,
                             int64_t step, T (&acc)[R * V]) {
  if constexpr (BRow && R == 1) {
    /* A vector thread of 32 lanes is a whole warp, every lane in this call
     * with the same row: the warp loads the nonzeros together (the same
     * sum, spmm_warp_sum.cuh). */
    if (a.lanes == 32) {
      tsi_spmm_warp_sum<T, V>(
          a.cols, a.vals, first, end, step, col.ok(0),
          [&](int32_t index, T(&got)[V]) { tsi_spmm_vec<T, V>::load(a.b + (int64_t)index * a.ld_b + col.at(0), got); },
          acc);
      return;
    }
  }
  tsi_spmm_zero<R * V>(acc);
  /* Fewer nonzeros a batch when a lane holds several column vectors: the
   * batch's slices of B stay in registers. */
  constexpr int U = R > 1 ? (TSI_SPMM_ATOM_BATCH + 1) / 2 : TSI_SPMM_ATOM_BATCH;
  for (int64_t k = first; k < end; k += U * step) {
    int32_t index[U];
    T value[U];
    bool in[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      const int64_t kk = k + u * step;
      in[u] = kk < end;
      index[u] = in[u] ? __ldg(a.cols + kk) : 0;
      value[u] = in[u] ? __ldg(a.vals + kk) : T(0);
    }
    T x[U][R * V];
#pragma unroll
    for (int u = 0; u < U; u++) {
#pragma unroll
      for (int r = 0; r < R; r++) {
        tsi_spmm_load_or_zero<T, V>(
            in[u] && col.ok(r),
            [&](T(&got)[V]) {
              if (BRow) {
                tsi_spmm_vec<T, V>::load(a.b + (int64_t)index[u] * a.ld_b + col.at(r), got);
              } else {
#pragma unroll
                for (int v = 0; v < V; v++)
                  got[v] = __ldg(a.b + (int64_t)index[u] + (col.at(r) + v) * a.ld_b);
              }
            },
            &x[u][r * V]);
      }
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
      if (in[u]) {
#pragma unroll
        for (int i = 0; i < R * V; i++)
          acc[i] += value[u] * x[u][i];
      }
    }
  }
}

/* C(row, columns) = alpha * acc + beta * C(row, columns); C is not read when
 * beta is 0. */
template <class T, int V, int R>
__device__ void tsi_spmm_store(const tsi_spmm_args<T> &a, int64_t row, const tsi_spmm_columns &col,
                               const T (&acc)[R * V]) {
#pragma unroll
  for (int r = 0; r < R; r++) {
    if (!col.ok(r))
      continue;
    T out[V];
#pragma unroll
    for (int v = 0; v < V; v++)
      out[v] = a.alpha * acc[r * V + v];
    if (a.c_rows) {
      T *p = a.c + row * a.ld_c + col.at(r);
      if (V > 1 && a.c_vector) {
        if (a.beta != T(0)) {
          T old[V];
          tsi_spmm_vec<T, V>::load_plain(p, old);
#pragma unroll
          for (int v = 0; v < V; v++)
            out[v] += a.beta * old[v];
        }
        tsi_spmm_vec<T, V>::store_streaming(p, out);
      } else {
#pragma unroll
        for (int v = 0; v < V; v++)
          p[v] = a.beta == T(0) ? out[v] : out[v] + a.beta * p[v];
      }
    } else {
#pragma unroll
      for (int v = 0; v < V; v++) {
        T *p = a.c + row + (col.at(r) + v) * a.ld_c;
        *p = a.beta == T(0) ? out[v] : out[v] + a.beta * *p;
      }
    }
  }
}

/* Item (group, pass) of a warp whose vector thread is the whole warp, with
 * a row-major B: rows group * group_rows .. + group_rows - 1 and slices
 * pass * S .. pass * S + S - 1 (a lane's S vectors, 32 V columns apart: the
 * columns of tsi_spmm_store() with R = S), rows longer than `longest` left
 * out (spmm_warp_rows.cuh). */
template <class T, int V, int S>
__device__ void tsi_spmm_group_item(const tsi_spmm_args<T> &a, int64_t group, int64_t pass, int group_rows,
                                    int64_t longest) {
  const int lane = int(threadIdx.x) & 31;
  const int64_t row0 = group * group_rows;
  const int count = a.work.tiles - row0 < group_rows ? (int)(a.work.tiles - row0) : group_rows;
  const tsi_spmm_columns col = tsi_spmm_columns_of<T, V>(a, pass * S, lane);
  bool ok[S];
#pragma unroll
  for (int s = 0; s < S; s++)
    ok[s] = col.ok(s);
  tsi_spmm_warp_rows<T, V, S>(
      a.work.ends.offsets, a.cols, a.vals, row0, count, longest, ok,
      [&](int32_t index, int s, T(&got)[V]) {
        tsi_spmm_vec<T, V>::load(a.b + (int64_t)index * a.ld_b + col.at(s), got);
      },
      [&](int64_t row, const T(&acc)[S * V]) { tsi_spmm_store<T, V, S>(a, row, col, acc); });
}

/* Rows of a warp's group: the most (a power of two up to
 * TSI_SPMM_GROUP_ROWS_MAX) that still leave TSI_SPMM_GROUP_WAVES warps a
 * resident warp, given the passes over the slices. */
inline int tsi_spmm_group_rows(int64_t rows, int64_t passes, int resident_blocks) {
  const int64_t warps = (int64_t)resident_blocks * (TSI_SPMM_BLOCK / 32) * TSI_SPMM_GROUP_WAVES;
  int group = 1;
  while (group < TSI_SPMM_GROUP_ROWS_MAX && (rows / (2 * group)) * passes >= warps)
    group *= 2;
  return group;
}

/* A partial row kept for a later join: records[index * width + columns]. */
template <class T, int V, int R>
__device__ void tsi_spmm_record_store(const tsi_spmm_args<T> &a, T *records, int64_t index, const tsi_spmm_columns &col,
                                      const T (&acc)[R * V]) {
#pragma unroll
  for (int r = 0; r < R; r++) {
    if (!col.ok(r))
      continue;
    T part[V];
#pragma unroll
    for (int v = 0; v < V; v++)
      part[v] = acc[r * V + v];
    tsi_spmm_vec<T, V>::store(records + index * a.width + col.at(r), part);
  }
}

/* acc += the record `index`: written by an earlier launch, or (L2) by
 * other blocks of this launch, read past L1. */
template <class T, int V, int R, bool L2 = false>
__device__ void tsi_spmm_record_add(const tsi_spmm_args<T> &a, const T *records, int64_t index,
                                    const tsi_spmm_columns &col, T (&acc)[R * V]) {
#pragma unroll
  for (int r = 0; r < R; r++) {
    if (!col.ok(r))
      continue;
    T part[V];
    if (L2)
      tsi_spmm_vec<T, V>::load_l2(records + index * a.width + col.at(r), part);
    else
      tsi_spmm_vec<T, V>::load(records + index * a.width + col.at(r), part);
#pragma unroll
    for (int v = 0; v < V; v++)
      acc[r * V + v] += part[v];
  }
}

template <class T>
tsi_spmm_args<T> tsi_spmm_make_args(const tsi_spmm_device *d, double alpha, const void *b, double beta, void *c) {
  tsi_spmm_args<T> a;
  a.work = lb::make_csr_work<int64_t>(d->rows, d->nnz, d->offsets);
  a.cols = d->indices;
  a.vals = static_cast<const T *>(d->values);
  a.b = static_cast<const T *>(b);
  a.c = static_cast<T *>(c);
  a.width = d->width;
  a.ld_b = d->b.ld;
  a.ld_c = d->c.ld;
  a.slices = d->lanes.slices;
  a.slice = d->lanes.slice;
  a.lanes = d->lanes.lanes;
  a.c_rows = d->c.layout == TS_LAYOUT_ROW_MAJOR;
  a.c_vector = d->lanes.c_vector;
  a.alpha = T(alpha);
  a.beta = T(beta);
  return a;
}

/* Blocks for `threads` threads of grid-stride work, at most 32 waves of the
 * kernel's resident blocks (asked once per kernel). */
template <auto Kernel> unsigned tsi_spmm_blocks(int64_t threads) {
  static const int resident = lb::resident_blocks(Kernel, TSI_SPMM_BLOCK);
  const int64_t wanted = (threads + TSI_SPMM_BLOCK - 1) / TSI_SPMM_BLOCK;
  const int64_t cap = 32 * (int64_t)resident;
  return (unsigned)(wanted < cap ? (wanted > 0 ? wanted : 1) : cap);
}

/* One call of the run: what the kernels' launchers take. */
struct tsi_spmm_call {
  const tsi_spmm_device *d;
  ts_schedule schedule;
  char *workspace;
  double alpha, beta;
  const void *b;
  void *c;
  cudaStream_t stream;
};

/* Fn<T, V, R, BRow>::call(args...) for the plan's value type, B's layout and
 * vector width (R columns a lane with a column-major B). */
template <template <class, int, int, bool> class Fn, class... Args>
cudaError_t tsi_spmm_by_config(const tsi_spmm_device *d, Args... args) {
  constexpr int CM = TSI_SPMM_COLMAJOR_COLUMNS;
  const bool rows = d->b.layout == TS_LAYOUT_ROW_MAJOR;
  const int v = d->lanes.vector;
  if (d->dtype == TS_FLOAT32) {
    if (!rows)
      return Fn<float, 1, CM, false>::call(args...);
    if (v == 4)
      return Fn<float, 4, 1, true>::call(args...);
    if (v == 2)
      return Fn<float, 2, 1, true>::call(args...);
    return Fn<float, 1, 1, true>::call(args...);
  }
  if (!rows)
    return Fn<double, 1, CM, false>::call(args...);
  if (v == 2)
    return Fn<double, 2, 1, true>::call(args...);
  return Fn<double, 1, 1, true>::call(args...);
}

/* The schedules' launchers, one file each. */
cudaError_t tsi_spmm_run_rows(const tsi_spmm_call &call);  /* spmm_cuda_rows.cu */
cudaError_t tsi_spmm_run_parts(const tsi_spmm_call &call); /* spmm_cuda_parts.cu */
cudaError_t tsi_spmm_prepare_parts(const tsi_spmm_device *d, ts_schedule schedule, char *workspace,
                                   cudaStream_t stream);
cudaError_t tsi_spmm_run_split(const tsi_spmm_call &call); /* spmm_cuda_split.cu */

#endif
