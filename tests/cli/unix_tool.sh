#!/bin/sh
# The tessera CLI as a Unix tool: standard input and output, pipes and FIFOs
# (plain and gzip), outputs that name an input, write errors, Ctrl-C, and
# stdout kept clean under --json. One case per run:
#
#   sh unix_tool.sh CASE TESSERA WORK_DIR
#
# Exit 0 when the case passes, 1 with the reason on stderr when it fails, 77
# with "SKIP: reason" when the machine lacks what the case needs.
set -u
case_name=$1
tessera=$2
work=$3/unix_$case_name
rm -rf "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1

fail() {
  echo "FAIL ($case_name): $*" >&2
  for f in out.txt err.txt; do
    if [ -s "$f" ]; then
      echo "--- $f ---" >&2
      head -c 4000 "$f" >&2
    fi
  done
  exit 1
}
skip() {
  echo "SKIP: $*"
  exit 77
}

# A small matrix with known counts: the 12 x 12 2-D Laplacian, 5*144 - 4*12 = 672 entries.
make_matrix() {
  "$tessera" gen laplacian2d --nx 12 -o A.mtx >/dev/null 2>err.txt || fail "gen laplacian2d"
  "$tessera" convert A.mtx A.mtx.gz --quiet 2>err.txt || fail "convert to gzip"
}

# info's "nnz" line of a run: must say 672.
expect_nnz_672() {
  grep -q '^nnz  *672$' out.txt || fail "expected 'nnz 672' in the report"
}

# One line on stderr, matching $1 (a grep -E pattern).
expect_one_line() {
  lines=$(wc -l <err.txt)
  [ "$lines" -eq 1 ] || fail "expected one line on stderr, got $lines"
  grep -Eq "$1" err.txt || fail "stderr does not match: $1"
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
within() { awk -v t="$1" -v limit="$2" 'BEGIN { exit !(t <= limit) }'; }

# Run tessera in the background (standard input from $input, /dev/null by
# default), send SIGINT after $1 seconds, and require exit status 130 with
# the one line "tessera: cancelled" within $2 seconds of the signal (the
# promise is about a second; the limits leave room for a loaded machine). The rest
# of the arguments are tessera's.
input=/dev/null
expect_cancelled() {
  delay=$1
  limit=$2
  shift 2
  "$tessera" "$@" <"$input" >out.txt 2>err.txt &
  pid=$!
  sleep "$delay"
  kill -0 "$pid" 2>/dev/null || fail "tessera $* ended before the signal"
  start=$(now)
  kill -INT "$pid"
  wait "$pid"
  status=$?
  took=$(elapsed "$start" "$(now)")
  [ "$status" -eq 130 ] || fail "exit status $status after SIGINT, expected 130"
  grep -q '^tessera: cancelled$' err.txt || fail "no line 'tessera: cancelled' on stderr"
  [ "$(grep -c 'tessera:' err.txt)" -eq 1 ] || fail "more than one message on stderr"
  within "$took" "$limit" || fail "took $took s after SIGINT to end, more than $limit s"
  echo "cancelled in $took s (limit $limit s)"
}

case $case_name in
stdin_plain)
  make_matrix
  "$tessera" info - <A.mtx >out.txt 2>err.txt || fail "info - < A.mtx"
  expect_nnz_672
  grep -q '^file  *standard input$' out.txt || fail "the report does not name standard input"
  cat A.mtx | "$tessera" info - >out.txt 2>err.txt || fail "cat A.mtx | info -"
  expect_nnz_672
  ;;
stdin_gzip_pipe)
  make_matrix
  cat A.mtx.gz | "$tessera" info - >out.txt 2>err.txt || fail "cat A.mtx.gz | info -"
  expect_nnz_672
  cat A.mtx.gz | "$tessera" spmv - --backend cpu --repeat 2 >out.txt 2>err.txt || fail "cat A.mtx.gz | spmv -"
  grep -q 'check .*: PASS' out.txt || fail "spmv of standard input did not pass its check"
  ;;
fifo)
  command -v mkfifo >/dev/null || skip "no mkfifo"
  make_matrix
  for input in A.mtx A.mtx.gz; do
    rm -f pipe
    mkfifo pipe || skip "mkfifo failed here"
    cat "$input" >pipe &
    writer=$!
    # A reader that opened the FIFO twice would wait for ever: bound it.
    if command -v timeout >/dev/null; then
      timeout 60 "$tessera" info pipe >out.txt 2>err.txt || fail "info on a FIFO fed $input"
    else
      "$tessera" info pipe >out.txt 2>err.txt || fail "info on a FIFO fed $input"
    fi
    wait "$writer"
    expect_nnz_672
  done
  ;;
