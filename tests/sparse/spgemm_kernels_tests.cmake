# SpGEMM's warp-sorted and dense-row kernels on the host
# (test_spgemm_kernels_emulated.cpp through cuda_host_emulation.h: a host
# thread per GPU thread), so that they are checked where no GPU is: C++20
# and threads. Built wherever a C++20 compiler is found, with or without
# CUDA.
include(CheckLanguage)
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  enable_language(CXX)
  find_package(Threads)
  if(Threads_FOUND)
    add_executable(test_spgemm_kernels_emulated ${CMAKE_CURRENT_LIST_DIR}/test_spgemm_kernels_emulated.cpp)
    target_compile_features(test_spgemm_kernels_emulated PRIVATE cxx_std_20)
    target_include_directories(test_spgemm_kernels_emulated PRIVATE ${CMAKE_CURRENT_LIST_DIR}
                               ${PROJECT_SOURCE_DIR}/src/sparse)
    target_link_libraries(test_spgemm_kernels_emulated PRIVATE tessera_internal Threads::Threads)
    add_test(NAME test_spgemm_kernels_emulated COMMAND test_spgemm_kernels_emulated)
    set_tests_properties(test_spgemm_kernels_emulated PROPERTIES LABELS "cpu;sparse" TIMEOUT 600)
  endif()
else()
  message(STATUS "tessera: no C++ compiler: test_spgemm_kernels_emulated left out")
endif()
