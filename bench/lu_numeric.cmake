# The GPU LU benchmark switches the GPU factorization's scratch and tail
# through src/lu/lu_internal.h (ablation).
if(TARGET bench_lu_numeric_gpu)
  target_link_libraries(bench_lu_numeric_gpu PRIVATE tessera_internal)
endif()
