#!/usr/bin/env python3
"""Whole-process wall time of several commands, interleaved: every round runs each command once,
in turn, so the machine's drift (these machines are noisy) hits all of them alike — which
hyperfine, timing one command's runs after another's, cannot. stdin from /dev/null, output to
/dev/null; the time is from posix_spawn to the child's exit (wait4), so it includes what
starting a process costs, as a hook's caller pays it. Every command must exit 0.

Usage: interleaved.py [--rounds N] [--warmup N] NAME=COMMAND... (a COMMAND is split on spaces)
Prints p10/p50/p90 per command and each median's ratio to the first's.
"""
import argparse
import os
import sys
import time


def run_once(argv, devnull):
    start = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0),
                                       (os.POSIX_SPAWN_DUP2, devnull, 1)])
    _, status, _ = os.wait4(pid, 0)
    elapsed = time.perf_counter_ns() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(argv)}: exit {os.waitstatus_to_exitcode(status)}")
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("commands", nargs="+", metavar="NAME=COMMAND")
    args = parser.parse_args()
    commands = [(name, cmd.split()) for name, cmd in (c.split("=", 1) for c in args.commands)]
    devnull = os.open(os.devnull, os.O_RDWR)
    times = {name: [] for name, _ in commands}
    for round_ in range(args.warmup + args.rounds):
        for name, argv in commands:
            elapsed = run_once(argv, devnull)
            if round_ >= args.warmup:
                times[name].append(elapsed)
    first = None
    width = max(len(name) for name, _ in commands)
    for name, _ in commands:
        t = sorted(times[name])
        pick = lambda q: t[min(len(t) - 1, int(len(t) * q))] / 1e6
        first = first or pick(0.5)
        print(f"{name:{width}s}  p10 {pick(0.1):6.2f}  p50 {pick(0.5):6.2f}  p90 {pick(0.9):6.2f} ms"
              f"  ×{pick(0.5) / first:.2f}")


if __name__ == "__main__":
    main()
