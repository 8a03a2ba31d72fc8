/* Inputs with structure (issue 11): what inference and the range(), offsets(), perm() and
 * sample() clauses say valid input values are, scanned through libclang, carried into the checklist
 * (the derived one and an agent's), and test data that respects it at every size. */
#include "ch/cache.h"
#include "ch/checklist.h"
#include "ch/verify.h"
#include "scan_helpers.h"

static void scan_one(const char *src, ch_entry_list *l)
{
    ch_error err;
    cr_assert_eq(scan_text("t.c", src, CH_LANG_C, l, &err), 0, "%s", err.msg);
    cr_assert_eq(l->len, 1);
}

/* "perm:idx[0,n) rp:off<=nnz" for every buffer with structured values (the lower bound of an
 * index array printed only when given; "perm" instead of "idx" for distinct values),
 * "x:[-2,3]" for a floating range from a clause. */
static char *structure(const ch_entry *e)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *p = &e->params[i];
        const char *sep = sb.len ? " " : "";
        if (p->is_index)
            ch_strbuf_addf(&sb, "%s%s:%s[%s,%s)", sep, p->name, p->is_perm ? "perm" : "idx",
                           p->index_lo ? p->index_lo : "0", p->index_hi ? p->index_hi : "?");
        else if (p->offsets_hi)
            ch_strbuf_addf(&sb, "%s%s:off<=%s", sep, p->name, p->offsets_hi);
        else if (p->has_range)
            ch_strbuf_addf(&sb, "%s%s:[%g,%g]", sep, p->name, p->lo, p->hi);
    }
    return ch_strbuf_detach(&sb);
}

static long long int_at(ch_scalar t, const void *buf, size_t i)
{
    switch (t) {
    case CH_T_INT:
        return ((const int *)buf)[i];
    case CH_T_UINT:
        return ((const unsigned *)buf)[i];
    case CH_T_LONG:
        return ((const long *)buf)[i];
    case CH_T_LLONG:
        return ((const long long *)buf)[i];
    case CH_T_SHORT:
        return ((const short *)buf)[i];
    default:
        cr_assert_fail("unexpected element type %s", ch_scalar_name(t));
        return 0;
    }
}

static long long eval_in(const char *expr, const ch_ck_size *s)
{
    long long v;
    ch_error err;
    cr_assert_eq(ch_checklist_eval(expr, s, &v, &err), 0, "%s: %s", expr, err.msg);
    return v;
}

/* The data synthesized at one size keeps every structure the checklist states; returns how
 * many structured values it checked. */
static size_t check_set(const ch_checklist *c, const ch_ck_size *size, uint64_t seed)
{
    ch_dataset d;
    ch_error err;
    cr_assert_eq(ch_data_synthesize(c, size, seed, &d, &err), 0, "%s", err.msg);
    /* the size set plus the integer scalars drawn from their ranges */
    ch_ck_size all;
    memset(&all, 0, sizeof all);
    ch_ck_size_copy(&all, size);
    for (size_t i = 0; i < c->n_params; i++)
        if (c->params[i].role == CH_ROLE_SCALAR && ch_scalar_is_integer(c->params[i].elem))
            ch_ck_size_set(&all, c->params[i].name, int_at(c->params[i].elem, d.data[i], 0));
    size_t checked = 0;
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR || !d.data[i])
            continue;
        if (p->index_hi) {
            long long lo = p->index_lo ? eval_in(p->index_lo, &all) : 0;
            long long hi = eval_in(p->index_hi, &all);
            char *seen = p->perm ? ch_xcalloc((size_t)(hi - lo) + 1, 1) : NULL;
            for (size_t k = 0; k < d.count[i]; k++, checked++) {
                long long v = int_at(p->elem, d.data[i], k);
                cr_assert(v >= lo && v < hi, "%s[%zu] = %lld outside [%lld, %lld)", p->name, k, v,
                          lo, hi);
                if (seen) {
                    cr_assert(!seen[v - lo], "%s[%zu] = %lld repeats a value", p->name, k, v);
                    seen[v - lo] = 1;
                }
            }
            free(seen);
        } else if (p->offsets_hi && d.count[i]) {
            long long last = eval_in(p->offsets_hi, &all);
            if (d.count[i] > 1) /* one element is both the first and the last */
                cr_assert_eq(int_at(p->elem, d.data[i], 0), 0, "%s[0]", p->name);
            cr_assert_eq(int_at(p->elem, d.data[i], d.count[i] - 1), last, "%s ends at %s", p->name,
                         p->offsets_hi);
            for (size_t k = 1; k < d.count[i]; k++, checked++)
                cr_assert_leq(int_at(p->elem, d.data[i], k - 1), int_at(p->elem, d.data[i], k),
                              "%s decreases at %zu", p->name, k);
        } else if (p->has_range && ch_scalar_is_float(p->elem)) {
            for (size_t k = 0; k < d.count[i]; k++, checked++) {
                double v = p->elem == CH_T_FLOAT ? ((const float *)d.data[i])[k]
                                                 : ((const double *)d.data[i])[k];
                cr_assert(v >= p->lo && v <= p->hi, "%s[%zu] = %g outside [%g, %g]", p->name, k, v,
                          p->lo, p->hi);
            }
        }
    }
    ch_ck_size_free(&all);
    ch_dataset_free(&d);
    return checked;
}

