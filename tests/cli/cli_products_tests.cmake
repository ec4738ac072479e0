# Tests of `tessera spmm` and `tessera spgemm` on the 10x10 Laplacian of
# cli_tests.cmake (100 rows, 460 entries) and the 50 x 80 random matrix of
# cli_spmv_tests.cmake. --backend auto runs on the CPU where no GPU is usable
# (the schedule is recorded, not used) and on the GPU elsewhere; the GPU_ONLY
# runs need one.
if(TARGET tessera_cli)
  include(${CMAKE_CURRENT_LIST_DIR}/tessera_cli_test.cmake)

  # ---- spmm ---------------------------------------------------------------------
  tessera_cli_test(spmm_auto ARGS spmm ${TESSERA_CLI_WORK}/lap10.mtx --width 40 --repeat 2
    STDOUT "operation +C = A\\*B, B and C row-major with 40 columns\nschedule +[a-z-]+[^\n]*\nreason +auto: [a-z-]+, vector threads of 32 lanes x 2 columns .*check +max error [^\n]*: PASS"
    FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(spmm_column_major_json ARGS spmm ${TESSERA_CLI_WORK}/random50x80.mtx --width 7 --layout col
    --precision single --schedule split --repeat 2 --json JSON
    JSON_EQUALS "rows=50,cols=80,width=7,layout=col-major,schedule=split-rows,check=PASS"
    FIXTURES_REQUIRED cli_random50x80)
  tessera_cli_test(spmm_recorded_cpu ARGS spmm ${TESSERA_CLI_WORK}/lap10.mtx --backend cpu --schedule warp --repeat 2
    STDOUT "schedule +warp-mapped \\(recorded, not used: the CPU backend has one SpMM implementation\\)"
    FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(spmm_all_refused ARGS spmm ${TESSERA_CLI_WORK}/lap10.mtx --schedule all EXIT 2
    STDERR "tessera spmm: --schedule all is not taken here" FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(spmm_group_size_refused ARGS spmm ${TESSERA_CLI_WORK}/lap10.mtx --schedule group --group-size 12
    EXIT 2 STDERR "--group-size 12 is not a power of two" FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(spmm_group_size_other_schedule ARGS spmm ${TESSERA_CLI_WORK}/lap10.mtx --schedule warp
    --group-size 4 EXIT 2 STDOUT_EMPTY STDERR "--group-size applies to --schedule group \\(or auto\\), not warp"
    FIXTURES_REQUIRED cli_lap10)
  foreach(schedule thread warp block group merge-path work split)
    tessera_cli_test(spmm_gpu_${schedule} ARGS spmm ${TESSERA_CLI_WORK}/random50x80.mtx --backend cuda --width 130
      --schedule ${schedule} --repeat 2 --json JSON GPU_ONLY JSON_EQUALS "backend=cuda,width=130,check=PASS"
      FIXTURES_REQUIRED cli_random50x80)
  endforeach()

  # ---- spgemm --------------------------------------------------------------------
  tessera_cli_test(spgemm_square ARGS spgemm ${TESSERA_CLI_WORK}/lap10.mtx
    STDOUT "operation +C = A\\*B of 100 x 100\n.*products +2148\nnnz +1104\n.*check +max error [^\n]*: PASS"
    FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(spgemm_transpose_json ARGS spgemm ${TESSERA_CLI_WORK}/random50x80.mtx --transpose-b
    --precision single --json JSON JSON_EQUALS "operation=C = A*B^T,rows=50,cols=50,check=PASS"
    FIXTURES_REQUIRED cli_random50x80)
  tessera_cli_test(spgemm_two_files ARGS spgemm ${TESSERA_CLI_WORK}/random50x80.mtx ${TESSERA_CLI_WORK}/random50x80.mtx
    EXIT 1 STDERR "A is 50 x 80 and B 80 x 50|A is 50 x 80 and B 50 x 80" FIXTURES_REQUIRED cli_random50x80)
  tessera_cli_test(spgemm_budget_refused ARGS spgemm ${TESSERA_CLI_WORK}/lap10.mtx --budget 1000 EXIT 1
    STDERR "the copies of A and B needs [0-9]+ bytes; the memory budget of 1000 bytes" FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(spgemm_blocked ARGS spgemm ${TESSERA_CLI_WORK}/lap10.mtx --budget 200000 --blocked
    -o ${TESSERA_CLI_WORK}/lap10_squared.mtx --json JSON
    JSON_EQUALS "blocked=ON,nnz=1104,check=PASS" FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(spgemm_gpu ARGS spgemm ${TESSERA_CLI_WORK}/lap10.mtx --backend cuda --json JSON GPU_ONLY
    JSON_EQUALS "backend=cuda,products=2148,nnz=1104,check=PASS" FIXTURES_REQUIRED cli_lap10)

  # Entries of 1e300: C's products overflow double (and single), which no
  # summation order avoids; the check leaves them out and says so instead of
  # failing a correct product.
  file(WRITE ${TESSERA_CLI_WORK}/huge_values.mtx
       "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1e300\n1 2 1e300\n2 2 1e300\n")
  tessera_cli_test(spgemm_beyond_range ARGS spgemm ${TESSERA_CLI_WORK}/huge_values.mtx
    STDOUT "check +max error 0 [^\n]*: PASS; 3 entries not checked \\(their \\|A\\|\\|B\\| pass double precision's range\\)")
  # A row of 100 entries of 1e307 against values in [-1, 1): its |A||x|
  # passes double's range; the second row (one entry of 1) is checked.
  set(dense_row "%%MatrixMarket matrix coordinate real general\n2 100 101\n")
  foreach(column RANGE 1 100)
    string(APPEND dense_row "1 ${column} 1e307\n")
  endforeach()
  string(APPEND dense_row "2 1 1\n")
  file(WRITE ${TESSERA_CLI_WORK}/huge_row.mtx "${dense_row}")
  tessera_cli_test(spmm_beyond_range_json ARGS spmm ${TESSERA_CLI_WORK}/huge_row.mtx --precision double --width 3
    --repeat 1 --json JSON JSON_EQUALS "check=PASS,unchecked_beyond_range=3")
  tessera_cli_test(spmv_beyond_range_json ARGS spmv ${TESSERA_CLI_WORK}/huge_row.mtx --precision double --repeat 1
    --json JSON JSON_EQUALS "check=PASS,unchecked_beyond_range=1")
  # The CLI's gemm refuses operands whose bytes pass 2^63 before allocating
  # them (m * k = 2^61 + 4 wrapped the allocation's size).
  tessera_cli_test(gemm_operands_too_large ARGS gemm --m 1263665316 --k 1824726041 --n 1 --backend cpu EXIT 1
    STDERR "^tessera: size overflow: A of m = 1263665316, n = 1, k = 1824726041 is too large")
endif()
