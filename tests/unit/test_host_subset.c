/* The host subset (ch/host_subset.h): each rule refuses what it names, at the line it names,
 * and passes the ordinary code next to it. Candidates are parsed with the CUDA headers (skipped
 * where the toolkit is missing); references as C. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch/host_subset.h"
#include "ch/static_child.h"
#include "ch/verify.h"
#include "verify_fixture.h"

typedef struct subset_case {
    const char *name;
    const char *src;
    const char *rule;   /* NULL: passes */
    const char *expect; /* part of the message */
    unsigned line;
} subset_case;

#define HEAD "#include <cuda_runtime.h>\n#include <stdlib.h>\n#include <stdint.h>\n"
/* line 4 */
#define KERNEL "__global__ void k(int n, float *y) { if (n) y[0] = 1.0f; }\n"
/* line 5 on: the launcher's opening */
#define OPEN  "extern \"C\" void f_launcher(int n, float *y)\n{\n"
#define CLOSE "    k<<<1, 1>>>(n, y);\n}\n"

static const subset_case candidates[] = {
    {"plain launcher", HEAD KERNEL OPEN CLOSE, NULL, NULL, 0},
    {"device copies and casts for the API",
     HEAD KERNEL OPEN
     "    float *d = NULL;\n    cudaMalloc((void **)&d, 4 * (size_t)n);\n"
     "    cudaMemcpy(d, y, 4, cudaMemcpyHostToDevice);\n"
     "    float *h = (float *)malloc(4);\n    unsigned char *b = (unsigned char *)h;\n"
     "    free(b);\n    k<<<1, 1>>>(n, d + 1);\n    cudaFree(d);\n}\n",
     NULL, NULL, 0},
    {"a kernel given to the occupancy API",
     HEAD KERNEL OPEN
     "    int b = 0;\n    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, k, 256, "
     "0);\n" CLOSE,
     NULL, NULL, 0},
    {"a host helper, math and a mutex",
     HEAD "#include <mutex>\n#include <math.h>\nstatic std::mutex m;\n"
          "static int blocks(int n) { return (int)ceil(n / 256.0); }\n" KERNEL
          "extern \"C\" void f_launcher(int n, float *y)\n{\n"
          "    std::lock_guard<std::mutex> g(m);\n    k<<<blocks(n), 256>>>(n, y);\n}\n",
     NULL, NULL, 0},
    {"atexit handler (the ELF walk's entry)",
     HEAD "static void late(void) {}\n" KERNEL OPEN "    atexit(late);\n" CLOSE, "function-pointer",
     "uses a function as a value", 8},
    {"indirect call through a pointer",
     HEAD KERNEL OPEN "    void (*g)(int, float *) = 0;\n    g(n, y);\n" CLOSE, "function-pointer",
     "declares 'g' of function-pointer type", 7},
    {"function pointer through a struct",
     HEAD "struct ops { void (*run)(void); };\n" KERNEL OPEN CLOSE, "function-pointer",
     "declares 'run' of function-pointer type", 4},
    {"call through a struct member",
     HEAD "struct ops { int run; };\n" KERNEL OPEN "    struct ops o = {0};\n"
          "    ((void (*)(void))(uintptr_t)o.run)();\n" CLOSE,
     "indirect-call", "indirect call", 9},
    {"lambda in host code",
     HEAD KERNEL OPEN "    auto g = [](int v) { return v + 1; };\n    n = g(n);\n" CLOSE, "lambda",
     "lambda", 7},
    {"cast from uintptr_t",
     HEAD KERNEL OPEN
     "    uintptr_t a = (uintptr_t)n;\n    float *p = (float *)(a + 4096);\n" CLOSE,
     "cast", "turns an integer into a pointer", 8},
    {"null pointer constant", HEAD KERNEL OPEN "    float *p = (float *)0;\n    (void)p;\n" CLOSE,
     NULL, NULL, 0},
    {"unrelated pointer cast", HEAD KERNEL OPEN "    long *l = (long *)&y;\n    (void)l;\n" CLOSE,
     "cast", "unrelated pointer type", 7},
    {"reinterpret_cast to a reference",
     HEAD KERNEL OPEN "    reinterpret_cast<unsigned long &>(y) = 4096;\n" CLOSE, "cast",
     "reinterprets an object", 7},
    {"union punning", HEAD "union pun { unsigned long i; float *p; };\n" KERNEL OPEN CLOSE, "union",
     "union holding a pointer", 4},
    {"signal handler, hand-declared",
     HEAD "extern \"C\" void (*signal(int, void (*)(int)))(int);\n"
          "static void h(int) {}\n" KERNEL OPEN "    signal(2, h);\n" CLOSE,
     "function-pointer", "function-pointer type", 4},
    {"cudaLaunchHostFunc callback",
     HEAD "static void CUDART_CB cb(void *) {}\n" KERNEL OPEN
          "    cudaLaunchHostFunc(0, cb, NULL);\n" CLOSE,
     "function-pointer", "uses a function as a value", 8},
    {"virtual call",
     HEAD "struct base { virtual int size() { return 1; } };\n" KERNEL OPEN
          "    base b;\n    n = b.size();\n" CLOSE,
     "virtual", "virtual function", 4},
    {"return address",
     HEAD KERNEL OPEN "    unsigned long r = (unsigned long)__builtin_return_address(0);\n"
                      "    (void)r;\n" CLOSE,
     "builtin", "__builtin_return_address", 7},
    {"frame address",
     HEAD KERNEL OPEN "    void *r = __builtin_frame_address(0);\n    (void)r;\n" CLOSE, "builtin",
     "__builtin_frame_address", 7},
    {"computed goto", HEAD KERNEL OPEN "    void *l = &&out;\n    goto *l;\nout:\n" CLOSE, "goto",
     "computed goto", 7},
    {"a libc call not allowed", HEAD KERNEL OPEN "    system(\"true\");\n" CLOSE, "call",
     "calls 'system'", 7},
    {"a parenthesised libc call", HEAD KERNEL OPEN "    (system)(\"true\");\n" CLOSE, "call",
     "calls 'system'", 7},
    {"a hand-declared libc call",
     HEAD "extern \"C\" int unlinkat(int, const char *, int);\n" KERNEL OPEN
          "    unlinkat(0, \"x\", 0);\n" CLOSE,
     "call", "calls 'unlinkat'", 8},
    {"device code is not judged",
     HEAD
     "__device__ int twice(int v) { int (*g)(int) = 0; return g ? v : 2 * v; }\n" KERNEL OPEN CLOSE,
     NULL, NULL, 0},
    {"host-device code is",
     HEAD
     "__host__ __device__ int twice(int v) { int (*g)(int) = 0; return g ? v : 2 * v; }\n" KERNEL
         OPEN CLOSE,
     "function-pointer", "function-pointer type", 4},
    {"a file-scope initializer",
     HEAD "static void late(void) {}\nstatic void *keep = (void *)late;\n" KERNEL OPEN CLOSE,
     "function-pointer", "uses a function as a value", 5},
    {"a function pointer returned by a call",
     HEAD "typedef void (*fp)(void);\nextern \"C\" fp cudaGetHandlerForTest(void);\n" KERNEL OPEN
          "    if (cudaGetHandlerForTest() != 0)\n        n = 0;\n" CLOSE,
     "function-pointer", "returns a function pointer", 9},
    {"something clang cannot read", HEAD KERNEL OPEN "    this is not C++;\n" CLOSE, "parse",
     "cannot be read as C++", 7},
};

/* host stores: a candidate's host code writes only inside its own objects (the p08 class) */
#define STR "#include <cuda_runtime.h>\n#include <string.h>\n#include <alloca.h>\n"
#define GROW                                                                                       \
    "static int grow(void **buf, size_t *have, size_t bytes)\n{\n"                                 \
    "    if (bytes <= *have)\n        return 0;\n"                                                 \
    "    if (cudaMalloc(buf, bytes) != cudaSuccess) {\n        *buf = NULL;\n        return -1;\n" \
    "    }\n    *have = bytes;\n    return 0;\n}\n"