/* Derives e's checklist and checks the data at every smoke and correctness size. */
static void check_data(const ch_entry *e)
{
    ch_checklist c;
    ch_error err;
    cr_assert_eq(ch_checklist_derive(e, &c, &err), 0, "%s", err.msg);
    size_t checked = 0;
    for (size_t k = 0; k < c.n_smoke; k++)
        checked += check_set(&c, &c.smoke[k], 100 + k);
    for (size_t k = 0; k < c.n_correctness; k++)
        checked += check_set(&c, &c.correctness[k], 200 + k);
    cr_assert_gt(checked, 100, "too few structured values to mean anything (%zu)", checked);
    ch_checklist_free(&c);
}

static void expect_structure(const char *src, const char *want)
{
    ch_entry_list l;
    scan_one(src, &l);
    char *got = structure(&l.items[0]);
    cr_expect_str_eq(got, want, "for %s", src);
    free(got);
    check_data(&l.items[0]);
    ch_entry_list_free(&l);
}

/* ---- inference ---- */

Test(inputs, gather_through_a_permutation)
{
    /* directly, and through a local that holds the permutation's value */
    expect_structure("#pragma harness extent(x: n)\n"
                     "void gather(int n, const int *perm, const float *x, float *y)\n"
                     "{ for (int i = 0; i < n; i++) y[i] = x[perm[i]]; }\n",
                     "perm:idx[0,n)");
    expect_structure("#pragma harness extent(x: n)\n"
                     "void gather(int n, const int *perm, const float *x, float *y)\n"
                     "{ for (int i = 0; i < n; i++) { int j = perm[i]; y[i] = x[j]; } }\n",
                     "perm:idx[0,n)");
    /* a scatter target with its own size: in range, but n > m leaves no distinct values */
    expect_structure("#pragma harness extent(y: m)\n"
                     "void scatter(int n, int m, const long *to, const float *x, float *y)\n"
                     "{ for (int i = 0; i < n; i++) { long t; t = to[i]; y[t] = x[i]; } }\n",
                     "to:idx[0,m)");
}

/* A plain store through an index array of the target's extent is a scatter through a
 * permutation: a repeated value would have two iterations write one element (the reference
 * keeps the last, a kernel any), so the data holds distinct values; check_set asserts it at
 * every size. Directly, through a local and through a cast; a compound store is not one. */
