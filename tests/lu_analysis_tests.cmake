# The LU analysis tests read the analysis's internal layout (src/lu/lu_internal.h).
foreach(name test_lu_matching test_lu_symbolic test_lu_levelize test_lu_analyze test_lu_scratch_slots test_lu_tail_gather_order)
  if(TARGET ${name})
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/core)
  endif()
endforeach()
