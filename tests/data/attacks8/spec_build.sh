#!/bin/bash
# Support (not an attack): attacks7/spec_build.sh, linking the probe with -lm -lpthread (25 needs fesetround).
# answering CHECKLIST (or the default) and REF.c as the test author, then links PROBE.c against
# axpy.o and runs it (timeout 20). As attacks_sixth.t spec_build does. Output in $SB_DIR/s.NAME.
# spec_build.sh NAME CHECKLIST_OR_- REF.c [PROBE.c] : build axpy.c with the fake model in /tmp/rt8/sb/s.NAME
H=$(cd "$(dirname "$0")/../../.." && pwd); A=$H/tests/data/attacks6; REL=${CH_CC_REL:-/work/main/build/bin/ch-cc}
D=${SB_DIR:-/tmp/rt8/sb}/s.$1; rm -rf $D; mkdir -p $D; cp $H/tests/integration/data/specdecl/axpy.c $D/; cp ${4:-$A/00_probe_main.c} $D/probe_main.c
cd $D
python3 - "$H/tests/integration/data/specdecl/script.py" "$2" "$3" "$A/00_axpy_kernel.cu" script.json <<'PY'
import json, sys
ns = {}
exec(open(sys.argv[1]).read().split("reference = (")[0].replace("import sys", ""), ns)
ck = json.dumps(ns["checklist"]) if sys.argv[2] == "-" else open(sys.argv[2]).read()
kernel = "Design: hand\n```cuda\n%s```\n" % open(sys.argv[4]).read()
steps = [{"reply": "```json\n%s\n```" % ck}, {"reply": "```c\n%s```\n" % open(sys.argv[3]).read()},
         {"reply": kernel}]
json.dump({"steps": steps, "default": {"reply": kernel}}, open(sys.argv[5], "w"))
PY
python3 $H/tests/fakes/fake_llm.py --script script.json --record requests.jsonl --port 0 --port-file port > /dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do [ -s port ] && break; sleep 0.1; done
CH_CC_CACHE_DIR="$PWD/cache" CH_CC_PROVIDER=openai CH_CC_MODEL=fake CH_CC_API_KEY=k CH_CC_BUDGET=1 \
  CH_CC_API_BASE="http://127.0.0.1:$(cat port)/v1" $REL -O2 -c axpy.c -o axpy.o 2> build.err
echo $? > rc
kill $pid; wait $pid 2>/dev/null
if [ -f axpy.o ]; then $REL probe_main.c axpy.o -o probe -lm -lpthread 2> link.err && timeout 20 ./probe > probe.out; echo "probe rc=$?" >> probe.out; fi
echo "== $1 rc=$(cat rc) obj=$([ -f axpy.o ] && echo yes || echo no)"; grep -o 'refused[^"]\{0,300\}' requests.jsonl | head -2; tail -3 build.err | cut -c1-400; cat probe.out 2>/dev/null