Test(inputs, scatter_through_a_permutation)
{
    expect_structure("#pragma harness extent(x: n, y: n)\n"
                     "void scatter(int n, const int *perm, const float *x, float *y)\n"
                     "{ for (int i = 0; i < n; i++) y[perm[i]] = x[i]; }\n",
                     "perm:perm[0,n)");
    expect_structure("#pragma harness extent(x: n, y: n)\n"
                     "void scatter(int n, const int *perm, const float *x, float *y)\n"
                     "{ for (int i = 0; i < n; i++) { int j = perm[i]; y[j] = 2 * x[i]; } }\n",
                     "perm:perm[0,n)");
    expect_structure("#pragma harness extent(x: n, y: n)\n"
                     "void scatter(int n, const unsigned *perm, const float *x, float *y)\n"
                     "{ for (int i = 0; i < n; i++) y[(long)perm[i]] = x[i]; }\n",
                     "perm:perm[0,n)");
    /* a gather, an update that reads the old value, and a value computed from the index are
     * not scatters through a permutation */
    expect_structure("#pragma harness extent(x: n)\n"
                     "void g(int n, const int *perm, const float *x, float *y)\n"
                     "{ for (int i = 0; i < n; i++) y[i] = x[perm[i]]; }\n",
                     "perm:idx[0,n)");
    expect_structure("#pragma harness extent(x: n, y: n)\n"
                     "void s(int n, const int *perm, const float *x, float *y)\n"
                     "{ for (int i = 0; i < n; i++) y[perm[i]] += x[i]; }\n",
                     "perm:idx[0,n)");
}

/* CSR with every value read through a local: the row bounds make rp an offsets array (the loop
 * counter started at one is not an index), the column read makes col an index array into x. */
Test(inputs, csr_col_idx_and_row_pointers_through_locals)
{
    expect_structure("#pragma harness extent(col: nnz, val: nnz, x: n)\n"
                     "void spmv(int m, int n, int nnz, const int *rp, const int *col,\n"
                     "          const double *val, const double *x, double *y)\n"
                     "{\n"
                     "    for (int i = 0; i < m; i++) {\n"
                     "        double s = 0;\n"
                     "        int lo = rp[i];\n"
                     "        int hi = rp[i + 1];\n"
                     "        for (int k = lo; k < hi; k++) {\n"
                     "            int c = col[k];\n"
                     "            s += val[k] * x[c];\n"
                     "        }\n"
                     "        y[i] = s;\n"
                     "    }\n"
                     "}\n",
                     "rp:off<=nnz col:idx[0,n)");
}

Test(inputs, histogram_bins)
{
    expect_structure(
        "#pragma harness extent(hist: nbins)\n"
        "void histogram(int n, int nbins, const int *key, const float *w, float *hist)\n"
        "{ for (int i = 0; i < n; i++) hist[key[i]] += w[i]; }\n",
        "key:idx[0,nbins)");
    expect_structure("#pragma harness extent(hist: nbins)\n"
                     "void count(int n, int nbins, const unsigned *key, int *hist)\n"
                     "{ for (int i = 0; i < n; i++) { int b = key[i]; hist[b]++; } }\n",
                     "key:idx[0,nbins)");
}

/* A segmented sum is a CSR without columns: its segment starts are offsets into v. */
Test(inputs, segmented_sum_is_offsets)
{
    const char *src = "#pragma harness extent(v: n)\n"
                      "void segsum(int nseg, int n, const int *seg, const double *v, double *out)\n"
                      "{\n"
                      "    for (int s = 0; s < nseg; s++) {\n"
                      "        double t = 0;\n"
                      "        for (int j = seg[s]; j < seg[s + 1]; j++)\n"
                      "            t += v[j];\n"
                      "        out[s] = t;\n"
                      "    }\n"
                      "}\n";
    expect_structure(src, "seg:off<=n");
    ch_entry_list l;
    scan_one(src, &l);
    cr_expect_str_eq(ch_entry_param(&l.items[0], "seg")->extent, "nseg+1");
    cr_expect_eq(ch_entry_param(&l.items[0], "seg")->values_explicit, 0);
    ch_entry_list_free(&l);
}

