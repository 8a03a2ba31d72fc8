#!/bin/bash
# make demo on a machine without a GPU (issue 18, "the demo shows what is real"): it says the
# kernels are pending, shows no speedup figure, shows each call's trace line (path, size, why)
# and where each example's report page is. Then the same demo believing a GPU is there (a fake
# nvidia-smi): the programs time their calls, but a speedup is shown only when the trace says
# the timed call ran a kernel, and here none did.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
if have_gpu; then skip_all "a GPU is present: the kernels would verify (make demo shows it)"; fi
export CH_CC_BUDGET=1 # one candidate per generation keeps the nvcc time down
export CH_CC_DEMO_REPORT="$TEST_DIR/report"
cd "$TEST_DIR"

sh "$CH_CC_SRC/examples/run-demo.sh" > demo.out 2> demo.err
ok $? "the demo runs without a GPU"
like "$(head -1 demo.out)" "no CUDA device on this machine: the kernels stay pending" "it says so first"
is "$(grep -c 'correct (the host path ran: no speedup to report)$' demo.out)" 3 \
    "each of the three programs is correct and says why no speedup is shown"
is "$(grep -ciE 'speedup [0-9]|[0-9.]+x\b' demo.out)" 0 "no speedup figure anywhere"
is "$(grep -c 'warning: .*host path linked: nothing can be verified here' demo.err)" 3 \
    "the builds warn once per kernel"
# the trace: one line per call, counted, with the path, the call's size and why
pending='no kernel linked, pending: nothing can be verified here'
is "$(grep -c "calls: 2 ch-cc: saxpy: host (size 33554432, $pending" demo.out)" 1 \
    "saxpy: two calls of 2^24 elements (x and y), the host path, pending"
is "$(grep -cE "calls: 1 ch-cc: jacobi2d: host \(size (8000000|80000000), $pending" demo.out)" 2 \
    "jacobi2d: the warm-up (1 step) and the timed call (10 steps) by their sizes"
is "$(grep -c "calls: 2 ch-cc: blend: host (size 50331648, $pending" demo.out)" 1 \
    "blend (spec-def): two calls of three buffers"
is "$(grep -c ': Pending: .* candidate.* wait for a build on a machine with a GPU' demo.out)" 3 \
    "each kernel's outcome in one sentence"
for page in saxpy/saxpy.c jacobi/jacobi.c spec-def/blend.c; do
    grep -q "report: $CH_CC_DEMO_REPORT/$page.html (1 entry)" demo.out && [ -s "report/$page.html" ]
    ok $? "where the report page of $page is, and the page"
done

# ---- the GPU branch, with a fake nvidia-smi: no kernel runs, so no speedup is shown ----------
mkdir -p fakebin
printf '#!/bin/sh\necho "GPU 0: Fake (UUID: GPU-0)"\n' > fakebin/nvidia-smi
chmod +x fakebin/nvidia-smi
PATH="$TEST_DIR/fakebin:$PATH" sh "$CH_CC_SRC/examples/run-demo.sh" > gpu.out 2> gpu.err
ok $? "the demo's GPU branch runs (the kernels are still pending: no driver)"
like "$(head -1 gpu.out)" "a CUDA device is present" "it took the GPU branch"
is "$(grep -c 'correct (the timed call took the host path: no speedup to report)$' gpu.out)" 3 \
    "the programs timed their calls, but the trace shows the host path: no speedup is shown"
is "$(grep -ciE 'speedup [0-9]|[0-9.]+x\b|harness [0-9]' gpu.out)" 0 "no figure of a host-path run"
done_testing
