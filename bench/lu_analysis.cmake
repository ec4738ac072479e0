# The GPU LU analysis benchmark times the analysis phases through the
# library's internal entry points (src/lu/lu_internal.h).
if(TARGET bench_lu_analysis_gpu)
  target_link_libraries(bench_lu_analysis_gpu PRIVATE tessera_internal)
endif()
# bench/lu_symbolic_ooc.c replays the GPU symbolic phase's chunks from the
# analysis's internal layout.
if(TARGET bench_lu_symbolic_ooc)
  target_link_libraries(bench_lu_symbolic_ooc PRIVATE tessera_internal)
endif()
