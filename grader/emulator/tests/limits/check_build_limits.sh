#!/bin/bash
# Checks which of the build-limit cases (build_cases/*.cu: sm_90 kernels at and just
# over ptxas's limits on static __shared__ and __constant__ memory) each compiler refuses,
# against the `// ptxas:` and `// emulator:` lines each case declares.
#   check_build_limits.sh emulator CASES_DIR REWRITE_TOOL CXX EMULATOR_INCLUDE_DIR SCRATCH
#   check_build_limits.sh ptxas    CASES_DIR NVCC SCRATCH     (exit 77, skipped: no nvcc)
# Prints one line per case: name, expected, got. A refusal must be the limit's own
# message (g++'s static_assert, ptxas's error), not some other compile error.
set -u
mode=$1 cases=$2
case $mode in
  emulator) rewrite=$3 cxx=$4 include=$5 scratch=$6 ;;
  ptxas)
    nvcc=$3 scratch=$4
    if [ -z "$nvcc" ] || ! command -v "$nvcc" > /dev/null 2>&1; then
      echo "no nvcc here: the ptxas side is not checked"
      exit 77
    fi ;;
  *) echo "usage: $0 emulator|ptxas ..." >&2; exit 2 ;;
esac
mkdir -p "$scratch"
status=0
for cu in "$cases"/*.cu; do
  name=$(basename "$cu" .cu)
  want=$(sed -nE "s@^// $mode: (ok|refused).*@\1@p" "$cu")
  if [ "$mode" = emulator ]; then
    "$rewrite" "$cu" "$scratch/$name.cpp" > "$scratch/$name.log" 2>&1 &&
      "$cxx" -std=c++20 -fsyntax-only -include cuda_emu/cuda.hpp -I "$include" \
        "$scratch/$name.cpp" >> "$scratch/$name.log" 2>&1
    rc=$?
    message="static assertion failed: (static __shared__|__constant__) memory"
  else
    "$nvcc" -arch=sm_90 -c "$cu" -o "$scratch/$name.o" > "$scratch/$name.log" 2>&1
    rc=$?
    message="ptxas error.*(too much shared data|too much global constant data)"
  fi
  got=ok
  if [ $rc -ne 0 ]; then
    got="error (not the limit)"
    grep -Eq "$message" "$scratch/$name.log" && got=refused
  fi
  printf '%-40s %-8s %s\n' "$name" "$want" "$got"
  if [ "$got" != "$want" ]; then
    status=1
    sed 's/^/    /' "$scratch/$name.log" | head -20
  fi
done
exit $status
