/* The GPU factorization's kernels' shared pieces (the *_cuda.cu files of the numeric phase): their
 * arguments, the pivot rule and the rounding of an update on the device,
 * and the host functions of each step. */
#ifndef TESSERA_LU_NUMERIC_CUDA_CUH
#define TESSERA_LU_NUMERIC_CUDA_CUH

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "core/complex_value.h"
#include "lu/numeric/numeric_internal.h"

enum { PIVOT_OK = 0, PIVOT_PERTURBED = 1, PIVOT_SINGULAR = 2, PIVOT_NOT_FINITE = 3 };

struct factor_args {
  int64_t n;
  const int64_t *col_ptr;
  const int32_t *row_idx;
  const int64_t *diag_pos;
  const int32_t *cols; /* the left schedule's columns */
  const int64_t *urow_ptr;
  const int32_t *urow_col;
  const int64_t *urow_pos;
  const int64_t *lrow_ptr; /* rows of L (strict lower part) */
  const int32_t *lrow_col;
  const int64_t *lrow_pos;
  double *acc;
  double *scratch;
  signed char *kind;
  const double *rule;
  /* Column k is finished in this factorization when ready[k] == epoch (the
   * dataflow levels wait on it); NULL: no marks kept (level by level). */
  int32_t *ready;
  int32_t epoch;
};

/* Mark column k finished: the group's stores of its values are ordered
 * before the mark (every lane passed the group's barrier; the fence then
 * orders them for the device), so a reader that sees the mark and then
 * loads through L2 sees the values. Called by lane 0 after the barrier. */
__device__ __forceinline__ void mark_ready(const factor_args &a, int32_t k) {
  if (a.ready) {
    __threadfence();
    *(volatile int32_t *)(a.ready + k) = a.epoch;
  }
}

/* ---- device helpers ------------------------------------------------------------ */

template <int GROUP> __device__ __forceinline__ void group_sync() {
  if (GROUP == 32)
    __syncwarp();
  else
    __syncthreads();
}

