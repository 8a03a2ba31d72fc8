/* The report page of --harness-report: one static, self-contained HTML document per build,
 * one section per entry, plots as inline SVG drawn from report.json (page/ holds
 * the templates and CSS, embedded into the binary). Invariant: every text that
 * comes from an entry (spec, names, messages, kernel source) passes ch_html_escape before it
 * reaches the page, and the page carries a Content-Security-Policy that forbids scripts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/embed.h"
#include "ch/report.h"

extern const struct ch_embedded_file ch_report_page_files[];

enum { PLOT_W = 520, PLOT_H = 200, PAD = 40 };

void ch_html_escape(ch_strbuf *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            ch_strbuf_adds(out, "&amp;");
            break;
        case '<':
            ch_strbuf_adds(out, "&lt;");
            break;
        case '>':
            ch_strbuf_adds(out, "&gt;");
            break;
        case '"':
            ch_strbuf_adds(out, "&quot;");
            break;
        case '\'':
            ch_strbuf_adds(out, "&#39;");
            break;
        default:
            ch_strbuf_addc(out, *s);
        }
    }
}

static char *escaped(const char *s)
{
    ch_strbuf b;
    ch_strbuf_init(&b);
    ch_html_escape(&b, s ? s : "");
    return ch_strbuf_detach(&b);
}

static const cJSON *item(const cJSON *o, const char *name)
{
    return o ? cJSON_GetObjectItemCaseSensitive(o, name) : NULL;
}

static const char *text(const cJSON *o, const char *name)
{
    const cJSON *v = item(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double number(const cJSON *o, const char *name)
{
    const cJSON *v = item(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void none(ch_strbuf *out, const char *why)
{
    ch_strbuf_adds(out, "<p class=\"none\">");
    ch_html_escape(out, why);
    ch_strbuf_adds(out, "</p>");
}

/* ---- evolution: every candidate (green dot: correct, at its time; hollow dot: pending, waits
 * for a GPU; red cross: incorrect, on the axis) and the best time so far by round ---- */

static double max_time(const cJSON *cands)
{
    double hi = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cands) if (number(c, "rank_ms") > hi) hi = number(c, "rank_ms");
    return hi;
}

static void svg_open(ch_strbuf *out, const char *cls, const char *title)
{
    ch_strbuf_addf(out,
                   "<svg class=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                   "role=\"img\"><title>",
                   cls, PLOT_W, PLOT_H, PLOT_W, PLOT_H);
    ch_html_escape(out, title);
    ch_strbuf_addf(out,
                   "</title><line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
                   "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>",
                   PAD, PLOT_H - PAD, PLOT_W - 10, PLOT_H - PAD, PAD, 10, PAD, PLOT_H - PAD);
}

static void evolution_svg(ch_strbuf *out, const cJSON *report)
{
    const cJSON *cands = item(item(report, "evolution"), "candidates");
    const cJSON *curve = item(report, "curve");
    int rounds = cJSON_GetArraySize(curve);
    if (cJSON_GetArraySize(cands) == 0 || rounds == 0) {
        none(out, "No candidate was made for this entry.");
        return;
    }
    double hi = max_time(cands);
    double xstep = (double)(PLOT_W - PAD - 30) / (rounds > 1 ? rounds - 1 : 1);
    double yspan = PLOT_H - PAD - 20;
#define X(r) (PAD + 10 + xstep * (double)(r))
#define Y(t) (hi > 0 ? (double)(PLOT_H - PAD) - yspan * (t) / hi : (double)(PLOT_H - PAD) - 5)
    svg_open(out, "plot-evolution", "candidates by round; the line is the best correct time");
    const cJSON *c;
    cJSON_ArrayForEach(c, cands)
    {
        int r = (int)number(c, "round");
        double x = X(r < 0 ? 0 : r);
        const char *v = text(c, "verdict");
        double t = number(c, "rank_ms");
        if (v && strcmp(v, "correct") == 0 && t >= 0)
            ch_strbuf_addf(out, "<circle class=\"ok\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>", x, Y(t));
        else if (v && strcmp(v, "correct") == 0)
            ch_strbuf_addf(out, "<circle class=\"ok\" cx=\"%.1f\" cy=\"%d\" r=\"4\"/>", x,
                           PLOT_H - PAD - 8);
        else if (v && strcmp(v, "pending") == 0)
            ch_strbuf_addf(out, "<circle class=\"pending\" cx=\"%.1f\" cy=\"%d\" r=\"4\"/>", x,
                           PLOT_H - PAD - 8);
        else
            ch_strbuf_addf(out, "<path class=\"bad\" d=\"M%.1f %d l8 8 m0 -8 l-8 8\"/>", x - 4,
                           PLOT_H - PAD - 12);
    }
    ch_strbuf_adds(out, "<polyline class=\"best\" points=\"");
    cJSON_ArrayForEach(c, curve)
    {
        double t = number(c, "best_ms");
        if (t >= 0)
            ch_strbuf_addf(out, "%.1f,%.1f ", X(number(c, "round") - 1), Y(t));
    }
    ch_strbuf_adds(out, "\"/>");
    ch_strbuf_addf(out,
                   "<text class=\"label\" x=\"%d\" y=\"%d\">round 1 .. %d</text>"
                   "<text class=\"label\" x=\"4\" y=\"14\">%.4g ms</text></svg>",
                   PAD, PLOT_H - 12, rounds, hi);
#undef X
#undef Y
}

