/* Reading model replies: fenced code blocks, the CUDA / C / JSON payload of each job, the design
 * line, and the {{placeholder}} templates prompts are written in. Models put prose around code
 * and sometimes split a file into several blocks; these functions accept both and say exactly
 * what was missing when nothing usable is there (that message becomes the retry's feedback). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ch/embed.h"
#include "ch/llm.h"
#include "ch/host_subset.h"
#include "ch/source_guard.h"
#include "ch/static_child.h"

/* Embedded by tools/embed.sh (build/gen/prompts.c). */
extern const struct ch_embedded_file ch_prompt_files[];

const char *ch_prompt(const char *name)
{
    return ch_embedded_text(ch_prompt_files, name);
}

/* A fence line: up to 3 spaces, then 3+ backticks or tildes. Returns the fence length and sets
 * *ch; 0 when the line is not a fence. */
static size_t fence_at(const char *line, char *ch, const char **info)
{
    const char *p = line;
    for (int i = 0; i < 3 && *p == ' '; i++)
        p++;
    if (*p != '`' && *p != '~')
        return 0;
    char c = *p;
    size_t n = 0;
    while (p[n] == c)
        n++;
    if (n < 3)
        return 0;
    *ch = c;
    *info = p + n;
    return n;
}

size_t ch_code_blocks(const char *text, ch_code_block **out)
{
    size_t n = 0, cap = 0;
    ch_code_block *v = NULL;
    const char *line = text;
    ch_strbuf body;
    ch_strbuf_init(&body);
    int inside = 0;
    char fch = 0;
    size_t flen = 0;
    while (*line) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        char c = 0;
        const char *info = NULL;
        size_t f = fence_at(line, &c, &info);
        if (!inside && f) {
            inside = 1;
            fch = c;
            flen = f;
            ch_strbuf_reset(&body);
            if (n == cap) {
                cap = cap ? 2 * cap : 4;
                v = ch_xrealloc(v, cap * sizeof *v);
            }
            const char *end = line + len;
            while (info < end && isspace((unsigned char)*info))
                info++;
            size_t ilen = 0;
            while (info + ilen < end && !isspace((unsigned char)info[ilen]) && info[ilen] != '{')
                ilen++;
            v[n].lang = ch_xstrndup(info, ilen);
            for (char *q = v[n].lang; *q; q++)
                *q = (char)tolower((unsigned char)*q);
            v[n].text = NULL;
            v[n].closed = 0;
        } else if (inside && f >= flen && c == fch) {
            /* A closing fence has nothing but spaces after it. */
            const char *q = info, *end = line + len;
            while (q < end && isspace((unsigned char)*q))
                q++;
            if (q == end) {
                v[n].text = ch_strbuf_detach(&body);
                v[n].closed = 1;
                n++;
                inside = 0;
            } else {
                ch_strbuf_add(&body, line, len);
                ch_strbuf_addc(&body, '\n');
            }
        } else if (inside) {
            ch_strbuf_add(&body, line, len);
            ch_strbuf_addc(&body, '\n');
        }
        line = eol ? eol + 1 : line + len;
    }
    if (inside) {
        v[n].text = ch_strbuf_detach(&body);
        n++;
    }
    ch_strbuf_free(&body);
    *out = v;
    return n;
}

void ch_code_blocks_free(ch_code_block *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(b[i].lang);
        free(b[i].text);
    }
    free(b);
}

/* `name` followed (after spaces) by '(' somewhere in text: a definition or call of it. */
static int mentions_call(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        const char *q = p + n;
        while (isspace((unsigned char)*q))
            q++;
        if (*q == '(')
            return 1;
    }
    return 0;
}

/* `name(...) {` somewhere in text: a definition of it (a usage example only calls it). */
static int defines(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        if ((p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) ||
            isalnum((unsigned char)p[n]) || p[n] == '_')
            continue;
        const char *q = p + n;
        while (isspace((unsigned char)*q))
            q++;
        if (*q != '(')
            continue;
        int depth = 0;
        for (; *q; q++) {
            depth += *q == '(';
            depth -= *q == ')';
            if (depth == 0)
                break;
        }
        if (!*q)
            return 0;
        q++;
        while (isspace((unsigned char)*q))
            q++;
        if (*q == '{')
            return 1;
    }
    return 0;
}

static int is_lang(const char *lang, const char *const *langs)
{
    for (size_t i = 0; langs[i]; i++)
        if (strcmp(lang, langs[i]) == 0)
            return 1;
    return 0;
}

/* Common part of the CUDA and C extractors. alt (may be NULL): another name the function may
 * be defined under, taken only when no block mentions fn. */
