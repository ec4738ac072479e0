# Tests of `tessera model`: the committed H200 calibration reads back and
# prints, a malformed file is refused with its line, and the SpMV ranking runs
# on a small matrix (the ranking's figures are the model's, checked in
# tests/test_model.c; here the command's report).
if(TARGET tessera_cli)
  include(${CMAKE_CURRENT_LIST_DIR}/tessera_cli_test.cmake)

  tessera_cli_test(model_show_h200 ARGS model show ${PROJECT_SOURCE_DIR}/data/model/h200.json
    STDOUT "device +NVIDIA H200 .*\nDRAM latency +[0-9.]+ ns\nL2 latency +[0-9.]+ ns")
  tessera_cli_test(model_show_bad_number ARGS model show ${CMAKE_CURRENT_SOURCE_DIR}/data/model/bad-number.json
    EXIT 1 STDERR "bad-number.json:2: expected a number")
  tessera_cli_test(model_show_missing ARGS model show ${TESSERA_CLI_WORK}/no-such-model.json
    EXIT 1 STDERR "cannot open .*no-such-model.json")
  tessera_cli_test(model_predict_spmv ARGS model predict --params ${PROJECT_SOURCE_DIR}/data/model/h200.json
    --spmv ${TESSERA_CLI_WORK}/random50x80.mtx
    STDOUT "random50x80.mtx: 50 rows, 80 cols, 300 nnz.*\nrank +schedule +predicted\n +1 +[a-z-]+ +[0-9.]+ us +\\(model's pick\\)"
    FIXTURES_REQUIRED cli_random50x80)
endif()