/* ---- clauses: what inference cannot see ---- */

static const char *const helper_index =
    "static int at(const int *p, int i) { return p[i]; }\n"
    "#pragma harness extent(ix: n, x: n) %s\n"
    "void gather1(int n, const int *ix, const double *x, double *y)\n"
    "{ for (int i = 0; i < n; i++) y[i] = x[at(ix, i) - 1]; }\n";

/* fmt (a format with one %s for the clauses) without clauses: a helper hides the index, so
 * inference finds no structure. */
static void expect_nothing_inferred(const char *fmt)
{
    char *plain = ch_xasprintf(fmt, "");
    ch_entry_list l;
    scan_one(plain, &l);
    char *got = structure(&l.items[0]);
    cr_expect_str_eq(got, "", "a helper hides the index: nothing inferred");
    free(got);
    ch_entry_list_free(&l);
    free(plain);
}

Test(inputs, range_clause_describes_an_index_inference_cannot_see)
{
    expect_nothing_inferred(helper_index);
    ch_entry_list l;
    /* one-based indices */
    char *ranged = ch_xasprintf(helper_index, "range(ix: 1, n + 1)");
    expect_structure(ranged, "ix:idx[1,n+1)");
    scan_one(ranged, &l);
    cr_expect_eq(ch_entry_param(&l.items[0], "ix")->values_explicit, 1);
    ch_entry_list_free(&l);
    free(ranged);
}

/* perm(p: n): a helper hides the scatter's index; the clause makes p a permutation of 0..n-1
 * (check_set asserts distinct values at every size). */
Test(inputs, perm_clause_describes_a_scatter_inference_cannot_see)
{
    const char *fmt = "static int at(const int *p, int i) { return p[i]; }\n"
                      "#pragma harness extent(p: n, x: n, y: n) %s\n"
                      "void s(int n, const int *p, const double *x, double *y)\n"
                      "{ for (int i = 0; i < n; i++) y[at(p, i)] = x[i]; }\n";
    expect_nothing_inferred(fmt);
    ch_entry_list l;
    char *full = ch_xasprintf(fmt, "perm(p: n)");
    expect_structure(full, "p:perm[0,n)");
    scan_one(full, &l);
    cr_expect_eq(ch_entry_param(&l.items[0], "p")->values_explicit, 1);
    ch_checklist c;
    ch_error err;
    cr_assert_eq(ch_checklist_derive(&l.items[0], &c, &err), 0, "%s", err.msg);
    cr_expect_eq(ch_checklist_param(&c, "p")->perm, 1);
    char *json = ch_checklist_to_json(&c);
    cr_expect(strstr(json, "\"perm\"") != NULL, "%s", json);
    ch_checklist back;
    cr_assert_eq(ch_checklist_from_json(json, &back, &err), 0, "%s", err.msg);
    cr_expect_eq(ch_checklist_param(&back, "p")->perm, 1, "the JSON keeps perm");
    ch_checklist_free(&back);
    free(json);
    ch_checklist_free(&c);
    ch_entry_list_free(&l);
    free(full);
}

/* Fewer elements than values: distinct ones drawn from the range; more elements than distinct
 * values cannot be synthesized: an error naming the buffer. */