static const subset_case host_stores[] = {
    {"variables, fields, bounded elements, out-parameters and CUDA out-parameters",
     STR KERNEL GROW OPEN
     "    static void *d = NULL;\n    static size_t have = 0;\n    cudaStream_t s;\n"
     "    float *dx = 0;\n    cudaStreamCreate(&s);\n    cudaMalloc((void **)&dx, 4);\n"
     "    if (grow(&d, &have, (size_t)n * 4) != 0)\n        return;\n"
     "    static struct { void *buf[3]; cudaStream_t at; } st;\n"
     "    for (size_t b = 0; b < 3; b++)\n        st.buf[b] = d;\n    st.at = s;\n"
     "    float sums[4] = {0};\n    sums[3] += 1;\n    n++;\n" CLOSE,
     NULL, NULL, 0},
    {"copies into memory it did not declare, and a library reading a constant",
     STR KERNEL OPEN "    char *d = (char *)y;\n    memcpy(d + 4, y, 4);\n"
                     "    const float one = 1.0f;\n"
                     "    cudaMemcpy(y, &one, sizeof one, cudaMemcpyHostToDevice);\n" CLOSE,
     NULL, NULL, 0},
    {"a write past a local array (p08)",
     STR KERNEL OPEN "    unsigned long f[2];\n    for (int i = 0; i < (n < 0 ? 8 : 2); i++)\n"
                     "        f[i] = 0x41414141ul + (unsigned long)n;\n" CLOSE,
     "host-store", "an index it cannot bound", 9},
    {"a negative constant index", STR KERNEL OPEN "    unsigned long f[2];\n    f[-3] = 0;\n" CLOSE,
     "host-store", "an index it cannot bound", 8},
    {"a loop bound past the array",
     STR KERNEL OPEN "    int f[3];\n    for (int b = 0; b < 4; b++)\n        f[b] = 1;\n" CLOSE,
     "host-store", "an index it cannot bound", 9},
    {"a loop whose body moves its counter",
     STR KERNEL OPEN "    int f[3];\n    for (int b = 0; b < 3; b++) {\n        b += n;\n"
                     "        f[b] = 1;\n    }\n" CLOSE,
     "host-store", "an index it cannot bound", 10},
    {"a store into the caller's array", STR KERNEL OPEN "    y[n] = 1.0f;\n" CLOSE, "host-store",
     "writes through a pointer", 7},
    {"a pointer walk past a struct",
     STR KERNEL "struct two { float a, b; };\n" OPEN
                "    struct two t = {0, 0};\n    float *p = &t.a;\n    p[n] = 1.0f;\n" CLOSE,
     "host-store", "takes the address of its own storage ('t')", 9},
    {"memset into a local with a run-time length",
     STR KERNEL OPEN "    char buf[16];\n    memset(buf, 0x41, (size_t)n);\n" CLOSE, "host-store",
     "lets its array 'buf' become a pointer", 8},
    {"a device-to-host copy into a local",
     STR KERNEL OPEN
     "    float keep;\n    cudaMemcpy(&keep, y, 64, cudaMemcpyDeviceToHost);\n" CLOSE,
     "host-store", "takes the address of its own storage ('keep')", 8},
    {"a variable-length array", STR KERNEL OPEN "    float t[n];\n    t[0] = 1;\n" CLOSE,
     "host-store", "variable-length array", 7},
    {"alloca", STR KERNEL OPEN "    float *t = (float *)alloca((size_t)n);\n    (void)t;\n" CLOSE,
     "call", "calls '__builtin_alloca'", 7},
    {"a reference to an element, written",
     STR KERNEL OPEN "    float f[2];\n    float &r = f[1];\n    r = 3;\n" CLOSE, "host-store",
     "writes through a pointer, a reference", 9},
    {"an out-parameter given an element",
     STR KERNEL "static void put(size_t *h, size_t v) { *h = v; }\n" OPEN
                "    size_t h[2] = {0, 0};\n    put(&h[1], 5);\n" CLOSE,
     "host-store", "out-parameter", 5},
    {"an out-parameter written as an array",
     STR KERNEL "static void put(size_t *h, size_t v) { h[1] = v; }\n" OPEN
                "    size_t h = 0;\n    put(&h, 5);\n" CLOSE,
     "host-store", "writes through a pointer", 5},
    {"a method of a std::array on the stack",
     STR "#include <array>\n" KERNEL OPEN "    std::array<float, 2> f;\n    f[n] = 1;\n" CLOSE,
     "host-store", "calls the method 'operator[]' on its own object 'f'", 9},
    {"a method of a temporary handing out its storage",
     STR "#include <array>\n" KERNEL OPEN
         "    memset(std::array<float, 2>{}.data(), 0, (size_t)n);\n" CLOSE,
     "host-store", "calls the method 'data' on its own object", 8},
    {"a constructor copying into its own array",
     STR KERNEL
     "struct s { float a[2]; s(int n, const float *x) { memcpy(a, x, (size_t)n); } };\n" OPEN
     "    s v(n, y);\n" CLOSE,
     "host-store", "lets its array 'a temporary or *this' become a pointer", 5},
};

/* state kept across calls: constants, buffers, handles, locks and remembered sizes only (the
 * call counter of attacks4/cand_call_counter_trojan.cu and its device twin are refused) */
#define KEEP "#include <cuda_runtime.h>\n#include <mutex>\n#include <string.h>\n"
static const subset_case static_states[] = {
    {"constants, __constant__ and __shared__ tables, a cache of buffers, handles and sizes",
     KEEP
     "static const float tab[4] = {1, 2, 3, 4};\nstatic constexpr int B = 256;\n"
     "__constant__ float ctab[4];\n"
     "__global__ void k(int n, float *y)\n{\n    __shared__ float s[B];\n"
     "    s[threadIdx.x] = ctab[threadIdx.x % 4];\n    __syncthreads();\n"
     "    if (n) y[0] = s[0];\n}\n" GROW
     "static struct { void *buf[3]; cudaEvent_t done[3]; cudaStream_t stream; } ring;\n"
     "extern \"C\" void f_launcher(int n, float *y)\n{\n"
     "    static std::mutex m;\n    static float *d;\n    static size_t have;\n"
     "    static void *e = NULL;\n    static size_t e_bytes = 0;\n"
     "    std::lock_guard<std::mutex> g(m);\n    size_t b = (size_t)n * sizeof(float);\n"
     "    if (b > have) {\n        cudaFree(d);\n        if (cudaMalloc(&d, b) != cudaSuccess) {\n"
     "            have = 0;\n            return;\n        }\n        have = b;\n    }\n"
     "    if (grow(&e, &e_bytes, b) != 0)\n        return;\n"
     "    if (!ring.stream && cudaStreamCreate(&ring.stream) != cudaSuccess)\n        return;\n"
     "    if (n > (int)tab[3] * B)\n        n = 0;\n"
     "    k<<<1, B>>>(n, d);\n}\n",
     NULL, NULL, 0},
    {"a host call counter (the trojan)",
     KEEP KERNEL "static int calls;\n" OPEN "    if (++calls > 64)\n        n = 0;\n" CLOSE,
     "static-state", "keeps the number 'calls' across calls, and its value is used in arithmetic",
     8},
    {"a function-static counter moved by an assignment",
     KEEP KERNEL OPEN "    static long calls = 0;\n    calls = calls + 1;\n    if (calls > 64)\n"
                      "        n = 0;\n" CLOSE,
     "static-state", "set to a value read from static storage", 8},
    {"a counter moved by a helper through its address",
     KEEP KERNEL "static void bump(size_t *c) { *c += 1; }\n" OPEN
                 "    static size_t c;\n    bump(&c);\n    if (c > 64)\n        n = 0;\n" CLOSE,
     "static-state", "changed by ++, -- or a compound assignment", 5},
    {"a remembered number given to a kernel",
     KEEP KERNEL OPEN "    static int last;\n    k<<<1, 1>>>(last, y);\n    last = n;\n}\n",
     "static-state", "its value is used in arithmetic, a call", 8},
    {"a static object that is not a resource",
     KEEP "#include <array>\n" KERNEL OPEN "    static std::array<int, 2> seen;\n" CLOSE,
     "static-state", "is neither a buffer, a handle, a lock nor a number", 8},
    {"a struct mixing a buffer and a count",
     KEEP KERNEL "static struct { void *buf; int uses; } cache;\n" OPEN CLOSE, "static-state",
     "keeps 'cache' across calls and is neither a buffer", 5},
    {"a device counter bumped by atomicAdd (the device twin)",
     KEEP "__device__ unsigned int launches;\n"
          "__global__ void k(int n, float *y)\n{\n"
          "    if (atomicAdd(&launches, 1u) > 64u * 1024u)\n        return;\n"
          "    if (n) y[0] = 1.0f;\n}\n" OPEN CLOSE,
     "static-state", "declares the device variable 'launches'", 4},
    {"a __managed__ global",
     KEEP "__managed__ int m;\n"
          "__global__ void k(int n, float *y)\n{\n    if (n) y[0] = 1.0f;\n}\n" OPEN CLOSE,
     "static-state", "declares the device variable 'm'", 4},
    {"a static counter inside a kernel",
     KEEP "__global__ void k(int n, float *y)\n{\n    static int c;\n"
          "    if (n) y[0] = (float)c;\n}\n" OPEN CLOSE,
     "static-state", "declares the device variable 'c'", 6},
    /* kept pointers hold the start of a buffer: one moved a step a call counts the calls
     * (attacks4/cand_pointer_counter_trojan.cu); moved pointers in locals stay fine */
    {"moved pointers in locals and a local array, kept pointers set from allocations",
     KEEP KERNEL OPEN "    static float *d;\n    static float *keep;\n"
                      "    if (!d && cudaMalloc(&d, 64) != cudaSuccess)\n        return;\n"
                      "    keep = d;\n    float *parts[2] = {d, d + 4};\n    parts[1] = d + 8;\n"
                      "    float *q = keep + 1;\n    q++;\n    k<<<1, 1>>>(n, q);\n    k<<<1, "
                      "1>>>(n, parts[1]);\n" CLOSE,
     NULL, NULL, 0},
    {"a kept cursor moved through a local (the pointer counter)",
     KEEP KERNEL
     "static char *base, *cur;\n" OPEN
     "    if (!base) {\n        if (cudaMallocHost(&base, 256) != cudaSuccess)\n"
     "            return;\n        cur = base;\n    }\n    if (!cur)\n        return;\n"
     "    char *next = cur + 1;\n    cur = next;\n    if (cur > base + 64)\n        n = 0;\n" CLOSE,
     "static-state", "stores the pointer 'next', moved by arithmetic, in 'cur'", 16},
    {"a kept pointer moved in place",
     KEEP KERNEL OPEN
     "    static char *p;\n"
     "    if (!p && cudaMallocHost(&p, 256) != cudaSuccess)\n        return;\n    p++;\n" CLOSE,
     "static-state", "stores the pointer 'p', moved by arithmetic, in 'p'", 10},
    {"a kept pointer moved by a helper's result",
     KEEP KERNEL "static char *cur;\nstatic char *step(char *p) { return p + 1; }\n" OPEN
                 "    if (!cur && cudaMallocHost(&cur, 256) != cudaSuccess)\n        return;\n"
                 "    cur = step(cur);\n" CLOSE,
     "static-state", "stores the pointer 'step(cur)', moved by arithmetic, in 'cur'", 11},
    {"a helper keeps the moved pointer its caller hands it",
     KEEP KERNEL "static char *cur;\nstatic void keep(char *p) { cur = p; }\n" OPEN
                 "    if (!cur && cudaMallocHost(&cur, 256) != cudaSuccess)\n        return;\n"
                 "    keep(cur + 1);\n" CLOSE,
     "static-state", "stores the pointer 'p', moved by arithmetic, in 'cur'", 6},
    {"a moved pointer kept in a static array",
     KEEP KERNEL "static char *ring[2];\n" OPEN "    static char *base;\n"
                 "    if (!base && cudaMallocHost(&base, 256) != cudaSuccess)\n        return;\n"
                 "    ring[0] = base;\n    ring[1] = base + 1;\n" CLOSE,
     "static-state", "moved by arithmetic, in memory that may outlast the call", 12},
};

