#!/usr/bin/env bash
# On the GPU machine, from the repository root: Nsight Compute's global sectors (loads,
# stores, atomics) of lab-3 kernel files at n = 256, d = 32, summed over their launches,
# in bytes (x 32) as flash.global_reads counts them. Usage: ncu_flash.sh FILE.cu...
set -euo pipefail
here=docs/measurements/2026-12-03-h200-gpu-fresh
m=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
m=$m,l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum
for f in "$@"; do
  nvcc -O2 -arch=sm_90 -std=c++17 -Ilessons/lesson13/include -Igrader/testing/include \
    -o /tmp/flash_probe "$here/flash_probe.cu" "$f" -lcudart
  ncu --clock-control none --metrics "$m" --csv /tmp/flash_probe 2>/dev/null >/tmp/ncu.csv || true
  python3 - "$f" /tmp/ncu.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[2])) if len(r) > 5]
head, rows = rows[0], rows[1:]
name, value = head.index("Metric Name"), head.index("Metric Value")
total = {}
for r in rows:
    total[r[name]] = total.get(r[name], 0) + int(r[value].replace(",", ""))
get = lambda k: total.get("l1tex__t_sectors_pipe_lsu_mem_global_op_" + k + ".sum", 0)
atom = get("atom") + get("red")
print(f"{sys.argv[1]}: launches {len(rows) // 4}, load bytes {32 * (get('ld') + atom)}, "
      f"store bytes {32 * (get('st') + atom)} (ncu sectors x 32; atomics in both)")
PY
done
