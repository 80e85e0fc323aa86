#!/usr/bin/env bash
# Emulator versus GPU on the lab mutants (issue 10). MUTANTS holds one folder per
# mutant with every exercise file, as `grader dev check lesson13` writes them
# (<build>/grade/lesson13-scratch/mutants). Each is graded with --gpu: the emulated
# grade, then the same tests with the same seed on the GPU. One line per mutant: each
# correctness item's verdict on both, and the report's own disagreements. JOBS
# workers run at once, each with its own build trees. Run from the repository root
# on a GPU machine:
#   lessons/lesson13/bench/gpu_agreement.sh build/bin/grader OUT MUTANTS JOBS [mutant ...]
set -u
grader=$(realpath "$1") out=$(realpath -m "$2") mutants=$(realpath "$3") jobs=$4
# The course's packages where .ci/gpu-check unpacked them (a machine without them installed).
if [ -d /usr/local/course-gpu-deps/usr ]; then
  export CMAKE_PREFIX_PATH="/usr/local/course-gpu-deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
fi
shift 4
mkdir -p "$out"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  mapfile -t names < <(ls "$mutants" | grep '^lab')
fi

grade_one() {  # grade_one NAME WORKER
  local n=$1 worker=$2 unit
  unit=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["unit"])' \
    "solutions/lesson13/mutants/$n/mutant.json")
  rm -f "$out/$n.json"  # a report left by an earlier run must not stand in for this one
  "$grader" lesson13 --submission "$mutants/$n" --unit "$unit" --gpu \
    --build-dir "$out/trees/$worker" --json "$out/$n.json" >"$out/$n.txt" 2>&1
  python3 - "$out/$n.json" "$n" "$unit" <<'PY'
import json, sys
path, name, unit = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{name}: no report ({e})")
    sys.exit()
emu = {it["id"]: it["status"] for u in r["units"] if u["unit"] == unit for it in u["items"]}
gpu = r.get("gpu") or {}
pairs = [f'{c["item"]} emu {emu.get(c["item"], "?")} gpu {c["status"]}'
         for c in gpu.get("checks", []) if c["status"] != "emulator-only"]
dis = gpu.get("disagreements", [])
if not pairs:  # nothing ran on the GPU: say so, with the grader's reason, never "agree"
    why = next((m for m in r.get("messages", []) if m), "no GPU checks in the report")
    print(f"{name} ({unit}): NOT RUN on the GPU: {str(why)[:200]}")
    sys.exit()
print(f'{name} ({unit}): ' + "; ".join(pairs) + (" | DISAGREE: " + "; ".join(dis) if dis else " | agree"))
PY
}

for ((w = 0; w < jobs; ++w)); do
  (
    for ((i = w; i < ${#names[@]}; i += jobs)); do grade_one "${names[$i]}" "$w"; done
  ) >"$out/worker$w.log" &
done
wait
cat "$out"/worker*.log | sort
