#!/usr/bin/env python3
"""Writes COUNT garbage C files with harness pragmas into DIR, deterministically from SEED:
an annotated file truncated, sprayed with random bytes, NUL bytes or non-UTF-8, with extents
nested or multiplied out far past any real one, huge literals, unterminated strings, comments
and pragmas. tests/integration/garbage_files.t feeds each to the real ch-cc.

usage: garbage.py SEED COUNT DIR"""
import os
import random
import sys

BASE = b'''#include <stddef.h>
#pragma harness "y[i] = a * x[i] + y[i]" \\
    extent(x: n, y: n) in(x) tune(n = 1 << 20) tol(1e-3) budget(2)
void saxpy(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
#pragma harness extent(A: n * m) out(A)
void fill(int n, int m, double A[n][m])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            A[i][j] = i + j;
}
'''


def pragma(body):
    return b'#pragma harness ' + body + b'\nvoid g(int n, float *x) { for (int i = 0; i < n; i++) x[i] = 0; }\n'


def deep_parens(r):
    d = r.choice([300, 5000, 50000])
    return pragma(b'extent(x: ' + b'(' * d + b'n' + b')' * d + b')')


def deep_unary(r):
    return pragma(b'extent(x: ' + b'-' * r.choice([300, 20000]) + b'n)')


def product_blowup(r):
    k = r.choice([8, 16, 40])
    return pragma(b'extent(x: ' + b'*'.join([b'(a+b+c+d+e)'] * k) + b')')


def huge_literal(r):
    lit = r.choice([b'3037000500*3037000500', b'0x' + b'f' * 40, b'9' * 400,
                    b'18446744073709551616', b'-9223372036854775807-1'])
    return pragma(b'extent(x: ' + lit + b') tune(n = ' + lit + b')')


def deep_c(r):
    d = r.choice([500, 5000])
    return BASE + b'int deep(int v) { return ' + b'(' * d + b'v' + b')' * d + b'; }\n'


def long_clauses(r):
    return pragma(b' '.join([b'extent(x%d: n)' % i for i in range(r.choice([100, 3000]))]))


def unterminated(r):
    cut = r.choice([b'#pragma harness "y[i] = x[i]\n', b'#pragma harness extent(x: n\n',
                    b'/* never closed\n', b'const char *s = "open;\n',
                    b'#pragma harness "a" \\\n', b"char c = '\n"])
    return BASE + cut


def truncate(r):
    return BASE[:r.randrange(len(BASE))]


def random_bytes(r):
    b = bytearray(BASE)
    for _ in range(r.randrange(1, 20)):
        b[r.randrange(len(b))] = r.randrange(256)
    return bytes(b)


def nul_bytes(r):
    b = bytearray(BASE)
    for _ in range(r.randrange(1, 5)):
        b.insert(r.randrange(len(b)), 0)
    return bytes(b)


def non_utf8(r):
    junk = bytes(r.choice([0x80, 0xc3, 0xff, 0xfe, 0xed]) for _ in range(r.randrange(1, 30)))
    at = BASE.index(b'extent(x: n') + 10
    return BASE[:at] + junk + BASE[at:]


def splice(r):
    b = bytearray(BASE)
    for _ in range(r.randrange(1, 8)):
        i, j = r.randrange(len(b)), r.randrange(len(b))
        b[i:i] = b[j:j + r.randrange(1, 40)]
    return bytes(b)


ODD_TARGETS = [
    b'void f(int n, float x[n][n][n][n], float (*y)[n]) { x[0][0][0][0] = y[0][0]; }',
    b'void f(int n, ...) { }',
    b'void f(n, x) int n; float *x; { x[0] = n; }',
    b'void f(int n, void (*cb)(float *), float *x) { cb(x); }',
    b'struct s { float *p; int n; };\nvoid f(struct s v) { v.p[0] = v.n; }',
    b'#define F(name) void name(int n, float *x) { x[0] = n; }\nF(f)',
    b'void f(int n, float *x) { for (;;) { x[n] = 0; } }',
    b'void f(int n, float *x) {\n#pragma harness "inside"\n x[0] = 0; }',
    b'',
    b'#pragma harness\n#pragma harness\nvoid f(int n, float *x);',
    b'void f(int, float *);',
    b'float f(int n, float *x) { return f(n - 1, x) + x[n]; }',
    b'void f(int n, _Complex float *x) { x[0] = 0; }',
    b'void f(int n, float *restrict x, float *restrict y) { y[x[0]] = x[y[0]]; }',
    b'void f(int n, float x[static 4]) { x[n * n * n * n * n * n * n * n] = 0; }',
    b'void f(int n, float *x) { int i = 0; goto l; l: x[i] = n; }',
]


def odd_declaration(r):
    return (b'#pragma harness "x[i] = 0" extent(x: n)\n' + r.choice(ODD_TARGETS) + b'\n')


MUTATORS = [odd_declaration, deep_parens, deep_unary, product_blowup, huge_literal, deep_c, long_clauses,
            unterminated, truncate, random_bytes, nul_bytes, non_utf8, splice]


def main():
    seed, count, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    r = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    for i in range(count):
        m = MUTATORS[i % len(MUTATORS)]
        with open(os.path.join(out, 'g%03d_%s.c' % (i, m.__name__)), 'wb') as f:
            f.write(m(r))


main()
