#!/usr/bin/env bash
# Checks the include direction of the course's layers (docs/architecture.md), run by
# ctest as grader.layers:
#   grader:   base <- reader <- lesson <- pipeline <- commands <- app; a layer includes
#             only itself and those below it; public headers never reach into src/;
#   reader:   grader/reader/ (the free-text reader, its own library and tests) includes
#             only itself and base, never lesson/, pipeline/ or commands/;
#   testing, emulator and lessons never include the grader.
#   grader/tests/layers_test.sh .
set -uo pipefail
root="$(realpath "${1:-.}")"
cd "$root" || exit 1
failures=0
rank() {  # the rank of a grader layer
  case "$1" in base) echo 0 ;; reader) echo 1 ;; lesson) echo 2 ;; pipeline) echo 3 ;; commands) echo 4 ;; *) echo 9 ;; esac
}
bad() { echo "FAIL $*"; failures=$((failures + 1)); }

dirs_of() {  # the folders of a layer's sources
  case "$1" in
    reader) echo grader/reader/include/grader/reader grader/reader/src grader/reader/tests ;;
    *) echo "grader/include/grader/$1" "grader/src/$1" ;;
  esac
}
for layer in base reader lesson pipeline commands; do
  # shellcheck disable=SC2046
  for f in $(find $(dirs_of "$layer") -type f \( -name '*.hpp' -o -name '*.cpp' \)); do
    while IFS= read -r inc; do
      used="${inc#grader/}"; used="${used%%/*}"
      [ "$(rank "$used")" -le "$(rank "$layer")" ] || bad "$f ($layer) includes $inc ($used is above it)"
    done < <(grep -oE '^#include "grader/[^"]+"' "$f" | sed -E 's/#include "(.*)"/\1/')
  done
done
# Every grader header is in a layer folder; the reader's public headers are all grader/reader/.
for f in $(find grader/include/grader -maxdepth 1 -type f); do bad "$f is in no layer"; done
[ ! -e grader/include/grader/reader ] || bad "grader/include/grader/reader: the reader's headers live in grader/reader/include"
for f in $(find grader/reader/include -type f ! -path 'grader/reader/include/grader/reader/*'); do
  bad "$f is outside grader/reader/include/grader/reader"
done
# The reader includes only what is its own (grader/reader/..., its private headers) and base.
for f in $(find grader/reader -type f \( -name '*.hpp' -o -name '*.cpp' \)); do
  while IFS= read -r inc; do
    case "$inc" in
      grader/reader/* | grader/base/*) ;;
      grader/*) bad "$f (reader) includes $inc" ;;
    esac
  done < <(grep -oE '^#include [<"]grader/[^">]+[">]' "$f" | sed -E 's/#include [<"](.*)[">]/\1/')
done
# Public headers never reach into src/ (relative includes or internal headers).
if grep -rnE '#include "\.\./|#include ".*src/|#include "internal' grader/include; then bad "grader/include reaches into src/"; fi
if grep -rnE '#include "\.\./|#include ".*src/|#include "[^/"]+"' grader/reader/include; then
  bad "the reader's public headers reach into its src/"
fi
# Lower layers of the course never include the grader.
for dir in grader/testing grader/emulator lessons; do
  if grep -rnE '#include [<"]grader/' "$dir"; then bad "$dir includes the grader"; fi
done
# The emulator's public headers never include its private ones.
if grep -rnE '#include "(\.\./)?src/|#include "internal' grader/emulator/include; then bad "the emulator's headers reach into src/"; fi

[ "$failures" -eq 0 ] && echo "ok   every include goes down the layers"
exit $((failures > 0))
