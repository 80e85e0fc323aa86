#!/usr/bin/env bash
# Marking mode end to end (ctest grader.mark): `grader mark` takes only the manifest's
# files, refuses links, judges the exam's code apart from student code, and the attacks
# that used to pass in one process (libm override, forged records, early exit, including
# the solution) fail. Needs bubblewrap (skips, exit 77, where it cannot run).
#   grader/tests/mark_test.sh build/dev/bin/grader .
source "$(dirname "${BASH_SOURCE[0]}")/lib/setup.sh"
test_setup "$@"
need_bwrap
tree="$trees/worker0"
mark() {  # mark DIR JSON: exit code in $rc
  "$grader" mark lesson13 "$1" --root "$root" --unit exam --lang en --build-dir "$tree" \
    --json "$2" >"$2.txt" 2>&1
  rc=$?
}
submission() {  # a fresh copy of the solution's exam files
  local d="$work/$1"
  mkdir -p "$d"
  cp "$root/solutions/lesson13/online_softmax.cpp" "$root/solutions/lesson13/answers.md" "$d/"
  echo "$d"
}

# The solution: full marks, judged apart, extra files listed and ignored.
sol="$(submission sol)"
echo "not mine" >"$sol/notes.txt"
mark "$sol" "$work/sol.json"
[ "$rc" -eq 0 ] || bad "solution: exit $rc ($(tail -3 "$work/sol.json.txt"))"
[ "$(field "$work/sol.json" "j['score']")" = "10.0" ] || bad "solution: score is not 10"
[ "$(field "$work/sol.json" "j['judged_apart']")" = "['online_softmax.cpp']" ] || bad "solution: not judged apart"
[ "$(field "$work/sol.json" "j['mode']")" = "marking" ] || bad "solution: mode is not marking"
[ "$(field "$work/sol.json" "j['ignored_files']")" = "['notes.txt']" ] || bad "solution: notes.txt not listed as ignored"

# The untouched exercise: fails and names its first blank.
ex="$work/ex"
mkdir -p "$ex" && cp "$root/exercises/lesson13/online_softmax.cpp" "$root/exercises/lesson13/answers.md" "$ex/"
mark "$ex" "$work/ex.json"
[ "$rc" -eq 1 ] || bad "exercise: exit $rc"
grep -q "next: m_new" "$work/ex.json.txt" || bad "exercise: the report does not point at blank m_new"

# Attacks that decided the verdict from inside one process. Each turns the solution wrong
# (the running max never moves: m_new = m_i[r]) and tries to pass anyway.
wrong() {  # wrong NAME: the solution with a wrong m_new, plus the attack appended
  local d
  d="$(submission "$1")"
  sed -i 's/const float m_new = std::max(m_i\[r\], block_max);/const float m_new = m_i[r] > -1e30f ? m_i[r] : block_max;/' "$d/online_softmax.cpp"
  grep -q 'm_i\[r\] > -1e30f' "$d/online_softmax.cpp" || bad "$1: could not plant the wrong m_new"
  echo "$d"
}
d="$(wrong libm)"
cat >>"$d/online_softmax.cpp" <<'C'
#include <cmath>
extern "C" double exp(double) { return 1.0; }  // the reference's exp, were it in this process
extern "C" float expf(float) { return 1.0f; }
C
mark "$d" "$work/libm.json"
[ "$(field "$work/libm.json" "[i['status'] for i in j['items'] if i['id']=='code.update'][0]")" = "fail" ] || bad "libm override: code.update did not fail"

d="$(wrong forge)"
cat >>"$d/online_softmax.cpp" <<'C'
#include <cstdio>
#include <cstdlib>
#include <cstring>
namespace {
struct forge {  // writes passing records into every --out it can find, then leaves
  forge() {
    char args[4096] = {};
    FILE* f = std::fopen("/proc/self/cmdline", "rb");
    const size_t n = f ? std::fread(args, 1, sizeof args - 1, f) : 0;
    if (f) std::fclose(f);
    for (size_t i = 0; i + 6 < n; i += std::strlen(args + i) + 1)
      if (!std::strcmp(args + i, "--out")) {
        FILE* o = std::fopen(args + i + 6, "w");
        for (int k = 0; o && k < 50; ++k)
          std::fprintf(o, "{\"test\":\"t%d\",\"tags\":[\"code.update\"],\"passed\":true,\"assertions\":1}\n", k);
        if (o) std::fclose(o);
        std::_Exit(0);
      }
  }
} forged;
}  // namespace
C
mark "$d" "$work/forge.json"
[ "$(field "$work/forge.json" "[i['status'] for i in j['items'] if i['id']=='code.update'][0]")" = "fail" ] || bad "forged records: code.update did not fail"

d="$(submission early_exit)"
cat >>"$d/online_softmax.cpp" <<'C'
#include <cstdlib>
namespace { struct leave { leave() { std::exit(0); } } early; }
C
mark "$d" "$work/exit.json"
[ "$rc" -eq 1 ] || bad "early exit: exit $rc"
grep -q "ended without sending its outputs" "$work/exit.json.txt" || bad "early exit: the report does not say the student's process ended"

d="$(submission include)"
echo "#include \"$root/solutions/lesson13/online_softmax.cpp\"" >"$d/online_softmax.cpp"
mark "$d" "$work/include.json"
[ "$rc" -eq 1 ] || bad "including the solution: exit $rc"
grep -q "No such file" "$work/include.json.txt" || bad "including the solution: the solution was visible to the compiler"

# A correct solution that prints (stdout, before main() and in every call) keeps full
# marks: its printing never mixes with the protocol's replies.
d="$(submission chatty)"
sed -i 's/void normalize_rows(float\* O, const float\* l, int n, int d) {/&\n  std::printf("debug: normalize %d x %d\\n", n, d);/' "$d/online_softmax.cpp"
grep -q 'debug: normalize' "$d/online_softmax.cpp" || bad "chatty: could not plant the printf"
cat >>"$d/online_softmax.cpp" <<'C'
#include <cstdio>
namespace { struct hello { hello() { std::printf("hello from a static constructor\n"); std::fflush(stdout); } } said; }
C
sed -i '1i #include <cstdio>' "$d/online_softmax.cpp"
mark "$d" "$work/chatty.json"
[ "$rc" -eq 0 ] || bad "chatty solution: exit $rc ($(grep -m2 -i "protocol\|fail" "$work/chatty.json.txt"))"

# A link instead of a file: refused, exit 2, one line.
d="$work/link" && mkdir -p "$d" && cp "$root/solutions/lesson13/answers.md" "$d/"
ln -s "$root/solutions/lesson13/online_softmax.cpp" "$d/online_softmax.cpp"
mark "$d" "$work/link.json"
[ "$rc" -eq 2 ] || bad "symlink: exit $rc"
grep -q "is a symbolic link" "$work/link.json.txt" || bad "symlink: no clear line"

finish