broken_pipe)
  # A reader that leaves early (head) ends the writer quietly, as SIGPIPE ends
  # other tools: exit 141 and nothing on stderr. The output is large enough
  # that the pipe is closed while it is being written.
  "$tessera" gen laplacian2d --nx 300 -o big.mtx >/dev/null 2>err.txt || fail "gen the 90,000-row Laplacian"
  status_file=status.txt
  { "$tessera" convert big.mtx - 2>err.txt; echo $? >"$status_file"; } | head -n 3 >out.txt
  status=$(cat "$status_file")
  [ "$status" -eq 141 ] || fail "exit status $status when the reader left, expected 141"
  [ ! -s err.txt ] || fail "a message on stderr when the reader left"
  [ "$(wc -l <out.txt)" -eq 3 ] || fail "head did not get its three lines"
  ;;
stdout)
  make_matrix
  # A file written by tessera comes back byte for byte through standard output.
  "$tessera" convert A.mtx - >out.mtx 2>err.txt || fail "convert A.mtx -"
  cmp -s A.mtx out.mtx || fail "convert A.mtx - does not reproduce A.mtx"
  grep -q '^wrote standard output: 144 x 144, 672 entries' err.txt || fail "the summary is not on stderr"
  "$tessera" gen laplacian2d --nx 12 -o - 2>err.txt | "$tessera" info - >out.txt || fail "gen -o - | info -"
  expect_nnz_672
  cat A.mtx.gz | "$tessera" convert - - 2>err.txt | cmp -s A.mtx - || fail "cat A.mtx.gz | convert - - differs"
  "$tessera" solve A.mtx -o - --ordering natural >out.mtx 2>err.txt || fail "solve -o -"
  grep -q '^backward error' err.txt || fail "solve's report is not on stderr with -o -"
  head -1 out.mtx | grep -q '^%%MatrixMarket matrix coordinate real general$' || fail "solve -o - wrote no matrix"
  # A complex A from standard input (read once: complex, then the field
  # decides): X comes back complex, x = ones.
  printf '%%%%MatrixMarket matrix coordinate complex general\n2 2 3\n1 1 2 1\n1 2 0 1\n2 2 3 -1\n' >C.mtx
  "$tessera" solve - -o - --ordering natural <C.mtx >out.mtx 2>err.txt || fail "solve - -o - on a complex A"
  grep -q '^values  *complex$' err.txt || fail "solve - did not read the complex A as complex"
  head -1 out.mtx | grep -q '^%%MatrixMarket matrix coordinate complex general$' || fail "solve wrote no complex X"
  "$tessera" solve - --ordering natural <A.mtx >out.txt 2>err.txt || fail "solve - on a real A"
  grep -q '^values  *real$' out.txt || fail "solve - did not read the real A as real"
  "$tessera" gen laplacian2d --nx 4 -o - --json >out.txt 2>err.txt && fail "--json with -o - accepted"
  expect_one_line "^tessera gen laplacian2d: --json and an output on standard output"
  [ -s out.txt ] && fail "stdout not empty after the refusal"
  ;;
output_is_input)
  make_matrix
  before=$(cksum <A.mtx)
  ln -s A.mtx link.mtx
  ln A.mtx hard.mtx
  for pair in "A.mtx A.mtx" "A.mtx link.mtx" "link.mtx A.mtx" "A.mtx hard.mtx" "./A.mtx $work/A.mtx"; do
    # shellcheck disable=SC2086
    "$tessera" convert $pair >out.txt 2>err.txt
    status=$?
    [ "$status" -eq 2 ] || fail "convert $pair: exit $status, expected 2"
    expect_one_line "^tessera convert: the output .* is the input .* \\(the same file\\)"
    [ "$(cksum <A.mtx)" = "$before" ] || fail "convert $pair changed the input"
  done
  "$tessera" solve A.mtx -o A.mtx >out.txt 2>err.txt
  [ $? -eq 2 ] || fail "solve A.mtx -o A.mtx was not refused with exit 2"
  expect_one_line "^tessera solve: the output A.mtx is the input A.mtx"
  [ "$(cksum <A.mtx)" = "$before" ] || fail "solve -o A.mtx changed the input"
  [ -L link.mtx ] || fail "the symbolic link is gone"
  "$tessera" convert - - <A.mtx >/dev/null 2>err.txt || fail "convert - - from a file to /dev/null"
  ;;
