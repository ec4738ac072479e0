# Tests of the tessera command-line tool: each runs the built CLI through
# tests/cli/run_cli.cmake, which checks the exit status, the output and, for
# --json, that stdout is one valid JSON object with the expected members.
if(TARGET tessera_cli)
  include(${CMAKE_CURRENT_LIST_DIR}/tessera_cli_test.cmake)

  # ---- help and version ------------------------------------------------------
  tessera_cli_test(help ARGS --help STDOUT "Usage: tessera COMMAND.*demo.*info.*convert.*gen.*spmv")
  tessera_cli_test(help_command ARGS help gen STDOUT "Usage: tessera gen KIND")
  foreach(command demo info convert gen spmv)
    tessera_cli_test(help_${command} ARGS ${command} --help STDOUT "^Usage: tessera ${command}")
  endforeach()
  tessera_cli_test(version ARGS --version
    STDOUT "^tessera ${PROJECT_VERSION} \\(library ${PROJECT_VERSION}\\)")

  # ---- demo --------------------------------------------------------------------
  # 64x64 grid: 4096 rows, 5*4096 - 4*64 = 20224 nonzeros.
  tessera_cli_test(demo_cpu ARGS demo --backend cpu --size 64 --repeat 20
    STDOUT "nnz +20224.*check .*: PASS")
  tessera_cli_test(demo_cpu_single ARGS demo --backend cpu --size 2^6 --precision single --repeat 20
    STDOUT "precision +single.*: PASS")
  tessera_cli_test(demo_json ARGS demo --backend cpu --size 32 --repeat 5 --json
    JSON JSON_EQUALS "command=demo,backend=cpu,rows=1024,nnz=4992,precision=double,repeat=5,check=PASS")

  # ---- gen, then info on the file -------------------------------------------------
  # 10x10 grid: 5*100 - 4*10 = 460 nonzeros, bandwidth 10.
  tessera_cli_test(gen_laplacian2d ARGS gen laplacian2d --nx 10 --ny 10 -o ${TESSERA_CLI_WORK}/lap10.mtx
    STDOUT "wrote .*lap10.mtx: 100 x 100, 460 entries" FIXTURES_SETUP cli_lap10)
  tessera_cli_test(info_laplacian2d ARGS info ${TESSERA_CLI_WORK}/lap10.mtx
    STDOUT "rows +100\ncols +100\nnnz stored +460\nnnz +460\n.*diagonal entries +100\nbandwidth +10\n"
    FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(info_json ARGS info ${TESSERA_CLI_WORK}/lap10.mtx --json
    JSON JSON_EQUALS "symmetry=general,nnz=460,stats.min_row=3,stats.max_row=5,stats.bandwidth=10,stats.pattern_symmetry=1"
    FIXTURES_REQUIRED cli_lap10)
  # 4x4x4 grid: 7*64 - 2*3*16 = 352 nonzeros.
  tessera_cli_test(gen_laplacian3d_json ARGS gen laplacian3d --nx 4 --json
    JSON JSON_EQUALS "kind=laplacian3d,rows=64,nnz=352,stats.diagonal=64,stats.max_row=7")
  # n = 100, 2 sub- and 2 super-diagonals: 500 - 2*(1+2) = 494 entries.
  tessera_cli_test(gen_banded_json ARGS gen banded --n 100 --lower 2 --upper 2 --seed 3 --json
    JSON JSON_EQUALS "rows=100,nnz=494,stats.bandwidth=2,stats.empty_rows=0")
  tessera_cli_test(gen_random_json ARGS gen random --rows 1e2 --cols 50 --per-row 5 --json
    JSON JSON_EQUALS "rows=100,cols=50,nnz=500,stats.min_row=5,stats.max_row=5")
  tessera_cli_test(gen_powerlaw ARGS gen powerlaw --rows 1000 --nnz 8000 --exponent 0.8 --json
    JSON JSON_EQUALS "rows=1000,cols=1000,stats.empty_rows=0")
  tessera_cli_test(gen_rmat ARGS gen rmat --scale 10 --edge-factor 8 --json
    JSON JSON_EQUALS "rows=1024,cols=1024,stats.pattern_symmetry=1")
  if(TESSERA_HAVE_AMD)
    set(cli_fill_available ON)
  else()
    set(cli_fill_available OFF)
  endif()
  tessera_cli_test(gen_circuit_fill ARGS gen circuit --n 2000 --fill --json
    JSON JSON_EQUALS "rows=2000,cols=2000,fill.available=${cli_fill_available}")
  tessera_cli_test(gen_write_gzip ARGS gen random --rows 300 --per-row 4 -o ${TESSERA_CLI_WORK}/random300.mtx.gz --stats
    STDOUT "wrote .*random300.mtx.gz: 300 x 300, 1200 entries.*\nnnz +1200\n")

  # ---- convert -------------------------------------------------------------------
  foreach(precision double single)
    add_test(NAME cli_convert_roundtrip_${precision}
      COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:tessera_cli> -DWORK_DIR=${TESSERA_CLI_WORK}
              -DPRECISION=${precision} -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/roundtrip.cmake)
    set_tests_properties(cli_convert_roundtrip_${precision} PROPERTIES LABELS cpu TIMEOUT 300)
  endforeach()

  # ---- the corpus (tests/data/corpus, in the repository) -------------------------------
  set(corpus ${TESSERA_TEST_CORPUS_DIR})
  # bcsstk13: symmetric, 42943 entries stored, 83883 once both triangles are there.
  tessera_cli_test(info_corpus_symmetric ARGS info ${corpus}/bcsstk13.mtx
    STDOUT "header +coordinate real symmetric\n.*nnz stored +42943\nnnz expanded +83883 .*value symmetry +1\\.0+\n")
  tessera_cli_test(spmv_corpus_symmetric ARGS spmv ${corpus}/bcsstk13.mtx --backend cpu --repeat 3
    STDOUT "nnz +83883\n.*check .*: PASS")
  tessera_cli_test(spmv_corpus_general_single ARGS spmv ${corpus}/add20.mtx --backend cpu --precision single
    --repeat 3 --json JSON JSON_EQUALS "rows=2395,nnz=17319,precision=single,check=PASS")
  tessera_cli_test(spmv_corpus_pattern ARGS spmv ${corpus}/karate.mtx --backend cpu --repeat 3
    STDOUT "nnz +156\n.*: PASS")
  tessera_cli_test(spmv_corpus_empty ARGS spmv ${corpus}/lagraph_empty_3x4.mtx --backend cpu --repeat 1
    STDOUT "rows +3\ncols +4\nnnz +0\n.*: PASS")
  tessera_cli_test(convert_corpus_expand ARGS convert ${corpus}/bcsstk13.mtx
    ${TESSERA_CLI_WORK}/bcsstk13_general.mtx --expand-symmetric
    STDOUT "2003 x 2003, 83883 entries, coordinate real general")

  # ---- errors ------------------------------------------------------------------------
  tessera_cli_test(no_command EXIT 2 STDERR "^tessera: missing COMMAND \\(see 'tessera --help'\\)\n$" STDOUT_EMPTY)
  tessera_cli_test(unknown_command ARGS frobnicate EXIT 2 STDERR "unknown command 'frobnicate'" STDOUT_EMPTY)
  tessera_cli_test(unknown_option ARGS demo --sise 3 EXIT 2 STDERR "tessera demo: unknown option '--sise'"
    STDOUT_EMPTY)
  tessera_cli_test(missing_value ARGS demo --size EXIT 2 STDERR "option --size needs a value" STDOUT_EMPTY)
  tessera_cli_test(invalid_number ARGS demo --size 12abc EXIT 2 STDERR "invalid value '12abc' for --size"
    STDOUT_EMPTY)
  tessera_cli_test(out_of_range ARGS demo --size 0 EXIT 2 STDERR "--size 0 is out of range" STDOUT_EMPTY)
  tessera_cli_test(invalid_choice ARGS spmv x.mtx --backend gpu EXIT 2
    STDERR "invalid value 'gpu' for --backend: expected one of auto, cpu, cuda" STDOUT_EMPTY)
  tessera_cli_test(missing_file_argument ARGS info EXIT 2 STDERR "tessera info: missing FILE" STDOUT_EMPTY)
  tessera_cli_test(missing_output_argument ARGS convert a.mtx EXIT 2 STDERR "tessera convert: missing OUT"
    STDOUT_EMPTY)
  tessera_cli_test(gen_unknown_kind ARGS gen hexagonal EXIT 2 STDERR "unknown KIND 'hexagonal'" STDOUT_EMPTY)
  tessera_cli_test(gen_foreign_option ARGS gen laplacian2d --lower 3 EXIT 2
    STDERR "option --lower does not apply to laplacian2d" STDOUT_EMPTY)
  tessera_cli_test(gen_rmat_probabilities ARGS gen rmat --a 0.7 --b 0.2 --c 0.2 EXIT 2
    STDERR "must be at most 1" STDOUT_EMPTY)
  tessera_cli_test(missing_file ARGS info ${TESSERA_CLI_WORK}/no_such_matrix.mtx EXIT 1
    STDERR "^tessera: input/output error: .*no_such_matrix.mtx" STDOUT_EMPTY)
  tessera_cli_test(malformed_file ARGS info ${CMAKE_CURRENT_SOURCE_DIR}/cli/bad_column.mtx EXIT 1
    STDERR "^tessera: parse error: .*bad_column.mtx:5: .*column" STDOUT_EMPTY)
  # Complex files: only solve takes them; the others say so in the CLI's terms.
  file(WRITE ${TESSERA_CLI_WORK}/complex2.mtx "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 2 0\n2 1 1 1\n")
  foreach(command info spmv spmm spgemm bfs convert)
    set(out)
    if(command STREQUAL "convert")
      set(out ${TESSERA_CLI_WORK}/complex2_converted.mtx)
    endif()
    tessera_cli_test(complex_refused_${command} ARGS ${command} ${TESSERA_CLI_WORK}/complex2.mtx ${out} EXIT 1
      STDERR "^tessera: unsupported: .*complex2.mtx holds complex values: this command takes real, integer and pattern matrices \\('tessera solve' takes complex systems\\)"
      STDOUT_EMPTY)
  endforeach()
  tessera_cli_test(search_int32_too_many_keys ARGS search --keys 2^31 --index int32 EXIT 2
    STDERR "--index int32 cannot number 2147483648 keys" STDOUT_EMPTY)
  tessera_cli_test(json_error_keeps_stdout_empty ARGS spmv ${TESSERA_CLI_WORK}/no_such_matrix.mtx --json EXIT 1
    STDERR "^tessera: input/output error" STDOUT_EMPTY)
  # Forcing the CUDA backend where no GPU is usable must fail clearly. On a
  # machine with a GPU this test is skipped (it cannot observe the failure).
  tessera_cli_test(cuda_without_gpu ARGS demo --backend cuda --size 8 EXIT 1
    STDERR "^tessera: no usable CUDA device: " STDOUT_EMPTY SKIP_IF_GPU)
  # --backend auto without a GPU runs on the CPU and says why (the library's
  # ts_context_fallback_reason), in text and JSON; sort, search, gemm and
  # solve print the same line.
  tessera_cli_test(demo_fallback_reason ARGS demo --size 8 --repeat 2
    STDOUT "^backend +cpu \\([0-9]+ threads?\\)\nno GPU +[^\n]+; the CPU backend runs instead\n" SKIP_IF_GPU)
  tessera_cli_test(demo_fallback_reason_json ARGS demo --size 8 --repeat 2 --json JSON
    STDOUT "\"fallback_reason\": \"[^\"]+\"" JSON_EQUALS "backend=cpu" SKIP_IF_GPU)
  tessera_cli_test(sort_fallback_reason ARGS sort --n 100 --repeat 1
    STDOUT "\nno GPU +[^\n]+; the CPU backend runs instead\n" SKIP_IF_GPU)
  tessera_cli_test(demo_cpu_asked_no_reason ARGS demo --backend cpu --size 8 --repeat 2 --json JSON
    STDOUT "\"fallback_reason\": null")
endif()