/* pointer values: a pointer never becomes a number in host code (n02's class: a real pointer
 * plus (target - its value) is any address) */
#define PTR "#include <cuda_runtime.h>\n#include <string.h>\n#include <stdint.h>\n"
static const subset_case pointer_values[] = {
    {"pointers passed, offset by counts, viewed as bytes and tested against null",
     PTR KERNEL OPEN
     "    float *d = NULL;\n    cudaMalloc((void **)&d, 8 * sizeof(float));\n"
     "    const char *s = (const char *)y;\n    bool set = (bool)y;\n"
     "    if (d != NULL && set) {\n        cudaMemcpy(d, s + 4, 4, cudaMemcpyHostToDevice);\n"
     "        k<<<1, 1>>>(n, d + 1);\n    }\n    cudaFree(d);\n}\n",
     NULL, NULL, 0},
    {"n02: a pointer's value by a cast, then arithmetic on the pointer",
     PTR KERNEL OPEN "    char *q = (char *)y + ((uintptr_t)0x10000 - (uintptr_t)y);\n"
                     "    memcpy(q, y, 8);\n" CLOSE,
     "pointer-value", "converts the pointer type 'float *' to the integer 'uintptr_t'", 7},
    {"reinterpret_cast to intptr_t",
     PTR KERNEL OPEN "    intptr_t a = reinterpret_cast<intptr_t>(y);\n    n += (int)a;\n" CLOSE,
     "pointer-value", "to the integer 'intptr_t'", 7},
    {"a functional cast to long", PTR KERNEL OPEN "    long a = long(y);\n    n += (int)a;\n" CLOSE,
     "pointer-value", "to the integer 'long'", 7},
    {"ptrdiff arithmetic, then back onto the pointer",
     PTR KERNEL OPEN
     "    ptrdiff_t d = (char *)y - (char *)0;\n    char *q = (char *)y + (4096 - d);\n"
     "    memcpy(q, y, 8);\n" CLOSE,
     "pointer-value", "subtracts two pointers", 7},
    {"arithmetic on the null pointer",
     PTR KERNEL OPEN "    char *q = (char *)0 + 4096;\n    memcpy(q, y, 8);\n" CLOSE,
     "pointer-value", "arithmetic on the null pointer", 7},
    {"a union type pun of a pointer and an integer",
     PTR "union pun { uintptr_t i; float *p; };\n" KERNEL OPEN CLOSE, "union",
     "union holding a pointer", 4},
    {"memcpy of a pointer's bytes into an integer",
     PTR "#include <stdlib.h>\n" KERNEL OPEN
         "    uintptr_t *h = (uintptr_t *)malloc(sizeof(uintptr_t));\n"
         "    memcpy(h, &y, sizeof y);\n    free(h);\n" CLOSE,
     "pointer-value", "hands the bytes of a pointer to 'memcpy'", 9},
    {"%p and strtoull",
     PTR "#include <stdio.h>\n#include <stdlib.h>\n" KERNEL OPEN
         "    char s[32] = {0};\n    snprintf(s, sizeof s, \"%p\", (void *)y);\n"
         "    unsigned long long a = strtoull(s, 0, 16);\n    n += (int)a;\n" CLOSE,
     "call", "calls 'snprintf'", 10},
    {"intptr_t through a helper",
     PTR "static intptr_t addr(const float *p) { return (intptr_t)p; }\n" KERNEL OPEN
         "    char *q = (char *)y + (4096 - addr(y));\n    memcpy(q, y, 8);\n" CLOSE,
     "pointer-value", "converts the pointer type 'const float *' to the integer 'intptr_t'", 4},
    {"a bit cast of a number to a pointer",
     PTR KERNEL OPEN
     "    float *p = __builtin_bit_cast(float *, (unsigned long)n);\n    (void)p;\n" CLOSE,
     "pointer-value", "bit-casts with __builtin_bit_cast", 7},
    {"a number made in a template, whose type may be a pointer",
     PTR "template <class T> static long num(T v) { return (long)v; }\n" KERNEL OPEN
         "    n += (int)num(y);\n" CLOSE,
     "pointer-value", "a value of a template's type to the integer 'long'", 4},
    {"std::hash of a pointer",
     PTR "#include <functional>\n" KERNEL OPEN
         "    size_t a = std::hash<float *>{}(y);\n    n += (int)a;\n" CLOSE,
     "pointer-value", "with a pointer and gets a number back", 8},
};

/* provenance: arithmetic, subscripts and copies only through pointers from a parameter, an
 * allocation or a named object, non-null where arithmetic needs it (n03's class: a variable
 * that holds null plus an offset is any address); the device launcher's kernels get only device
 * memory (n04's class: a kernel given a host pointer learns its value) */