Test(inputs, perm_with_fewer_or_more_elements_than_values)
{
    ch_entry_list l;
    scan_one("static int at(const int *p, int i) { return p[i]; }\n"
             "#pragma harness extent(p: n, x: n, y: n) perm(p: 3)\n"
             "void s(int n, const int *p, const double *x, double *y)\n"
             "{ for (int i = 0; i < n; i++) y[at(p, i) * 0 + i] = x[i]; }\n",
             &l);
    ch_checklist c;
    ch_error err;
    cr_assert_eq(ch_checklist_derive(&l.items[0], &c, &err), 0, "%s", err.msg);
    ch_ck_size size = {0};
    ch_dataset d;
    for (long long n = 1; n <= 3; n++)
        for (uint64_t seed = 1; seed <= 50; seed++) {
            ch_ck_size_set(&size, "n", n);
            cr_assert_eq(ch_data_synthesize(&c, &size, seed, &d, &err), 0, "%s", err.msg);
            const int *v = d.data[1];
            cr_assert_eq(d.count[1], (size_t)n);
            for (long long a = 0; a < n; a++) {
                cr_assert(v[a] >= 0 && v[a] < 3, "p[%lld] = %d", a, v[a]);
                for (long long b = 0; b < a; b++)
                    cr_assert_neq(v[a], v[b], "p[%lld] = p[%lld] at n = %lld", a, b, n);
            }
            ch_dataset_free(&d);
        }
    ch_ck_size_set(&size, "n", 4);
    cr_assert_neq(ch_data_synthesize(&c, &size, 1, &d, &err), 0);
    cr_expect_str_eq(err.msg, "p holds 4 elements, but its values are distinct in [0, 3): only 3 "
                              "such values; make its extent at most the bound of perm()");
    ch_ck_size_free(&size);
    ch_checklist_free(&c);
    ch_entry_list_free(&l);
}

Test(inputs, offsets_and_float_range_clauses)
{
    expect_structure("static int first(const int *p, int s) { return p[s]; }\n"
                     "#pragma harness extent(start: nseg + 1, v: n) offsets(start: n) "
                     "range(v: -2, 3)\n"
                     "void segsum(int nseg, int n, const int *start, const float *v, float *out)\n"
                     "{\n"
                     "    for (int s = 0; s < nseg; s++) {\n"
                     "        float t = 0;\n"
                     "        for (int j = first(start, s); j < first(start, s + 1); j++)\n"
                     "            t += v[j];\n"
                     "        out[s] = t;\n"
                     "    }\n"
                     "}\n",
                     "start:off<=n v:[-2,3]");
}

Test(inputs, clauses_win_over_inference)
{
    /* inference says perm is an index into x; the user says its values are offsets */
    expect_structure("#pragma harness extent(x: n) range(perm: 0, 2)\n"
                     "void gather(int n, const int *perm, const float *x, float *y)\n"
                     "{ for (int i = 0; i < n; i++) y[i] = x[perm[i]]; }\n",
                     "perm:idx[0,2)");
    expect_structure("#pragma harness extent(x: n, y: n, perm: n) offsets(perm: n)\n"
                     "void gather(int n, const int *perm, const float *x, float *y)\n"
                     "{ for (int i = 0; i < n; i++) y[i] = x[perm[i]]; }\n",
                     "perm:off<=n");
}

