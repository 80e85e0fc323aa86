#!/usr/bin/env bash
# The student's loop, scripted in tmux as a student would live it (ctest: grader.watch):
# `grader watch` in one pane, a shell in the other. The shell fills one blank wrong (the
# watch screen names that blank, wrong, with its trace), then right (it passes while the
# later blanks are still empty); each save redraws the screen; Ctrl-C exits 0. Then
# `grader status` and the full report: exit codes, the summary, the next step, and every
# line within 80 columns, in en and zh.
#   grader/tests/watch_test.sh build/bin/grader .
# Needs tmux (Debian's package), as .ci/install-deps installs it.
source "$(dirname "${BASH_SOURCE[0]}")/lib/setup.sh"
test_setup "$@"
command -v tmux >/dev/null || { echo "tmux is not installed (.ci/install-deps installs it)"; exit 1; }

lesson=lesson13 cpp=online_softmax.cpp
tree="$trees/worker0"
sub="$work/student"
mkdir -p "$sub" && cp "$root/exercises/$lesson/"* "$sub/"

# Every line of a file (colour codes removed) within 80 terminal columns.
fits_80() {
  python3 - "$1" <<'EOF'
import re, sys, unicodedata
bad = []
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    line = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", line.rstrip("\n"))
    w = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
    if w > 80:
        bad.append(f"  line {n}: {w} columns: {line[:70]}")
print("\n".join(bad[:5]))
sys.exit(1 if bad else 0)
EOF
}

# flat_has FILE TEXT: TEXT in FILE once its lines are joined (a wrapped line is one line).
flat_has() { tr '\n' ' ' <"$1" | tr -s ' ' | grep -qF -- "$2"; }

# ---- grader status, and the full report, on the untouched files.
status() { "$grader" status "$lesson" --root "$root" --build-dir "$tree" --submission "$sub" "$@"; }
status --lang en --unit exam >"$work/status.txt"
check "status on untouched files -> exit 1" test $? -eq 1
check "status names each blank of $cpp, all empty" \
  grep -q "· m_new  · scale  · l_new  · O_update  · normalize" "$work/status.txt"
check "status has a line per unit" grep -Eq "^  Lesson 13 exam +0 / 10  FAIL" "$work/status.txt"
check "status says the next step: the first empty blank, its line and hint" \
  flat_has "$work/status.txt" "Next: fill in blank \`m_new\` ($cpp line 26); hint: grader hint $lesson online_softmax:m_new"
for l in en zh; do
  "$grader" "$lesson" --root "$root" --build-dir "$tree" --submission "$sub" --lang "$l" \
    >"$work/report.$l.txt"
  check "the full report ($l, untouched files) fits 80 columns" fits_80 "$work/report.$l.txt"
  status --lang "$l" >"$work/status.$l.txt"
  check "status ($l) fits 80 columns" fits_80 "$work/status.$l.txt"
done
"$grader" status "$lesson" --root "$root" --build-dir "$tree" --answers --unit exam --lang en \
  >"$work/status-answers.txt"
check "status on the solutions -> exit 0" test $? -eq 0
check "status on the solutions: every blank right, hand it in" bash -c \
  "grep -q '✓ m_new  ✓ scale  ✓ l_new  ✓ O_update  ✓ normalize' '$work/status-answers.txt' &&
   grep -q 'Next: every unit passes: hand it in' '$work/status-answers.txt'"
check "the zh report ends with the summary and the next step" \
  bash -c "tail -4 '$work/report.zh.txt' | grep -q '下一步：填空 \`m_new\`'"

# ---- grader watch in tmux.
session="course-watch-$$"
tmux() { command tmux -L "$session" "$@"; }
trap 'tmux kill-server 2>/dev/null; rm -rf "$work"' EXIT
tmux -f /dev/null new-session -d -s main -x 80 -y 60 \
  "'$grader' watch $lesson --root '$root' --build-dir '$tree' --submission '$sub' --unit exam --lang en; echo \"watch exited \$?\"; sleep 600"
tmux split-window -t main -v -d "bash --norc"
screen() { tmux capture-pane -p -t main.0 -S 0; }
# wait_for TEXT SECONDS: until the watch pane shows TEXT.
wait_for() {
  local i
  for ((i = 0; i < $2 * 10; ++i)); do
    screen | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  echo "  the watch pane never showed: $1"
  screen | sed 's/^/  | /'
  return 1
}
shell() { tmux send-keys -t main.1 "$1" Enter; }

check "watch draws its first screen" wait_for "Round 1 at" 300
check "watch: the untouched file's blanks are empty" wait_for "· m_new  · scale" 1

# A wrong m_new (this block's max only): named, wrong, with the row and the numbers.
shell "sed -i 's|const float m_new = BLANK(m_new);|const float m_new = block_max;|' '$sub/$cpp'"
check "a save redraws the screen" wait_for "Round 2 at" 120
screen >"$work/round2.txt"
check "the wrong blank is named wrong" grep -q "✗ m_new (line 26): wrong: row" "$work/round2.txt"
check "its trace gives the running max and what the update needs" \
  grep -q "the update needs max(m_old," "$work/round2.txt"
check "the next step is to fix it" grep -q "Next: fix blank \`m_new\`" "$work/round2.txt"
check "the watch screen fits 80 columns" fits_80 "$work/round2.txt"

# Fixed: m_new passes while scale, l_new, O_update and normalize are still empty.
shell "sed -i 's|const float m_new = block_max;|const float m_new = std::max(m_i[r], block_max);|' '$sub/$cpp'"
check "the fix redraws the screen" wait_for "Round 3 at" 120
screen >"$work/round3.txt"
check "the fixed blank passes while the later ones are empty" \
  grep -q "✓ m_new  · scale  · l_new  · O_update  · normalize" "$work/round3.txt"
check "the next step moves on to scale" grep -q "Next: fill in blank \`scale\`" "$work/round3.txt"

# scale filled while l_new and O_update are empty: it waits for l_new, said so.
shell "sed -i 's|const float scale = BLANK(scale);|const float scale = std::exp(m_i[r] - m_new);|' '$sub/$cpp'"
check "a third save redraws" wait_for "Round 4 at" 120
check "a blank that cannot be seen yet waits for the next, and says so" \
  wait_for "? scale (line 30): filled; judged once \`l_new\` is filled" 1

# A file that is not an exercise file changes nothing.
shell "touch '$sub/notes.txt'"
sleep 1
check "saving another file does not re-grade" bash -c "! tmux -L '$session' capture-pane -p -t main.0 | grep -q 'Round 5'"

# Ctrl-C: a clean stop, exit 0.
tmux send-keys -t main.0 C-c
check "Ctrl-C stops watch with exit 0" wait_for "watch exited 0" 20
check "it says it stopped" wait_for "Stopped watching." 1
check "the student's file was never modified by the grader" \
  grep -q "const float scale = std::exp(m_i\[r\] - m_new);" "$sub/$cpp"

finish
