/* The pragma grammar: specs, clauses, normalisation, and the located error of each bad form;
 * finding and blanking pragma lines. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ch/scan.h"

static int parse(const char *text, ch_pragma *p, ch_error *err)
{
    memset(p, 0, sizeof *p);
    ch_error_clear(err);
    return ch_pragma_parse(text, strlen(text), "f.c", 3, 16, p, err);
}

Test(pragma, spec_and_clauses)
{
    ch_pragma p;
    ch_error err;
    cr_assert_eq(parse(" \"y = a*x\" \" + y\\n\" extent(x: n, y: n) in(x) tune(n = 1 << 20) "
                       "tol(1e-3) device budget(4)",
                       &p, &err),
                 0, "%s", err.msg);
    cr_assert_str_eq(p.spec, "y = a*x + y\n");
    cr_assert_eq(p.clauses.n_extents, 2);
    cr_assert_str_eq(p.clauses.extents[1].name, "y");
    cr_assert_str_eq(p.clauses.extents[1].expr, "n");
    cr_assert_eq(p.clauses.n_in, 1);
    cr_assert_eq(p.clauses.n_tune, 1);
    cr_assert_str_eq(p.clauses.tune[0].name, "n");
    cr_assert(p.clauses.has_tol && p.clauses.tol == 1e-3);
    cr_assert(p.clauses.device);
    cr_assert(p.clauses.has_budget && p.clauses.budget == 4);
    ch_pragma_free(&p);
}

Test(pragma, bare_has_no_spec)
{
    ch_pragma p;
    ch_error err;
    cr_assert_eq(parse("", &p, &err), 0, "%s", err.msg);
    cr_assert_null(p.spec);
    cr_assert_str_eq(p.clauses_text, "");
    ch_pragma_free(&p);
}

Test(pragma, normalised_text_ignores_spacing)
{
    ch_pragma a, b;
    ch_error err;
    cr_assert_eq(parse("extent(x:n)   in( x )", &a, &err), 0, "%s", err.msg);
    cr_assert_eq(parse(" extent( x : n ) in(x)", &b, &err), 0, "%s", err.msg);
    cr_assert_str_eq(a.clauses_text, b.clauses_text);
    ch_pragma_free(&a);
    ch_pragma_free(&b);
}

static void expect_error(const char *text, const char *fragment)
{
    ch_pragma p;
    ch_error err;
    cr_assert_neq(parse(text, &p, &err), 0, "accepted: %s", text);
    cr_assert(err.located, "not located: %s", err.msg);
    cr_assert(strncmp(err.msg, "f.c:3:", 6) == 0, "wrong place: %s", err.msg);
    cr_assert(strstr(err.msg, fragment), "'%s' lacks '%s'", err.msg, fragment);
    ch_pragma_free(&p);
}

Test(pragma, errors_are_located)
{
    expect_error("unknown(x)", "unknown");
    expect_error("\"unterminated", "");
    expect_error("extent(x n)", "");
    expect_error("tol(abc)", "tol");
    expect_error("budget(-1)", "budget");
    expect_error("in(", "");
}

Test(pragma, find_and_blank_keep_lines)
{
    const char *src = "int a;\n#pragma harness \"s\" \\\n  extent(x: n)\nvoid f(void);\n"
                      "/* #pragma harness in a comment */\n#pragma once\n";
    ch_pragma_loc *locs;
    size_t n;
    ch_pragma_find(src, strlen(src), &locs, &n);
    cr_assert_eq(n, 1);
    cr_assert_eq(locs[0].line, 2);
    free(locs);
    char *blank = ch_scan_blank(src, strlen(src));
    cr_assert_eq(strlen(blank), strlen(src));
    cr_assert_null(strstr(blank, "#pragma harness \"s\""));
    cr_assert_not_null(strstr(blank, "void f(void);"));
    cr_assert_not_null(strstr(blank, "#pragma once"));
    size_t lines_src = 0, lines_blank = 0;
    for (const char *p = src; *p; p++)
        lines_src += *p == '\n';
    for (const char *p = blank; *p; p++)
        lines_blank += *p == '\n';
    cr_assert_eq(lines_src, lines_blank);
    free(blank);
}

Test(poly, simplifies_extents)
{
    char *s = ch_poly_simplify("(m-1)*n+(n-1)+1");
    cr_assert_str_eq(s, "m*n");
    free(s);
    s = ch_poly_simplify("(n-1)+1+1");
    cr_assert_str_eq(s, "n+1");
    free(s);
}

