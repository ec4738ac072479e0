# bench/lu_fronts.c reads the analysis and builds the fronts through the
# library's internal layout (src/lu/symbolic/symbolic_internal.h).
if(TARGET bench_lu_fronts)
  target_link_libraries(bench_lu_fronts PRIVATE tessera_internal)
endif()
