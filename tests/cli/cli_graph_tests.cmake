# Tests of `tessera bfs` and `tessera sssp`: a graph worked by hand (levels,
# parents, distances and predecessors known), the table written to standard
# output, --json, a symmetric file read as undirected, and refused inputs.
# Most runs use --backend auto (the CPU where no GPU is usable); the GPU_ONLY
# runs compare the GPU's result with the CPU backend's.
if(TARGET tessera_cli)
  include(${CMAKE_CURRENT_LIST_DIR}/tessera_cli_test.cmake)

  # 0 -> 2 (1), 0 -> 1 (4), 2 -> 3 (2), 1 -> 3 (1), 3 -> 4 (0.5), 4 -> 0 (1); 5 alone.
  # BFS from 0: levels 0 1 1 2 3 -1, parents 0 0 0 1 3 -1 (3's smaller parent is 1).
  # SSSP from 0: distances 0 4 1 3 3.5 inf, predecessors 0 0 0 2 3 -1.
  set(graph ${TESSERA_CLI_WORK}/hand_graph.mtx)
  file(WRITE ${graph} "%%MatrixMarket matrix coordinate real general\n6 6 6\n1 3 1\n1 2 4\n3 4 2\n2 4 1\n4 5 0.5\n5 1 1\n")
  set(path4 ${TESSERA_CLI_WORK}/path4_symmetric.mtx)
  file(WRITE ${path4} "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n3 2\n4 3\n")
  set(negative ${TESSERA_CLI_WORK}/negative_weight.mtx)
  file(WRITE ${negative} "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 3 -1\n")

  tessera_cli_test(bfs_hand ARGS bfs ${graph}
    STDOUT "source +0\nreached +5 vertices, 6 out-edges\nlevels +4 \\([0-9]+ top-down, [0-9]+ bottom-up\\).*check +PASS")
  tessera_cli_test(bfs_hand_table ARGS bfs ${graph} --output - --quiet
    STDOUT "^% vertex level parent\n0 0 0\n1 1 0\n2 1 0\n3 2 1\n4 3 3\n5 -1 -1\n$" STDERR "check +PASS")
  tessera_cli_test(bfs_hand_json ARGS bfs ${graph} --source 4 --json JSON
    JSON_EQUALS "source=4,reached=5,levels=4,direction=directed,check=PASS")
  tessera_cli_test(sssp_hand ARGS sssp ${graph}
    STDOUT "reached +5 vertices, 6 out-edges\nfarthest +4 \\(the largest finite distance\\).*check +PASS")
  tessera_cli_test(sssp_hand_table ARGS sssp ${graph} --output - --quiet --precision single
    STDOUT "^% vertex predecessor distance\n0 0 0\n1 0 4\n2 0 1\n3 2 3\n4 3 3.5\n5 -1 inf\n$" STDERR "check +PASS")
  tessera_cli_test(sssp_hand_json ARGS sssp ${graph} --json --delta 0.25 JSON
    JSON_EQUALS "reached=5,farthest=4,tree_levels=4,precision=double,check=PASS")
  # One triangle stored: an undirected path 0 - 1 - 2 - 3 (pattern entries weigh 1).
  tessera_cli_test(bfs_symmetric_file ARGS bfs ${path4} --source 3 --json JSON
    JSON_EQUALS "direction=undirected,edges=6,reached=4,levels=4,check=PASS")
  tessera_cli_test(sssp_symmetric_file ARGS sssp ${path4} --source 1 --json JSON
    JSON_EQUALS "direction=undirected,reached=4,farthest=2,check=PASS")

  # Refused: a source that is no vertex, a negative weight, an undirected
  # claim that the file does not keep, a bad schedule, an output naming the input.
  tessera_cli_test(bfs_bad_source ARGS bfs ${graph} --source 9 EXIT 1 STDERR "source 9 is not a vertex")
  tessera_cli_test(sssp_negative_weight ARGS sssp ${negative} EXIT 1 STDERR "edge 1 -> 2 .*weighs -1")
  tessera_cli_test(bfs_not_undirected ARGS bfs ${graph} --undirected EXIT 1 STDERR "undirected graph: edge 0 -> 1")
  tessera_cli_test(bfs_bad_schedule ARGS bfs ${graph} --schedule merge-path EXIT 2 STDERR "schedule")
  tessera_cli_test(sssp_bad_group ARGS sssp ${graph} --schedule warp --group-size 16 EXIT 1
    STDERR "4, 8 or 32 threads a vertex")
  tessera_cli_test(bfs_output_is_input ARGS bfs ${graph} --output ${graph} EXIT 2)

  # On the GPU: the result equal to the CPU backend's (and a tree).
  tessera_cli_test(gen_rmat_graph ARGS gen rmat --scale 12 --edge-factor 8 -o ${TESSERA_CLI_WORK}/rmat12.mtx --quiet
    FIXTURES_SETUP cli_rmat12)
  tessera_cli_test(bfs_gpu ARGS bfs ${TESSERA_CLI_WORK}/rmat12.mtx --undirected --backend cuda --json JSON GPU_ONLY
    JSON_EQUALS "backend=cuda,check=PASS" FIXTURES_REQUIRED cli_rmat12)
  tessera_cli_test(sssp_gpu ARGS sssp ${TESSERA_CLI_WORK}/rmat12.mtx --undirected --backend cuda --precision single
    --json JSON GPU_ONLY JSON_EQUALS "backend=cuda,check=PASS" FIXTURES_REQUIRED cli_rmat12)
endif()
