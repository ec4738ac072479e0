# bench/lu_analysis_cpu.c reads the analysis's results through the library's
# internal layout (src/lu/lu_internal.h) and compares with KLU's klu_analyze
# when SuiteSparse KLU is found (as bench/lu_solvers.cmake looks for it).
if(TARGET bench_lu_analysis_cpu)
  target_link_libraries(bench_lu_analysis_cpu PRIVATE tessera_internal)
  tessera_bench_use_klu(bench_lu_analysis_cpu)
endif()
