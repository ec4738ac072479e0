# GEMM on CUDA cores: cuBLAS SGEMM (pedantic math) and DGEMM are the anchors.
if(TARGET bench_gemm_cuda_cores)
  target_link_libraries(bench_gemm_cuda_cores PRIVATE CUDA::cublas)
endif()
