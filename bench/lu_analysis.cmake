# The GPU LU analysis benchmark times the analysis phases through the
# library's internal entry points (src/lu/lu_internal.h).
if(TARGET bench_lu_analysis_gpu)
  target_include_directories(bench_lu_analysis_gpu PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/core)
endif()
