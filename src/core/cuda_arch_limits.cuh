/* Per-architecture limits that kernels' launch bounds must respect, from the
 * CUDA C++ Programming Guide's table of compute capabilities: the resident
 * threads of one SM are 2,048 on sm_80, sm_87, sm_90 and sm_100, and 1,536
 * on sm_86, sm_89 and sm_120; architectures before sm_80 are given 1,024
 * (sm_75's), never more than theirs. ptxas refuses a __launch_bounds__
 * minimum of blocks whose threads exceed the SM's, so every minimum goes
 * through tsi_min_blocks_per_sm(). In the host pass (no __CUDA_ARCH__) the
 * bound is not used; the largest limit stands there. */
#ifndef TESSERA_CUDA_ARCH_LIMITS_CUH
#define TESSERA_CUDA_ARCH_LIMITS_CUH

/* The architecture being compiled (__CUDA_ARCH__, e.g. 900), 0 in the host
 * pass: the key of the per-architecture kernel policies of the areas'
 * tuning headers. */
#ifdef __CUDA_ARCH__
#define TSI_CUDA_ARCH __CUDA_ARCH__
#else
#define TSI_CUDA_ARCH 0
#endif

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#define TSI_MAX_THREADS_PER_SM 1536
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define TSI_MAX_THREADS_PER_SM 1024
#else
#define TSI_MAX_THREADS_PER_SM 2048
#endif

/* The resident blocks of `threads` threads to ask ptxas for: `wanted`, or as
 * many as the architecture holds when that is fewer (at least one). */
__host__ __device__ constexpr int tsi_min_blocks_per_sm(int threads, int wanted) {
  return wanted * threads <= TSI_MAX_THREADS_PER_SM ? wanted
         : TSI_MAX_THREADS_PER_SM / threads > 0     ? TSI_MAX_THREADS_PER_SM / threads
                                                    : 1;
}

#endif
