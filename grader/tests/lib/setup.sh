# The setup every shell test of the grader shares (grader/tests/*_test.sh), sourced first:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/setup.sh"
#   test_setup "$@"     # $grader and $root as absolute paths, $work removed at exit
# then the helpers below; `finish` ends the test with its summary and exit status.
set -uo pipefail

failures=0
passes=0

# test_setup GRADER [ROOT]: the grader binary and the course root (default .), as
# absolute paths, and a private working folder $work, removed when the test exits.
# $trees: the grading trees the suites share, warm (ctest sets COURSE_WARM_TREES to one
# folder of the build; by hand, a private one): `--build-dir "$trees/worker0"` for a grade
# or a mark, `--trees "$trees"` for a batch, whose workers use worker0, worker1, ...
# Trees lock themselves, so suites that run at once wait for each other's.
test_setup() {
  grader="$(realpath "$1")"
  root="$(realpath "${2:-.}")"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  trees="${COURSE_WARM_TREES:-$work/trees}"
  mkdir -p "$trees"
}

# check NAME CONDITION...: runs the condition, prints "ok   NAME" or "FAIL NAME".
check() {
  local name="$1"; shift
  if "$@"; then echo "ok   $name"; passes=$((passes + 1)); else echo "FAIL $name"; failures=$((failures + 1)); fi
}

# bad WHY...: one failure, said.
bad() { echo "FAIL $*"; failures=$((failures + 1)); }

# refusal PREFIX CMD...: the command exits 2 with exactly one line on stderr, starting with
# PREFIX; otherwise says what it got.
refusal() {
  local prefix="$1" err rc; shift
  err="$("$@" 2>&1 >/dev/null)"; rc=$?
  [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == "$prefix"* ]] && return 0
  printf '  got exit %s: %q\n' "$rc" "${err:0:300}"
  return 1
}
one_line_error() { refusal "" "$@"; }                       # any one-line refusal
cannot_grade() { refusal "grader: cannot grade: " "$@"; }  # the grader's own

# field JSON EXPR: a Python expression over the file's JSON `j`, printed.
field() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# need_bwrap: skips the test (exit 77) where bubblewrap cannot run.
need_bwrap() {
  if ! bwrap --unshare-all --ro-bind /usr /usr --ro-bind-try /lib /lib --ro-bind-try /lib64 /lib64 \
       --ro-bind-try /bin /bin /bin/true 2>/dev/null; then
    echo "SKIP bubblewrap cannot run here"
    exit 77
  fi
}

# finish: the summary line, and exit 1 when anything failed.
finish() {
  local name
  name="$(basename "$0" .sh)"
  if [ "$failures" -eq 0 ]; then echo "$name: PASS ($passes checks)"; else echo "$name: $failures failed, $passes passed"; fi
  exit $((failures > 0))
}
