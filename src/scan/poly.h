/* Private to src/scan: integer polynomials over named variables, the algebra behind extent
 * inference (largest subscript + 1) and its simplified C spelling.
 *
 * Ownership: every function returning ch_poly * returns a new polynomial the caller frees with
 * poly_free; arguments are never consumed. */
#ifndef CH_SCAN_POLY_H
#define CH_SCAN_POLY_H

/* One term: coef * (product of the names in `mono`, sorted, '*'-joined; "" for a constant). */
typedef struct poly_term {
    long long coef;
    char *mono;
    int degree;
} poly_term;

typedef struct ch_poly {
    poly_term *t; /* nonzero coefficients, sorted by (degree desc, mono asc); owned */
    int n;
    /* nonzero: the terms are meaningless and the expression must be refused, never used.
     * POLY_OVERFLOW: a coefficient of this polynomial or of one it was computed from overflowed
     * 64 bits; POLY_TOO_LARGE: a product would have passed POLY_MAX_TERMS terms or
     * POLY_MAX_DEGREE factors (the terms were dropped). */
    int overflow;
} ch_poly;

/* Deepest nesting of parentheses and unary signs poly_parse follows (a located error beyond,
 * never a stack overflow); as deep as clang's own default bracket depth. */
#define POLY_MAX_DEPTH 256
/* Largest polynomial a product may build: (a+b+c+d)*(a+b+c+d)*... grows its terms exponentially
 * in the length of the text, so a few hundred bytes of extent would otherwise take minutes and
 * gigabytes; no real extent comes near either bound. */
#define POLY_MAX_TERMS  1024
#define POLY_MAX_DEGREE 64
#define POLY_OVERFLOW   1
#define POLY_TOO_LARGE  2

ch_poly *poly_const(long long c);
ch_poly *poly_var(const char *name);
ch_poly *poly_clone(const ch_poly *p);
ch_poly *poly_add(const ch_poly *a, const ch_poly *b);
ch_poly *poly_sub(const ch_poly *a, const ch_poly *b);
ch_poly *poly_mul(const ch_poly *a, const ch_poly *b);
/* a / c when c is a nonzero constant dividing every coefficient, else NULL. */
ch_poly *poly_div_const(const ch_poly *a, long long c);
void poly_free(ch_poly *p);
/* Highest power of name in p. */
int poly_degree_in(const ch_poly *p, const char *name);
/* For p = c*name + r with name of degree 1: c (a polynomial without name). */
ch_poly *poly_coeff(const ch_poly *p, const char *name);
/* p with name replaced by q. */
ch_poly *poly_subst(const ch_poly *p, const char *name, const ch_poly *q);
/* 1: every coefficient > 0 (so p > 0 for positive variables), -1: every coefficient < 0,
 * 0: mixed or zero. */
int poly_sign(const ch_poly *p);
int poly_is_const(const ch_poly *p, long long *value);
int poly_mentions(const ch_poly *p, const char *name);
/* p evaluated with every variable set to a distinct large value (to order incomparable maxima). */
double poly_sample(const ch_poly *p);
/* The simplified C spelling ("m*n", "n+1", "2*n-1", "0"); caller frees. */
char *poly_print(const ch_poly *p);
/* Parses a C integer expression (+ - * / by constants, parentheses, integer literals, names,
 * casts to integer types); NULL when it is not a polynomial. why (may be NULL) is then set to a
 * reason when the expression is wrong rather than merely not a polynomial (a literal beyond 64
 * bits, arithmetic that overflows, nesting beyond POLY_MAX_DEPTH), else to NULL. */
ch_poly *poly_parse(const char *text, const char **why);

#endif
