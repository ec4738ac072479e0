# bench/lu_solvers.c: tessera's LU beside SuiteSparse KLU and UMFPACK and
# NVIDIA cuDSS, each optional: a solver that is not found is left out of the
# build and its columns read n/a. SuiteSparse comes from the system or
# CMAKE_PREFIX_PATH (scripts/fetch-gpu-deps unpacks it into .deps/root/usr);
# cuDSS (CUDA builds only) from TESSERA_CUDSS_ROOT, .deps/root/cudss or
# CMAKE_PREFIX_PATH. TESSERA_BENCH_LU_ANCHORS names the ones to look for
# (a machine that has KLU's libraries but not UMFPACK's BLAS and LAPACK can
# leave UMFPACK out).
set(TESSERA_BENCH_LU_ANCHORS "KLU;UMFPACK;cuDSS" CACHE STRING "Solvers bench/lu_solvers.c compares with, where found")
if(TARGET bench_lu_solvers)
  set(lu_solvers_found)

  # KLU with what it links (BTF, COLAMD, AMD, SuiteSparse_config).
  find_path(TESSERA_KLU_INCLUDE_DIR klu.h PATH_SUFFIXES suitesparse)
  find_library(TESSERA_KLU_LIBRARY klu)
  find_library(TESSERA_BTF_LIBRARY btf)
  find_library(TESSERA_COLAMD_LIB colamd)
  find_library(TESSERA_AMD_LIB amd)
  find_library(TESSERA_SUITESPARSECONFIG_LIBRARY suitesparseconfig)
  if("KLU" IN_LIST TESSERA_BENCH_LU_ANCHORS AND TESSERA_KLU_INCLUDE_DIR AND TESSERA_KLU_LIBRARY
     AND TESSERA_BTF_LIBRARY AND TESSERA_COLAMD_LIB AND TESSERA_AMD_LIB AND TESSERA_SUITESPARSECONFIG_LIBRARY)
    target_compile_definitions(bench_lu_solvers PRIVATE TESSERA_BENCH_HAVE_KLU=1)
    target_include_directories(bench_lu_solvers PRIVATE ${TESSERA_KLU_INCLUDE_DIR})
    target_link_libraries(bench_lu_solvers PRIVATE ${TESSERA_KLU_LIBRARY} ${TESSERA_BTF_LIBRARY}
                          ${TESSERA_COLAMD_LIB} ${TESSERA_AMD_LIB} ${TESSERA_SUITESPARSECONFIG_LIBRARY})
    list(APPEND lu_solvers_found KLU)
  endif()

  # UMFPACK (its shared library brings CHOLMOD, BLAS and LAPACK along).
  find_path(TESSERA_UMFPACK_INCLUDE_DIR umfpack.h PATH_SUFFIXES suitesparse)
  find_library(TESSERA_UMFPACK_LIBRARY umfpack)
  if("UMFPACK" IN_LIST TESSERA_BENCH_LU_ANCHORS AND TESSERA_UMFPACK_INCLUDE_DIR AND TESSERA_UMFPACK_LIBRARY
     AND TESSERA_AMD_LIB AND TESSERA_SUITESPARSECONFIG_LIBRARY)
    target_compile_definitions(bench_lu_solvers PRIVATE TESSERA_BENCH_HAVE_UMFPACK=1)
    target_include_directories(bench_lu_solvers PRIVATE ${TESSERA_UMFPACK_INCLUDE_DIR})
    target_link_libraries(bench_lu_solvers PRIVATE ${TESSERA_UMFPACK_LIBRARY} ${TESSERA_AMD_LIB}
                          ${TESSERA_SUITESPARSECONFIG_LIBRARY})
    list(APPEND lu_solvers_found UMFPACK)
  endif()

  # cuDSS: the C API (bench/CMakeLists.txt's tessera_bench_use_cudss).
  if("cuDSS" IN_LIST TESSERA_BENCH_LU_ANCHORS)
    tessera_bench_use_cudss(bench_lu_solvers cudss_found)
    if(cudss_found)
      list(APPEND lu_solvers_found cuDSS)
    endif()
  endif()
  message(STATUS "tessera: lu_solvers benchmark anchors: ${lu_solvers_found}")
endif()
