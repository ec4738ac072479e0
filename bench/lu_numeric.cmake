# The GPU LU benchmark switches the GPU factorization's scratch and tail
# through src/lu/lu_internal.h (ablation).
if(TARGET bench_lu_numeric_gpu)
  target_link_libraries(bench_lu_numeric_gpu PRIVATE tessera_internal)
endif()
# lu_refactor_gpu times the numeric kernels and the pivot check alone
# (internal entry points) and sets the sparse tail's switches.
if(TARGET bench_lu_refactor_gpu)
  target_link_libraries(bench_lu_refactor_gpu PRIVATE tessera_internal)
endif()