Test(inputs, bad_clauses_are_located_errors)
{
    const char *fmt = "void fill(int n, int *ix, double *x);\n"
                      "#pragma harness extent(ix: n, x: n) %s\n"
                      "void g(int n, const int *ix, double *x) { for (int i = 0; i < n; i++) "
                      "x[i] = ix[i]; }\n";
    const char *cases[][2] = {
        {"range(ix: 0, k)",
         "t.c:2:43: error: bad bound 'k' in range(ix: ...): 'k' is not an integer parameter of "
         "'g'; write it as a C expression of the integer parameters"},
        {"range(x: 0, n)", "t.c:2:43: error: range(x: 0, n): 'x' holds double values, so its "
                           "bounds are two numbers, the first below the second; write "
                           "range(x: -1, 1)"},
        {"range(ix: 3, 3)", "t.c:2:43: error: range(ix: 3, 3) holds no value: the values lie in "
                            "[lo, hi), so hi must be above lo"},
        {"offsets(x: n)", "t.c:2:45: error: offsets(x: ...): 'x' holds double values; offsets "
                          "are positions, so offsets() takes an integer array"},
        {"range(ix: 0, n) offsets(ix: n)", "t.c:2:43: error: the values of 'ix' are described "
                                           "twice (by range(), offsets() or perm()); keep one"},
        {"offsets(ix: n) perm(ix: n)", "t.c:2:45: error: the values of 'ix' are described "
                                       "twice (by offsets() or perm()); keep one"},
        {"perm(ix: n) perm(ix: n)", "t.c:2:54: error: perm(ix: ...) given twice; keep one"},
        {"perm(ix: j)", "t.c:2:42: error: bad bound 'j' in perm(ix: ...): 'j' is not an integer "
                        "parameter of 'g'; write it as a C expression of the integer parameters"},
        {"perm(ix: 0)", "t.c:2:42: error: perm(ix: 0) holds no value: the values are distinct in "
                        "[0, 0), so the bound must be positive"},
        {"perm(x: n)", "t.c:2:42: error: perm(x: ...): 'x' holds double values; a permutation's "
                       "values are positions, so perm() takes an integer array"},
        {"perm(n: 4)", "t.c:2:42: error: 'n' in perm() names no pointer or array parameter of "
                       "'g'; use one of: ix, x"},
        {"range(n: 0, 4)", "t.c:2:43: error: 'n' in range() names no pointer or array parameter "
                           "of 'g'; use one of: ix, x"},
        {"sample(nothere)", "t.c:2:44: error: sample(nothere): this file defines no function "
                            "'nothere'; define it here with the parameters of 'g' (void g(int n, "
                            "const int *ix, double *x)): it gets the buffers allocated and fills "
                            "valid inputs"},
        {"sample(g)", "t.c:2:44: error: sample(g) names the harness function itself; name a "
                      "function that fills valid inputs for it"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *src = ch_xasprintf(fmt, cases[i][0]);
        expect_scan_error(src, cases[i][1]);
        free(src);
    }
    /* a sample function with other parameters */
    expect_scan_error("void fill(int n, long *ix, double *x) { (void)n; (void)ix; (void)x; }\n"
                      "#pragma harness sample(fill) extent(ix: n, x: n)\n"
                      "void g(int n, const int *ix, double *x) { for (int i = 0; i < n; i++) "
                      "x[i] = ix[i]; }\n",
                      "t.c:2:24: error: sample(fill): parameter 2 of 'fill' is 'long *', but "
                      "'ix' of 'g' is 'const int *'; a sample function takes the parameters of "
                      "'g' in the same order, const dropped where it fills a buffer");
    expect_scan_error("void fill(int n, int *ix) { (void)n; (void)ix; }\n"
                      "#pragma harness sample(fill) extent(ix: n, x: n)\n"
                      "void g(int n, const int *ix, double *x) { for (int i = 0; i < n; i++) "
                      "x[i] = ix[i]; }\n",
                      "t.c:2:24: error: sample(fill): 'fill' takes 2 parameters, 'g' 3; a sample "
                      "function takes the parameters of 'g' in the same order (void g(int n, "
                      "const int *ix, double *x)), const dropped where it fills a buffer");
}

/* The sample function is part of the entry: its text is kept, the checklist names it, and a
 * change to it changes the cache key (a recorded refusal is retried with the new data). */
Test(inputs, sample_clause_is_kept_and_keyed)
{
    const char *fmt = "static void fill(int n, int *ix, double *x)\n"
                      "{ (void)x; for (int i = 0; i < n; i++) ix[i] = %s; }\n"
                      "#pragma harness sample(fill) extent(ix: n, x: n)\n"
                      "void g(int n, const int *ix, double *x) { for (int i = 0; i < n; i++) "
                      "x[ix[i]] += 1; }\n";
    char *a = ch_xasprintf(fmt, "i"), *b = ch_xasprintf(fmt, "n - 1 - i");
    ch_entry_list la, lb;
    scan_one(a, &la);
    scan_one(b, &lb);
    const ch_entry *e = &la.items[0];
    cr_assert_str_eq(e->clauses.sample, "fill");
    cr_assert_not_null(e->sample_source);
    cr_expect_not_null(strstr(e->sample_source, "fill"), "%s", e->sample_source);
    char *archs[] = {"sm_90", NULL};
    char ka[33], kb[33];
    cr_assert_eq(ch_cache_key(e, archs, ka), 0);
    cr_assert_eq(ch_cache_key(&lb.items[0], archs, kb), 0);
    cr_expect_str_neq(ka, kb, "the sample function's text is part of the key");
    ch_checklist c;
    ch_error err;
    cr_assert_eq(ch_checklist_derive(e, &c, &err), 0, "%s", err.msg);
    cr_expect_str_eq(c.sample, "fill");
    char *json = ch_checklist_to_json(&c);
    cr_expect_not_null(strstr(json, "\"sample\": \"fill\""), "%s", json);
    ch_checklist back;
    cr_assert_eq(ch_checklist_from_json(json, &back, &err), 0, "%s", err.msg);
    cr_expect_str_eq(back.sample, "fill");
    ch_checklist_free(&back);
    free(json);
    ch_checklist_free(&c);
    ch_entry_list_free(&la);
    ch_entry_list_free(&lb);
    free(a);
    free(b);
}

/* An agent's checklist for a spec-only entry: the clauses replace what the model said about
 * the values of the buffers they name, and the sample function is named whatever the reply. */
Test(inputs, clauses_override_an_agent_checklist)
{
    ch_entry_list l;
    scan_one("void fill(int n, int m, int *idx, int *rp, double *src, double *out);\n"
             "#pragma harness \"out[i] = src[idx[i]]\" extent(idx: n, rp: n + 1, src: m, out: n) "
             "range(idx: 0, m) offsets(rp: m) sample(fill)\n"
             "void gather(int n, int m, const int *idx, const int *rp, const double *src, "
             "double *out);\n"
             "void fill(int n, int m, int *idx, int *rp, double *src, double *out) { (void)n; "
             "(void)m; (void)idx; (void)rp; (void)src; (void)out; }\n",
             &l);
    const ch_entry *e = &l.items[0];
    ch_checklist c;
    ch_error err;
    cr_assert_eq(ch_checklist_derive(e, &c, &err), 0, "%s", err.msg);
    /* what a model might write: plain value ranges, no sample */
    ch_ck_param *idx = (ch_ck_param *)ch_checklist_param(&c, "idx");
    ch_ck_param *rp = (ch_ck_param *)ch_checklist_param(&c, "rp");
    free(idx->index_hi);
    idx->index_hi = NULL;
    idx->has_range = 1, idx->lo = -5, idx->hi = 5;
    free(rp->offsets_hi);
    rp->offsets_hi = NULL;
    rp->has_range = 1, rp->lo = 0, rp->hi = 9;
    free(c.sample);
    c.sample = NULL;
    cr_assert_eq(ch_checklist_validate(&c, &err), 0, "%s", err.msg);
    cr_assert_eq(ch_checklist_apply_clauses(&c, e, &err), 0, "%s", err.msg);
    cr_expect_str_eq(idx->index_hi, "m");
    cr_expect_eq(idx->has_range, 0);
    cr_expect_str_eq(rp->offsets_hi, "m");
    cr_expect_eq(rp->has_range, 0);
    cr_expect_str_eq(c.sample, "fill");
    /* a model that made m a value rather than a size cannot keep the clause's bound */
    ch_ck_param *m = (ch_ck_param *)ch_checklist_param(&c, "m");
    m->has_range = 1, m->lo = 1, m->hi = 4;
    cr_assert_neq(ch_checklist_apply_clauses(&c, e, &err), 0);
    cr_expect_not_null(strstr(err.msg, "'m' has a value range"), "%s", err.msg);
    ch_checklist_free(&c);
    ch_entry_list_free(&l);
}

/* An agent's checklist judges every candidate: it may loosen a tolerance up to a bound, and tests
 * two correctness sizes at least (attacks5/ref07_checklist.json: rtol = atol = 1e30, n = 1). */
Test(inputs, an_agent_checklist_cannot_pass_anything)
{
    ch_entry_list l;
    scan_one("#pragma harness \"y[i] = a * x[i] + y[i]\" extent(x: n, y: n)\n"
             "void axpy(int n, float a, const float *x, float *y);\n",
             &l);
    const ch_entry *e = &l.items[0];
    ch_checklist c;
    ch_error err;
    cr_assert_eq(ch_checklist_derive(e, &c, &err), 0, "%s", err.msg);
    cr_assert_eq(ch_checklist_apply_clauses(&c, e, &err), 0, "the derived one passes: %s", err.msg);
    ch_ck_param *y = (ch_ck_param *)ch_checklist_param(&c, "y");
    y->rtol = 1e-3; /* a reduction's rounding: looser than the default, allowed */
    cr_assert_eq(ch_checklist_apply_clauses(&c, e, &err), 0, "%s", err.msg);
    y->rtol = 1e30;
    cr_assert_neq(ch_checklist_apply_clauses(&c, e, &err), 0);
    cr_expect_not_null(strstr(err.msg, "a tolerance of 1e+30 is above 0.01"), "%s", err.msg);
    y->rtol = 1e-4;
    size_t sizes = c.n_correctness;
    c.n_correctness = 1;
    int rc = ch_checklist_apply_clauses(&c, e, &err);
    c.n_correctness = sizes;
    cr_assert_neq(rc, 0);
    cr_expect_not_null(strstr(err.msg, "two at least"), "%s", err.msg);
    ch_checklist_free(&c);
    ch_entry_list_free(&l);
}

/* The checklist rules for the new fields, whoever wrote the checklist. */
Test(inputs, checklist_rules_for_index_and_offsets_arrays)
{
    ch_entry_list l;
    scan_one("#pragma harness extent(x: n)\n"
             "void gather(int n, const int *perm, const float *x, float *y)\n"
             "{ for (int i = 0; i < n; i++) y[i] = x[perm[i]]; }\n",
             &l);
    ch_checklist c;
    ch_error err;
    cr_assert_eq(ch_checklist_derive(&l.items[0], &c, &err), 0, "%s", err.msg);
    ch_ck_param *perm = (ch_ck_param *)ch_checklist_param(&c, "perm");
    cr_assert_str_eq(perm->index_of, "x");
    /* which array the values subscript is optional */
    free(perm->index_of);
    perm->index_of = NULL;
    cr_expect_eq(ch_checklist_validate(&c, &err), 0, "%s", err.msg);
    perm->offsets_hi = ch_xstrdup("n");
    cr_expect_neq(ch_checklist_validate(&c, &err), 0);
    cr_expect_str_eq(
        err.msg, "params[1].offsets_hi: an array is an index array or an offsets array, not both");
    free(perm->offsets_hi);
    perm->offsets_hi = NULL;
    free(perm->index_hi);
    perm->index_hi = NULL;
    perm->index_lo = ch_xstrdup("1");
    cr_expect_neq(ch_checklist_validate(&c, &err), 0);
    cr_expect_str_eq(err.msg, "params[1].index_hi: missing (index arrays need an exclusive bound)");
    perm->index_hi = ch_xstrdup("n + 1");
    cr_expect_eq(ch_checklist_validate(&c, &err), 0, "%s", err.msg);
    /* distinct values: index arrays only */
    perm->perm = 1;
    cr_expect_eq(ch_checklist_validate(&c, &err), 0, "%s", err.msg);
    ch_ck_param *x = (ch_ck_param *)ch_checklist_param(&c, "x");
    x->perm = 1;
    cr_expect_neq(ch_checklist_validate(&c, &err), 0);
    cr_expect_str_eq(err.msg, "params[2].perm: only index arrays are permutations; give index_hi "
                              "(the number of distinct values) or drop perm");
    x->perm = 0;
    c.sample = ch_xstrdup("2fill");
    cr_expect_neq(ch_checklist_validate(&c, &err), 0);
    cr_expect_str_eq(err.msg, "sample: '2fill' is not a C function name");
    ch_checklist_free(&c);
    ch_entry_list_free(&l);
}
