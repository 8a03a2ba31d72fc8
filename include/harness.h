/* HARNESS(spec, clauses): the attribute form of `#pragma harness`, for code that builds
 * annotations from macros. Put it before a function declaration or definition:
 *
 *     HARNESS("y[i] = a*x[i] + y[i]", "extent(x: n, y: n)")
 *     void saxpy(int n, float a, const float *x, float *y);
 *
 * Both arguments are string literals ("" for none). ch-cc reads the annotate attribute while
 * scanning; other compilers see nothing (GCC would warn about an unknown attribute). */
#ifndef HARNESS_H
#define HARNESS_H

#if defined(__CH_CC_SCAN__) || defined(__clang__)
#define HARNESS(spec, clauses) __attribute__((annotate("harness:" spec "\x01" clauses)))
#else
#define HARNESS(spec, clauses)
#endif

#endif
