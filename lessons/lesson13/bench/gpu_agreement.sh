#!/usr/bin/env bash
# Emulator versus GPU on the lab mutants (issue 10): `grader dev check` writes each
# lab mutant of solutions/lesson13/mutants out in full, then each is graded with
# --gpu (the emulated grade, then the same tests with the same seed on the GPU). One
# line per mutant: its unit, each correctness item's verdict on both, and the
# report's own disagreements. Run from the repository root on a GPU machine:
#   lessons/lesson13/bench/gpu_agreement.sh build/bin/grader OUT [mutant ...]
set -u
grader=$1 out=$2
shift 2
mkdir -p "$out"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  mapfile -t names < <("$grader" dev check lesson13 --list | sed -n 's/^mutant:\(lab[^ ]*\).*/\1/p')
fi
args=()
for n in "${names[@]}"; do args+=(--only "mutant:$n"); done
"$grader" dev check lesson13 "${args[@]}" >"$out/dev_check.txt" 2>&1
root=$(cd "$(dirname "$grader")/.." && pwd)
for n in "${names[@]}"; do
  dir=$(find "$root" -type d -path "*/mutants/$n" -print -quit)
  unit=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["unit"])' \
    "solutions/lesson13/mutants/$n/mutant.json")
  if [ -z "$dir" ]; then
    echo "$n: not written out by dev check (see $out/dev_check.txt)"
    continue
  fi
  "$grader" lesson13 --submission "$dir" --unit "$unit" --gpu --json "$out/$n.json" \
    >"$out/$n.txt" 2>&1
  python3 - "$out/$n.json" "$n" "$unit" <<'PY'
import json, sys
path, name, unit = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{name}: no report ({e})")
    sys.exit()
emu = {it["id"]: it["status"] for u in r["units"] if u["id"] == unit for it in u["items"]}
gpu = r.get("gpu", {})
pairs = [f'{c["item"]} emu {emu.get(c["item"], "?")} gpu {c["status"]}'
         for c in gpu.get("checks", []) if c["status"] != "emulator-only"]
dis = gpu.get("disagreements", [])
print(f'{name} ({unit}): ' + "; ".join(pairs) + (" | DISAGREE: " + "; ".join(dis) if dis else " | agree"))
PY
done
