# Kernels run on the host: each tests/sparse/test_*_emulated.cpp (SpGEMM's
# warp-sorted and dense-row kernels, SpMM's warp over a group of rows)
# through cuda_host_emulation.h, a host thread per GPU thread, so that they
# are checked where no GPU is: C++20 and threads. Built wherever a C++20
# compiler is found, with or without CUDA.
include(CheckLanguage)
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  enable_language(CXX)
  find_package(Threads)
  if(Threads_FOUND)
    file(GLOB TESSERA_EMULATED_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*_emulated.cpp)
    foreach(source ${TESSERA_EMULATED_TESTS})
      get_filename_component(name ${source} NAME_WE)
      add_executable(${name} ${source})
      target_compile_features(${name} PRIVATE cxx_std_20)
      target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_LIST_DIR} ${CMAKE_CURRENT_LIST_DIR}/../common
                                 ${PROJECT_SOURCE_DIR}/src/sparse)
      target_link_libraries(${name} PRIVATE tessera_internal Threads::Threads)
      add_test(NAME ${name} COMMAND ${name})
      # A host thread per GPU thread is slow under the sanitizers, slower
      # still on a shared machine: a longer limit than the C tests' 600 s.
      set_tests_properties(${name} PROPERTIES LABELS "cpu;sparse" TIMEOUT 1500)
    endforeach()
  endif()
else()
  message(STATUS "tessera: no C++ compiler: the emulated kernel tests left out")
endif()