/* Position of row i in row_idx[lo, hi) (sorted), or -1. */
__device__ __forceinline__ int64_t find_row(const int32_t *row_idx, int64_t lo, int64_t end, int32_t i) {
  int64_t hi = end;
  while (lo < hi) {
    int64_t mid = lo + ((hi - lo) >> 1);
    if (row_idx[mid] < i)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (lo < end && row_idx[lo] == i) ? lo : -1;
}

/* The pivot rule of the host code (numeric_cpu.c): a tiny pivot becomes
 * sign * replacement when perturbation is on. */
__device__ __forceinline__ int classify_pivot(double *pivot, const double *rule) {
  double p = *pivot;
  if (!isfinite(p))
    return PIVOT_NOT_FINITE;
  if (fabs(p) < rule[0] || p == 0.0) {
    if (rule[2] != 0.0) {
      *pivot = p < 0.0 ? -rule[1] : rule[1];
      return PIVOT_PERTURBED;
    }
    return PIVOT_SINGULAR;
  }
  return PIVOT_OK;
}

/* The same for a complex pivot: by its modulus, keeping its direction. */
__device__ __forceinline__ int classify_pivot(tsi_complex128 *pivot, const double *rule) {
  const tsi_complex128 p = *pivot;
  if (!tsi_z_isfinite(p))
    return PIVOT_NOT_FINITE;
  if (tsi_z_is_zero(p) || tsi_z_abs(p) < rule[0]) {
    if (rule[2] != 0.0) {
      *pivot = tsi_z_direction_times(p, rule[1]);
      return PIVOT_PERTURBED;
    }
    return PIVOT_SINGULAR;
  }
  return PIVOT_OK;
}

/* x - l * u with both operations rounded (as the host computes it). */
__device__ __forceinline__ double minus_product(double x, double l, double u) { return __dsub_rn(x, __dmul_rn(l, u)); }

/* ---- the value types -------------------------------------------------------------
 * The kernels are templates on T, the type the factors are stored in
 * (float, double, tsi_complex64, tsi_complex128), and compute in its
 * working type (double, or tsi_complex128 for the complex types) with the
 * helpers below, which the complex types overload with the operations of
 * core/complex_value.h: the host's arithmetic, rounded step by step, so
 * that both give the same bits. acc, the scratch and the solves' vectors
 * hold working values (two doubles each for complex). */
template <class T> struct lu_work_type { using type = double; };
template <> struct lu_work_type<tsi_complex64> { using type = tsi_complex128; };
template <> struct lu_work_type<tsi_complex128> { using type = tsi_complex128; };
template <class T> using work_of = typename lu_work_type<T>::type;

__device__ __forceinline__ double widen(float v) { return (double)v; }
__device__ __forceinline__ double widen(double v) { return v; }
__device__ __forceinline__ tsi_complex128 widen(tsi_complex64 v) { return tsi_z_widen(v); }
__device__ __forceinline__ tsi_complex128 widen(tsi_complex128 v) { return v; }

/* A working value stored as T. */
template <class T> __device__ __forceinline__ T narrow(work_of<T> w) { return (T)w; }
template <> __device__ __forceinline__ tsi_complex64 narrow<tsi_complex64>(tsi_complex128 w) { return tsi_z_narrow(w); }
template <> __device__ __forceinline__ tsi_complex128 narrow<tsi_complex128>(tsi_complex128 w) { return w; }

template <class W> __device__ __forceinline__ W work_zero() { return 0.0; }
template <> __device__ __forceinline__ tsi_complex128 work_zero<tsi_complex128>() { return tsi_z(0.0, 0.0); }

__device__ __forceinline__ bool is_zero(double w) { return w == 0.0; }
__device__ __forceinline__ bool is_zero(tsi_complex128 w) { return tsi_z_is_zero(w); }

__device__ __forceinline__ tsi_complex128 minus_product(tsi_complex128 x, tsi_complex128 l, tsi_complex128 u) {
  return tsi_z_minus_product(x, l, u);
}

/* w / p as divide(w, divider(p)), the divider made once a column: the
 * pivot itself for real values, its reciprocal for complex ones (as on the
 * host: lu/lu_arith_complex.h). */
__device__ __forceinline__ double divider(double p) { return p; }
__device__ __forceinline__ double divide(double w, double d) { return w / d; }
__device__ __forceinline__ tsi_complex128 divider(tsi_complex128 p) { return tsi_z_div(tsi_z(1.0, 0.0), p); }
__device__ __forceinline__ tsi_complex128 divide(tsi_complex128 w, tsi_complex128 d) { return tsi_z_mul(w, d); }

/* A value of a finished column read through L2 (volatile: see load_value
 * in numeric_left_cuda.cu), widened. */
__device__ __forceinline__ double load_volatile(const float *p) { return (double)*(const volatile float *)p; }
__device__ __forceinline__ double load_volatile(const double *p) { return *(const volatile double *)p; }
__device__ __forceinline__ tsi_complex128 load_volatile(const tsi_complex64 *p) {
  const volatile float *parts = (const volatile float *)p;
  return tsi_z((double)parts[0], (double)parts[1]);
}
__device__ __forceinline__ tsi_complex128 load_volatile(const tsi_complex128 *p) {
  const volatile double *parts = (const volatile double *)p;
  return tsi_z(parts[0], parts[1]);
}

/* Bytes of one working value: the shared-memory columns' unit. */
__host__ __device__ constexpr size_t work_bytes(int parts) { return (size_t)parts * sizeof(double); }

/* ---- the factorization's steps (host functions launching the kernels) ------------ */

/* M scattered into the factor values, max |M| taken and the pivot rule
 * (threshold, root_eps: the perturbation's sqrt(eps)) made on the device
 * (numeric_scatter_cuda.cu). */
void tsi_lu_scatter_cuda(const ts_lu *lu, tsi_lu_device *dev, double threshold, double root_eps, cudaStream_t stream);

/* The shared-memory caps of the left-looking levels on this device, and the
 * kernels allowed to take them (numeric_left_cuda.cu; once, when the device
 * cache is built). */
ts_status tsi_lu_left_prepare(ts_context *ctx, tsi_lu_device *dev);

/* The left-looking levels (numeric_left_cuda.cu); with the dataflow
 * launches, sets args->ready and args->epoch, which the tail's kernels then
 * keep. */
ts_status tsi_lu_left_looking_cuda(ts_lu *lu, tsi_lu_device *dev, factor_args *args, cudaStream_t stream);

/* The tail's columns (dev->tail_start ..) as one dense block on
 * dev->tail_dense (numeric_dense_tail_cuda.cu), or column by column in the
 * sparse pattern (numeric_sparse_tail_cuda.cu), after the left-looking
 * levels, on the stream; values of dev->single's precision. */
ts_status tsi_lu_dense_tail(ts_context *ctx, tsi_lu_device *dev, const factor_args &args, void *values,
                            cudaStream_t stream);
ts_status tsi_lu_sparse_tail_cuda(const ts_lu *lu, const tsi_lu_device *dev, const factor_args &args,
                                  cudaStream_t stream);

/* The fronts on the device (dev->fronts), made at the first factorization
 * that takes them and kept for the refactorizations of the analysis. */
struct tsi_lu_front_device {
  int64_t count, storage, levels, index_entries, nnz_a, lu_nnz;
  double *values; /* storage: every front's f x f values, column-major */
  int32_t *size, *pivots;
  int64_t *offset, *child_ptr, *index_ptr;
  int32_t *children, *index, *relative;
  int64_t *lu_to_front; /* lu_nnz */
  int64_t *a_to_front;  /* nnz_a: each entry of A's place in the fronts */
  /* Each level's small and large fronts: lists (device) and their ranges
   * (host, levels + 1 each). */
  int32_t *small_list, *large_list;
  int64_t *small_ptr_host, *large_ptr_host;
  int32_t *large_list_host, *size_host, *pivots_host;
  int32_t *level_of_host; /* n: the level of each column's front */
  int *bad_level;         /* device: the lowest level with a bad pivot */
  /* The solves through the fronts (solve/solve_fronts_cuda.cu): for each
   * right-hand side, index_entries doubles, front s's at index_ptr[s]. */
  double *solve_work;
  int64_t solve_work_cols;
  /* The solves' split levels (made at the first solve): a level whose few
   * large fronts would leave most of the GPU idle has their products with
   * the rows beyond the pivots (forward; and, where a switch splits every
   * level, with the other indices backward) spread over blocks of rows:
   * every level's units (pairs of a large front and the first of its rows a
   * block takes, device) in the level's range (host, levels + 1 each). */
  int32_t *forward_units, *backward_units;
  int64_t *forward_unit_ptr_host, *backward_unit_ptr_host;
  unsigned char *split_host;  /* levels: whether the level is split, or wide (solve_fronts_cuda.cu's bits) */
  int64_t *level_pivots_host; /* levels: the most pivots of a large front of the level */
  int solve_units_made;
};

/* A warp's largest non-negative value into *max_bits, exactly: the bits
 * of non-negative doubles order as the values do (lane 0 does the atomic;
 * every lane of the warp calls). */
__device__ __forceinline__ void tsi_lu_warp_max_into(unsigned long long *max_bits, double local_max) {
  for (int offset = 16; offset > 0; offset >>= 1)
    local_max = fmax(local_max, __shfl_down_sync(0xffffffffu, local_max, offset));
  if ((threadIdx.x & 31) == 0 && local_max > 0.0)
    atomicMax(max_bits, (unsigned long long)__double_as_longlong(local_max));
}

/* The pivot rule from max |M| (*max_bits), made on the device:
 * rule[0] = threshold max|M| (the tiny pivot), rule[1] = max(sqrt eps,
 * threshold) max|M| (its replacement; 1 for a zero matrix), rule[2] = 1
 * when perturbation is on (numeric_scatter_cuda.cu; both GPU methods). */
void tsi_lu_pivot_rule_cuda(const unsigned long long *max_bits, double threshold, double root_eps, int perturb,
                            double *rule, cudaStream_t stream);

/* The multifrontal method on the GPU (frontal_cuda.cu): whether this
 * factorization takes it (tsi_lu_frontal_chosen with the device's free
 * memory; real values only; dev->method_reason set), the factorization
 * itself (the device cache built and its values reserved; the factors left
 * in dev->values and dev->tail_dense as the column path leaves them, the
 * pivot outcome reported as the host's multifrontal code reports it), and
 * the release of its device arrays (with the device cache). */
bool tsi_lu_frontal_cuda_chosen(ts_lu *lu, tsi_lu_device *dev);
ts_status tsi_lu_frontal_cuda(ts_lu *lu, tsi_lu_device *dev, const char *caller);
void tsi_lu_frontal_cuda_release(tsi_lu_device *dev);

#endif
