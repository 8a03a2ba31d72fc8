#!/usr/bin/env python3
"""Median wall time of commands, runs interleaved so machine drift hits all of them alike.

usage: timeit.py RUNS -- CMD_A... -- CMD_B... [-- CMD_C...]
prints one line per command: median_ms min_ms
"""
import statistics
import subprocess
import sys
import time


def main():
    runs = int(sys.argv[1])
    cmds, cur = [], None
    for arg in sys.argv[2:]:
        if arg == "--":
            cur = []
            cmds.append(cur)
        else:
            cur.append(arg)
    times = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[i].append((time.perf_counter() - t0) * 1000.0)
    for t in times:
        print(f"{statistics.median(t):.2f} {min(t):.2f}")


main()
