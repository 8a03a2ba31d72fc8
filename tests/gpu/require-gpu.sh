#!/bin/sh
# make check-gpu runs only where a CUDA device is present; elsewhere it fails, clearly.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
    nvidia-smi -L
    exit 0
fi
echo "make check-gpu: no CUDA device found (nvidia-smi -L lists none); run it on a GPU machine" >&2
exit 1
