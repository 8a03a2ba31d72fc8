#!/usr/bin/env python3
"""A timing main() for one harness entry, from its checklist (ch-cc --harness-checklist).

usage: dispatch_main.py CHECKLIST.json ENTRY > main.c
prints the C source of a program `prog SIZE... CALLS` that takes the checklist's size
parameters in the order of `sizes` below, allocates every buffer with its extent, fills valid
inputs (index arrays in their range, permutations, offsets, value ranges), calls ENTRY CALLS times
and prints `first_ms best_ms` (the first call, and the best of the others).
`dispatch_main.py CHECKLIST.json ENTRY --sizes` prints the size parameters' names, then one line
per size set of the checklist (smoke, correctness, tune): their values, ascending by product.
"""
import json
import sys


def size_names(c):
    return [p["name"] for p in c["params"] if p["role"] == "scalar" and p["range"] is None
            and p["elem"] not in ("float", "double")]


def size_sets(c, names):
    sets = c["sizes"]["smoke"] + c["sizes"]["correctness"] + [c["sizes"]["tune"]]
    rows = {tuple(s.get(n, 1) for n in names) for s in sets}

    def weight(r):
        w = 1
        for v in r:
            w *= max(v, 1)
        return w
    return sorted(rows, key=weight)


def elem_c(e):
    return {"llong": "long long", "ullong": "unsigned long long", "uint": "unsigned",
            "ulong": "unsigned long", "ushort": "unsigned short", "uchar": "unsigned char",
            "schar": "signed char", "bool": "_Bool"}.get(e, e)


def fill(p):
    n, e = p["name"], elem_c(p["elem"])
    if p.get("index_hi"):
        lo = p.get("index_lo") or "0"
        if p.get("perm"):
            return (f"    fill_perm((void *)ch_{n}, sizeof *ch_{n}, ch_cnt_{n}, (long long)({lo}), "
                    f"(long long)({p['index_hi']}));\n")
        return (f"    for (long long k = 0; k < ch_cnt_{n}; k++)\n"
                f"        ch_{n}[k] = ({e})((long long)({lo}) + rnd() % (unsigned long long)"
                f"((long long)({p['index_hi']}) - (long long)({lo})));\n")
    if p.get("offsets_hi"):
        return (f"    for (long long k = 0; k < ch_cnt_{n}; k++)\n"
                f"        ch_{n}[k] = ({e})((long long)({p['offsets_hi']}) * k / "
                f"(ch_cnt_{n} > 1 ? ch_cnt_{n} - 1 : 1));\n")
    lo, hi = p["range"] if p["range"] else (0, 1)
    return (f"    for (long long k = 0; k < ch_cnt_{n}; k++)\n"
            f"        ch_{n}[k] = ({e})({lo} + ({hi} - {lo}) * (double)(rnd() % 1000) / 1000.0);\n")


def main():
    checklists = json.load(open(sys.argv[1]))
    c = next(x for x in checklists if x["name"] == sys.argv[2])
    names = size_names(c)
    if len(sys.argv) > 3 and sys.argv[3] == "--sizes":
        print(" ".join(names))
        for r in size_sets(c, names):
            print(" ".join(str(v) for v in r))
        return
    out = ["#define _POSIX_C_SOURCE 200809L\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n",
           "#define min(a, b) ((a) < (b) ? (a) : (b))\n#define max(a, b) ((a) > (b) ? (a) : (b))\n",
           c["signature"] + ";\n",
           "static unsigned long long ch_state = 88172645463325252ULL;\n"
           "static unsigned long long rnd(void)\n{\n    ch_state ^= ch_state << 13;\n"
           "    ch_state ^= ch_state >> 7;\n    ch_state ^= ch_state << 17;\n"
           "    return ch_state;\n}\n",
           "static void fill_perm(void *buf, size_t es, long long cnt, long long lo, long long hi)\n"
           "{\n    long long span = hi - lo, *v = malloc((size_t)(span > 0 ? span : 1) * sizeof *v);\n"
           "    for (long long k = 0; k < span; k++)\n        v[k] = lo + k;\n"
           "    for (long long k = span - 1; k > 0; k--) {\n"
           "        long long j = (long long)(rnd() % (unsigned long long)(k + 1)), t = v[k];\n"
           "        v[k] = v[j];\n        v[j] = t;\n    }\n"
           "    for (long long k = 0; k < cnt && k < span; k++) {\n"
           "        if (es == sizeof(int)) ((int *)buf)[k] = (int)v[k];\n"
           "        else ((long long *)buf)[k] = v[k];\n    }\n    free(v);\n}\n",
           "static double now_ms(void)\n{\n    struct timespec ts;\n"
           "    clock_gettime(CLOCK_MONOTONIC, &ts);\n"
           "    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;\n}\n",
           "int main(int argc, char **argv)\n{\n",
           f"    if (argc != {len(names) + 2}) {{\n"
           f"        fprintf(stderr, \"usage: %s {' '.join(names)} CALLS\\n\", argv[0]);\n"
           "        return 2;\n    }\n"]
    for i, n in enumerate(names):
        out.append(f"    long long {n} = atoll(argv[{i + 1}]);\n")
    out.append(f"    int calls = atoi(argv[{len(names) + 1}]);\n")
    args = []
    for p in c["params"]:
        n, e = p["name"], elem_c(p["elem"])
        if p["role"] == "scalar":
            if n not in names:
                lo, hi = p["range"] if p["range"] else (1, 1)
                out.append(f"    {e} {n} = ({e})(({lo} + {hi}) / 2);\n")
            args.append(f"({e}){n}")
            continue
        out.append(f"    long long ch_cnt_{n} = (long long)({p['extent']});\n"
                   f"    {e} *ch_{n} = calloc((size_t)(ch_cnt_{n} > 0 ? ch_cnt_{n} : 1), "
                   f"sizeof *ch_{n});\n")
        args.append(f"(void *)ch_{n}")
    for p in c["params"]:
        if p["role"] != "scalar" and p["direction"] != "out":
            out.append(fill(p))
    call = f"{c['name']}({', '.join(args)})"
    out.append(f"    double t0 = now_ms();\n    {call};\n    double first = now_ms() - t0, best = 1e300;\n"
               f"    for (int r = 1; r < calls; r++) {{\n        t0 = now_ms();\n        {call};\n"
               "        double t = now_ms() - t0;\n        if (t < best)\n            best = t;\n"
               "    }\n    printf(\"%.6f %.6f\\n\", first, calls > 1 ? best : first);\n"
               "    return 0;\n}\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