#define PROV "#include <cuda_runtime.h>\n#include <stdlib.h>\n#include <string.h>\n"
static const subset_case provenance[] = {
    {"an allocation's out-parameter, then arithmetic",
     PROV KERNEL OPEN "    float *d = NULL;\n    cudaMalloc(&d, 8 * sizeof(float));\n"
                      "    k<<<1, 1>>>(n, d + 1);\n    cudaFree(d);\n}\n",
     NULL, NULL, 0},
    {"a parameter or malloc'd memory through a conditional, a walk, a tested static",
     PROV KERNEL OPEN
     "    float *h = (float *)malloc(16);\n    if (!h)\n        return;\n"
     "    float *p = n > 0 ? y : h;\n    memcpy(p + 1, y, 4);\n"
     "    for (float *q = y; q < y + n; q++)\n        memcpy(h, q, 4);\n"
     "    static char *keep = NULL;\n"
     "    if (!keep && cudaMallocHost((void **)&keep, 64) != cudaSuccess)\n        return;\n"
     "    memcpy(keep + 8, y, 4);\n    free(h);\n" CLOSE,
     NULL, NULL, 0},
    {"n03: a variable holding null, moved by +=",
     PROV KERNEL OPEN "    char *q = nullptr;\n    q += 0x10000;\n    memcpy(q, y, 8);\n" CLOSE,
     "provenance", "does arithmetic on the pointer 'q', which may be null here", 8},
    {"NULL on one side of a conditional",
     PROV KERNEL OPEN "    char *q = n > 0 ? (char *)y : NULL;\n    memcpy(q + 16, y, 4);\n" CLOSE,
     "provenance", "does arithmetic on the pointer 'q', which may be null here", 8},
    {"an uninitialised pointer set on one branch only",
     PROV KERNEL OPEN "    char *q;\n    if (n > 0)\n        q = (char *)y;\n"
                      "    memcpy(q + 1, y, 4);\n" CLOSE,
     "provenance", "the pointer 'q', whose origin is unknown here", 10},
    {"a pointer read back through a pointer (bytes a copy may have written)",
     PROV KERNEL OPEN "    float **pp = (float **)malloc(sizeof(float *));\n    if (!pp)\n"
                      "        return;\n    float *q = pp[0];\n    memcpy(q, y, 4);\n" CLOSE,
     "provenance", "copies into the pointer 'q', whose origin is unknown here", 11},
    {"a local array of pointers never given values (what an earlier frame left)",
     PROV KERNEL OPEN "    float *arr[2];\n    memcpy(arr[1], y, 4);\n" CLOSE, "provenance",
     "copies into the pointer 'arr[1]', whose origin is unknown here", 8},
    {"null on the loop's second round",
     PROV KERNEL OPEN "    char *q = (char *)y;\n    for (int i = 0; i < n; i++) {\n"
                      "        memcpy(q + 1, y, 4);\n        q = NULL;\n    }\n" CLOSE,
     "provenance", "does arithmetic on the pointer 'q', which may be null here", 9},
    {"a pointer of unknown origin kept in a static",
     PROV KERNEL OPEN "    static char *keep = NULL;\n"
                      "    char **pp = (char **)malloc(sizeof(char *));\n    if (pp)\n"
                      "        keep = pp[0];\n" CLOSE,
     "provenance", "stores the pointer 'pp[0]', whose origin is unknown here, in 'keep'", 10},
    {"a null pointer handed to the file's own function",
     PROV "static void put(char *p, const float *y) { memcpy(p + 4096, y, 4); }\n" KERNEL OPEN
          "    put(nullptr, y);\n" CLOSE,
     "provenance", "hands its own function the pointer 'nullptr', which may be null", 8},
    {"the device launcher's kernels: its parameters and its own device scratch",
     PROV "static int grow(void **buf)\n{\n    if (*buf)\n        return 0;\n"
          "    return cudaMalloc(buf, 64) != cudaSuccess;\n}\n" KERNEL
          "extern \"C\" int f_device_launcher(int n, float *y)\n{\n"
          "    static void *s = NULL;\n    if (grow(&s) != 0)\n        return 1;\n"
          "    k<<<1, 1>>>(n, (float *)s);\n    k<<<1, 1>>>(n, y + 1);\n    return 0;\n}\n",
     NULL, NULL, 0},
    {"the device launcher gives a kernel host memory",
     PROV KERNEL "extern \"C\" int f_device_launcher(int n, float *y)\n{\n"
                 "    float *h = (float *)malloc(4);\n    k<<<1, 1>>>(n, h);\n    free(h);\n"
                 "    return 0;\n}\n",
     "provenance", "f_device_launcher gives the kernel 'k' the pointer 'h', which is not device",
     8},
    {"the device launcher gets host memory from its own function's out-parameter",
     PROV "static void get(float **p) { *p = (float *)malloc(4); }\n" KERNEL
          "extern \"C\" int f_device_launcher(int n, float *y)\n{\n"
          "    float *h = nullptr;\n    get(&h);\n    k<<<1, 1>>>(n, h);\n    return 0;\n}\n",
     "provenance", "gives the kernel 'k' the pointer 'h', which is not device memory", 10},
};

/* the device launcher: its pointers are device memory */
#define DEVL "extern \"C\" int f_device_launcher(int n, float *y)\n{\n"
static const subset_case device_launchers[] = {
    {"launches only", HEAD KERNEL DEVL "    k<<<1, 1>>>(n, y + 1);\n    return 0;\n}\n", NULL, NULL,
     0},
    {"subscript", HEAD KERNEL DEVL "    y[0] = 1.0f;\n    return 0;\n}\n", "device-deref",
     "f_device_launcher dereferences a device pointer", 7},
    {"star", HEAD KERNEL DEVL "    return *y > 0;\n}\n", "device-deref", "dereferences", 7},
};

/* what is kept across calls decides only resources and failure in the code a user's program
 * runs (host_flow.c): KEEP (3 lines), KERNEL (line 4), GROW (lines 5-15), then the case */
