#!/usr/bin/env python3
"""attacks5: the fake model's replies (tests/fakes/fake_llm.py) for specdecl's axpy.c: its
checklist (optionally changed by a JSON patch of hostile fields), then REF.c as the test
author's reference, twice (first answer and second chance), for two builds.
With KERNEL.cu (a saxpy candidate, renamed to axpy), the kernel author's reply follows the
reference once: the entry then reaches the cache (pending without a GPU) with its checklist.
usage: model_script.py SPECDECL_SCRIPT.py REF.c OUT.json [PATCH.json|-] [KERNEL.cu]"""
import json
import sys

ns = {}
exec(open(sys.argv[1]).read().split("reference = (")[0].replace("import sys", ""), ns)
checklist = ns["checklist"]
if len(sys.argv) > 4 and sys.argv[4] != "-":
    patch = json.load(open(sys.argv[4]))
    for name, fields in patch.get("params", {}).items():
        for p in checklist["params"]:
            if p["name"] == name:
                p.update(fields)
    checklist.update(patch.get("top", {}))
ref = open(sys.argv[2]).read()
build = [{"reply": "```json\n%s\n```" % json.dumps(checklist)}] + [{"reply": "```c\n%s```\n" % ref}] * 2
if len(sys.argv) > 5:
    kernel = open(sys.argv[5]).read().replace("saxpy", "axpy")
    build = build[:2] + [{"reply": "Design: hand\n```cuda\n%s```\n" % kernel}]
json.dump({"steps": build * 2}, open(sys.argv[3], "w"))
