# GPU LU tests read the factor values and the GPU's switches through
# src/lu/lu_internal.h and src/lu/lu_numeric_cuda.h.
foreach(name test_gpu_lu_numeric test_gpu_lu_solve test_gpu_lu_refactor)
  if(TARGET ${name})
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/core)
  endif()
endforeach()
