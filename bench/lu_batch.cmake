# bench/lu_batch.c: tessera's LU batches beside NVIDIA cuDSS's uniform and
# non-uniform batches (CUDA builds, where cuDSS is found: TESSERA_CUDSS_ROOT,
# .deps/root/cudss or CMAKE_PREFIX_PATH, as for bench/lu_solvers.c) and
# SuiteSparse KLU (where installed). It sets the batch's member-width switch
# through the LU internals.
if(TARGET bench_lu_batch)
  target_link_libraries(bench_lu_batch PRIVATE tessera_internal)
  tessera_bench_use_klu(bench_lu_batch)
  if(TESSERA_HAVE_CUDA)
    set(TESSERA_CUDSS_ROOT "${PROJECT_SOURCE_DIR}/.deps/root/cudss" CACHE PATH "Folder holding cuDSS's include/ and lib/")
    find_path(TESSERA_CUDSS_INCLUDE_DIR cudss.h HINTS ${TESSERA_CUDSS_ROOT}/include)
    find_library(TESSERA_CUDSS_LIBRARY NAMES cudss libcudss.so.1 libcudss.so.0 HINTS ${TESSERA_CUDSS_ROOT}/lib)
    if(TESSERA_CUDSS_INCLUDE_DIR AND TESSERA_CUDSS_LIBRARY)
      target_compile_definitions(bench_lu_batch PRIVATE TESSERA_BENCH_HAVE_CUDSS=1)
      target_include_directories(bench_lu_batch PRIVATE ${TESSERA_CUDSS_INCLUDE_DIR})
      target_link_libraries(bench_lu_batch PRIVATE ${TESSERA_CUDSS_LIBRARY})
      if(TARGET CUDA::cublas)
        target_link_libraries(bench_lu_batch PRIVATE CUDA::cublas CUDA::cublasLt)
      endif()
    endif()
    message(STATUS "tessera: lu_batch benchmark: cuDSS ${TESSERA_CUDSS_LIBRARY}")
  endif()
endif()
