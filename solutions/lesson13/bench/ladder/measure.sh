#!/usr/bin/env bash
# The one GPU run that every measured figure of lesson 13's notes comes from (issue 26):
# builds the lesson's GPU bench with the solutions' kernels (CMake, COURSE_CUDA=ON) and lab
# 4's step bench (nvcc), runs both, and writes into OUTDIR:
#   ladder.jsonl     lesson13_gpu_bench --ladder (the solutions' kernels): matmul at 4096^2 (the labs, the
#                    fast reference, cuBLAS), fp32 attention n = 1k..256k at d = 64 and 128
#                    (naive, the lab, eager cuBLAS, the fast reference), bf16 at 16 heads,
#                    n = 4096 (eager, lab 4, the mma.sync reference)
#   wmma_steps.txt   solutions/lesson13/bench/wmma_steps: lab 4's kernel step by step
#   machine.txt      the GPU, driver, nvcc, commit and date; commands.txt: what ran
# Then, on any machine: solutions/lesson13/bench/ladder/adopt.py OUTDIR
#   solutions/lesson13/bench/ladder/measure.sh OUTDIR [BUILD_DIR=build/ladder]
# Needs nvcc, cuBLAS and the course's build dependencies (CMAKE_PREFIX_PATH where they are
# unpacked; EXTRA_CMAKE_ARGS is passed to the configure); about 10 minutes on an H100.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
build="${2:-$root/build/ladder}"
cd "$root"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
  nvcc --version | tail -2
} >"$out/machine.txt"
cmds="$out/commands.txt"
: >"$cmds"
run() { echo "${*//$root\//}" >>"$cmds"; "$@"; }  # paths relative to the repository
start=$(date +%s)
# A course build (not a grading tree): its exercises are the solutions, and so is its bench.
# shellcheck disable=SC2086
run cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCOURSE_BUILD_TESTS=ON \
  -DCOURSE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 ${EXTRA_CMAKE_ARGS:-} >"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
run cmake --build "$build" --target lesson13_gpu_bench >>"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
echo "built in $(($(date +%s) - start)) s"
run "$build/bin/lesson13_gpu_bench" --ladder >"$out/ladder.jsonl"
echo "ladder done at $(($(date +%s) - start)) s"
run solutions/lesson13/bench/wmma_steps/wmma_steps.sh >"$out/wmma_steps.txt" 2>&1
echo "steps done at $(($(date +%s) - start)) s"
grep -c '"kernel"' "$out/ladder.jsonl" | sed 's/^/ladder rows: /'
if grep -q '"valid": false\|"error"' "$out/ladder.jsonl"; then
  echo "a kernel failed its check or a CUDA call failed:" >&2
  grep '"valid": false\|"error"' "$out/ladder.jsonl" >&2
  exit 1
fi
