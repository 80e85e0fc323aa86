#!/usr/bin/env bash
# Runs the step bench's kernels on the course's CPU emulator (emulator_check.cpp): no GPU
# needed, so a new variant is known right, and race-free, before it is timed. Uses a course
# build tree for the emulator's rewriter and library (default build/dev).
#   solutions/lesson13/bench/wmma_steps/emulator_check.sh [BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
build="$(cd "${1:-$root/build/dev}" && pwd)"
emu="$build/grader/emulator"
[ -x "$emu/cuda_emu_rewrite" ] && [ -f "$emu/libcuda_emu.a" ] ||
  { echo "emulator_check.sh: build the emulator first (cmake --build $build --target cuda_emu)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
inc=(-I"$here" -I"$here/emulator_shim" -I"$root/lessons/lesson13/include" -I"$root/grader/emulator/include" -I"$root/grader/testing/include")
# Kernel files as the grader builds a lab's: rewritten, then instrumented for the emulator.
kflags=(-std=c++20 -O1 -fsanitize=thread --param=tsan-instrument-func-entry-exit=0
        -fno-tree-vectorize -fno-tree-sra -Wno-unknown-pragmas)
pids=()
for f in "$here"/step0_scratch.cu "$here"/step1_registers.cu "$here"/step2_loads.cu "$here"/tried_variants.cu \
         "$here"/tried_permuted.cu "$here"/tried_permuted_double.cu "$here"/tried_overlap.cu "$here"/tried_async.cu "$here"/tried_mtiles_async.cu \
         "$root"/solutions/lesson13/flash_attention_wmma.cu; do
  name="$(basename "$f" .cu)"
  "$emu/cuda_emu_rewrite" "$f" "$work/$name.cu.cpp"
  g++ "${kflags[@]}" "${inc[@]}" -c "$work/$name.cu.cpp" -o "$work/$name.o" & pids+=($!)
done
g++ -std=c++20 -O1 "${inc[@]}" -c "$here/emulator_check.cpp" -o "$work/main.o" & pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done
g++ "$work"/*.o "$emu/libcuda_emu.a" -lboost_context -ldl -o "$work/check"
"$work/check"
