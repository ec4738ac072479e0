# The load-balancing layer's examples (examples/lb_*.cu): built and run as GPU
# tests when CUDA is on; they print "SKIPPED" and exit 77 where no GPU is usable.
if(TESSERA_HAVE_CUDA)
  file(GLOB TESSERA_LB_EXAMPLES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/examples/lb_*.cu)
  foreach(source ${TESSERA_LB_EXAMPLES})
    get_filename_component(name ${source} NAME_WE)
    add_executable(example_${name} ${source})
    target_include_directories(example_${name} PRIVATE ${PROJECT_SOURCE_DIR}/include)
    add_test(NAME example_${name} COMMAND example_${name})
    set_tests_properties(example_${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300
                                                    PASS_REGULAR_EXPRESSION "PASS|SKIPPED")
  endforeach()
endif()
