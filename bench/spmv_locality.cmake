# SpMV locality layouts against cuSPARSE ALG1 (bench/spmv_locality.cu); the
# reference product is summed with OpenMP where it is found.
if(TARGET bench_spmv_locality)
  target_link_libraries(bench_spmv_locality PRIVATE CUDA::cusparse)
  if(OpenMP_C_FOUND)
    target_compile_options(bench_spmv_locality PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${OpenMP_C_FLAGS}>)
    target_link_libraries(bench_spmv_locality PRIVATE OpenMP::OpenMP_C)
  endif()
endif()