/* ---- the floor bar: achieved fraction of the copy floor (or compute peak) ---- */

static void floor_bar(ch_strbuf *out, const cJSON *report)
{
    const cJSON *t = item(item(report, "winner"), "timing");
    double f = number(t, "fraction_of_floor");
    if (f < 0) {
        none(out, "Not measured: no kernel of this entry was timed on a GPU.");
        return;
    }
    double pct = 100.0 * (f > 1 ? 1 : f);
    ch_strbuf_addf(out,
                   "<div class=\"bar\" title=\"fraction of the floor\"><div class=\"fill\" "
                   "style=\"width:%.1f%%\"></div></div><p>%.0f%% of the floor: %.4f ms "
                   "achieved against a floor of %.4f ms (%s).</p>",
                   pct, 100.0 * f,
                   number(t, "kernel_ms") >= 0 ? number(t, "kernel_ms") : number(t, "launcher_ms"),
                   number(t, "floor_ms"),
                   item(t, "kernel_resident") && cJSON_IsTrue(item(t, "kernel_resident"))
                       ? "kernel on resident data against the DRAM copy floor"
                       : "the whole call against the copy floor");
}

/* ---- stage timeline of the winner, else of the candidate that got furthest ---- */

static const cJSON *shown_candidate(const cJSON *report)
{
    const cJSON *ev = item(report, "evolution");
    const cJSON *cands = item(ev, "candidates");
    double best = number(ev, "best");
    if (best >= 0)
        return cJSON_GetArrayItem(cands, (int)best);
    return cJSON_GetArrayItem(cands, cJSON_GetArraySize(cands) - 1);
}

static void timeline(ch_strbuf *out, const cJSON *report)
{
    const cJSON *stages = item(shown_candidate(report), "stages");
    if (cJSON_GetArraySize(stages) == 0) {
        none(out, "No stage ran.");
        return;
    }
    ch_strbuf_adds(out, "<div class=\"stages\">");
    const cJSON *s;
    cJSON_ArrayForEach(s, stages)
    {
        char *status = escaped(text(s, "status"));
        char *name = escaped(text(s, "name"));
        ch_strbuf_addf(out, "<div class=\"stage %s\">%s<br>%s<br>%.2f s</div>", status, name,
                       status, number(s, "seconds") > 0 ? number(s, "seconds") : 0.0);
        free(status);
        free(name);
    }
    ch_strbuf_adds(out, "</div>");
}

/* ---- dispatch: host path and GPU call time by size (log-log), thresholds dashed ---- */

/* A threshold the GPU can reach: positive and finite (the dispatcher's LLONG_MAX, about
 * 9.2e18, means the host path always runs). */
static int reachable(double size)
{
    return size > 0 && size < 1e18;
}

/* The dispatcher's thresholds: warm, and for a process's first calls (report_format 2's
 * dispatch.first_calls, issue 14) while the entry's device buffers are to be allocated and
 * while the device is not set up. A missing one is -1. */
typedef struct thresholds {
    double warm, buffers, cold, setup_ms;
} thresholds;

static thresholds thresholds_of(const cJSON *d)
{
    const cJSON *first = item(d, "first_calls");
    thresholds t = {number(d, "gpu_min_size"), -1, -1, -1};
    if (first) {
        t.buffers = number(first, "gpu_min_size_buffers");
        t.cold = number(first, "gpu_min_size_cold");
        t.setup_ms = number(first, "device_setup_ms");
    }
    return t;
}

/* "from SIZE", or that no size suffices (malloc'd). */
static char *from_size(double size)
{
    return reachable(size) ? ch_xasprintf("from size %.0f", size) : ch_xstrdup("at no size");
}

/* The sentence under the plot: where the GPU path starts, for a warm call and for a process's
 * first calls. */