static char *extract_code(const char *reply, const char *fn, const char *alt,
                          const char *const *langs, const char *want, int join, ch_error *err)
{
    ch_code_block *b;
    size_t n = ch_code_blocks(reply, &b);
    char *res = NULL;
    size_t defining = n, defining_alt = n, candidates = 0, open = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_lang(b[i].lang, langs))
            continue;
        candidates++;
        if (!b[i].closed)
            open++;
        if (mentions_call(b[i].text, fn))
            defining = i; /* the last one: models put the final version last */
        else if (alt && defines(b[i].text, alt))
            defining_alt = i;
    }
    if (defining == n)
        defining = defining_alt;
    if (open) {
        ch_error_set(err,
                     "the reply ends inside a code block (cut off?); send the complete %s "
                     "in one closed ```%s block",
                     want, langs[0]);
    } else if (defining < n) {
        if (!join || strstr(b[defining].text, "__global__")) {
            res = ch_xstrdup(b[defining].text);
        } else {
            /* A file split over several blocks: keep their order. */
            ch_strbuf sb;
            ch_strbuf_init(&sb);
            for (size_t i = 0; i < n; i++)
                if (is_lang(b[i].lang, langs) && b[i].lang[0] != '\0' && i != defining &&
                    strstr(b[i].text, "__global__"))
                    ch_strbuf_adds(&sb, b[i].text);
                else if (i == defining)
                    ch_strbuf_adds(&sb, b[i].text);
            res = ch_strbuf_detach(&sb);
            ch_strbuf_free(&sb);
        }
    } else if (n == 0 && (mentions_call(reply, fn) || (alt && defines(reply, alt)))) {
        res = ch_xstrdup(reply); /* bare code without fences */
    } else if (candidates) {
        ch_error_set(err, "no code block of the reply defines %s(); the %s must define it", fn,
                     want);
    } else {
        ch_error_set(err, "the reply has no ```%s code block; send the whole %s in one", langs[0],
                     want);
    }
    ch_code_blocks_free(b, n);
    return res;
}

char *ch_extract_cuda(const char *reply, const char *launcher, ch_error *err)
{
    static const char *const langs[] = {"cuda", "cu", "cpp", "c++", "cxx", "c", "", NULL};
    /* models, like users, also define the launcher under the entry's own name (NAME for
     * NAME_launcher); the verifier compiles that form renamed (ch_candidate_launcher_form) */
    size_t ll = strlen(launcher), sl = strlen("_launcher");
    char *name = ll > sl && strcmp(launcher + ll - sl, "_launcher") == 0
                     ? ch_xstrndup(launcher, ll - sl)
                     : NULL;
    char *src = extract_code(reply, launcher, name, langs, "CUDA source file", 1, err);
    free(name);
    if (src && strstr(src, "extern \"C\"") == NULL) {
        free(src);
        ch_error_set(err, "%s must be declared extern \"C\"", launcher);
        return NULL;
    }
    if (src && mentions_call(src, "main")) {
        free(src);
        ch_error_set(err, "the source defines main(); the scaffold provides main, send only the "
                          "kernels and the launcher");
        return NULL;
    }
    return src;
}

char *ch_extract_c(const char *reply, const char *function, ch_error *err)
{
    static const char *const langs[] = {"c", "", "cpp", NULL};
    char *src = extract_code(reply, function, NULL, langs, "C reference file", 0, err);
    if (src && mentions_call(src, "main")) {
        free(src);
        ch_error_set(err, "the reference defines main(); send only the includes and %s()",
                     function);
        return NULL;
    }
    /* compiled here and linked as the user's host path: nothing that reads other files, and
     * only code in the host subset (no callbacks, no forged pointers) */
    ch_strbuf why;
    ch_strbuf_init(&why);
    ch_guard_finding found;
    ch_subset_finding subset;
    if (src &&
        (ch_source_guard(src, CH_GUARD_REFERENCE, &why, &found) ||
         ch_host_subset_check_bounded(src, CH_SUBSET_REFERENCE, NULL, 0, NULL, &why, &subset))) {
        free(src);
        ch_error_set(err, CH_AGENT_REFERENCE_REFUSED ": %s", why.data);
        src = NULL;
    }
    ch_strbuf_free(&why);
    return src;
}

cJSON *ch_extract_json(const char *reply, ch_error *err)
{
    ch_code_block *b;
    size_t n = ch_code_blocks(reply, &b);
    cJSON *j = NULL;
    char near[40] = "";
    int bad_block = 0;
    for (size_t i = 0; i < n && !j; i++)
        if (strcmp(b[i].lang, "json") == 0) {
            j = cJSON_Parse(b[i].text);
            if (!j && !bad_block) {
                const char *why = cJSON_GetErrorPtr();
                snprintf(near, sizeof near, "%s", why ? why : "");
                bad_block = 1;
            }
        }
    if (!j) {
        const char *open = strchr(reply, '{');
        const char *close = strrchr(reply, '}');
        if (open && close && close > open) {
            char *s = ch_xstrndup(open, (size_t)(close - open + 1));
            j = cJSON_Parse(s);
            free(s);
        }
    }
    ch_code_blocks_free(b, n);
    if (j && !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        j = NULL;
    }
    if (!j) {
        if (bad_block) {
            for (char *p = near; *p; p++)
                if (*p == '\n')
                    *p = ' ';
            ch_error_set(err, "the ```json block is not valid JSON (near \"%s\")", near);
        } else {
            ch_error_set(err, "the reply has no JSON object; send it in one ```json block");
        }
    }
    return j;
}

char *ch_extract_design(const char *reply)
{
    for (const char *line = reply; line && *line;) {
        const char *p = line;
        while (*p == ' ' || *p == '*' || *p == '#' || *p == '-' || *p == '/')
            p++;
        if (strncasecmp(p, "design:", 7) == 0) {
            p += 7;
            while (*p == ' ' || *p == '*')
                p++;
            size_t len = strcspn(p, "\r\n");
            while (len && (p[len - 1] == ' ' || p[len - 1] == '*'))
                len--;
            if (len > 80)
                len = 80;
            return len ? ch_xstrndup(p, len) : NULL;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return NULL;
}
