# Tests of `tessera spmv` with schedules and the transpose, and of the
# schedule lines of `tessera demo`. Most runs use --backend auto: the CPU
# where no GPU is usable (its one implementation; the schedule is recorded
# and said to be unused), the GPU on a machine with one (where every
# schedule's kernel runs). The tables of --schedule all need a GPU; on the
# CPU backend --schedule all runs once and says why.
if(TARGET tessera_cli)
  include(${CMAKE_CURRENT_LIST_DIR}/tessera_cli_test.cmake)

  # A 50 x 80 matrix with 6 entries per row (300 entries): y = A^T*x has 80 entries.
  tessera_cli_test(gen_random_50x80 ARGS gen random --rows 50 --cols 80 --per-row 6 --seed 4
    -o ${TESSERA_CLI_WORK}/random50x80.mtx STDOUT "50 x 80, 300 entries" FIXTURES_SETUP cli_random50x80)

  # The 10x10 Laplacian of cli_tests.cmake (100 rows, 460 entries, rows of 3 to 5):
  # tiny, so AUTO takes the single-launch thread-mapped schedule.
  tessera_cli_test(spmv_auto_reason ARGS spmv ${TESSERA_CLI_WORK}/lap10.mtx --repeat 2
    STDOUT "operation +y = A\\*x\nschedule +split-rows, 1 thread a short row \\(chosen by auto[^\n]*\nreason +auto: split-rows for A: 100 rows, 100 cols, 460 nnz, mean row 4.6, max row 5, cv [0-9.]+: nnz < 50000 and max row <= 32 .*check .*: PASS"
    FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(spmv_schedule_all ARGS spmv ${TESSERA_CLI_WORK}/lap10.mtx --schedule all --repeat 2 GPU_ONLY
    STDOUT "\nthread-mapped +thread-mapped +[0-9.]+ +[0-9.]+ +[0-9.e+-]+ +PASS\nwarp-mapped +warp-mapped .* PASS\nblock-mapped +block-mapped .* PASS\ngroup-mapped +group-mapped, group size 32 .* PASS\nmerge-path +merge-path .* PASS\nwork-oriented +work-oriented .* PASS\nsplit-rows +split-rows, 1 thread a short row .* PASS\nauto +split-rows, 1 thread a short row \\(chosen by auto\\) .* PASS\n\nreason +auto: split-rows for A"
    FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(spmv_schedule_all_json ARGS spmv ${TESSERA_CLI_WORK}/lap10.mtx --schedule all --group-size 4
    --repeat 2 --json JSON GPU_ONLY
    JSON_EQUALS "operation=none,schedules.group-mapped.group_size=4,schedules.merge-path.schedule=merge-path,schedules.auto.schedule=split-rows,schedules.auto.group_size=4,schedules.auto.schedule_requested=auto,schedules.work-oriented.check=PASS,check=PASS"
    FIXTURES_REQUIRED cli_lap10)
  # The CPU backend: one implementation, so --schedule all runs once and says
  # so, in text and JSON, and a schedule is said to be recorded, not used.
  tessera_cli_test(spmv_schedule_all_cpu ARGS spmv ${TESSERA_CLI_WORK}/lap10.mtx --backend cpu --schedule all
    --repeat 2
    STDOUT "operation +y = A\\*x\nschedule +all requested; the CPU backend has one SpMV implementation, so it ran once\ntime per call [^\n]*\nbandwidth [^\n]*\ncheck [^\n]*: PASS\n$"
    FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(spmv_schedule_all_cpu_json ARGS spmv ${TESSERA_CLI_WORK}/lap10.mtx --backend cpu --schedule all
    --repeat 2 --json JSON JSON_EQUALS "backend=cpu,schedule_requested=all,schedule_used=OFF,check=PASS"
    FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(spmv_schedule_recorded_cpu ARGS spmv ${TESSERA_CLI_WORK}/lap10.mtx --backend cpu --schedule warp
    --repeat 2
    STDOUT "schedule +warp-mapped \\(recorded, not used: the CPU backend has one SpMV implementation\\)\nreason +requested: warp-mapped"
    FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(spmv_split_threads ARGS spmv ${TESSERA_CLI_WORK}/lap10.mtx --schedule split --group-size 4
    --repeat 2 STDOUT "schedule +split-rows, 4 threads a short row[^\n]*\nreason +requested: split-rows, threads a short row 4 for A .*: PASS"
    FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(spmv_group_size ARGS spmv ${TESSERA_CLI_WORK}/lap10.mtx --schedule group --group-size 256 --repeat 2
    STDOUT "schedule +group-mapped, group size 256[^\n]*\nreason +requested: group-mapped, group size 256 for A .*: PASS"
    FIXTURES_REQUIRED cli_lap10)
  tessera_cli_test(spmv_transpose ARGS spmv ${TESSERA_CLI_WORK}/random50x80.mtx --transpose --schedule merge-path
    --repeat 2 STDOUT "rows +50\ncols +80\n.*operation +y = A\\^T\\*x\nschedule +merge-path[^\n]*\nreason +requested: merge-path for A\\^T \\(80 rows, 50 cols, 300 nnz.*: PASS"
    FIXTURES_REQUIRED cli_random50x80)
  tessera_cli_test(spmv_transpose_all_json ARGS spmv ${TESSERA_CLI_WORK}/random50x80.mtx --transpose --schedule all
    --precision single --repeat 2 --json JSON GPU_ONLY
    JSON_EQUALS "operation=transpose,rows=50,cols=80,nnz=300,schedules.thread-mapped.check=PASS,schedules.block-mapped.check=PASS,check=PASS"
    FIXTURES_REQUIRED cli_random50x80)
  # arrow (tests/data/corpus): a dense first row and column (46500 entries) in 139498: skewed
  # rows, for A and A^T.
  tessera_cli_test(spmv_corpus_skewed_all ARGS spmv ${TESSERA_TEST_CORPUS_DIR}/arrow.mtx --schedule all --transpose
    --repeat 2 --json JSON GPU_ONLY JSON_EQUALS "schedules.auto.schedule=split-rows,check=PASS")
  tessera_cli_test(spmv_corpus_skewed_auto ARGS spmv ${TESSERA_TEST_CORPUS_DIR}/arrow.mtx --transpose --repeat 2
    STDOUT "schedule +split-rows[^\n]*\\(chosen by auto[^\n]*\nreason +auto: split-rows for A\\^T: 46500 rows, 46500 cols, 139498 nnz, [^\n]*max row 46500[^\n]*\\(skewed rows\\)\n.*check .*: PASS")

  # ---- demo names AUTO's choice ---------------------------------------------------
  # 128x128 grid: 81408 nonzeros of rows 3 to 5: short regular rows.
  tessera_cli_test(demo_schedule ARGS demo --size 128 --repeat 5
    STDOUT "schedule +[a-z-]+[a-z,0-9 ]* \\(chosen by auto[^\n]*\nreason +auto: .* 81408 nnz, .*\\(short regular rows\\)")
  tessera_cli_test(demo_schedule_json ARGS demo --size 32 --repeat 5 --json JSON
    JSON_EQUALS "schedule_requested=auto,operation=none,check=PASS")

  # ---- errors --------------------------------------------------------------------------
  tessera_cli_test(spmv_bad_schedule ARGS spmv x.mtx --schedule fastest EXIT 2
    STDERR "invalid value 'fastest' for --schedule: expected one of auto, thread, warp, block, group, merge-path, work, split, all"
    STDOUT_EMPTY)
  tessera_cli_test(spmv_group_size_not_power ARGS spmv x.mtx --group-size 48 EXIT 2
    STDERR "--group-size 48 is not a power of two" STDOUT_EMPTY)
  tessera_cli_test(spmv_group_size_range ARGS spmv x.mtx --group-size 2048 EXIT 2
    STDERR "--group-size 2048 is out of range" STDOUT_EMPTY)
  tessera_cli_test(spmv_group_size_foreign ARGS spmv x.mtx --schedule warp --group-size 32 EXIT 2
    STDERR "--group-size applies to --schedule group or split \\(or auto, all\\), not warp" STDOUT_EMPTY)
  tessera_cli_test(spmv_group_size_split_range ARGS spmv x.mtx --schedule split --group-size 16 EXIT 2
    STDERR "--group-size 16: split takes 1, 2, 4 or 8 threads a short row" STDOUT_EMPTY)
endif()
