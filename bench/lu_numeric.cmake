# The GPU LU benchmark switches the GPU factorization's scratch and tail
# through src/lu/lu_internal.h (ablation).
if(TARGET bench_lu_numeric_gpu)
  target_include_directories(bench_lu_numeric_gpu PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/core)
endif()
