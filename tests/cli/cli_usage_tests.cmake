# Tests of the command line itself: a mistyped command, option, KIND or
# subcommand gets a "did you mean", an abbreviated long option is refused
# (getopt_long would take it), and every bad command line exits 2 with one
# line on stderr and nothing on stdout (run_cli.cmake checks the one line).
# Also --json on every command that `tessera --help` lists.
if(TARGET tessera_cli)
  include(${CMAKE_CURRENT_LIST_DIR}/tessera_cli_test.cmake)

  # ---- did you mean --------------------------------------------------------------
  tessera_cli_test(mistyped_command ARGS slove a.mtx EXIT 2 STDOUT_EMPTY
    STDERR "^tessera: unknown command 'slove'; did you mean 'solve'\\? \\(see 'tessera --help'\\)\n$")
  tessera_cli_test(mistyped_help_command ARGS help sprmv EXIT 2 STDOUT_EMPTY
    STDERR "^tessera: unknown command 'sprmv'; did you mean 'spmv'\\?")
  tessera_cli_test(unrelated_command ARGS frobnicate EXIT 2 STDOUT_EMPTY
    STDERR "^tessera: unknown command 'frobnicate' \\(see 'tessera --help'\\)\n$")
  tessera_cli_test(mistyped_option ARGS spmv a.mtx --schedle all EXIT 2 STDOUT_EMPTY
    STDERR "^tessera spmv: unknown option '--schedle'; did you mean --schedule\\?")
  tessera_cli_test(mistyped_option_with_value ARGS solve a.mtx --odering=amd EXIT 2 STDOUT_EMPTY
    STDERR "^tessera solve: unknown option '--odering'; did you mean --ordering\\?")
  tessera_cli_test(mistyped_general_option ARGS --verison EXIT 2 STDOUT_EMPTY
    STDERR "^tessera: unknown option '--verison'; did you mean --version\\?")
  tessera_cli_test(mistyped_gen_kind ARGS gen lapalcian2d EXIT 2 STDOUT_EMPTY
    STDERR "^tessera gen: unknown KIND 'lapalcian2d'; did you mean 'laplacian2d'\\?")
  tessera_cli_test(mistyped_model_subcommand ARGS model shwo x.json EXIT 2 STDOUT_EMPTY
    STDERR "^tessera model: unknown subcommand 'shwo'; did you mean 'show'\\?")

  # ---- integers written as decimals: accepted only when exact as written ------------
  tessera_cli_test(integer_scientific_exact ARGS gen random --rows 1.5e2 --cols 1.20e1 --per-row 2 --json
                   JSON JSON_EQUALS "rows=150,cols=12")
  tessera_cli_test(integer_inexact_decimal ARGS gen random --rows 1.00000000000000001 --per-row 1 EXIT 2 STDOUT_EMPTY)
  tessera_cli_test(integer_beyond_double ARGS gen random --rows 9007199254740993e0 --per-row 1 EXIT 2 STDOUT_EMPTY)
  tessera_cli_test(integer_fraction ARGS gen random --rows 2.5 --per-row 1 EXIT 2 STDOUT_EMPTY)

  # ---- abbreviations are refused ----------------------------------------------------
  tessera_cli_test(abbreviated_option ARGS demo --rep 3 EXIT 2 STDOUT_EMPTY
    STDERR "^tessera demo: option '--rep' is not written in full; did you mean --repeat\\?")
  tessera_cli_test(abbreviated_option_with_value ARGS sort --desc --n=10 EXIT 2 STDOUT_EMPTY
    STDERR "^tessera sort: option '--desc' is not written in full; did you mean --descending\\?")
  tessera_cli_test(abbreviated_help ARGS info --he EXIT 2 STDOUT_EMPTY
    STDERR "^tessera info: option '--he' is not written in full; did you mean --help\\?")
  # An exact name that is also the start of others (--n, --nnz, --nx) is itself.
  tessera_cli_test(exact_short_name ARGS gemm --n 8 --repeat 1 --backend cpu --json JSON JSON_EQUALS "m=8,n=8,k=8")

  # ---- other bad command lines ---------------------------------------------------------
  tessera_cli_test(flag_with_value ARGS demo --json=yes EXIT 2 STDOUT_EMPTY
    STDERR "^tessera demo: option --json takes no value")
  tessera_cli_test(unknown_short_option ARGS info -x a.mtx EXIT 2 STDOUT_EMPTY
    STDERR "^tessera info: unknown option '-x'")
  tessera_cli_test(extra_argument ARGS info a.mtx b.mtx EXIT 2 STDOUT_EMPTY
    STDERR "^tessera info: unexpected argument 'b.mtx'")
  tessera_cli_test(empty_text_value ARGS gen laplacian2d --output= EXIT 2 STDOUT_EMPTY
    STDERR "^tessera gen laplacian2d: option --output needs a non-empty value")
  tessera_cli_test(stdin_twice ARGS solve - - EXIT 2 STDOUT_EMPTY
    STDERR "^tessera solve: standard input \\('-'\\) can be read only once")
  tessera_cli_test(model_predict_json_stdin_twice ARGS model predict --params - --spmv - --json EXIT 2 STDOUT_EMPTY
    STDERR "^tessera model predict: standard input \\('-'\\) can be read only once")
  tessera_cli_test(version_extra ARGS --version now EXIT 2 STDOUT_EMPTY STDERR "^tessera: --version takes no argument")
  # Options after "--" are file names.
  tessera_cli_test(double_dash ARGS info -- --json EXIT 1 STDOUT_EMPTY STDERR "^tessera: .*--json")

  # ---- --json on every command ------------------------------------------------------------
  add_test(NAME cli_json_every_command
    COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:tessera_cli> -DWORK_DIR=${TESSERA_CLI_WORK}
            -DMODEL_PARAMS=${PROJECT_SOURCE_DIR}/data/model/h200.json
            -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/json_every_command.cmake)
  set_tests_properties(cli_json_every_command PROPERTIES LABELS cpu TIMEOUT 300)
  tessera_cli_test(model_predict_json ARGS model predict --params ${PROJECT_SOURCE_DIR}/data/model/h200.json
    --spmv ${TESSERA_CLI_WORK}/lap10.mtx --json JSON
    JSON_EQUALS "command=model predict,rows=100,nnz=460,model_device=NVIDIA H200" FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(gemm_list_json ARGS gemm --list --json JSON JSON_EQUALS "command=gemm")
endif()
