# GEMM on CUDA cores: cuBLAS SGEMM (pedantic math) and DGEMM are the anchors.
if(TARGET bench_gemm_cuda_cores)
  target_link_libraries(bench_gemm_cuda_cores PRIVATE CUDA::cublas)
endif()
# The model's validation predicts cuBLAS SGEMM too (bench/model_validate.cu).
if(TARGET bench_model_validate)
  target_link_libraries(bench_model_validate PRIVATE CUDA::cublas)
endif()
