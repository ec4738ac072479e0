# Run the tessera CLI once and check what it did.
#
#   cmake -DCLI=<tessera> [-DEXPECT_EXIT=0] [-DEXPECT_STDOUT=<regex>]
#         [-DEXPECT_STDERR=<regex>] [-DSTDOUT_EMPTY=ON] [-DJSON=ON]
#         [-DJSON_EQUALS=key=value,stats.key=value] [-DSKIP_IF_GPU=ON]
#         -P run_cli.cmake -- <arguments of tessera>
#
# JSON=ON: stdout must be exactly one JSON document (python3 -m json.tool,
# and CMake's own parser); JSON_EQUALS compares members, a dot naming a
# member of a member. SKIP_IF_GPU=ON: print "SKIP:" and stop when
# nvidia-smi lists a GPU (the test sets SKIP_REGULAR_EXPRESSION).
cmake_minimum_required(VERSION 3.25)

set(arguments)
set(after_separator OFF)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after_separator)
    list(APPEND arguments "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(after_separator ON)
  endif()
endforeach()
if(NOT DEFINED CLI)
  message(FATAL_ERROR "run_cli.cmake: CLI is not set")
endif()
if(NOT DEFINED EXPECT_EXIT)
  set(EXPECT_EXIT 0)
endif()

if(SKIP_IF_GPU)
  find_program(nvidia_smi nvidia-smi)
  if(nvidia_smi)
    execute_process(COMMAND ${nvidia_smi} -L RESULT_VARIABLE smi_exit OUTPUT_VARIABLE smi_out ERROR_QUIET)
    if(smi_exit EQUAL 0 AND smi_out MATCHES "GPU [0-9]")
      message("SKIP: a GPU is present (nvidia-smi -L lists one); this test needs a machine without one")
      return()
    endif()
  endif()
endif()

execute_process(COMMAND ${CLI} ${arguments}
  RESULT_VARIABLE exit_code OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(JOIN " " shown ${arguments})
set(report "command: tessera ${shown}\nexit status: ${exit_code}\n--- stdout ---\n${out}--- stderr ---\n${err}")

function(fail why)
  message(FATAL_ERROR "${why}\n${report}")
endfunction()

if(NOT "${exit_code}" STREQUAL "${EXPECT_EXIT}")
  fail("expected exit status ${EXPECT_EXIT}")
endif()
if(DEFINED EXPECT_STDOUT AND NOT out MATCHES "${EXPECT_STDOUT}")
  fail("stdout does not match: ${EXPECT_STDOUT}")
endif()
if(DEFINED EXPECT_STDERR AND NOT err MATCHES "${EXPECT_STDERR}")
  fail("stderr does not match: ${EXPECT_STDERR}")
endif()
if(STDOUT_EMPTY AND NOT out STREQUAL "")
  fail("stdout should be empty")
endif()

if(JSON)
  find_program(python3 NAMES python3)
  if(python3)
    string(RANDOM LENGTH 12 tag)
    set(json_file "${CMAKE_CURRENT_BINARY_DIR}/cli_stdout_${tag}.json")
    file(WRITE "${json_file}" "${out}")
    execute_process(COMMAND ${python3} -m json.tool "${json_file}"
      RESULT_VARIABLE json_exit OUTPUT_QUIET ERROR_VARIABLE json_err)
    file(REMOVE "${json_file}")
    if(NOT json_exit EQUAL 0)
      fail("stdout is not one JSON document (python3 -m json.tool: ${json_err})")
    endif()
  endif()
  string(JSON json_type ERROR_VARIABLE json_error TYPE "${out}")
  if(json_error OR NOT json_type STREQUAL "OBJECT")
    fail("stdout is not a JSON object: ${json_error}")
  endif()
  if(DEFINED JSON_EQUALS)
    string(REPLACE "," ";" pairs "${JSON_EQUALS}")
    foreach(pair ${pairs})
      string(FIND "${pair}" "=" equals)
      string(SUBSTRING "${pair}" 0 ${equals} key)
      math(EXPR value_start "${equals} + 1")
      string(SUBSTRING "${pair}" ${value_start} -1 expected)
      string(REPLACE "." ";" path "${key}")
      string(JSON actual ERROR_VARIABLE get_error GET "${out}" ${path})
      if(get_error)
        fail("JSON member ${key} is missing: ${get_error}")
      endif()
      if(NOT actual STREQUAL expected)
        fail("JSON member ${key} is '${actual}', expected '${expected}'")
      endif()
    endforeach()
  endif()
endif()
message("ok: tessera ${shown} (exit ${exit_code})")
