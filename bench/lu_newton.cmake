# bench/lu_newton.c: tessera's Newton loop beside SuiteSparse KLU, where KLU
# is installed (tessera_bench_use_klu in bench/CMakeLists.txt).
if(TARGET bench_lu_newton)
  tessera_bench_use_klu(bench_lu_newton)
endif()
