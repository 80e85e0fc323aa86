#!/usr/bin/env python3
"""Runs shell commands in turns, ROUNDS times, and prints each one's min and median CPU
seconds (user + system of the command and its children): an A/B of two builds of one
program, or two compiler flag sets, on a machine too noisy for wall-clock times alone.
  grader/bench/cpu_ab.py ROUNDS 'cmd A' 'cmd B' [...]
Record results in docs/benchmarks.md with the machine and the date."""
import os
import statistics
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
rounds, commands = int(sys.argv[1]), sys.argv[2:]
seconds = {c: [] for c in commands}
for _ in range(rounds):
    for c in commands:
        p = subprocess.Popen(c, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(p.pid, 0)
        seconds[c].append(usage.ru_utime + usage.ru_stime)
for c in commands:
    print(f'min {min(seconds[c]):.3f}  median {statistics.median(seconds[c]):.3f}  {c}')