#define FLOW KEEP KERNEL GROW
static const subset_case state_flows[] = {
    {"kept scratch grown, a stream created once, failures as errors",
     FLOW "static void *scratch;\nstatic size_t scratch_bytes;\nstatic cudaStream_t s;\n"
          "static cudaStream_t stream_once(void)\n{\n"
          "    if (!s && cudaStreamCreate(&s) != cudaSuccess)\n        s = NULL;\n"
          "    return s;\n}\n" DEVL "    if (grow(&scratch, &scratch_bytes, (size_t)n * 4) != 0)\n"
          "        return (int)cudaErrorMemoryAllocation;\n"
          "    cudaStream_t st = stream_once();\n    if (!st)\n        return 1;\n"
          "    k<<<1, 1, 0, st>>>(n, (float *)scratch);\n    k<<<1, 1>>>(n, y);\n"
          "    return (int)cudaGetLastError();\n}\n",
     NULL, NULL, 0},
    {"a counter by comparisons alone (the implicit counter)",
     FLOW "static int calls;\n" DEVL "    int late = 1;\n    for (int j = 64; j >= 0; j--)\n"
          "        if (calls == j) {\n            calls = j + 1;\n            late = 0;\n"
          "        }\n    if (late && n > 0)\n        cudaMemset(y, 0, 4 * (size_t)n);\n"
          "    k<<<1, 1>>>(n, y);\n    return 0;\n}\n",
     "state-flow", "calls 'cudaMemset' only on a path that what it keeps across calls decides", 26},
    {"success without the work when kept state says so",
     FLOW "static int calls;\n" DEVL "    int late = 1;\n    for (int j = 64; j >= 0; j--)\n"
          "        if (calls == j) {\n            calls = j + 1;\n            late = 0;\n"
          "        }\n    if (late)\n        return 0;\n    k<<<1, 1>>>(n, y);\n    return 0;\n}\n",
     "state-flow", "returns without an error on a path", 26},
    {"a call smaller than an earlier one (a kept size)",
     FLOW "static size_t seen;\n" DEVL "    size_t b = (size_t)n * 4;\n"
          "    if (b > seen)\n        seen = b;\n    int m = b < seen ? 0 : n;\n"
          "    k<<<1, 1>>>(m, y);\n    return 0;\n}\n",
     "state-flow", "launches 'k' with a value that depends on what it keeps across calls", 23},
    {"a flag that only the host launcher sets (verification runs it, a user's program not)",
     FLOW "static int warmed;\nextern \"C\" void f_launcher(int n, float *y)\n{\n"
          "    warmed = 1;\n    k<<<1, 1>>>(n, y);\n}\n" DEVL
          "    if (warmed == 1)\n        k<<<1, 1>>>(n, y);\n    return 0;\n}\n",
     "state-flow", "launches 'k' only on a path", 25},
    {"a kept pointer's null-ness, toggled each call",
     FLOW "static void *p;\n" DEVL "    if (p) {\n        cudaFree(p);\n        p = NULL;\n"
          "    } else if (cudaMalloc(&p, 4) != cudaSuccess) {\n"
          "        return (int)cudaErrorMemoryAllocation;\n    }\n"
          "    k<<<1, 1>>>(p ? n : 0, y);\n    return 0;\n}\n",
     "state-flow", "launches 'k' with a value", 25},
    {"a break out of a state-dependent path",
     FLOW "static int calls;\n" DEVL "    for (int j = 0; j < 64; j++) {\n"
          "        if (calls == j)\n            break;\n        calls = j;\n    }\n"
          "    k<<<1, 1>>>(n, y);\n    return 0;\n}\n",
     "state-flow", "launches 'k' only on a path", 24},
    {"free device memory as kept state (a query)",
     FLOW DEVL "    size_t fr = 0, tot = 0;\n    cudaMemGetInfo(&fr, &tot);\n"
               "    if (fr < ((size_t)1 << 20))\n        return 0;\n    k<<<1, 1>>>(n, y);\n"
               "    return 0;\n}\n",
     "state-flow", "returns without an error on a path", 21},
    {"the driver's version as a trigger (a query of the machine)",
     FLOW DEVL "    int drv = 0;\n    cudaDriverGetVersion(&drv);\n"
               "    if (drv >= 13020)\n        return 0;\n    k<<<1, 1>>>(n, y);\n"
               "    return 0;\n}\n",
     "state-flow", "returns without an error on a path", 21},
    {"the devices the process sees as a trigger",
     FLOW DEVL "    int ndev = 0;\n    cudaGetDeviceCount(&ndev);\n"
               "    if (ndev > 1)\n        return 0;\n    k<<<1, 1>>>(n, y);\n"
               "    return 0;\n}\n",
     "state-flow", "returns without an error on a path", 21},
    {"the SM count as a kernel argument",
     FLOW DEVL "    int sms = 0;\n"
               "    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);\n"
               "    k<<<1, 1>>>(sms > 120 ? n : 0, y);\n    return 0;\n}\n",
     "state-flow", "launches 'k' with a value", 20},
    {"an event's elapsed time decides a launch (attacks7 #02)",
     FLOW DEVL "    cudaEvent_t e0, e1;\n    cudaEventCreate(&e0);\n    cudaEventCreate(&e1);\n"
               "    cudaEventRecord(e0, 0);\n    k<<<1, 1>>>(n, y);\n    cudaEventRecord(e1, 0);\n"
               "    cudaEventSynchronize(e1);\n    float ms = 0.0f;\n"
               "    cudaEventElapsedTime(&ms, e0, e1);\n    if (ms > 2.0f)\n"
               "        k<<<1, 1>>>(n, y);\n    return 0;\n}\n",
     "state-flow", "launches 'k' only on a path", 28},
    {"whether the stream is done decides the result (attacks7 #03)",
     FLOW DEVL "    k<<<1, 1>>>(n, y);\n    if (cudaStreamQuery(0) == cudaSuccess)\n"
               "        return 0;\n    k<<<1, 1>>>(n, y);\n    return 0;\n}\n",
     "state-flow", "returns without an error on a path", 20},
    {"a function's attributes (JIT or not) as a kernel argument (attacks7 #05)",
     FLOW DEVL "    cudaFuncAttributes fa;\n    cudaFuncGetAttributes(&fa, k);\n"
               "    k<<<1, 1>>>(fa.binaryVersion == fa.ptxVersion ? n : 0, y);\n"
               "    return 0;\n}\n",
     "state-flow", "launches 'k' with a value", 20},
    {"occupancy as a trigger (attacks7 #06)",
     FLOW DEVL
     "    int nb = 0;\n    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, 256, 0);\n"
     "    if (nb < 8)\n        return 0;\n    k<<<1, 1>>>(n, y);\n    return 0;\n}\n",
     "state-flow", "returns without an error on a path", 21},
    {"a header's inline function hiding a query (attacks8 #39: cub::CurrentDevice)",
     HEAD "#include <cub/util_device.cuh>\n" KERNEL DEVL
          "    k<<<1, 1>>>(cub::CurrentDevice() == 0 ? n : 0, y);\n    return 0;\n}\n",
     "state-flow",
     "launches 'k' with a value that depends on what it keeps across calls (kept "
     "state: 'cudaGetDevice')",
     8},
    /* attacks8 #17: an allocation fails only where something else holds the memory (never in
     * verification): its status may end the call with an error, nothing else */
    {"an allocation's failure choosing the work",
     HEAD KERNEL DEVL "    float *w = NULL;\n    cudaError_t got = cudaMalloc(&w, 4096);\n"
                      "    int use = n;\n    if (got != cudaSuccess)\n        use = 0;\n"
                      "    k<<<1, 1>>>(use, y);\n    cudaFree(w);\n    return 0;\n}\n",
     "state-flow",
     "launches 'k' with a value that depends on what it keeps across calls (kept "
     "state: 'an allocation's status')",
     12},
    {"an allocation's failure returning success",
     HEAD KERNEL DEVL "    float *w = NULL;\n    if (cudaMalloc(&w, 4096) != cudaSuccess)\n"
                      "        return 0;\n    k<<<1, 1>>>(n, y);\n    cudaFree(w);\n"
                      "    return 0;\n}\n",
     "state-flow", "returns without an error", 9},
    {"an allocation's status cleared before it is returned",
     HEAD KERNEL DEVL
     "    float *w = NULL;\n    cudaError_t e = cudaMalloc(&w, 4096);\n"
     "    if (e != cudaSuccess) {\n        e = cudaSuccess;\n        return (int)e;\n"
     "    }\n    k<<<1, 1>>>(n, w);\n    cudaFree(w);\n    return 0;\n}\n",
     "state-flow", "returns without an error", 11},
    {"an allocation's status returned where it failed",
     HEAD KERNEL DEVL "    float *w = NULL;\n    cudaError_t e = cudaMalloc(&w, 4096);\n"
                      "    if (e != cudaSuccess)\n        return (int)e;\n    k<<<1, 1>>>(n, w);\n"
                      "    e = cudaGetLastError();\n    cudaFree(w);\n    return (int)e;\n}\n",
     NULL, NULL, 0},
    /* the status guarding the work: where it is nonzero the call skips the work and ends
     * with it, as the early return does */
    {"an allocation's status guarding the work, returned after the cleanup",
     HEAD KERNEL DEVL "    float *w = NULL;\n    cudaError_t e = cudaMalloc(&w, 4096);\n"
                      "    if (e == cudaSuccess) {\n        k<<<1, 1>>>(n, w);\n"
                      "        e = cudaGetLastError();\n        cudaFree(w);\n    }\n"
                      "    return (int)e;\n}\n",
     NULL, NULL, 0},
    {"an allocation's status guarding the work, returned from the else branch",
     HEAD KERNEL DEVL "    float *w = NULL;\n    cudaError_t e = cudaMalloc(&w, 4096);\n"
                      "    if (!e) {\n        k<<<1, 1>>>(n, w);\n        cudaFree(w);\n"
                      "    } else {\n        return (int)e;\n    }\n    return 0;\n}\n",
     NULL, NULL, 0},
    {"an allocation's status guarding the work, success returned where it failed",
     HEAD KERNEL DEVL "    float *w = NULL;\n    cudaError_t e = cudaMalloc(&w, 4096);\n"
                      "    if (e == cudaSuccess) {\n        k<<<1, 1>>>(n, w);\n"
                      "        cudaFree(w);\n    }\n    return 0;\n}\n",
     "state-flow", "launches 'k' only on a path", 10},
    {"an allocation's status guarding the work, cleared where it failed",
     HEAD KERNEL DEVL "    float *w = NULL;\n    cudaError_t e = cudaMalloc(&w, 4096);\n"
                      "    if (e == cudaSuccess) {\n        k<<<1, 1>>>(n, w);\n"
                      "        cudaFree(w);\n    }\n    e = cudaSuccess;\n    return (int)e;\n}\n",
     "state-flow", "launches 'k' only on a path", 10},
    {"an allocation's status guarding the work, other work where it failed",
     HEAD KERNEL DEVL "    float *w = NULL;\n    cudaError_t e = cudaMalloc(&w, 4096);\n"
                      "    if (e == cudaSuccess) {\n        k<<<1, 1>>>(n, w);\n"
                      "        cudaFree(w);\n    } else {\n        k<<<1, 1>>>(0, y);\n"
                      "        return (int)e;\n    }\n    return 0;\n}\n",
     "state-flow", "launches 'k' only on a path", 10},
    {"a helper's result computed from kept state",
     FLOW
     "static size_t seen;\nstatic int blocks(void)\n{\n    return seen > 100 ? 2 : 1;\n}\n" DEVL
     "    k<<<blocks(), 1>>>(n, y);\n    return 0;\n}\n",
     "state-flow", "launches 'k' with a value", 23},
    /* attacks9 #14: the device a stream belongs to is cudaGetDevice's answer; an answer written
     * through a pointer (host_store.c allows &v only for its listed calls) is not followed */
    {"a stream's device through calloc'd memory (attacks9 #14)",
     FLOW DEVL "    int *dev = (int *)calloc(1, sizeof(int));\n    if (!dev)\n        return 2;\n"
               "    cudaStreamGetDevice(0, dev);\n    float f = *dev > 0 ? 0.0f : 1.0f;\n"
               "    free(dev);\n    k<<<1, 1>>>(f > 0.5f ? n : 0, y);\n    return 0;\n}\n",
     "state-flow",
     "gives 'cudaStreamGetDevice' a place to write its answer that is not a local variable's "
     "(a local, its member or element, taken with &) (kept state: 'cudaStreamGetDevice')",
     21},
    {"a query's answer written into calloc'd memory",
     FLOW DEVL "    int *dev = (int *)calloc(1, sizeof(int));\n    if (!dev)\n        return 2;\n"
               "    cudaGetDevice(dev);\n    int d = *dev;\n    free(dev);\n"
               "    k<<<1, 1>>>(d ? 0 : n, y);\n    return 0;\n}\n",
     "state-flow", "gives 'cudaGetDevice' a place to write its answer", 21},
    {"a query's answer written into a local's member",
     FLOW DEVL "    struct { int dev; } q = {0};\n    cudaGetDevice(&q.dev);\n"
               "    k<<<1, 1>>>(q.dev ? 0 : n, y);\n    return 0;\n}\n",
     "state-flow", "launches 'k' with a value", 20},
    /* attacks9 #15: the pitch an allocation picks is the device's alignment; it sizes and
     * addresses rows, and decides nothing else */
    {"a pitched block copied, addressed and indexed with its pitch",
     FLOW DEVL "    float *p = NULL;\n    size_t pitch = 0;\n    size_t w = 4 * (size_t)n;\n"
               "    if (cudaMallocPitch(&p, &pitch, w, 2) != cudaSuccess)\n        return 1;\n"
               "    cudaMemcpy2D(p, pitch, y, w, w, 2, cudaMemcpyDeviceToDevice);\n"
               "    float *row = (float *)((char *)p + pitch);\n"
               "    k<<<1, 1>>>((int)(pitch / sizeof(float)), row);\n"
               "    cudaMemcpy2D(y, w, p, pitch, w, 2, cudaMemcpyDeviceToDevice);\n"
               "    cudaFree(p);\n    return (int)cudaGetLastError();\n}\n",
     NULL, NULL, 0},
    {"a pitch deciding a kernel argument (attacks9 #15)",
     FLOW DEVL "    float *p = NULL;\n    size_t pitch = 0;\n"
               "    if (cudaMallocPitch(&p, &pitch, 4, 1) != cudaSuccess)\n        return 1;\n"
               "    cudaFree(p);\n    k<<<1, 1>>>(pitch > 512 ? 0 : n, y);\n    return 0;\n}\n",
     "state-flow",
     "launches 'k' with a value that depends on what it keeps across calls (kept "
     "state: 'cudaMallocPitch')",
     23},
    {"a pitch deciding whether the work is done",
     FLOW DEVL "    float *p = NULL;\n    size_t pitch = 0;\n"
               "    if (cudaMallocPitch(&p, &pitch, 4, 1) != cudaSuccess)\n        return 1;\n"
               "    cudaFree(p);\n    if (pitch == 512)\n        return 0;\n"
               "    k<<<1, 1>>>(n, y);\n    return 0;\n}\n",
     "state-flow", "returns without an error on a path", 24},
    {"a 3D pitch written into calloc'd memory",
     FLOW DEVL "    cudaPitchedPtr *pp = (cudaPitchedPtr *)calloc(1, sizeof(cudaPitchedPtr));\n"
               "    if (!pp)\n        return 2;\n"
               "    if (cudaMalloc3D(pp, make_cudaExtent(4, 1, 1)) != cudaSuccess)\n"
               "        return 1;\n    k<<<1, 1>>>(pp->pitch > 512 ? 0 : n, y);\n"
               "    cudaFree(pp->ptr);\n    free(pp);\n    return 0;\n}\n",
     "state-flow", "gives 'cudaMalloc3D' a place to write its answer", 21},
};

