/* The arithmetic of the SpMV kernels for each value type, so that one kernel
 * body serves them all: a real type sums in its own precision with the
 * operators (as the kernels always did); a complex type sums in complex
 * double, its multiply-add written out (core/complex_value.h), and takes
 * real alpha and beta. */
#ifndef TESSERA_SPMV_CUDA_VALUES_CUH
#define TESSERA_SPMV_CUDA_VALUES_CUH

#include "core/complex_value.h"

#include <cuda_runtime.h>

/* The type a row is summed in, and the type of alpha and beta. */
template <class T> struct tsi_spmv_types {
  using sum = T;
  using scalar = T;
};
template <> struct tsi_spmv_types<tsi_complex64> {
  using sum = tsi_complex128;
  using scalar = double;
};
template <> struct tsi_spmv_types<tsi_complex128> {
  using sum = tsi_complex128;
  using scalar = double;
};
template <class T> using tsi_spmv_sum = typename tsi_spmv_types<T>::sum;
template <class T> using tsi_spmv_scalar = typename tsi_spmv_types<T>::scalar;

template <class S> __device__ __forceinline__ S tsi_spmv_zero() { return S(0); }
template <> __device__ __forceinline__ tsi_complex128 tsi_spmv_zero<tsi_complex128>() { return tsi_z(0.0, 0.0); }

/* a * x, a term of a row's sum. */
__device__ __forceinline__ float tsi_spmv_product(float a, float x) { return a * x; }
__device__ __forceinline__ double tsi_spmv_product(double a, double x) { return a * x; }
__device__ __forceinline__ tsi_complex128 tsi_spmv_product(tsi_complex64 a, tsi_complex64 x) {
  return tsi_z_mul(tsi_z_widen(a), tsi_z_widen(x));
}
__device__ __forceinline__ tsi_complex128 tsi_spmv_product(tsi_complex128 a, tsi_complex128 x) {
  return tsi_z_mul(a, x);
}

__device__ __forceinline__ float tsi_spmv_add(float a, float b) { return a + b; }
__device__ __forceinline__ double tsi_spmv_add(double a, double b) { return a + b; }
__device__ __forceinline__ tsi_complex128 tsi_spmv_add(tsi_complex128 a, tsi_complex128 b) { return tsi_z_add(a, b); }

/* The combining operator of the load-balancing layer's reductions. */
struct tsi_spmv_plus {
  template <class S> __device__ S operator()(const S &a, const S &b) const { return tsi_spmv_add(a, b); }
};

/* The new y of a row: alpha * sum + beta * y, y not read when beta is 0. */
__device__ __forceinline__ float tsi_spmv_finish(float sum, float alpha, float beta, const float *y) {
  return beta == 0.0f ? alpha * sum : alpha * sum + beta * *y;
}
__device__ __forceinline__ double tsi_spmv_finish(double sum, double alpha, double beta, const double *y) {
  return beta == 0.0 ? alpha * sum : alpha * sum + beta * *y;
}
__device__ __forceinline__ tsi_complex128 tsi_spmv_finish(tsi_complex128 sum, double alpha, double beta,
                                                          const tsi_complex128 *y) {
  return beta == 0.0 ? tsi_z_scale(alpha, sum) : tsi_z_add(tsi_z_scale(alpha, sum), tsi_z_scale(beta, *y));
}
__device__ __forceinline__ tsi_complex64 tsi_spmv_finish(tsi_complex128 sum, double alpha, double beta,
                                                         const tsi_complex64 *y) {
  const tsi_complex128 scaled = tsi_z_scale(alpha, sum);
  return tsi_z_narrow(beta == 0.0 ? scaled : tsi_z_add(scaled, tsi_z_scale(beta, tsi_z_widen(*y))));
}

/* A warp shuffle of a sum (a complex one part by part). */
__device__ __forceinline__ float tsi_spmv_shfl_xor(float v, int offset) {
  return __shfl_xor_sync(0xffffffffu, v, offset);
}
__device__ __forceinline__ double tsi_spmv_shfl_xor(double v, int offset) {
  return __shfl_xor_sync(0xffffffffu, v, offset);
}
__device__ __forceinline__ tsi_complex128 tsi_spmv_shfl_xor(tsi_complex128 v, int offset) {
  return tsi_z(__shfl_xor_sync(0xffffffffu, v.re, offset), __shfl_xor_sync(0xffffffffu, v.im, offset));
}

/* A load through L2 (not a possibly stale L1 line). */
__device__ __forceinline__ float tsi_spmv_load_l2(const float *p) { return __ldcg(p); }
__device__ __forceinline__ double tsi_spmv_load_l2(const double *p) { return __ldcg(p); }
__device__ __forceinline__ tsi_complex128 tsi_spmv_load_l2(const tsi_complex128 *p) {
  const double *parts = reinterpret_cast<const double *>(p);
  return tsi_z(__ldcg(parts), __ldcg(parts + 1));
}

#endif
