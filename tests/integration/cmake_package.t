#!/bin/bash
# The CMake package (cmake-module/): `make install PREFIX=...`, then a C + CUDA project that uses
# find_package(CudaHarness CONFIG REQUIRED) and cuda_harness_enable(app) configures, compiles
# every source through ch-cc as the compiler launcher, links and runs; CudaHarness::runtime links
# a C-only program with and without FindCUDAToolkit; version checks; a missing target is an error.
. "$(dirname "$0")/../lib/tap.sh"
command -v nvcc >/dev/null || skip_all "nvcc not installed"
command -v cmake >/dev/null || skip_all "cmake not installed"
# Under make check the parent make's flags must not reach the makes started here.
unset MAKEFLAGS MFLAGS MAKELEVEL
cd "$TEST_DIR"
# okd STATUS NAME TEXT: ok, and TEXT as diagnostics when STATUS is not 0.
okd() { ok "$1" "$2"; [ "$1" -eq 0 ] || diag "$3"; }

# Install the already built binaries (the release build when known; -o build: no rebuild).
bin="${CH_CC_REL_BIN:-$CH_CC_BIN}"
build_dir=$(cd "$(dirname "$bin")/.." 2>/dev/null && pwd)
if [ ! -x "$build_dir/bin/ch-cc" ] || [ ! -x "$build_dir/libexec/ch-cc/ch-cc-full" ]; then
    fail "a built ch-cc under '$build_dir' (bin/ch-cc, libexec/ch-cc/ch-cc-full)"
    done_testing
fi
prefix="$TEST_DIR/prefix"
make -s -C "$CH_CC_SRC" -o build install PREFIX="$prefix" BUILD="$build_dir" >install.log 2>&1
okd $? "make install PREFIX=... BUILD=$build_dir" "$(tail -n 20 install.log)"
pkg="$prefix/lib/cmake/CudaHarness"
[ -f "$pkg/CudaHarnessConfig.cmake" ] && [ -f "$pkg/CudaHarnessConfigVersion.cmake" ] && [ -x "$prefix/bin/ch-cc" ]
ok $? "install puts the package files next to bin/ch-cc"
is "$(cd "$prefix/include" && find . -name '*.h' | sort | tr '\n' ' ')" "./ch/runtime.h ./harness.h " \
    "install puts only the public headers (harness.h, the runtime's interface) under include/"
want_version=$(sed -n 's/^VERSION *:= *//p' "$CH_CC_SRC/Makefile")
is "$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$pkg/CudaHarnessConfigVersion.cmake")" "$want_version" \
    "CudaHarnessConfigVersion.cmake holds the Makefile's VERSION"

# --- a C + CUDA project: main.c (includes harness.h), util.c in a static library, add.cu ------
mkdir app && cd app
cat > CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.18)
project(hp LANGUAGES C CUDA)
set(CMAKE_CUDA_ARCHITECTURES 90)
find_package(CudaHarness CONFIG REQUIRED)
find_package(CudaHarness CONFIG REQUIRED)   # a second time in the same directory is harmless
message(STATUS "CudaHarness_FOUND=${CudaHarness_FOUND}")
message(STATUS "CudaHarness_VERSION=${CudaHarness_VERSION}")
message(STATUS "CUDA_HARNESS_COMPILER=${CUDA_HARNESS_COMPILER}")
message(STATUS "CudaHarness_INCLUDE_DIRS=${CudaHarness_INCLUDE_DIRS}")
add_library(hutil STATIC util.c)
add_executable(app main.c add.cu)
cuda_harness_enable(hutil)
cuda_harness_enable(app)
cuda_harness_enable(app)                    # idempotent
target_link_libraries(app hutil m)          # the plain signature still works afterwards
foreach(lang C CXX CUDA)
  get_target_property(l app ${lang}_COMPILER_LAUNCHER)
  message(STATUS "app ${lang} launcher=${l}")
endforeach()
get_target_property(l app LINK_LIBRARIES)
message(STATUS "app LINK_LIBRARIES=${l}")
EOF
cat > main.c <<'EOF'
#include <stdio.h>
#include <harness.h>
int cu_sum(int n);
const char *cu_status(void);
int util_twice(int x);
int main(void)
{
    printf("sum %d\n", cu_sum(10));
    printf("cuda %s\n", cu_status());
    printf("util %d\n", util_twice(21));
    return 0;
}
EOF
cat > util.c <<'EOF'
int util_twice(int x) { return 2 * x; }
EOF
cat > add.cu <<'EOF'
#include <cuda_runtime.h>
__global__ void add_kernel(int n, const int *a, int *b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] += a[i];
}
extern "C" int cu_sum(int n)
{
    int s = 0;
    for (int i = 1; i <= n; i++)
        s += i;
    return s;
}
extern "C" const char *cu_status(void) { return cudaGetErrorString(cudaSuccess); }
EOF
cd ..

