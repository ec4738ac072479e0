# bench/lu_singularity.c: tessera's singular verdicts beside SuiteSparse KLU's.
if(TARGET bench_lu_singularity)
  tessera_bench_use_klu(bench_lu_singularity)
endif()
