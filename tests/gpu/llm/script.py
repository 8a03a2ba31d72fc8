#!/usr/bin/env python3
"""Writes a fake_llm.py script whose kernel-author replies are the given candidate files, in
order: script.py OUT.json FILE.cu... (each reply: a Design line and one ```cuda block)."""
import json
import os
import sys

steps = []
for path in sys.argv[2:]:
    with open(path) as f:
        src = f.read()
    name = os.path.basename(path)
    steps.append({"reply": "Design: %s\n\n```cuda\n%s```\n" % (name, src)})
with open(sys.argv[1], "w") as f:
    json.dump({"steps": steps}, f)