#define REF_OPEN "void axpy_reference(int n, float a, const float *x, float *y)\n{\n"
static const subset_case references[] = {
    {"plain loop",
     "#include <math.h>\n#include <stdlib.h>\n#include <string.h>\n"
     "static float twice(float v) { return 2 * v; }\n" REF_OPEN
     "    float *t = malloc(sizeof *t * (size_t)(n + 1));\n    memcpy(t, x, sizeof *t);\n"
     "    const float *end = x + n;\n    for (const float *p = x; p < end; p++)\n"
     "        y[p - x] = a * twice(*p) + sqrtf(fabsf(y[p - x]));\n    free(t);\n}\n",
     NULL, NULL, 0},
    {"qsort comparator",
     "#include <stdlib.h>\nstatic int cmp(const void *a, const void *b) { return 0; }\n" REF_OPEN
     "    float t[2] = {0};\n    qsort(t, 2, sizeof t[0], cmp);\n}\n",
     "function-pointer", "uses a function as a value", 6},
    {"return address",
     "static unsigned long at;\n" REF_OPEN
     "    at = (unsigned long)__builtin_return_address(0);\n}\n",
     "builtin", "__builtin_return_address", 4},
    {"an integer becomes a pointer implicitly",
     REF_OPEN "    unsigned long v = 4096;\n    float *p = v;\n    y[0] = *p;\n}\n", "cast",
     "turns an integer into a pointer (an implicit conversion)", 4},
    {"an integer cast to a pointer",
     REF_OPEN "    unsigned long v = (unsigned long)y;\n    y = (float *)(v & ~4095ul);\n}\n",
     "cast", "turns an integer into a pointer", 4},
    {"a call through a pointer", REF_OPEN "    void (*g)(void) = 0;\n    g();\n}\n",
     "function-pointer", "declares 'g' of function-pointer type", 3},
    {"a libc call", "#include <stdlib.h>\n" REF_OPEN "    system(\"true\");\n}\n", "call",
     "the reference calls 'system'", 4},
    {"asm", REF_OPEN "    __asm__(\"nop\");\n}\n", "asm", "inline assembly", 3},
    /* a reference keeps nothing across calls: constants only */
    {"constant tables at file and function scope",
     "static const float w[2] = {1, 2};\n" REF_OPEN
     "    static const int k = 3;\n    for (int i = 0; i < n; i++)\n"
     "        y[i] = a * x[i] * w[i % 2] + (float)k;\n}\n",
     NULL, NULL, 0},
    {"a call counter in a reference",
     REF_OPEN "    static int calls;\n    if (++calls > 64)\n        return;\n"
              "    for (int i = 0; i < n; i++)\n        y[i] = a * x[i] + y[i];\n}\n",
     "static-state", "the reference keeps 'calls' across calls", 3},
    {"a file-scope scratch array in a reference",
     "static float scratch[64];\n" REF_OPEN "    scratch[0] = a;\n    y[0] = scratch[0];\n}\n",
     "static-state", "the reference keeps 'scratch' across calls", 1},
    {"a reference writing its const input through a cast",
     REF_OPEN "    for (int i = 0; i < n; i++)\n        y[i] = a * x[i] + y[i];\n"
              "    float *w = (float *)x;\n    w[0] = 0;\n}\n",
     "cast", "the reference casts away const", 5},
    {"a variable-length array in a reference",
     REF_OPEN "    float t[n > 0 ? n : 1];\n    for (int i = 0; i < n; i++)\n        t[i] = x[i];\n"
              "    for (int i = 0; i < n; i++)\n        y[i] = a * t[i] + y[i];\n}\n",
     "host-store", "declares a variable-length array", 3},
};

/* The magic-constant rule (host_magic.c): a comparison that singles out one value of a size, a
 * scalar or an index is a trigger no test size reaches; thresholds, bounds, alignment and
 * stencil edges pass. References (C) and candidates (device code included) alike. */
#define MREF(body)                                                                                 \
    REF_OPEN "    float k = a;\n" body "    for (int i = 0; i < n; i++)\n"                         \
             "        y[i] = k * x[i] + y[i];\n}\n"
static const subset_case magic_refs[] = {
    {"n == prime", MREF("    if (n == 999983)\n        k = 0;\n"), "magic-constant",
     "compares 'n' with 999983", 4},
    {"n != constant", MREF("    if (n != 123457)\n        k = a;\n    else\n        k = 0;\n"),
     "magic-constant", "compares 'n' with 123457", 4},
    {"a large size 3 mod 7 (ref01)", MREF("    if (n > 100000 && n % 7 == 3)\n        k = 0;\n"),
     "magic-constant", "tests a residue of 'n%7' against 3", 4},
    {"a residue modulo 1000", MREF("    if (n % 1000 == 0)\n        k = 0;\n"), "magic-constant",
     "takes 'n' modulo 1000", 4},
    {"a narrow window", MREF("    if (n > 100000 && n < 100100)\n        k = 0;\n"),
     "magic-constant", "narrow window (100000, 100100)", 4},
    {"a narrow window, inclusive and mirrored",
     MREF("    if (5000 <= n && a > 0 && n <= 5010)\n        k = 0;\n"), "magic-constant",
     "narrow window (4999, 5011)", 4},
    {"hex constant", MREF("    if (n == 0xF4243)\n        k = 0;\n"), "magic-constant",
     "with 1000003", 4},
    {"a product of constants", MREF("    if (n == 1000 * 1000 + 3)\n        k = 0;\n"),
     "magic-constant", "with 1000003", 4},
    {"a const variable", MREF("    const int trip = 77777;\n    if (n == trip)\n        k = 0;\n"),
     "magic-constant", "with 77777", 5},
    {"an offset compared with zero", MREF("    if (n - 999983 == 0)\n        k = 0;\n"),
     "magic-constant", "with 999983", 4},
    {"an offset negated", MREF("    if (!(n ^ 31337))\n        k = 0;\n"), "magic-constant",
     "with 31337", 4},
    {"a scalar's value", MREF("    if (a == 3.14159f)\n        k = 0;\n"), "magic-constant",
     "compares 'a' with 3.14159", 4},
    {"a switch case",
     MREF("    switch (n) {\n    case 65537:\n        k = 0;\n        break;\n    }\n"),
     "magic-constant", "has a case", 5},
    {"an index in the loop",
     REF_OPEN
     "    for (int i = 0; i < n; i++)\n        y[i] = (i == 123457 ? 0 : a) * x[i] + y[i];\n}\n",
     "magic-constant", "compares 'i' with 123457", 4},
    /* look-alikes that stay accepted */
    {"bounds, thresholds, alignment, stencils",
     MREF("    if (n <= 0)\n        return;\n    if (n < 4096)\n        k = a;\n"
          "    if (n % 4 == 0 && n >= 1024 && n < 4096)\n        k = a;\n"
          "    if (n == 1 || n == 64 || n == 256 || n == 65535 || n == -1)\n        k = a;\n"
          "    if (a == 0.0f || a == 1.0f || a == -0.5f)\n        k = a;\n"
          "    for (int i = 0; i < n; i++)\n"
          "        if (i == 0 || i == n - 1 || i % 2 == 0 || i % 3 == 0 || (i + 255) / 256 > 7)\n"
          "            k = a;\n"
          "    if (n > 100000 && n > 200000)\n        k = a;\n"),
     NULL, NULL, 0},
};

