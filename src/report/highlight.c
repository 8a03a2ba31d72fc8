/* Syntax highlighting of the winning kernel for the report page: a small tokenizer of C/CUDA
 * that wraps comments, strings, numbers, preprocessor lines and known words (page/tokens.txt:
 * "CLASS word word ...") in <span class="tok-CLASS">. Every byte of the source goes through
 * ch_html_escape, so a kernel cannot inject markup. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ch/embed.h"
#include "ch/report.h"

extern const struct ch_embedded_file ch_report_page_files[];

/* The class of the word w (len n) in tokens.txt, or NULL; *cls_len its length. */
static const char *word_class(const char *w, size_t n, size_t *cls_len)
{
    const char *line = ch_embedded_text(ch_report_page_files, "tokens.txt");
    while (line && *line) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        const char *sp = memchr(line, ' ', (size_t)(end - line));
        for (const char *p = sp; p && p < end;) {
            p++;
            const char *q = p;
            while (q < end && *q != ' ')
                q++;
            if ((size_t)(q - p) == n && memcmp(p, w, n) == 0) {
                *cls_len = (size_t)(sp - line);
                return line;
            }
            p = q;
        }
        line = *end ? end + 1 : end;
    }
    return NULL;
}

static void span(ch_strbuf *out, const char *cls, size_t cls_len, const char *s, size_t n)
{
    ch_strbuf_addf(out, "<span class=\"tok-%.*s\">", (int)cls_len, cls);
    char *piece = ch_xstrndup(s, n);
    ch_html_escape(out, piece);
    free(piece);
    ch_strbuf_adds(out, "</span>");
}

/* Length of the token at p that is a comment, string, char or preprocessor line; 0 if none. */
static size_t literal_len(const char *p, int line_start, const char **cls)
{
    const char *q = p;
    if (p[0] == '/' && p[1] == '/') {
        *cls = "com";
        q = strchr(p, '\n');
    } else if (p[0] == '/' && p[1] == '*') {
        *cls = "com";
        q = strstr(p + 2, "*/");
        q = q ? q + 2 : NULL;
    } else if (*p == '"' || *p == '\'') {
        *cls = "str";
        for (q = p + 1; *q && *q != *p && *q != '\n'; q++)
            if (*q == '\\' && q[1])
                q++;
        if (*q == *p)
            q++;
    } else if (*p == '#' && line_start) {
        *cls = "pp";
        q = strchr(p, '\n');
    } else {
        return 0;
    }
    return q ? (size_t)(q - p) : strlen(p);
}

void ch_html_highlight(ch_strbuf *out, const char *source)
{
    const char *p = source;
    int line_start = 1;
    while (*p) {
        const char *cls = NULL;
        size_t n = literal_len(p, line_start, &cls);
        if (n > 0) {
            span(out, cls, strlen(cls), p, n);
            p += n;
            continue;
        }
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *q = p;
            while (isalnum((unsigned char)*q) || *q == '_')
                q++;
            size_t cls_len = 0;
            const char *wc = word_class(p, (size_t)(q - p), &cls_len);
            if (wc)
                span(out, wc, cls_len, p, (size_t)(q - p));
            else
                ch_strbuf_add(out, p, (size_t)(q - p)); /* [A-Za-z0-9_]: nothing to escape */
            p = q;
            line_start = 0;
            continue;
        }
        if (isdigit((unsigned char)*p)) {
            const char *q = p;
            while (isalnum((unsigned char)*q) || *q == '.')
                q++;
            span(out, "num", 3, p, (size_t)(q - p));
            p = q;
            line_start = 0;
            continue;
        }
        char one[2] = {*p, 0};
        ch_html_escape(out, one);
        if (*p == '\n')
            line_start = 1;
        else if (!isspace((unsigned char)*p))
            line_start = 0;
        p++;
    }
}