static void dispatch_sentence(ch_strbuf *out, const thresholds *t)
{
    if (t->warm < 0)
        return;
    if (!reachable(t->warm) && t->warm > 0) {
        ch_strbuf_adds(out, "<p>The host path was measured faster at every size: the GPU path "
                            "runs only when forced (CH_CC_FORCE_GPU=1).</p>");
        return;
    }
    ch_strbuf_addf(out, "<p>The GPU is used from size %.0f up; below it the host path runs.",
                   t->warm);
    if (t->buffers >= 0 && t->cold >= 0) {
        char *b = from_size(t->buffers), *c = from_size(t->cold);
        ch_strbuf_addf(out,
                       " A process's first calls pay more, so the GPU path starts later: %s "
                       "while its device buffers are to be allocated, %s while the "
                       "device is not set up",
                       b, c);
        if (t->setup_ms >= 0)
            ch_strbuf_addf(out, " (its set-up: %.1f ms)", t->setup_ms);
        ch_strbuf_adds(out, ".");
        free(b);
        free(c);
    }
    ch_strbuf_adds(out, "</p>");
}

static void dispatch_svg(ch_strbuf *out, const cJSON *report)
{
    const cJSON *d = item(report, "dispatch");
    const cJSON *pts = item(d, "curve");
    thresholds th = thresholds_of(d);
    int n = cJSON_GetArraySize(pts);
    if (n < 2) {
        none(out, th.warm >= 0
                      ? "The dispatcher's threshold was set from the tune-size times alone."
                      : "No dispatch curve: no kernel was measured against the host path.");
        dispatch_sentence(out, &th);
        return;
    }
    double lo_s = INFINITY, hi_s = 0, lo_t = INFINITY, hi_t = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, pts)
    {
        double s = number(p, "size"), h = number(p, "host_ms"), g = number(p, "call_ms");
        lo_s = fmin(lo_s, fmax(s, 1));
        hi_s = fmax(hi_s, fmax(s, 1));
        lo_t = fmin(lo_t, fmin(fmax(h, 1e-6), fmax(g, 1e-6)));
        hi_t = fmax(hi_t, fmax(h, g));
    }
    /* every reachable threshold on the size axis, beyond the measured sizes if need be */
    static const char *const names[] = {"warm", "buffers", "cold"};
    const double at[] = {th.warm, th.buffers, th.cold};
    for (int k = 0; k < 3; k++)
        if (reachable(at[k])) {
            lo_s = fmin(lo_s, at[k]);
            hi_s = fmax(hi_s, at[k]);
        }
    double sx = log10(hi_s / lo_s), sy = log10(fmax(hi_t, 1e-6) / lo_t);
#define X(s) (PAD + (sx > 0 ? (PLOT_W - PAD - 20) * log10(fmax(s, 1) / lo_s) / sx : 0.0))
#define Y(t)                                                                                       \
    (PLOT_H - PAD - (sy > 0 ? (PLOT_H - PAD - 20) * log10(fmax(t, 1e-6) / lo_t) / sy : 0.0))
    svg_open(out, "plot-dispatch",
             "host path (brown) and GPU call (blue) time by size; dashed: where the GPU path "
             "starts (warm, buffers to allocate, device not set up)");
    static const char *const series[][2] = {{"host", "host_ms"}, {"gpu", "call_ms"}};
    for (int k = 0; k < 2; k++) {
        ch_strbuf_addf(out, "<polyline class=\"%s\" points=\"", series[k][0]);
        cJSON_ArrayForEach(p, pts)
            ch_strbuf_addf(out, "%.1f,%.1f ", X(number(p, "size")), Y(number(p, series[k][1])));
        ch_strbuf_adds(out, "\"/>");
    }
    for (int k = 0; k < 3; k++) {
        if (!reachable(at[k]))
            continue;
        ch_strbuf_addf(out,
                       "<line class=\"threshold %s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                       "<text class=\"label %s\" x=\"%.1f\" y=\"%d\">%s</text>",
                       names[k], X(at[k]), 10 + 12 * k, X(at[k]), PLOT_H - PAD, names[k],
                       X(at[k]) + 3, 20 + 12 * k, names[k]);
    }
    ch_strbuf_addf(out,
                   "<text class=\"label\" x=\"%d\" y=\"%d\">size %.0f .. %.0f (log)</text>"
                   "<text class=\"label\" x=\"4\" y=\"14\">%.4g ms</text></svg>",
                   PAD, PLOT_H - 12, lo_s, hi_s, hi_t);
#undef X
#undef Y
    dispatch_sentence(out, &th);
}

/* ---- facts, kernel, the section and the page ---- */

