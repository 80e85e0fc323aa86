#!/usr/bin/env bash
# Checks the include direction of the course's layers (docs/architecture.md), run by
# ctest as grader.layers:
#   grader:   base <- lesson <- pipeline <- commands <- app; a layer includes only
#             itself and those below it; public headers never reach into src/;
#   testing, emulator and lessons never include the grader.
#   grader/tests/layers_test.sh .
set -uo pipefail
root="$(realpath "${1:-.}")"
cd "$root" || exit 1
failures=0
rank() {  # the rank of a grader layer
  case "$1" in base) echo 0 ;; lesson) echo 1 ;; pipeline) echo 2 ;; commands) echo 3 ;; *) echo 9 ;; esac
}
bad() { echo "FAIL $*"; failures=$((failures + 1)); }

for layer in base lesson pipeline commands; do
  for f in $(find "grader/include/grader/$layer" "grader/src/$layer" -type f \( -name '*.hpp' -o -name '*.cpp' \)); do
    while IFS= read -r inc; do
      used="${inc#grader/}"; used="${used%%/*}"
      [ "$(rank "$used")" -le "$(rank "$layer")" ] || bad "$f ($layer) includes $inc ($used is above it)"
    done < <(grep -oE '^#include "grader/[^"]+"' "$f" | sed -E 's/#include "(.*)"/\1/')
  done
done
# Every grader header is in a layer folder.
for f in $(find grader/include/grader -maxdepth 1 -type f); do bad "$f is in no layer"; done
# Public headers never reach into src/ (relative includes or internal headers).
if grep -rnE '#include "\.\./|#include ".*src/|#include "internal' grader/include; then bad "grader/include reaches into src/"; fi
# Lower layers of the course never include the grader.
for dir in grader/testing grader/emulator lessons; do
  if grep -rnE '#include [<"]grader/' "$dir"; then bad "$dir includes the grader"; fi
done
# The emulator's public headers never include its private ones.
if grep -rnE '#include "(\.\./)?src/|#include "internal' grader/emulator/include; then bad "the emulator's headers reach into src/"; fi

[ "$failures" -eq 0 ] && echo "ok   every include goes down the layers"
exit $((failures > 0))
