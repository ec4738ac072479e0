# bench/lu_analysis_cpu.c reads the analysis's results through the library's
# internal layout (src/lu/lu_internal.h) and compares with KLU's klu_analyze
# when SuiteSparse KLU is found (as bench/lu_solvers.cmake looks for it).
if(TARGET bench_lu_analysis_cpu)
  target_include_directories(bench_lu_analysis_cpu PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/core)
  find_path(TESSERA_KLU_INCLUDE_DIR klu.h PATH_SUFFIXES suitesparse)
  find_library(TESSERA_KLU_LIBRARY klu)
  find_library(TESSERA_BTF_LIBRARY btf)
  find_library(TESSERA_COLAMD_LIB colamd)
  find_library(TESSERA_AMD_LIB amd)
  find_library(TESSERA_SUITESPARSECONFIG_LIBRARY suitesparseconfig)
  if(TESSERA_KLU_INCLUDE_DIR AND TESSERA_KLU_LIBRARY AND TESSERA_BTF_LIBRARY AND TESSERA_COLAMD_LIB
     AND TESSERA_AMD_LIB AND TESSERA_SUITESPARSECONFIG_LIBRARY)
    target_compile_definitions(bench_lu_analysis_cpu PRIVATE TESSERA_BENCH_HAVE_KLU=1)
    target_include_directories(bench_lu_analysis_cpu PRIVATE ${TESSERA_KLU_INCLUDE_DIR})
    target_link_libraries(bench_lu_analysis_cpu PRIVATE ${TESSERA_KLU_LIBRARY} ${TESSERA_BTF_LIBRARY}
                          ${TESSERA_COLAMD_LIB} ${TESSERA_AMD_LIB} ${TESSERA_SUITESPARSECONFIG_LIBRARY})
  endif()
endif()