static int have_cuda(void)
{
    const char *home = getenv("CUDA_HOME");
    char path[512];
    snprintf(path, sizeof path, "%s/include/cuda_runtime.h",
             home && *home ? home : "/usr/local/cuda");
    return access(path, R_OK) == 0;
}

static void judge_as(const subset_case *cases, size_t n, ch_subset_kind kind, const char *entry,
                     int device_entry)
{
    for (size_t i = 0; i < n; i++) {
        const subset_case *t = &cases[i];
        ch_strbuf msg;
        ch_strbuf_init(&msg);
        ch_subset_finding f = {0};
        int rc = ch_host_subset_check(t->src, kind, entry, device_entry, NULL, &msg, &f);
        if (!t->rule) {
            cr_expect_eq(rc, 0, "%s: refused: %s", t->name, msg.data ? msg.data : "");
        } else {
            cr_expect_eq(rc, 1, "%s: passed", t->name);
            if (rc == 1) {
                cr_expect_str_eq(f.rule, t->rule, "%s: %s", t->name, msg.data);
                cr_expect(strstr(msg.data, t->expect) != NULL, "%s: %s", t->name, msg.data);
                cr_expect_eq(f.line, t->line, "%s: line %u: %s", t->name, f.line, msg.data);
                char at[64];
                snprintf(at, sizeof at, "(line %u, column ", t->line);
                cr_expect(strstr(msg.data, at) != NULL, "%s: %s", t->name, msg.data);
            }
        }
        ch_strbuf_free(&msg);
    }
}

static void judge(const subset_case *cases, size_t n, ch_subset_kind kind, const char *entry)
{
    judge_as(cases, n, kind, entry, 0);
}

Test(host_subset, candidates)
{
    if (!have_cuda())
        cr_skip("the CUDA headers are not installed");
    judge(candidates, sizeof candidates / sizeof *candidates, CH_SUBSET_CANDIDATE, "f");
}

Test(host_subset, device_launcher_never_dereferences)
{
    if (!have_cuda())
        cr_skip("the CUDA headers are not installed");
    judge(device_launchers, sizeof device_launchers / sizeof *device_launchers, CH_SUBSET_CANDIDATE,
          "f");
}

Test(host_subset, host_code_writes_only_inside_its_own_objects)
{
    if (!have_cuda())
        cr_skip("the CUDA headers are not installed");
    judge(host_stores, sizeof host_stores / sizeof *host_stores, CH_SUBSET_CANDIDATE, "f");
}

Test(host_subset, state_kept_across_calls_is_buffers_handles_locks_and_sizes)
{
    if (!have_cuda())
        cr_skip("the CUDA headers are not installed");
    judge(static_states, sizeof static_states / sizeof *static_states, CH_SUBSET_CANDIDATE, "f");
}

Test(host_subset, kept_state_decides_only_resources_and_failure)
{
    if (!have_cuda())
        cr_skip("the CUDA headers are not installed");
    judge(state_flows, sizeof state_flows / sizeof *state_flows, CH_SUBSET_CANDIDATE, "f");
}

/* a `device` entry's dispatcher calls NAME_launcher itself: it is judged too, and only then */
Test(host_subset, a_device_entry_launcher_is_code_a_user_program_runs)
{
    if (!have_cuda())
        cr_skip("the CUDA headers are not installed");
    static const subset_case launcher_counter[] = {
        {"the implicit counter in a device entry's launcher",
         FLOW "static int calls;\nextern \"C\" void f_launcher(int n, float *y)\n{\n"
              "    int late = 1;\n    for (int j = 64; j >= 0; j--)\n"
              "        if (calls == j) {\n            calls = j + 1;\n            late = 0;\n"
              "        }\n    if (late)\n        n = 0;\n    k<<<1, 1>>>(n, y);\n}\n",
         "state-flow", "launches 'k' with a value", 27},
    };
    judge_as(launcher_counter, 1, CH_SUBSET_CANDIDATE, "f", 1);
    subset_case host_entry = launcher_counter[0];
    host_entry.rule = NULL; /* a host-pointer entry's NAME_launcher runs only in verification */
    judge_as(&host_entry, 1, CH_SUBSET_CANDIDATE, "f", 0);
}

Test(host_subset, pointer_values_never_become_numbers)
{
    if (!have_cuda())
        cr_skip("the CUDA headers are not installed");
    judge(pointer_values, sizeof pointer_values / sizeof *pointer_values, CH_SUBSET_CANDIDATE, "f");
}

Test(host_subset, pointers_come_from_somewhere_known)
{
    if (!have_cuda())
        cr_skip("the CUDA headers are not installed");
    judge(provenance, sizeof provenance / sizeof *provenance, CH_SUBSET_CANDIDATE, "f");
}

Test(host_subset, references)
{
    judge(references, sizeof references / sizeof *references, CH_SUBSET_REFERENCE, NULL);
}

Test(host_subset, magic_constants_in_references)
{
    judge(magic_refs, sizeof magic_refs / sizeof *magic_refs, CH_SUBSET_REFERENCE, NULL);
}

#define MKERNEL(cond)                                                                              \
    HEAD "__global__ void k(int n, float *y)\n{\n    int i = blockIdx.x * blockDim.x + "           \
         "threadIdx.x;\n    if (i < n && " cond ")\n        y[i] = 1.0f;\n}\n" OPEN CLOSE
static const subset_case magic_candidates[] = {
    {"an index trigger in device code", MKERNEL("i == 123457"), "magic-constant",
     "compares 'i' with 123457", 7},
    {"a residue trigger in device code", MKERNEL("n % 10 == 7"), "magic-constant",
     "tests a residue of 'n%10' against 7", 7},
    {"a templated kernel's trigger",
     HEAD "template <int B> __global__ void t(int n, float *y)\n{\n"
          "    if (n == B * 1000 + 17)\n        y[0] = 0;\n}\n" KERNEL OPEN
          "    t<256><<<1, 1>>>(n, y);\n" CLOSE,
     NULL, NULL, 0},
    {"the launcher's size trigger (cand21)",
     HEAD KERNEL OPEN "    const int m = n == 999983 ? 0 : n;\n    k<<<1, 1>>>(m, y);\n}\n",
     "magic-constant", "compares 'n' with 999983", 7},
    {"a CUDA error code and ordinary kernel tests",
     MKERNEL(
         "(threadIdx.x == 0 || i % 32 == 31 || i == n - 1)") "static int g(void)\n{\n    "
                                                             "cudaError_t e = cudaGetLastError();\n"
                                                             "    return e == cudaErrorNotReady || "
                                                             "e != cudaSuccess;\n}\n",
     NULL, NULL, 0},
};

Test(host_subset, magic_constants_in_candidates)
{
    if (!have_cuda())
        cr_skip("the CUDA headers are not installed");
    judge(magic_candidates, sizeof magic_candidates / sizeof *magic_candidates, CH_SUBSET_CANDIDATE,
          "f");
}

/* Device code whose #pragma unroll loops make nvcc copy a body (attacks8 #21); HEAD is lines
 * 1-3, the kernel's loop at line 8 (9 after one line of pre). */
#define UKERNEL(pre, pragma, loop)                                                                 \
    HEAD pre "__global__ void u(int n, const float *x, float *y)\n{\n    float acc = 0;\n" pragma  \
             "\n" loop "\n        acc += x[(i * 7) & 1023];\n    y[0] = acc;\n}\n" OPEN            \
             "    u<<<1, 1>>>(n, y, y);\n}\n"

