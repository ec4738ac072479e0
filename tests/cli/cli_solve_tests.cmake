# Tests of `tessera solve`.
if(TARGET tessera_cli)
  include(${CMAKE_CURRENT_LIST_DIR}/tessera_cli_test.cmake)
  set(TESSERA_SOLVE_ORDERING)
  if(NOT TESSERA_HAVE_AMD)
    set(TESSERA_SOLVE_ORDERING --ordering natural)
  endif()
  function(tessera_cli_skipped name why)
    add_test(NAME cli_${name} COMMAND ${CMAKE_COMMAND} -E echo "SKIP: ${why}")
    set_tests_properties(cli_${name} PROPERTIES LABELS cpu SKIP_REGULAR_EXPRESSION "SKIP:")
  endfunction()
  tessera_cli_test(help_solve ARGS solve --help STDOUT "^Usage: tessera solve")
  # A generated circuit matrix written to a file, then solved (b = A * ones).
  tessera_cli_test(gen_circuit_3000 ARGS gen circuit --n 3000 --seed 2 -o ${TESSERA_CLI_WORK}/circuit3000.mtx
    STDOUT "3000 x 3000" FIXTURES_SETUP cli_circuit3000)
  tessera_cli_test(solve_circuit ARGS solve ${TESSERA_CLI_WORK}/circuit3000.mtx --backend cpu ${TESSERA_SOLVE_ORDERING}
    STDOUT "^file .*\nn +3000\n.*backend +cpu\n.*levels +[0-9]+\n.*perturbed pivots +0\n.*backward error +[0-9.]+e-1[5-9]\nx \\(first entries\\) +1 1 1\n"
    FIXTURES_REQUIRED cli_circuit3000)
  if(TESSERA_HAVE_COLAMD)
    tessera_cli_test(solve_circuit_json ARGS solve ${TESSERA_CLI_WORK}/circuit3000.mtx --ordering colamd --json
      JSON JSON_EQUALS "command=solve,n=3000,nnz_a=15233,ordering=colamd,matching=ON,factor_precision=double,perturbed_pivots=0,symbolic_backend=cpu,levelize_backend=cpu"
      FIXTURES_REQUIRED cli_circuit3000)
  else()
    tessera_cli_skipped(solve_circuit_json "tessera solve --ordering colamd: built without SuiteSparse COLAMD")
  endif()
  if(TESSERA_HAVE_METIS)
    tessera_cli_test(solve_circuit_nested_dissection ARGS solve ${TESSERA_CLI_WORK}/circuit3000.mtx --ordering nd
      --backend cpu --json JSON JSON_EQUALS "command=solve,n=3000,ordering=nd,perturbed_pivots=0"
      FIXTURES_REQUIRED cli_circuit3000)
  else()
    tessera_cli_test(solve_nested_dissection_unavailable ARGS solve ${TESSERA_CLI_WORK}/circuit3000.mtx --ordering nd
      EXIT 1 STDERR "nested dissection ordering needs METIS" FIXTURES_REQUIRED cli_circuit3000)
  endif()
  if(NOT TESSERA_HAVE_AMD)
    tessera_cli_test(solve_amd_unavailable ARGS solve ${TESSERA_CLI_WORK}/circuit3000.mtx EXIT 1
      STDERR "the AMD ordering needs SuiteSparse AMD.*TS_LU_ORDER_NATURAL" FIXTURES_REQUIRED cli_circuit3000)
  endif()
  # The 10x10 Laplacian of cli_tests.cmake, natural order, float factors, A^T.
  tessera_cli_test(solve_single_transpose ARGS solve ${TESSERA_CLI_WORK}/lap10.mtx --precision single
    --ordering natural --no-matching --transpose
    STDOUT "rhs +A\\^T \\* ones\n.*factor precision +single.*operation +A\\^T x = b.*refinement steps +[1-9].*backward error +[0-9.]+e-1[5-9]"
    FIXTURES_REQUIRED cli_lap10)
  # A right-hand side from a file: A = [2 1 0; 0 3 1; 1 0 4], b = (1, -1, 9), x = (1, -1, 2).
  file(WRITE ${TESSERA_CLI_WORK}/hand3.mtx "%%MatrixMarket matrix coordinate real general\n3 3 6\n1 1 2\n1 2 1\n2 2 3\n2 3 1\n3 1 1\n3 3 4\n")
  file(WRITE ${TESSERA_CLI_WORK}/hand3_b.mtx "%%MatrixMarket matrix array real general\n3 1\n1\n-1\n9\n")
  tessera_cli_test(solve_rhs_file ARGS solve ${TESSERA_CLI_WORK}/hand3.mtx ${TESSERA_CLI_WORK}/hand3_b.mtx
    ${TESSERA_SOLVE_ORDERING}
    -o ${TESSERA_CLI_WORK}/hand3_x.mtx STDOUT "rhs +.*hand3_b.mtx \\(1 column\\).*x \\(first entries\\) +1 -1 2\n")
  tessera_cli_test(solve_rhs_wrong_size ARGS solve ${TESSERA_CLI_WORK}/circuit3000.mtx ${TESSERA_CLI_WORK}/hand3_b.mtx
    EXIT 1 STDERR "hand3_b.mtx is 3 x 1; a right-hand side needs 3000 rows" FIXTURES_REQUIRED cli_circuit3000)
  tessera_cli_test(solve_usage ARGS solve EXIT 2 STDERR "tessera solve: missing A")
  tessera_cli_test(solve_bad_refine ARGS solve x.mtx --refine -2 EXIT 2 STDERR "--refine")
  tessera_cli_test(solve_missing_file ARGS solve ${TESSERA_CLI_WORK}/no_such_matrix.mtx EXIT 1
    STDERR "tessera: .*no_such_matrix.mtx")
  tessera_cli_test(solve_no_gpu ARGS solve ${TESSERA_CLI_WORK}/circuit3000.mtx --backend cuda EXIT 1
    STDERR "tessera: no usable CUDA device" SKIP_IF_GPU FIXTURES_REQUIRED cli_circuit3000)
  tessera_cli_test(solve_symbolic_no_gpu ARGS solve ${TESSERA_CLI_WORK}/circuit3000.mtx --symbolic-backend cuda
    EXIT 1 STDERR "symbolic factorization on the GPU needs a CUDA context" SKIP_IF_GPU
    FIXTURES_REQUIRED cli_circuit3000)
  tessera_cli_test(solve_bad_budget ARGS solve x.mtx --symbolic-budget 0 EXIT 2 STDERR "--symbolic-budget 0 is out of range")
  # On a GPU: the symbolic phase out of core in many chunks of a 64 KiB
  # budget and the levels by the cooperative kernel, the same solution.
  tessera_cli_test(solve_gpu_analysis ARGS solve ${TESSERA_CLI_WORK}/circuit3000.mtx ${TESSERA_SOLVE_ORDERING}
    --symbolic-backend cuda --symbolic-budget 65536 --levelize-backend cuda
    STDOUT "backend +cuda \\(factorization and solves on the (GPU|host); symbolic factorization on the GPU, levels on the GPU;.*symbolic chunks +([2-9]|[1-9][0-9]+)\n.*backward error +[0-9.]+e-1[5-9]\nx \\(first entries\\) +1 1 1\n"
    GPU_ONLY FIXTURES_REQUIRED cli_circuit3000)
  # From the corpus in the repository (tests/data/corpus).
  # add20: a real circuit matrix (2395 rows, 17319 entries); in the natural
  # order it fills to 4 M entries (seconds of factorization), so it needs AMD.
  if(TESSERA_HAVE_AMD)
    tessera_cli_test(solve_add20 ARGS solve ${TESSERA_TEST_CORPUS_DIR}/add20.mtx
      STDOUT "n +2395\nnnz\\(A\\) +17319\n.*backward error +[0-9.]+e-1[5-9]")
  else()
    tessera_cli_skipped(solve_add20 "tessera solve on add20: built without SuiteSparse AMD")
  endif()
  # klu_two_2x2 is structurally singular: exit 1 with the library's message.
  tessera_cli_test(solve_structurally_singular ARGS solve ${TESSERA_TEST_CORPUS_DIR}/klu_two_2x2.mtx EXIT 1
    STDERR "tessera: structurally singular.*rank 1")
  # The singularity policy on the command line. gent113, dwt_992 and
  # chesapeake are pattern files (every value 1, as KLU reads them) that KLU
  # reports singular: exit 1 with one line naming the column as the file
  # numbers it (from 1) and the condition estimate.
  foreach(singular gent113 dwt_992 chesapeake)
    tessera_cli_test(solve_singular_${singular} ARGS solve ${TESSERA_TEST_CORPUS_DIR}/${singular}.mtx --backend cpu
      ${TESSERA_SOLVE_ORDERING} EXIT 1
      STDERR "^tessera: numerically singular: [^\n]*column [1-9][0-9]* \\(from 1\\)[^\n]*; condition estimate [0-9.]+e[+-][0-9]+\n$")
  endforeach()
  # The same verdict where the factorization runs on the GPU.
  tessera_cli_test(solve_singular_gpu ARGS solve ${TESSERA_TEST_CORPUS_DIR}/gent113.mtx --backend cuda
    ${TESSERA_SOLVE_ORDERING} EXIT 1
    STDERR "^tessera: numerically singular: [^\n]*column [1-9][0-9]* \\(from 1\\)[^\n]*; condition estimate [0-9.]+e[+-][0-9]+\n$"
    GPU_ONLY)
  # --json: the verdict as a JSON object on stdout (column from 1, the
  # estimate, the perturbed pivots), the same one line on stderr.
  tessera_cli_test(solve_singular_json ARGS solve ${TESSERA_TEST_CORPUS_DIR}/gent113.mtx --backend cpu --json
    ${TESSERA_SOLVE_ORDERING} EXIT 1 JSON JSON_EQUALS "command=solve,status=numerically singular"
    STDOUT "\"message\": \"[^\"]*column [1-9][0-9]* \\(from 1\\)[^\"]*\",\n *\"column\": [1-9][0-9]*,\n *\"condest\": [0-9.]+e\\+[0-9]+,\n *\"perturbed_pivots\": [1-9][0-9]*,\n *\"warning\": null\n}"
    STDERR "^tessera: numerically singular: .*condition estimate")
  # No perturbation: the factorization stops at the pivot, so there is no
  # estimate; still the column from 1.
  tessera_cli_test(solve_singular_no_perturbation ARGS solve ${TESSERA_TEST_CORPUS_DIR}/gent113.mtx --backend cpu
    --no-perturbation ${TESSERA_SOLVE_ORDERING} EXIT 1
    STDERR "^tessera: numerically singular: .*column [1-9][0-9]* \\(from 1\\).*perturbation is off.*no condition estimate")
  # Other failures give a JSON object too.
  tessera_cli_test(solve_structurally_singular_json ARGS solve ${TESSERA_TEST_CORPUS_DIR}/klu_two_2x2.mtx --json
    EXIT 1 JSON JSON_EQUALS "status=structurally singular,structural_rank=1"
    STDOUT "\"column\": null,"
    STDERR "tessera: structurally singular.*rank 1")
  tessera_cli_test(solve_missing_file_json ARGS solve ${TESSERA_CLI_WORK}/no_such_matrix.mtx --json EXIT 1
    JSON JSON_EQUALS "command=solve,status=input/output error"
    STDOUT "\"condest\": null," STDERR "no_such_matrix.mtx")
  # A usable result that deserves doubt exits 0 with a warning line on
  # stderr, carried by the JSON too. [0 1; 1 0] in its own order without
  # the matching: the zero pivot is perturbed, the solution (x = ones) stands.
  file(WRITE ${TESSERA_CLI_WORK}/swap2.mtx "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n2 1 1\n")
  tessera_cli_test(solve_perturbed_warning ARGS solve ${TESSERA_CLI_WORK}/swap2.mtx --no-matching --ordering natural
    STDOUT "perturbed pivots +1\n.*solution norm +1.00e\\+00.*x \\(first entries\\) +1 1\n"
    STDERR "^warning: 1 pivot was perturbed")
  tessera_cli_test(solve_perturbed_warning_json ARGS solve ${TESSERA_CLI_WORK}/swap2.mtx --no-matching
    --ordering natural --json JSON JSON_EQUALS "status=success,perturbed_pivots=1"
    STDOUT "\"warning\": \"1 pivot was perturbed")
  # diag(1, 1e-10): kappa_1 = 1e10 exactly, above 1/sqrt(eps) and below
  # 1/eps: a warning, exit 0.
  file(WRITE ${TESSERA_CLI_WORK}/diag_1e10.mtx "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1e-10\n")
  tessera_cli_test(solve_condition_warning ARGS solve ${TESSERA_CLI_WORK}/diag_1e10.mtx --json ${TESSERA_SOLVE_ORDERING}
    JSON JSON_EQUALS "status=success,perturbed_pivots=0,solution_norm=1"
    STDOUT "\"condest\": 1e\\+10,"
    STDERR "^warning: condition estimate 1.00e\\+10, above 1/sqrt\\(eps\\)")
  # Rows and columns in other units: a cancelling block (its static pivot
  # perturbed in the natural order) beside [1e-20 1; 0 1]. kappa_1(A) is
  # 3e20, beyond 1/eps; the scaled matrix's is small, so the factors stand,
  # and the warning and the JSON give both estimates.
  file(WRITE ${TESSERA_CLI_WORK}/units5.mtx "%%MatrixMarket matrix coordinate real general\n5 5 10\n1 1 1\n1 2 1\n"
    "2 1 1\n2 2 1\n2 3 1\n3 2 1\n3 3 1\n4 4 1e-20\n4 5 1\n5 5 1\n")
  tessera_cli_test(solve_units_warning ARGS solve ${TESSERA_CLI_WORK}/units5.mtx --ordering natural --pivoting static
    STDOUT "scaled condition +[1-9][.0-9]*e\\+0[0-9] .*x \\(first entries\\) +1 1 1"
    STDERR "^warning: 1 pivot was perturbed.*condition estimate [0-9.]+e\\+2[0-9], of the scaled matrix only")
  tessera_cli_test(solve_units_json ARGS solve ${TESSERA_CLI_WORK}/units5.mtx --ordering natural --json
    JSON JSON_EQUALS "status=success"
    STDOUT "\"scaled_condest\": [1-9][.0-9]*(e\\+0[0-9])?,")
  # A regular matrix: the report's estimates beside the backward error, no
  # warning. west0067: kappa_1 = 429 (dense LAPACK); the estimate, a lower
  # bound, within a factor of ten of it; x = ones.
  tessera_cli_test(solve_regular_report ARGS solve ${TESSERA_TEST_CORPUS_DIR}/west0067.mtx --backend cpu
    ${TESSERA_SOLVE_ORDERING} STDOUT "condition estimate +([4-9]\\.[0-9][0-9]e\\+01|[1-3]\\.[0-9][0-9]e\\+02|4\\.[0-2][0-9]e\\+02) .*\npivot growth +0?\\.[0-9]+ .*\nresidual norm +[0-9.]+e-1[3-9] .*\nsolution norm +1.00e\\+00 .*\nbackward error +[0-9.]+e-1[5-9]\n"
    STDERR "^$")
  tessera_cli_test(solve_regular_json ARGS solve ${TESSERA_TEST_CORPUS_DIR}/west0067.mtx --backend cpu --json
    ${TESSERA_SOLVE_ORDERING} JSON JSON_EQUALS "status=success,solution_norm=1,perturbed_pivots=0"
    STDOUT "\"warning\": null,")
  # Complex systems (field complex): A = [2+i 1 0; 0 3 1-i; i 0 4], x = (1, -1+i, 2i),
  # b = A x, A^T x and A^H x worked out by hand. A part that is zero in x may
  # print as a rounding error: tiny_re and tiny_im accept those.
  set(tiny_re "-?(0|[0-9.]+e-1[5-9])")
  set(tiny_im "[+-](0|[0-9.]+e-1[5-9])i")
  set(tiny_error "(0\\.00e\\+00|[0-9.]+e-1[6-9])")
  set(complex_x "x \\(first entries\\) +1${tiny_im} -1\\+1i ${tiny_re}\\+2i\n")
  file(WRITE ${TESSERA_CLI_WORK}/complex3.mtx "%%MatrixMarket matrix coordinate complex general\n3 3 6\n1 1 2 1\n1 2 1 0\n2 2 3 0\n2 3 1 -1\n3 1 0 1\n3 3 4 0\n")
  file(WRITE ${TESSERA_CLI_WORK}/complex3_b.mtx "%%MatrixMarket matrix array complex general\n3 1\n1 2\n-1 5\n0 9\n")
  file(WRITE ${TESSERA_CLI_WORK}/complex3_bt.mtx "%%MatrixMarket matrix array complex general\n3 1\n0 1\n-2 3\n0 10\n")
  file(WRITE ${TESSERA_CLI_WORK}/complex3_bh.mtx "%%MatrixMarket matrix array complex general\n3 1\n4 -1\n-2 3\n-2 8\n")
  tessera_cli_test(solve_complex_rhs_file ARGS solve ${TESSERA_CLI_WORK}/complex3.mtx ${TESSERA_CLI_WORK}/complex3_b.mtx
    ${TESSERA_SOLVE_ORDERING} -o ${TESSERA_CLI_WORK}/complex3_x.mtx
    STDOUT "values +complex\nrhs +.*complex3_b.mtx \\(1 column\\).*operation +A x = b\n.*perturbed pivots +0\n.*condition estimate +[0-9.]+e\\+0[0-9] .*\npivot growth +[0-9.]+ .*\nresidual norm +(0\\.00e\\+00|[0-9.]+e-1[5-9]) .*\nsolution norm +2.00e\\+00 .*\nbackward error +${tiny_error}\n${complex_x}"
    STDERR "^$")
  tessera_cli_test(solve_complex_transpose ARGS solve ${TESSERA_CLI_WORK}/complex3.mtx
    ${TESSERA_CLI_WORK}/complex3_bt.mtx ${TESSERA_SOLVE_ORDERING} --transpose --precision single
    STDOUT "factor precision +single\n.*operation +A\\^T x = b\n.*backward error +(0\\.00e\\+00|[0-9.]+e-1[5-9])\n${complex_x}")
  tessera_cli_test(solve_complex_conj_transpose ARGS solve ${TESSERA_CLI_WORK}/complex3.mtx
    ${TESSERA_CLI_WORK}/complex3_bh.mtx ${TESSERA_SOLVE_ORDERING} --conj-transpose
    STDOUT "operation +A\\^H x = b\n.*backward error +${tiny_error}\n${complex_x}")
  # b = A^H * ones computed in complex: x = ones.
  tessera_cli_test(solve_complex_conj_transpose_ones ARGS solve ${TESSERA_CLI_WORK}/complex3.mtx
    ${TESSERA_SOLVE_ORDERING} --conj-transpose
    STDOUT "rhs +A\\^H \\* ones\n.*x \\(first entries\\) +1${tiny_im} 1${tiny_im} 1${tiny_im}\n")
  tessera_cli_test(solve_complex_json ARGS solve ${TESSERA_CLI_WORK}/complex3.mtx ${TESSERA_SOLVE_ORDERING} --json
    JSON JSON_EQUALS "command=solve,values=complex,operation=none,status=success,perturbed_pivots=0,solution_norm=1,n=3,nnz_a=6"
    STDOUT "\"backward_error\": [0-9.]+e-1[6-9],.*\"condest\": [0-9.]+,.*\"rgrowth\": 0?\\.[0-9]+,.*\"warning\": null,")
  # Hermitian storage, expanded by the reader: [2 1-i; 1+i 3] stored as its
  # lower triangle; b = A * ones, x = ones.
  file(WRITE ${TESSERA_CLI_WORK}/hermitian2.mtx "%%MatrixMarket matrix coordinate complex hermitian\n2 2 3\n1 1 2 0\n2 1 1 1\n2 2 3 0\n")
  tessera_cli_test(solve_complex_hermitian ARGS solve ${TESSERA_CLI_WORK}/hermitian2.mtx ${TESSERA_SOLVE_ORDERING}
    STDOUT "nnz\\(A\\) +4\nvalues +complex\n.*backward error +${tiny_error}\nx \\(first entries\\) +1${tiny_im} 1${tiny_im}\n")
  # The complex factorization and solves on the GPU (forced: the system is
  # small), the same x.
  tessera_cli_test(solve_complex_gpu ARGS solve ${TESSERA_CLI_WORK}/complex3.mtx ${TESSERA_CLI_WORK}/complex3_b.mtx
    ${TESSERA_SOLVE_ORDERING} --backend cuda
    STDOUT "values +complex\n.*backend +cuda \\(factorization and solves on the GPU;.*backward error +(0\\.00e\\+00|[0-9.]+e-1[5-9])\n${complex_x}"
    GPU_ONLY)
  tessera_cli_test(solve_complex_gpu_conj_transpose ARGS solve ${TESSERA_CLI_WORK}/complex3.mtx
    ${TESSERA_CLI_WORK}/complex3_bh.mtx ${TESSERA_SOLVE_ORDERING} --backend cuda --conj-transpose
    STDOUT "backend +cuda \\(factorization and solves on the GPU;.*operation +A\\^H x = b\n.*${complex_x}" GPU_ONLY)
  tessera_cli_test(solve_both_transposes ARGS solve x.mtx --transpose --conj-transpose EXIT 2
    STDERR "--transpose and --conj-transpose exclude each other")
  # A real A with a complex b: the system is complex. hand3 with
  # x = (1+i, -1, 2-2i), b = A x.
  file(WRITE ${TESSERA_CLI_WORK}/hand3_bc.mtx "%%MatrixMarket matrix array complex general\n3 1\n1 2\n-1 -2\n9 -7\n")
  tessera_cli_test(solve_real_a_complex_b ARGS solve ${TESSERA_CLI_WORK}/hand3.mtx ${TESSERA_CLI_WORK}/hand3_bc.mtx
    ${TESSERA_SOLVE_ORDERING}
    STDOUT "values +complex \\(A real, B complex\\)\n.*x \\(first entries\\) +1\\+1i -1${tiny_im} 2-2i\n")
  # A complex A with a real b, (3, 1, 4): x from a dense complex solve
  # (LAPACK zgesv through NumPy), to the six digits printed.
  file(WRITE ${TESSERA_CLI_WORK}/real3_b.mtx "%%MatrixMarket matrix array real general\n3 1\n3\n1\n4\n")
  tessera_cli_test(solve_complex_a_real_b ARGS solve ${TESSERA_CLI_WORK}/complex3.mtx ${TESSERA_CLI_WORK}/real3_b.mtx
    ${TESSERA_SOLVE_ORDERING}
    STDOUT "values +complex\nrhs +.*real3_b.mtx \\(1 column, real\\).*x \\(first entries\\) +1.06801-0.715365i 0.148615\\+0.36272i 0.821159-0.267003i\n")
  # Rank-deficient complex matrices, structurally full: row 2 = i * row 1,
  # exactly in floating point; the singular status names a column from 1.
  file(WRITE ${TESSERA_CLI_WORK}/complex_singular3.mtx "%%MatrixMarket matrix coordinate complex general\n3 3 8\n1 1 1 1\n1 2 2 0\n1 3 1 0\n2 1 -1 1\n2 2 0 2\n2 3 0 1\n3 2 1 0\n3 3 3 0\n")
  tessera_cli_test(solve_complex_singular ARGS solve ${TESSERA_CLI_WORK}/complex_singular3.mtx --backend cpu
    ${TESSERA_SOLVE_ORDERING} EXIT 1
    STDERR "^tessera: numerically singular: [^\n]*column [1-3] \\(from 1\\)[^\n]*; condition estimate [0-9.]+e[+-][0-9]+\n$")
  tessera_cli_test(solve_complex_singular_json ARGS solve ${TESSERA_CLI_WORK}/complex_singular3.mtx --backend cpu --json
    ${TESSERA_SOLVE_ORDERING} EXIT 1 JSON JSON_EQUALS "command=solve,status=numerically singular"
    STDOUT "\"column\": [1-3],\n *\"condest\": [0-9.]+(e\\+[0-9]+)?,\n *\"perturbed_pivots\": [1-9][0-9]*,"
    STDERR "^tessera: numerically singular: .*column [1-3] \\(from 1\\)")
  tessera_cli_test(solve_complex_singular_no_perturbation ARGS solve ${TESSERA_CLI_WORK}/complex_singular3.mtx
    --backend cpu --no-perturbation ${TESSERA_SOLVE_ORDERING} EXIT 1
    STDERR "^tessera: numerically singular: .*column [1-3] \\(from 1\\).*perturbation is off.*no condition estimate")
  # [0 i; i 0] in its own order without the matching: the zero pivot is
  # perturbed, the solution (x = ones) stands with a warning.
  file(WRITE ${TESSERA_CLI_WORK}/swap2_complex.mtx "%%MatrixMarket matrix coordinate complex general\n2 2 2\n1 2 0 1\n2 1 0 1\n")
  tessera_cli_test(solve_complex_perturbed_warning ARGS solve ${TESSERA_CLI_WORK}/swap2_complex.mtx --no-matching
    --ordering natural STDOUT "perturbed pivots +1\n.*x \\(first entries\\) +1${tiny_im} 1${tiny_im}\n"
    STDERR "^warning: 1 pivot was perturbed")
  tessera_cli_test(solve_not_square ARGS solve ${TESSERA_TEST_CORPUS_DIR}/lp_afiro.mtx EXIT 1
    STDERR "not square")
endif()
