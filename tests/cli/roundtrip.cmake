# Matrix Market round trip through the CLI: generate a matrix with random
# values, convert it to gzip and back, and require the same bytes; then
# drop the values (--field pattern) and check what info reports.
#
#   cmake -DCLI=<tessera> -DWORK_DIR=<dir> -DPRECISION=double|single -P roundtrip.cmake
cmake_minimum_required(VERSION 3.25)

file(MAKE_DIRECTORY "${WORK_DIR}")
set(plain "${WORK_DIR}/roundtrip_${PRECISION}.mtx")
set(packed "${WORK_DIR}/roundtrip_${PRECISION}.mtx.gz")
set(back "${WORK_DIR}/roundtrip_${PRECISION}_back.mtx")
set(pattern "${WORK_DIR}/roundtrip_${PRECISION}_pattern.mtx")

function(run_tessera)
  execute_process(COMMAND ${CLI} ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(JOIN " " shown ${ARGN})
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "tessera ${shown} exited with ${code}\n${out}${err}")
  endif()
  message("ok: tessera ${shown}")
  set(last_stdout "${out}" PARENT_SCOPE)
endfunction()

# banded n=200 with 3 sub- and 1 super-diagonals: 200*5 - (1+2+3) - 1 = 993 entries.
run_tessera(gen banded --n 200 --lower 3 --upper 1 --seed 5 --precision ${PRECISION} -o "${plain}" --quiet)
run_tessera(convert "${plain}" "${packed}" --precision ${PRECISION} --quiet)
file(READ "${packed}" magic LIMIT 2 HEX)
if(NOT magic STREQUAL "1f8b")
  message(FATAL_ERROR "${packed} is not gzip (starts with ${magic})")
endif()
run_tessera(convert "${packed}" "${back}" --precision ${PRECISION} --quiet)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${plain}" "${back}" RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "${plain} and ${back} differ after the round trip through gzip")
endif()

run_tessera(convert "${back}" "${pattern}" --field pattern --quiet)
run_tessera(info "${pattern}" --json)
string(JSON field GET "${last_stdout}" field)
string(JSON nnz GET "${last_stdout}" nnz)
string(JSON diagonal GET "${last_stdout}" stats diagonal)
string(JSON bandwidth GET "${last_stdout}" stats bandwidth)
if(NOT field STREQUAL "pattern" OR NOT nnz EQUAL 993 OR NOT diagonal EQUAL 200 OR NOT bandwidth EQUAL 3)
  message(FATAL_ERROR "pattern copy: field ${field}, nnz ${nnz}, diagonal ${diagonal}, bandwidth ${bandwidth}; "
                      "expected pattern, 993, 200, 3")
endif()
message("round trip (${PRECISION}) ok")