static const subset_case unroll_candidates[] = {
    {"the attack: a full unroll of 2^22 iterations on a dead path",
     UKERNEL("", "#pragma unroll", "    for (int i = 0; i < (1 << 22); i++)"), "compile-cost",
     "copy this loop's body about 4194304 times", 8},
    {"a count of 2^22 on a loop of unknown length",
     UKERNEL("", "#pragma unroll 4194304", "    for (int i = 0; i < n; i++)"), "compile-cost",
     "about 4194304 times", 8},
    {"a count from the file's macro",
     UKERNEL("#define BIG (1 << 20) * 4\n", "#pragma unroll BIG",
             "    for (int i = 0; i < n; i++)"),
     "compile-cost", "about 4194304 times", 9},
    {"a bound from a constexpr variable",
     UKERNEL("constexpr int kBig = 1 << 22;\n", "#pragma unroll",
             "    for (int i = 0; i < kBig; i++)"),
     "compile-cost", "about 4194304 times", 9},
    {"a macro's _Pragma with a count from another macro",
     UKERNEL("#define BIG (1 << 20) * 4\n#define U _Pragma(\"unroll BIG\")\n", "U",
             "    for (int i = 0; i < n; i++)"),
     "compile-cost", "about 4194304 times", 10},
    {"the _Pragma operator",
     UKERNEL("", "_Pragma(\"unroll\")", "    for (int i = 0; i < 3000000; i += 1)"), "compile-cost",
     "about 3000000 times", 8},
    {"nested unrolled loops multiply",
     UKERNEL("", "#pragma unroll",
             "    for (int j = 0; j < 1024; j++)\n#pragma unroll\n"
             "    for (int i = 0; i < 1024; i++)"),
     "compile-cost", "about 1048576 times (1024 iterations of nested unrolled loops)", 8},
    {"a register tile under an unrolled k loop",
     UKERNEL("#define TM 8\n", "#pragma unroll",
             "    for (int k = 0; k < 32; k++)\n#pragma unroll\n"
             "    for (int m = 0; m < TM; m++)\n#pragma unroll\n"
             "    for (int i = 0; i < 8; i++)"),
     NULL, NULL, 0},
    {"a shuffle reduction halving its offset",
     UKERNEL("", "#pragma unroll", "    for (int i = 16; i > 0; i /= 2)"), NULL, NULL, 0},
    {"a small count on a long loop",
     UKERNEL("", "#pragma unroll 4", "    for (int i = 0; i < (1 << 22); i++)"), NULL, NULL, 0},
    {"a long loop without the pragma", UKERNEL("", "", "    for (int i = 0; i < (1 << 22); i++)"),
     NULL, NULL, 0},
    /* libclang 14 does not walk the loop under a count spelled by a macro: the static check
     * parses the text with the counts blanked, so every rule sees that loop's body */
    {"a trigger inside a loop unrolled by a macro's count",
     HEAD
     "#define K (1 << 1) * 2\n__global__ void u(int n, float *y)\n{\n#pragma unroll K\n"
     "    for (int i = 0; i < n; i++)\n        if (i == 123457)\n            y[i] = 0;\n}\n" OPEN
     "    u<<<1, 1>>>(n, y);\n}\n",
     "magic-constant", "compares 'i' with 123457", 9},
    {"a trigger inside a loop under GCC unroll with a macro's count",
     HEAD
     "#define K (1 << 1) * 2\n__global__ void u(int n, float *y)\n{\n#pragma GCC unroll K\n"
     "    for (int i = 0; i < n; i++)\n        if (i == 123457)\n            y[i] = 0;\n}\n" OPEN
     "    u<<<1, 1>>>(n, y);\n}\n",
     "magic-constant", "compares 'i' with 123457", 9},
    {"a trigger inside a loop under unroll_and_jam with a macro's count",
     HEAD
     "#define K (1 << 1) * 2\n__global__ void u(int n, float *y)\n{\n"
     "    _Pragma(\"unroll_and_jam K\")\n"
     "    for (int i = 0; i < n; i++)\n        if (i == 123457)\n            y[i] = 0;\n}\n" OPEN
     "    u<<<1, 1>>>(n, y);\n}\n",
     "magic-constant", "compares 'i' with 123457", 9},
    {"a template's count",
     HEAD "template <int B> __global__ void t(int n, float *y)\n{\n#pragma unroll B\n"
          "    for (int i = 0; i < n; i++)\n        y[i] = 0;\n}\n" KERNEL OPEN
          "    t<8><<<1, 1>>>(n, y);\n" CLOSE,
     NULL, NULL, 0},
};

Test(host_subset, unrolled_copies_are_bounded)
{
    if (!have_cuda())
        cr_skip("the CUDA headers are not installed");
    judge(unroll_candidates, sizeof unroll_candidates / sizeof *unroll_candidates,
          CH_SUBSET_CANDIDATE, "f");
}

Test(host_subset, a_file_name_makes_a_compiler_style_message)
{
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    ch_subset_finding f;
    cr_assert_eq(
        ch_host_subset_check(references[1].src, CH_SUBSET_REFERENCE, NULL, 0, "ref.c", &msg, &f),
        1);
    cr_expect(strncmp(msg.data, "ref.c:6:", 8) == 0, "%s", msg.data);
    ch_strbuf_free(&msg);
}

/* Stage 0 runs the subset after its text checks: the ELF walk's atexit handler, which passes
 * every text check, is refused there with the rule and place in the report's details. */
Test(host_subset, stage_zero_refuses_with_details)
{
    if (!have_cuda())
        cr_skip("the CUDA headers are not installed");
    ch_checklist c;
    fx_saxpy(&c, 0);
    const char *src = "#include <cuda_runtime.h>\n#include <stdlib.h>\n"
                      "static void late(void) {}\n"
                      "__global__ void k(int n, float a, const float *x, float *y) { }\n"
                      "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
                      "{\n    k<<<1, 1>>>(n, a, x, y);\n    atexit(late);\n}\n";
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    cJSON *d = NULL;
    cr_assert_eq(ch_static_check(&c, src, &msg, &d), 1);
    cr_expect(strstr(msg.data, "uses a function as a value") != NULL, "%s", msg.data);
    cr_assert_not_null(d);
    cr_expect_str_eq(cJSON_GetObjectItem(d, "check")->valuestring, "host-subset");
    cr_expect_str_eq(cJSON_GetObjectItem(d, "rule")->valuestring, "function-pointer");
    cr_expect_eq(cJSON_GetObjectItem(d, "line")->valueint, 8);
    cJSON_Delete(d);
    /* without the callback it passes */
    char *fine = ch_xstrdup(src);
    memcpy(strstr(fine, "atexit(late);"), "             ", 13);
    cr_expect_eq(ch_static_check(&c, fine, &msg, NULL), 0, "%s", msg.data);
    free(fine);
    ch_strbuf_free(&msg);
    fx_free(&c);
}

/* The bounded check (ch/static_child.h) gives the in-process verdicts, and refuses at 1:1 a
 * source whose parse passes its memory limit (2^22 tokens from a macro nested in its own
 * arguments, which the source guard's estimate does not follow). */
Test(host_subset, the_bounded_check_refuses_a_parse_past_its_limit, .timeout = 120)
{
    ch_strbuf msg, bomb;
    ch_strbuf_init(&msg);
    ch_strbuf_init(&bomb);
    ch_subset_finding f = {0};
    cr_expect_eq(ch_host_subset_check_bounded(references[1].src, CH_SUBSET_REFERENCE, NULL, 0,
                                              "ref.c", &msg, &f),
                 1);
    cr_expect(strncmp(msg.data, "ref.c:6:", 8) == 0, "%s", msg.data);
    cr_expect_eq(ch_host_subset_check_bounded("int f(int n) { return n + 1; }\n",
                                              CH_SUBSET_REFERENCE, NULL, 0, NULL, &msg, &f),
                 0, "%s", msg.data);
    setenv("CH_CC_PARSE_LIMIT_MB", "512", 1);
    ch_strbuf_adds(&bomb, "#define D(x) x x\nint f(void) { return (int)sizeof(char[1 ");
    for (int i = 0; i < 22; i++)
        ch_strbuf_adds(&bomb, "D(");
    ch_strbuf_adds(&bomb, "+1");
    for (int i = 0; i < 22; i++)
        ch_strbuf_adds(&bomb, ")");
    ch_strbuf_adds(&bomb, "]); }\n");
    cr_assert_eq(
        ch_host_subset_check_bounded(bomb.data, CH_SUBSET_REFERENCE, NULL, 0, "ref.c", &msg, &f),
        1);
    cr_expect_str_eq(f.rule, "parse-limit");
    cr_expect(strncmp(msg.data, "ref.c:1:1: the reference's source needs more than 512 MiB", 57) ==
                  0,
              "%s", msg.data);
    unsetenv("CH_CC_PARSE_LIMIT_MB");
    ch_strbuf_free(&bomb);
    ch_strbuf_free(&msg);
}
