# Tests of `tessera sort`. --check compares the result bit for bit with a
# stable qsort of the same input on the host, independent of both backends.
# The runs use --backend auto: on a machine with a GPU they check the CUDA
# backend (its K-way merge passes); here the CPU backend's.
if(TARGET tessera_cli)
  include(${CMAKE_CURRENT_LIST_DIR}/tessera_cli_test.cmake)

  tessera_cli_test(sort_float_pairs_descending_json ARGS sort --n 5000 --type float --pairs --descending
    --backend auto --check --repeat 2 --json JSON
    JSON_EQUALS "command=sort,n=5000,type=float,input=random,values=uint32,order=descending,check=PASS")
  tessera_cli_test(sort_float_pairs_descending_cpu ARGS sort --n 5000 --type float --pairs --descending
    --backend cpu --check --repeat 2 --json JSON JSON_EQUALS "backend=cpu,values=uint32,check=PASS")
  # 8-byte keys: 131 tiles of 2304, three 8-way passes, the last group partial.
  tessera_cli_test(sort_uint64_reverse_index ARGS sort --n 300001 --type uint64 --input reverse --values index
    --backend auto --check --repeat 2 --json JSON
    JSON_EQUALS "n=300001,type=uint64,input=reverse,values=index,order=ascending,check=PASS")
  tessera_cli_test(sort_double_few_distinct_text ARGS sort --n 20000 --type double --values uint64
    --input few-distinct --backend auto --check --repeat 2
    STDOUT "keys +20000 double \\(few-distinct\\)\nvalues +uint64\norder +ascending\nbackend .*\ntime .*\nthroughput .*\ncheck +PASS \\(keys and values against a stable qsort of the same input on the host, bit for bit\\)")
  tessera_cli_test(sort_int32_worst_case ARGS sort --n 61441 --type int32 --input worst-case --items-per-thread 17
    --threads-per-block 256 --descending --backend auto --check --repeat 2 --json JSON
    JSON_EQUALS "type=int32,input=worst-case,order=descending,check=PASS")
  tessera_cli_test(sort_empty ARGS sort --n 0 --backend auto --check --repeat 1 --json JSON
    JSON_EQUALS "n=0,check=PASS")
  # No keys with values: the values buffer is empty, not absent.
  tessera_cli_test(sort_empty_pairs ARGS sort --n 0 --pairs --backend auto --check --repeat 1 --json JSON
    JSON_EQUALS "n=0,values=uint32,check=PASS")
  tessera_cli_test(sort_empty_index ARGS sort --n 0 --values index --type double --backend auto --check --repeat 1
    --json JSON JSON_EQUALS "n=0,values=index,check=PASS")

  # ---- bad command lines --------------------------------------------------------
  tessera_cli_test(sort_bad_type ARGS sort --n 10 --type bogus EXIT 2 STDOUT_EMPTY
    STDERR "invalid value 'bogus' for --type: expected one of uint32, int32, float, uint64, double")
  tessera_cli_test(sort_bad_worst_case ARGS sort --n 3000 --input worst-case --items-per-thread 16 EXIT 2
    STDOUT_EMPTY STDERR "the worst case needs an odd --items-per-thread")
endif()
