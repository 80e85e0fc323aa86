#!/usr/bin/env bash
# Builds solutions/lesson13/bench/wmma_steps/ with nvcc (sm_90) into /tmp/wmma_steps, prints
# each kernel's registers and spills, and runs it: correctness, then timings (wmma_steps.cu).
set -euo pipefail
cd "$(dirname "$0")"
root=../../../..
nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo -Xptxas -v -I. -I$root/lessons/lesson13/include \
  -I$root/grader/testing/include wmma_steps.cu step0_scratch.cu step1_registers.cu step2_loads.cu \
  tried_variants.cu tried_permuted.cu tried_permuted_double.cu tried_overlap.cu tried_async.cu tried_mtiles_async.cu $root/solutions/lesson13/flash_attention_wmma.cu -o /tmp/wmma_steps \
  2>/tmp/wmma_steps.ptxas || { cat /tmp/wmma_steps.ptxas; exit 1; }
grep -E "Compiling entry|registers|spill" /tmp/wmma_steps.ptxas | sed 's/ptxas info *: //'
/tmp/wmma_steps
