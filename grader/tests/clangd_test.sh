#!/usr/bin/env bash
# Editors: clangd opens every code file of each lesson's exercises and solutions with no
# error, with the entry cmake/course_editor.cmake gives it in the build tree's
# compile_commands.json (the flags the grader compiles it with). Run by ctest as course.clangd:
#   grader/tests/clangd_test.sh build/dev/bin/grader . [BUILD]
# BUILD: a configured tree whose compile_commands.json to use; by default a fresh tree
# configured here as the student's (the default preset: COURSE_BUILD_TESTS=OFF, Release),
# configure only. The test can fail: a copy of one file of each kind (cpp, cu) with an
# undeclared identifier, under the same flags, must give clangd's error.
# Needs clangd (Debian 12: clangd 14, from .ci/install-deps) and python3.
source "$(dirname "${BASH_SOURCE[0]}")/lib/setup.sh"
test_setup "$1" "$2"
command -v clangd >/dev/null || { echo "FAIL clangd not found: run .ci/install-deps (Debian package clangd)"; exit 1; }
clangd --version | head -1

if [ -n "${3:-}" ]; then
  tree="$(realpath "$3")"
else
  tree="$work/tree"
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  if ! out="$(cmake -S "$root" -B "$tree" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCOURSE_BUILD_TESTS=OFF 2>&1)"; then
    echo "$out" | tail -20
    echo "FAIL configuring a student's tree in $tree"
    exit 1
  fi
fi
db="$tree/compile_commands.json"
[ -f "$db" ] || { echo "FAIL no compile_commands.json in $tree"; exit 1; }

# clangd_check FILE DIR: clangd --check of FILE with DIR's compile_commands.json. Sets
# $log (clangd's output), $errors (its count) and $first (its first error line, or why it
# did not check the file as asked); returns 0 when the entry was DIR's own for FILE and
# clangd found no error.
clangd_check() {
  log="$(clangd --enable-config=false --compile-commands-dir="$2" --check="$1" </dev/null 2>&1)"
  errors="$(sed -nE 's/.*All checks completed, ([0-9]+) errors?.*/\1/p' <<<"$log" | tail -1)"
  first="$(grep -m1 -E '^E\[' <<<"$log" | sed -E 's/^E\[[^]]*\] //')"
  if ! grep -q 'Compile command from CDB is:' <<<"$log"; then
    first="no entry for it in $2/compile_commands.json ($(grep -m1 -oE '(Compile command inferred from [^ ]+|Generic fallback command)' <<<"$log"))"
    return 1
  fi
  [ -z "$errors" ] && { first="clangd did not finish: $(tail -1 <<<"$log")"; return 1; }
  [ "$errors" -eq 0 ] && [ -z "$first" ]
}

# Where clangd finds the student's tree by itself: build/compile_commands.json of a parent folder.
check "the default preset's tree is build/, where clangd looks for compile_commands.json" \
  test "$(field "$root/CMakePresets.json" "[p['binaryDir'] for p in j['configurePresets'] if p['name'] == 'default'][0]")" = '${sourceDir}/build'

lessons="$("$grader" list --root "$root" | cut -d' ' -f1)"
[ -n "$lessons" ] || { echo "FAIL grader list found no lesson in $root"; exit 1; }
declare -A canary  # kind -> the first exercise file of that kind
for lesson in $lessons; do
  while read -r _ kind file; do
    [ "$kind" = cpp ] || [ "$kind" = cu ] || continue
    for dir in exercises solutions; do
      path="$root/$dir/$lesson/$file"
      [ -f "$path" ] || continue
      if clangd_check "$path" "$tree"; then
        check "clangd: $dir/$lesson/$file has no error" true
      else
        bad "clangd: $dir/$lesson/$file: ${errors:-?} error(s), the first: $first"
      fi
    done
    [ -n "${canary[$kind]:-}" ] || [ ! -f "$root/exercises/$lesson/$file" ] || canary[$kind]="$root/exercises/$lesson/$file"
  done < <("$grader" dev manifest "$lesson" --root "$root")
done

# The test can fail: a broken copy of a file, with that file's own flags, gives an error.
[ "${#canary[@]}" -gt 0 ] || bad "no exercise file of kind cpp or cu to break"
for kind in "${!canary[@]}"; do
  original="${canary[$kind]}"
  mkdir -p "$work/canary-$kind"
  copy="$work/canary-$kind/$(basename "$original")"
  { cat "$original"; echo "static int course_clangd_canary = course_clangd_undeclared;"; } >"$copy"
  python3 - "$db" "$original" "$copy" "$work/canary-$kind/compile_commands.json" <<'EOF'
import json, sys
db, original, copy, out = sys.argv[1:]
entry = next(e for e in json.load(open(db)) if e["file"] == original)
entry["file"] = copy
if "command" in entry:
    entry["command"] = entry["command"].replace(" " + original, " " + copy)
else:
    entry["arguments"] = [copy if a == original else a for a in entry["arguments"]]
json.dump([entry], open(out, "w"), indent=1)
EOF
  if clangd_check "$copy" "$work/canary-$kind"; then
    bad "clangd found no error in a copy of $original with an undeclared identifier"
  elif grep -qE "^E\[.*'course_clangd_undeclared'" <<<"$log"; then
    line="$(grep -m1 -E "^E\[.*'course_clangd_undeclared'" <<<"$log" | sed -E 's/^E\[[^]]*\] //')"
    check "clangd: a broken copy of the $kind file $(basename "$original") fails ($line)" true
  else
    bad "clangd: a broken copy of $(basename "$original") fails, but not on the undeclared identifier: $first"
  fi
done
finish