static void fact(ch_strbuf *out, const char *label, const char *value)
{
    if (!value || !*value)
        return;
    ch_strbuf_addf(out, "<dt>%s</dt><dd>", label);
    ch_html_escape(out, value);
    ch_strbuf_adds(out, "</dd>");
}

static char *facts(const cJSON *r)
{
    ch_strbuf b;
    ch_strbuf_init(&b);
    fact(&b, "kind", text(r, "kind"));
    fact(&b, "spec", text(r, "spec"));
    fact(&b, "signature", text(r, "signature"));
    char *why = ch_report_reason_text(item(r, "reason"));
    fact(&b, "reason", why);
    free(why);
    fact(&b, "agent", text(r, "agent"));
    fact(&b, "model", text(r, "model"));
    fact(&b, "oracle", text(item(r, "provenance"), "reference_by"));
    fact(&b, "variant", text(item(r, "winner"), "variant"));
    fact(&b, "stopped", text(item(r, "evolution"), "stop_reason"));
    return ch_strbuf_detach(&b);
}

static char *kernel_html(const ch_report_section *s)
{
    ch_strbuf b;
    ch_strbuf_init(&b);
    const char *src = s->kernel ? s->kernel : text(item(s->report, "winner"), "source");
    if (!src) {
        none(&b, "No verified kernel: the build links the host path.");
        return ch_strbuf_detach(&b);
    }
    if (s->kernel_note) {
        ch_strbuf_adds(&b, "<p class=\"kernel-note\">");
        ch_html_escape(&b, s->kernel_note);
        ch_strbuf_adds(&b, "</p>");
    }
    ch_strbuf_adds(&b, "<pre class=\"code\"><code>");
    ch_html_highlight(&b, src);
    ch_strbuf_adds(&b, "</code></pre>");
    return ch_strbuf_detach(&b);
}

static char *part(void (*draw)(ch_strbuf *, const cJSON *), const cJSON *report)
{
    ch_strbuf b;
    ch_strbuf_init(&b);
    draw(&b, report);
    return ch_strbuf_detach(&b);
}

static void section_html(ch_strbuf *out, const ch_report_section *s, size_t index)
{
    const char *status = s->status ? s->status : "absent";
    char *sentence = ch_report_outcome_sentence(s->report, s->status);
    char anchor[32];
    snprintf(anchor, sizeof anchor, "%zu", index);
    char *name = escaped(s->name), *where = escaped(s->where), *line = escaped(s->source_line);
    char *sent = escaped(sentence), *st = escaped(status), *cache = escaped(s->cache_note);
    char *fa = facts(s->report), *evo = part(evolution_svg, s->report);
    char *fl = part(floor_bar, s->report), *tl = part(timeline, s->report);
    char *dp = part(dispatch_svg, s->report), *kn = kernel_html(s);
    const char *vars[] = {"anchor",       anchor, "name",     name,  "where",     where,
                          "source_line",  line,   "sentence", sent,  "status",    st,
                          "status_class", st,     "facts",    fa,    "evolution", evo,
                          "floor",        fl,     "timeline", tl,    "dispatch",  dp,
                          "kernel",       kn,     "cache",    cache, NULL};
    char *html = ch_template_fill(ch_embedded_text(ch_report_page_files, "section.html"), vars);
    ch_strbuf_adds(out, html);
    char *parts[] = {html, sentence, name, where, line, sent, st, cache, fa, evo, fl, tl, dp, kn};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        free(parts[i]);
}

char *ch_report_html(const char *title, const ch_report_section *sections, size_t n)
{
    ch_strbuf body, toc;
    ch_strbuf_init(&body);
    ch_strbuf_init(&toc);
    for (size_t i = 0; i < n; i++) {
        section_html(&body, &sections[i], i);
        ch_strbuf_addf(&toc, "<li><a href=\"#entry-%zu\">", i);
        ch_html_escape(&toc, sections[i].name);
        ch_strbuf_adds(&toc, "</a> ");
        ch_html_escape(&toc, sections[i].status ? sections[i].status : "absent");
        ch_strbuf_adds(&toc, "</li>");
    }
    char count[32];
    snprintf(count, sizeof count, "%zu", n);
    char *t = escaped(title);
    char *body_text = ch_strbuf_detach(&body), *toc_text = ch_strbuf_detach(&toc);
    const char *vars[] = {
        "title", t,        "css",      ch_embedded_text(ch_report_page_files, "report.css"),
        "count", count,    "plural",   n == 1 ? "y" : "ies",
        "toc",   toc_text, "sections", body_text,
        NULL};
    char *page = ch_template_fill(ch_embedded_text(ch_report_page_files, "page.html"), vars);
    free(t);
    free(body_text);
    free(toc_text);
    return page;
}
