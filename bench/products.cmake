# SpMM and SpGEMM: cuSPARSE SpMM CSR ALG1-3 and SpGEMM (default, ALG2, ALG3)
# are the anchors.
foreach(target bench_spmm bench_spgemm)
  if(TARGET ${target})
    target_link_libraries(${target} PRIVATE CUDA::cusparse)
  endif()
endforeach()
