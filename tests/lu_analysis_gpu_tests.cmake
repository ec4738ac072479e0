# The GPU LU analysis tests read the analysis's internal layout (src/lu/lu_internal.h).
foreach(name test_gpu_lu_symbolic test_gpu_lu_levelize)
  if(TARGET ${name})
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/core)
  endif()
endforeach()