/* range(), offsets() and sample(): what valid input values are, parsed and normalised. */
Test(pragma, input_structure_clauses)
{
    ch_pragma p;
    ch_error err;
    cr_assert_eq(parse(" range( col : 0 , n ,perm: 1, n + 1) offsets(rp:nnz, seg: n) "
                       "range(w: -1.5, 2) sample( fill_csr )",
                       &p, &err),
                 0, "%s", err.msg);
    cr_assert_eq(p.clauses.n_ranges, 3);
    cr_assert_str_eq(p.clauses.ranges[0].name, "col");
    cr_assert_str_eq(p.clauses.ranges[0].lo, "0");
    cr_assert_str_eq(p.clauses.ranges[0].hi, "n");
    cr_assert_str_eq(p.clauses.ranges[1].name, "perm");
    cr_assert_str_eq(p.clauses.ranges[1].lo, "1");
    cr_assert_str_eq(p.clauses.ranges[1].hi, "n+1");
    cr_assert_str_eq(p.clauses.ranges[2].lo, "-1.5");
    /* each item located at its name, for the errors the scan reports later */
    cr_assert_eq(p.clauses.ranges[0].line, 3);
    cr_assert_eq(p.clauses.ranges[0].col, 24);
    cr_assert_eq(p.clauses.n_offsets, 2);
    cr_assert_str_eq(p.clauses.offsets[0].name, "rp");
    cr_assert_str_eq(p.clauses.offsets[0].expr, "nnz");
    cr_assert_str_eq(p.clauses.offsets[1].name, "seg");
    cr_assert_str_eq(p.clauses.sample, "fill_csr");
    cr_assert_eq(p.clauses.sample_col, 103, "%u", p.clauses.sample_col);
    cr_assert_str_eq(p.clauses_text, "range(col: 0, n, perm: 1, n+1) offsets(rp: nnz, seg: n) "
                                     "range(w: -1.5, 2) sample(fill_csr)");
    /* the names are checked against the parameters like extent()'s */
    size_t named = 0;
    for (size_t i = 0; i < p.n_names; i++)
        named +=
            strcmp(p.names[i].clause, "range") == 0 || strcmp(p.names[i].clause, "offsets") == 0;
    cr_assert_eq(named, 5);
    ch_pragma_free(&p);
}

/* Exactly where each bad form is reported: file:line:col at the offending character. */
static void expect_error_at(const char *text, const char *want)
{
    ch_pragma p;
    ch_error err;
    cr_assert_neq(parse(text, &p, &err), 0, "accepted: %s", text);
    cr_assert(err.located, "not located: %s", err.msg);
    cr_expect_str_eq(err.msg, want, "for %s: got %s", text, err.msg);
    ch_pragma_free(&p);
}

Test(pragma, input_structure_clause_errors)
{
    expect_error_at("range(idx: 0)",
                    "f.c:3:28: error: range() takes two bounds after the name; write "
                    "range(idx: 0, n)");
    expect_error_at("range(idx 0, n)", "f.c:3:26: error: expected ':' after the parameter name in "
                                       "range(); write range(idx: 0, n)");
    expect_error_at("range(: 0, n)", "f.c:3:22: error: expected a parameter name in range(); "
                                     "write range(idx: 0, n)");
    expect_error_at(
        "range(idx: , n)",
        "f.c:3:27: error: empty expression in range(); write a C expression such as n*m");
    expect_error_at("offsets(rp nnz)", "f.c:3:27: error: expected ':' after the parameter name in "
                                       "offsets(); write offsets(row_ptr: nnz)");
    expect_error_at("offsets(rp: nnz", "f.c:3:31: error: missing ')' to close offsets(; write it "
                                       "as clause(...)");
    expect_error_at("sample()", "f.c:3:23: error: expected a function name in sample(); write "
                                "sample(fill_inputs)");
    expect_error_at("sample(a, b)", "f.c:3:24: error: expected ')' after the function name in "
                                    "sample(); it takes one name");
    expect_error_at("sample(a) sample(b)",
                    "f.c:3:33: error: sample() given twice; one function fills all the inputs");
    expect_error_at("sampel(a)", "f.c:3:16: error: unknown harness clause 'sampel'; expected "
                                 "extent, in, out, inout, tune, tol, device, budget, range, "
                                 "offsets, perm or sample");
}
