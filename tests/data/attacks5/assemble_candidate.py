#!/usr/bin/env python3
# builds a whole candidate from a cand*.cu fragment of this directory: cand00_baseline.cu (a clean
# saxpy) with the fragment's header comment instead of the baseline's first line, then each of the
# fragment's hunks in order. A hunk is a line "// ---- after: TEXT", "// ---- before: TEXT" or
# "// ---- instead of: TEXT" and the lines under it, put after, before or instead of the first
# baseline line (at or past the previous hunk's) whose text, indentation aside, is TEXT.
# usage: assemble_candidate.py FRAGMENT > CANDIDATE.cu
import os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
base = open(os.path.join(here, "cand00_baseline.cu")).read().split("\n")
frag = open(sys.argv[1]).read().split("\n")
marker = re.compile(r"^// ---- (after|before|instead of): (.*)$")
hunks, header = [], []
for line in frag:
    m = marker.match(line)
    if m:
        hunks.append((m.group(1), m.group(2), []))
    elif hunks:
        hunks[-1][2].append(line)
    else:
        header.append(line)
if hunks and hunks[-1][2] and hunks[-1][2][-1] == "":
    hunks[-1][2].pop()  # the fragment's final newline
out, at = header, 1
for kind, text, lines in hunks:
    i = at
    while i < len(base) and base[i].strip() != text:
        i += 1
    if i == len(base):
        sys.exit("%s: no baseline line '%s' after line %d" % (sys.argv[1], text, at))
    out += base[at:i]
    if kind == "after":
        out += [base[i]] + lines
    elif kind == "before":
        out += lines + [base[i]]
    else:
        out += lines
    at = i + 1
out += base[at:]
sys.stdout.write("\n".join(out))
