#!/usr/bin/env python3
"""Carries mutant names of an old tree over to the current one.

cargo-mutants names a mutant `file:line:col: description`; an edit above it moves its line, so a
saved name no longer matches. This pairs each saved name with the current mutant of the same file
and description (the nearest line when several share both) and prints a `--re` that matches
exactly those, so a sample can be resumed or retested on a newer tree.

    cargo mutants --list > /tmp/now.txt
    python3 docs/mutation/match_names.py /tmp/now.txt SAVED.txt... > /tmp/re.txt 2> /tmp/unmatched.txt
    cargo mutants --in-place --baseline skip --timeout 400 --re "$(cat /tmp/re.txt)" -o OUT
"""
import re
import sys

NAME = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<desc>.*)$")


def parse(line):
    m = NAME.match(line.strip())
    return (m["file"], int(m["line"]), m["desc"]) if m else None


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: match_names.py CURRENT_LIST SAVED...")
    current = {}
    for line in open(sys.argv[1]):
        p = parse(line)
        if p:
            current.setdefault((p[0], p[2]), []).append((p[1], line.strip()))
    taken = set()
    chosen = []
    for saved in sys.argv[2:]:
        for line in open(saved):
            p = parse(line)
            if not p:
                continue
            candidates = [c for c in current.get((p[0], p[2]), []) if c[1] not in taken]
            if not candidates:
                print(f"unmatched: {line.strip()}", file=sys.stderr)
                continue
            best = min(candidates, key=lambda c: abs(c[0] - p[1]))[1]
            taken.add(best)
            chosen.append(best)
    print("^(" + "|".join(re.escape(n) for n in chosen) + ")$")
    print(f"{len(chosen)} matched", file=sys.stderr)


if __name__ == "__main__":
    main()
