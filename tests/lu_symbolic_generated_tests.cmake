# test_lu_symbolic_generated reads the analysis's internal layout (src/lu/lu_internal.h).
if(TARGET test_lu_symbolic_generated)
  target_include_directories(test_lu_symbolic_generated PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/core)
endif()
