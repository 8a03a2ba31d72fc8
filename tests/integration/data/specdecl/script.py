#!/usr/bin/env python3
"""The fake model's replies for axpy.c: checklist, test author's reference, one kernel.
usage: script.py OUT.json KERNEL.cu (a saxpy launcher, renamed to axpy)"""
import json
import sys

P = lambda name, typ, role, elem, d, ext, rng, rtol=None, atol=None: {
    "name": name, "type": typ, "role": role, "elem": elem, "direction": d, "extent": ext,
    "range": rng, "index_of": None, "index_hi": None, "rtol": rtol, "atol": atol}
checklist = {
    "name": "axpy", "kind": "spec-decl",
    "signature": "void axpy(int n, float a, const float *x, float *y)",
    "description": "y[i] = a*x[i] + y[i] for every i below n", "reference": "y[i] = a*x[i] + y[i]",
    "params": [P("n", "int", "scalar", "int", None, None, None),
               P("a", "float", "scalar", "float", None, None, [-2, 2]),
               P("x", "const float *", "pointer", "float", "in", "n", [-1, 1]),
               P("y", "float *", "pointer", "float", "inout", "n", [-1, 1], 1e-5, 1e-6)],
    "sizes": {"smoke": [{"n": 1}, {"n": 2}, {"n": 3}], "correctness": [{"n": 1001}, {"n": 4097}],
              "tune": {"n": 1048576}},
    "device": False, "budget": None}
reference = ("```c\n/* REF_MARKER */\nvoid axpy_reference(int n, float a, const float *x, float *y)\n"
             "{\n    for (int i = 0; i < n; i++)\n        y[i] = a * x[i] + y[i];\n}\n```\n")
kernel = open(sys.argv[2]).read().replace("saxpy", "axpy")
steps = [{"reply": "```json\n%s\n```" % json.dumps(checklist)}, {"reply": reference},
         {"reply": "Design: hand\n```cuda\n%s```\n" % kernel}]
with open(sys.argv[1], "w") as f:
    json.dump({"steps": steps}, f)
