# bench/lu_batch.c: tessera's LU batches beside NVIDIA cuDSS's uniform and
# non-uniform batches (CUDA builds, where cuDSS is found: see
# tessera_bench_use_cudss in bench/CMakeLists.txt) and SuiteSparse KLU (where
# installed). It sets the batch's member-width switch through the LU
# internals.
if(TARGET bench_lu_batch)
  target_link_libraries(bench_lu_batch PRIVATE tessera_internal)
  tessera_bench_use_klu(bench_lu_batch)
  tessera_bench_use_cudss(bench_lu_batch cudss_found)
  message(STATUS "tessera: lu_batch benchmark: cuDSS ${cudss_found}")
endif()
