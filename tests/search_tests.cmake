# The search tests also check the plan's layouts (B+-tree, Eytzinger array)
# through src/search/search_internal.h.
foreach(name test_search test_gpu_search)
  if(TARGET ${name})
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/core)
  endif()
endforeach()