write_error)
  [ -c /dev/full ] || skip "no /dev/full on this machine"
  ln -s /dev/full full_link.mtx
  for target in /dev/full full_link.mtx; do
    "$tessera" gen laplacian2d --nx 200 -o "$target" >out.txt 2>err.txt
    status=$?
    [ "$status" -eq 1 ] || fail "gen -o $target: exit $status, expected 1"
    expect_one_line "^tessera: .*([Nn]o space left on device)"
    [ -c /dev/full ] || fail "/dev/full is no longer a character device"
  done
  [ -L full_link.mtx ] || fail "the symbolic link to /dev/full is gone"
  [ "$(ls -A | grep -c tessera)" -eq 0 ] || fail "a temporary file was left behind: $(ls -A)"
  ;;
report_write_error)
  # A report (not data) that cannot reach standard output: a full device or
  # a closed stream is exit 1 with one line, never a silent success.
  [ -c /dev/full ] || skip "no /dev/full on this machine"
  make_matrix
  for args in "info A.mtx" "info A.mtx --json" "--version" "--help" "spmv A.mtx --backend cpu --repeat 1"; do
    # shellcheck disable=SC2086
    "$tessera" $args >/dev/full 2>err.txt
    status=$?
    [ "$status" -eq 1 ] || fail "tessera $args >/dev/full: exit $status, expected 1"
    expect_one_line "^tessera: standard output: .*([Nn]o space left on device)"
  done
  "$tessera" info A.mtx >&- 2>err.txt
  status=$?
  [ "$status" -eq 1 ] || fail "tessera info A.mtx with standard output closed: exit $status, expected 1"
  ;;
dangling_link)
  # -o through a symbolic link whose target does not exist yet: the link
  # stays and its target gets the file (the tables' writer and the
  # library's writer alike).
  make_matrix
  "$tessera" convert A.mtx P.mtx --field pattern --quiet 2>err.txt || fail "convert to a pattern"
  for command in "bfs A.mtx --backend cpu -o" "sssp P.mtx --backend cpu -o" "convert A.mtx"; do
    rm -f out_link target.txt
    ln -s target.txt out_link
    # shellcheck disable=SC2086
    "$tessera" $command out_link >out.txt 2>err.txt || fail "$command out_link failed"
    [ -L out_link ] || fail "$command out_link replaced the symbolic link"
    [ -s target.txt ] || fail "$command out_link did not write the link's target"
  done
  [ "$(ls -A | grep -c tessera)" -eq 0 ] || fail "a temporary file was left behind: $(ls -A)"
  ;;
cancel_gen)
  # Cancelled while the generator reports progress (16 blocks of 2^20 rows).
  expect_cancelled 0.3 5 gen random --rows 2^24 --per-row 2 --json
  [ -s out.txt ] && fail "stdout not empty after the cancellation"
  ;;
cancel_loop)
  # The CLI's own timing loop: a burst of 10^9 calls, checked call by call.
  "$tessera" gen laplacian2d --nx 100 -o A.mtx >/dev/null 2>err.txt || fail "gen laplacian2d"
  expect_cancelled 1 5 spmv A.mtx --backend cpu --repeat 1e6 --json
  ;;
cancel_stdin)
  # Waiting for input that never comes (a FIFO whose writer says nothing):
  # the blocked read ends at Ctrl-C.
  command -v mkfifo >/dev/null || skip "no mkfifo"
  mkfifo pipe || skip "mkfifo failed here"
  sleep 30 >pipe &
  writer=$!
  input=pipe
  expect_cancelled 0.5 5 info -
  kill "$writer" 2>/dev/null
  ;;
json_with_progress)
  # A run of several seconds with --progress: its progress on stderr, one
  # JSON object alone on stdout.
  # Progress shows only after a delay: a fast machine gets longer runs.
  for repeat in 6 24 96; do
    "$tessera" sort --n 2^22 --backend cpu --repeat "$repeat" --check --json --progress >out.txt 2>err.txt ||
      fail "sort --json --progress"
    grep -Eq '^sorting: [0-9]+%$' err.txt && break
  done
  grep -Eq '^sorting: [0-9]+%$' err.txt || fail "no progress on stderr"
  if command -v python3 >/dev/null; then
    python3 -c 'import json; json.load(open("out.txt"))' 2>/dev/null || fail "stdout is not one JSON document"
  fi
  [ "$(head -c 1 out.txt)" = "{" ] || fail "stdout does not start with the JSON object"
  grep -q '"check": "PASS"' out.txt || fail "the JSON lacks check PASS"
  ;;
*)
  fail "unknown case"
  ;;
esac
echo "ok: $case_name"
exit 0
