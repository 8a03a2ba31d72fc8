#!/usr/bin/env python3
# builds a whole candidate from a cand_*.cu fragment: tests/gpu/candidates/saxpy_ok.cu (a correct saxpy) with the fragment's "before the launcher" part in front of saxpy_launcher and its "inside the launcher" part at the launcher's end; usage: assemble_candidate.py FRAGMENT > CANDIDATE.cu
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
base = open(os.path.join(here, "../../gpu/candidates/saxpy_ok.cu")).read()
frag = open(sys.argv[1]).read()
first, rest = frag.split("\n", 1)
before, inside = rest.split("// ---- inside the launcher, after its copies back\n", 1)
before = before.split("// ---- before the launcher\n", 1)[1]
body = base.split("\n", 1)[1]
at = body.index('extern "C" void saxpy_launcher')
end = body.rstrip().rindex("}")
sys.stdout.write(first + "\n" + body[:at] + before + "\n" + body[at:end] + inside + body[end:])
