#!/bin/bash
# CMake's CUDA compiler identification and builds with CUDACXX=ch-nvcc CC=ch-cc, with and without
# CMAKE_CUDA_COMPILER_LAUNCHER=ch-cc; and the exact probes CMake makes pass through unchanged.
# ch-nvcc is ch-cc under the name that answers inputless probes as nvcc (ch-cc answers as cc).
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
command -v cmake >/dev/null || skip_all "cmake not installed"
src="$CH_CC_SRC/tests/integration/data/cmakeproj"
nvcc_path=$(command -v nvcc)
CH_NVCC_BIN="$(dirname "$CH_CC_BIN")/ch-nvcc"
cd "$TEST_DIR"

mkdir b1 && (cd b1 && CUDACXX="$CH_NVCC_BIN" CC="$CH_CC_BIN" cmake "$src" >cfg.log 2>&1)
ok $? "configure with CUDACXX=ch-nvcc CC=ch-cc"
grep -q "The CUDA compiler identification is NVIDIA" b1/cfg.log; ok $? "CMake identifies the NVIDIA CUDA compiler"
grep -q "The C compiler identification is GNU" b1/cfg.log; ok $? "CMake identifies the C compiler as the real cc"
(cd b1 && make >build.log 2>&1); ok $? "build succeeds"
[ -x b1/cmx ]; ok $? "executable produced"

mkdir b2 && (cd b2 && CUDACXX="$CH_NVCC_BIN" CC="$CH_CC_BIN" cmake -DCMAKE_CUDA_COMPILER_LAUNCHER="$CH_CC_BIN" \
    -DCMAKE_C_COMPILER_LAUNCHER="$CH_CC_BIN" "$src" >cfg.log 2>&1 && make >build.log 2>&1)
ok $? "configure + build with the launchers set as well"
grep -q "The CUDA compiler identification is NVIDIA" b2/cfg.log; ok $? "identification with launcher"
is "$(b2/cmx)" "$(b1/cmx)" "both builds behave the same"

mkdir b3 && (cd b3 && CUDACXX="$nvcc_path" cmake "$src" >cfg.log 2>&1 && make >build.log 2>&1)
is "$(b3/cmx)" "$(b1/cmx)" "the build with ch-cc behaves as the build with plain nvcc"

# The probes: --version prints nvcc's text unchanged on stdout, ch-cc's one line on stderr first.
"$CH_NVCC_BIN" --version > v.ch 2> v.ch.err; nvcc --version > v.nv
files_same v.nv v.ch "--version: nvcc's text unchanged on stdout"
like "$(cat v.ch.err)" "^ch-cc [0-9]+\.[0-9]+\.[0-9]+ \(nvcc: .*nvcc" "--version: one stderr line names ch-cc and its nvcc"
# -v __cmake_determine_cuda: nvcc exits 1 but prints #$ TOP= and NVVMIR_LIBRARY_DIR= lines.
"$CH_NVCC_BIN" -v __cmake_determine_cuda >d.ch.out 2>d.ch.err; s1=$?
nvcc -v __cmake_determine_cuda >d.nv.out 2>d.nv.err; s2=$?
is "$s1" "$s2" "-v __cmake_determine_cuda: same exit status ($s2)"
is "$(grep -E '^#\$ (TOP|NVVMIR_LIBRARY_DIR)=' d.ch.err)" "$(grep -E '^#\$ (TOP|NVVMIR_LIBRARY_DIR)=' d.nv.err)" "TOP and NVVMIR_LIBRARY_DIR lines as nvcc prints them"
files_same d.nv.err d.ch.err "-v __cmake_determine_cuda: stderr identical"
# --keep --keep-dir tmp -v CMakeCUDACompilerId.cu
id_src=$(find /usr/share/cmake* -name CMakeCUDACompilerId.cu.in | head -1)
sed 's/@[A-Z_]*@//g' "$id_src" > CMakeCUDACompilerId.cu
mkdir -p k1 k2
(cd k1 && nvcc --keep --keep-dir tmp -v ../CMakeCUDACompilerId.cu > out 2> err); n1=$?
(cd k2 && "$CH_NVCC_BIN" --keep --keep-dir tmp -v ../CMakeCUDACompilerId.cu > out 2> err); n2=$?
is "$n2" "$n1" "compiler-id compile: same status"
for key in LIBRARIES INCLUDES; do
    is "$(grep "^#\$ _${key}_=\|^#\$ ${key}=" k2/err)" "$(grep "^#\$ _${key}_=\|^#\$ ${key}=" k1/err)" "compiler-id: $key line identical"
done
is "$(sed 's/tmpxft[_0-9a-f]*//g' k2/err | grep -c .)" "$(sed 's/tmpxft[_0-9a-f]*//g' k1/err | grep -c .)" "compiler-id: same number of stderr lines"
is "$(grep -E 'g\+\+|gcc' k2/err | tail -1 | sed 's/tmpxft[_0-9a-f]*//g')" "$(grep -E 'g\+\+|gcc' k1/err | tail -1 | sed 's/tmpxft[_0-9a-f]*//g')" "compiler-id: host link line identical"
done_testing