cmake -S app -B app/b -DCMAKE_PREFIX_PATH="$prefix" >app.cfg 2>&1
okd $? "configure: find_package(CudaHarness CONFIG REQUIRED) through CMAKE_PREFIX_PATH" "$(tail -n 30 app.cfg)"
grep -qx -- "-- CudaHarness_FOUND=1" app.cfg || grep -qx -- "-- CudaHarness_FOUND=TRUE" app.cfg
ok $? "CudaHarness_FOUND"
grep -qxF -- "-- CudaHarness_VERSION=$want_version" app.cfg; ok $? "CudaHarness_VERSION=$want_version"
grep -qxF -- "-- CUDA_HARNESS_COMPILER=$prefix/bin/ch-cc" app.cfg; ok $? "CUDA_HARNESS_COMPILER is <prefix>/bin/ch-cc"
grep -qxF -- "-- CudaHarness_INCLUDE_DIRS=$prefix/include" app.cfg; ok $? "CudaHarness_INCLUDE_DIRS is <prefix>/include"
n=0; for lang in C CXX CUDA; do grep -qxF -- "-- app $lang launcher=$prefix/bin/ch-cc" app.cfg && n=$((n + 1)); done
is "$n" 3 "C, CXX and CUDA launchers are ch-cc, once each after two calls"
grep -qxF -- "-- app LINK_LIBRARIES=CudaHarness::runtime;hutil;m" app.cfg; ok $? "CudaHarness::runtime linked once"
! grep -q "CMake Warning" app.cfg; okd $? "configure prints no warnings" "$(grep -A5 'CMake Warning' app.cfg)"

cmake --build app/b -- VERBOSE=1 >app.build 2>&1
okd $? "build" "$(tail -n 30 app.build)"
for f in main.c util.c add.cu; do
    grep -F -- "$prefix/bin/ch-cc " app.build | grep -q -- "/app/$f"
    ok $? "$f compiled through ch-cc as the launcher"
done
grep -F -- "$prefix/bin/ch-cc " app.build | grep -- "/app/add.cu" | grep -q "nvcc"
ok $? "add.cu: ch-cc launches nvcc"
is "$(app/b/app 2>&1)" "$(printf 'sum 55\ncuda no error\nutil 42')" "the program runs with the expected output"
[ -f "$prefix/lib/libch_runtime.a" ]; ok $? "install puts libch_runtime.a in <prefix>/lib"
nm app/b/app | grep -q ' T ch_rt_call_v1$'
okd $? "CudaHarness::runtime links the trusted runtime (ch_rt_call_v1 defined)" "$(nm app/b/app | grep ch_rt_ ; grep -- '-o app' app.build)"

# --- CudaHarness::runtime in a C-only project, via CudaHarness_DIR; and error/version probes -----
# One build tree, reconfigured (the compiler identification is done once).
mkdir probe
cat > probe/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.18)
project(probe LANGUAGES C)
if(MODE STREQUAL "missing")
  find_package(CudaHarness CONFIG REQUIRED)
  cuda_harness_enable(no_such_target)
elseif(MODE STREQUAL "versions")
  foreach(req 9.0 1.0 0.2 0.0.1 0.1 0.1.0 0.1...<1.0 0.2...<1.0 0.1...1.0)
    unset(CudaHarness_FOUND)
    find_package(CudaHarness ${req} CONFIG QUIET)
    message(STATUS "request ${req}: found=${CudaHarness_FOUND}")
  endforeach()
  unset(CudaHarness_FOUND)
  find_package(CudaHarness 0.1.0 EXACT CONFIG QUIET)
  message(STATUS "request 0.1.0 EXACT: found=${CudaHarness_FOUND}")
  unset(CudaHarness_FOUND)
  find_package(CudaHarness 0.1 EXACT CONFIG QUIET)
  message(STATUS "request 0.1 EXACT: found=${CudaHarness_FOUND}")
else()
  find_package(CudaHarness CONFIG REQUIRED)
  add_executable(capp capp.c)
  cuda_harness_enable(capp)
  foreach(lang C CUDA)
    get_target_property(l capp ${lang}_COMPILER_LAUNCHER)
    message(STATUS "capp ${lang} launcher=${l}")
  endforeach()
