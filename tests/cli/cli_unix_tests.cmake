# The CLI as a Unix tool (tests/cli/unix_tool.sh, one case a test): "-" for
# standard input and output with plain and gzip data through pipes, FIFOs,
# an output that names its input refused with the input intact, a write
# error on /dev/full that leaves the device node, a report that cannot reach
# standard output an error, -o through a dangling symbolic link writing its
# target, Ctrl-C (SIGINT) answered
# with exit 130 within a bounded time, and --json stdout kept clean while
# progress goes to stderr. A case that the machine cannot run (no mkfifo, no
# /dev/full) exits 77 and is shown as skipped with its reason.
if(TARGET tessera_cli)
  include(${CMAKE_CURRENT_LIST_DIR}/tessera_cli_test.cmake)
  foreach(case stdin_plain stdin_gzip_pipe fifo stdout broken_pipe output_is_input write_error report_write_error
          dangling_link cancel_gen cancel_loop cancel_stdin json_with_progress)
    add_test(NAME cli_unix_${case}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/unix_tool.sh ${case} $<TARGET_FILE:tessera_cli> ${TESSERA_CLI_WORK})
    set_tests_properties(cli_unix_${case} PROPERTIES LABELS cpu TIMEOUT 300 SKIP_RETURN_CODE 77)
  endforeach()
endif()
