# The examples shown in the README build and run as tests.
add_executable(example_quickstart ${PROJECT_SOURCE_DIR}/examples/quickstart.c)
target_link_libraries(example_quickstart PRIVATE tessera_static)
add_test(NAME example_quickstart COMMAND example_quickstart)
set_tests_properties(example_quickstart PROPERTIES LABELS cpu PASS_REGULAR_EXPRESSION "y\\[0\\] = 2, y\\[5050\\] = 0")