endif()
EOF
cat > probe/capp.c <<'EOF'
#include <stdio.h>
#include <cuda_runtime_api.h>
int main(void)
{
    int v = 0;
    cudaRuntimeGetVersion(&v);
    printf("%s %d\n", cudaGetErrorString(cudaSuccess), v > 0);
    return 0;
}
EOF
pb=probe/b
cmake -S probe -B $pb -DCudaHarness_DIR="$pkg" >c1.cfg 2>&1 && cmake --build $pb >c1.build 2>&1
okd $? "C-only project through CudaHarness_DIR: CudaHarness::runtime (CUDA::cudart_static) links" "$(tail -n 20 c1.cfg c1.build)"
is "$($pb/capp 2>&1)" "no error 1" "the C-only program runs (static CUDA runtime)"

cmake $pb -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON >c2.cfg 2>&1 && cmake --build $pb -- VERBOSE=1 >c2.build 2>&1
okd $? "without FindCUDAToolkit: the fallback (libcudart_static, rt, pthread, dl) links" "$(tail -n 20 c2.cfg c2.build)"
grep -q -- "-o capp .*libcudart_static.a.*-lrt.*-lpthread.*-ldl.*-lstdc++" c2.build; okd $? "fallback link line" "$(grep -- '-o capp' c2.build)"
is "$($pb/capp 2>&1)" "no error 1" "the fallback-linked program runs"
nm $pb/capp | grep -q ' T ch_rt_call_v1$'
okd $? "fallback: CudaHarness::runtime links the trusted runtime too" "$(grep -- '-o capp' c2.build)"

cmake $pb -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=OFF -DMODE=missing >c3.cfg 2>&1
[ $? -ne 0 ]; ok $? "cuda_harness_enable(no_such_target) fails the configure"
grep -q "cuda_harness_enable: no target named 'no_such_target'" c3.cfg; okd $? "... with a message naming the target" "$(cat c3.cfg)"

# (a failed find_package resets CudaHarness_DIR: the later requests search CMAKE_PREFIX_PATH)
cmake $pb -DMODE=versions -DCMAKE_PREFIX_PATH="$prefix" >c4.cfg 2>&1
okd $? "configure with version requests" "$(tail -n 20 c4.cfg)"
results=$(sed -n 's/^-- request \(.*\): found=\(.*\)$/\1 \2/p' c4.cfg | sed 's/ \(0\|FALSE\|\)$/ no/; s/ \(1\|TRUE\)$/ yes/' | tr '\n' ',')
is "$results" "9.0 no,1.0 no,0.2 no,0.0.1 yes,0.1 yes,0.1.0 yes,0.1...<1.0 yes,0.2...<1.0 no,0.1...1.0 no,0.1.0 EXACT yes,0.1 EXACT no," \
    "SameMajorVersion: too new or another major is not found"

mkdir req && cat > req/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.18)
project(req LANGUAGES NONE)
find_package(CudaHarness 9.0 CONFIG REQUIRED)
EOF
cmake -S req -B req/b -DCMAKE_PREFIX_PATH="$prefix" >req.cfg 2>&1
[ $? -ne 0 ]; ok $? "find_package(CudaHarness 9.0 CONFIG REQUIRED) fails"
grep -q "0.1.0" req.cfg; okd $? "... and names the installed version" "$(cat req.cfg)"

# CC=ch-cc: the compiler is ch-cc already, so C gets no launcher (CUDA, not ch-cc here, does).
CC="$prefix/bin/ch-cc" cmake -S probe -B probe/cc -DCMAKE_PREFIX_PATH="$prefix" >c5.cfg 2>&1 \
    && cmake --build probe/cc -- VERBOSE=1 >c5.build 2>&1
okd $? "configure + build with CC=ch-cc" "$(tail -n 20 c5.cfg c5.build)"
is "$(sed -n 's/^-- capp \(C\|CUDA\) launcher=\(.*\)$/\1 \2/p' c5.cfg | tr '\n' ,)" \
    "C l-NOTFOUND,CUDA $prefix/bin/ch-cc," "... ch-cc is not made its own launcher"
! grep -qF -- "$prefix/bin/ch-cc $prefix/bin/ch-cc" c5.build; ok $? "... no compile line runs ch-cc twice"
is "$(probe/cc/capp 2>&1)" "no error 1" "... and the program runs"
done_testing
