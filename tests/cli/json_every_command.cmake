# --json on every command: each command that `tessera --help` lists runs once
# with --json, and its stdout must be one JSON object (CMake's parser, and
# python3 -m json.tool where python3 is installed) whose "command" member
# names it. A command without a run below fails the test: a new command
# gets its --json run here.
#
#   cmake -DCLI=<tessera> -DWORK_DIR=<dir> -DMODEL_PARAMS=<file> -P json_every_command.cmake
cmake_minimum_required(VERSION 3.25)

file(MAKE_DIRECTORY "${WORK_DIR}")
set(matrix "${WORK_DIR}/json_every_command.mtx")
execute_process(COMMAND ${CLI} gen laplacian2d --nx 8 -o "${matrix}" --quiet RESULT_VARIABLE code OUTPUT_QUIET
  ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "tessera gen: ${err}")
endif()

# Weights in (0, 1]: shortest paths refuse negative ones (a Laplacian's).
set(graph "${WORK_DIR}/json_every_command_graph.mtx")
execute_process(COMMAND ${CLI} gen rmat --scale 6 --edge-factor 4 -o "${graph}" --quiet RESULT_VARIABLE code
  OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "tessera gen rmat: ${err}")
endif()

# One --json run per command.
set(run_demo demo --backend cpu --size 16 --repeat 2)
set(run_info info "${matrix}")
set(run_convert convert "${matrix}" "${WORK_DIR}/json_every_command_copy.mtx.gz")
set(run_gen gen banded --n 50 --lower 1)
set(run_spmv spmv "${matrix}" --backend cpu --repeat 2)
set(run_spmm spmm "${matrix}" --backend cpu --width 8 --repeat 2)
set(run_spgemm spgemm "${matrix}" --backend cpu)
set(run_bfs bfs "${graph}" --backend cpu --repeat 1)
set(run_sssp sssp "${graph}" --backend cpu --repeat 1 --delta 1)
set(run_solve solve "${matrix}" --backend cpu --ordering natural)
set(run_sort sort --n 1000 --backend cpu --repeat 1 --check)
set(run_search search --keys 1000 --queries 1000 --backend cpu --repeat 1 --check)
set(run_gemm gemm --n 16 --backend cpu --repeat 1 --check)
set(run_model model show "${MODEL_PARAMS}")

execute_process(COMMAND ${CLI} --help OUTPUT_VARIABLE help RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "tessera --help exited with ${code}")
endif()
string(REGEX MATCH "\nCommands:\n(  [a-z]+ [^\n]*\n)+" listing "${help}")
string(REGEX MATCHALL "\n  [a-z]+ " names "${listing}")
if(NOT names)
  message(FATAL_ERROR "no commands found in tessera --help:\n${help}")
endif()
find_program(python3 NAMES python3)
foreach(entry ${names})
  string(STRIP "${entry}" command)
  if(NOT DEFINED run_${command})
    message(FATAL_ERROR "tessera ${command} has no --json run in ${CMAKE_CURRENT_LIST_FILE}")
  endif()
  execute_process(COMMAND ${CLI} ${run_${command}} --json
    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(JOIN " " shown ${run_${command}})
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "tessera ${shown} --json exited with ${code}\n${out}${err}")
  endif()
  string(JSON type ERROR_VARIABLE json_error TYPE "${out}")
  if(json_error OR NOT type STREQUAL "OBJECT")
    message(FATAL_ERROR "tessera ${shown} --json: stdout is not a JSON object (${json_error})\n${out}")
  endif()
  string(JSON named ERROR_VARIABLE json_error GET "${out}" command)
  if(json_error OR NOT named MATCHES "^${command}( |$)")
    message(FATAL_ERROR "tessera ${shown} --json: member \"command\" is '${named}', expected ${command}")
  endif()
  if(python3)
    string(RANDOM LENGTH 12 tag)
    file(WRITE "${WORK_DIR}/json_every_command_${tag}.json" "${out}")
    execute_process(COMMAND ${python3} -m json.tool "${WORK_DIR}/json_every_command_${tag}.json"
      RESULT_VARIABLE json_exit OUTPUT_QUIET ERROR_VARIABLE json_err)
    file(REMOVE "${WORK_DIR}/json_every_command_${tag}.json")
    if(NOT json_exit EQUAL 0)
      message(FATAL_ERROR "tessera ${shown} --json: python3 -m json.tool: ${json_err}")
    endif()
  endif()
  message("ok: tessera ${shown} --json")
endforeach()
