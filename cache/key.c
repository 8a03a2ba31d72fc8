/* Cache keys: XXH3-128 over a canonical, length-prefixed serialization of what determines a
 * kernel's meaning (entry key) or an object's bytes (object key). Invariant: two inputs that
 * differ in any serialized field give different streams (every field is tagged and sized), and
 * spelling differences that do not change meaning (spec whitespace, arch order) are normalized
 * away before hashing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "ch/cache.h"
#include "ch/proc.h"
#include "ch/types.h"
#include "hex.h"

/* The hash state and, for reports, a copy of the stream hashed (ccache's hash debug). */
typedef struct key_stream {
    XXH3_state_t *st;
    ch_strbuf *text; /* NULL: not recorded */
} key_stream;

static void update(key_stream *ks, const void *bytes, size_t len)
{
    XXH3_128bits_update(ks->st, bytes, len);
    if (ks->text)
        ch_strbuf_add(ks->text, bytes, len);
}

/* One field: "TAG LEN:" bytes "\n". NULL values get LEN "-" so absent and empty differ. */
static void add_field(key_stream *st, const char *tag, const char *val, size_t len)
{
    char head[64];
    int n = val ? snprintf(head, sizeof head, "%s %zu:", tag, len)
                : snprintf(head, sizeof head, "%s -:", tag);
    update(st, head, (size_t)n);
    if (val)
        update(st, val, len);
    update(st, "\n", 1);
}

static void add_str(key_stream *st, const char *tag, const char *val)
{
    add_field(st, tag, val, val ? strlen(val) : 0);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Whitespace runs collapsed to one space, leading and trailing whitespace dropped. */
static char *normalize_ws(const char *s)
{
    char *out = ch_xmalloc(strlen(s) + 1), *o = out;
    int pending = 0;
    for (; *s; s++) {
        if (is_space(*s)) {
            pending = o != out;
            continue;
        }
        if (pending)
            *o++ = ' ';
        pending = 0;
        *o++ = *s;
    }
    *o = '\0';
    return out;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int ch_cache_key(const ch_entry *e, char *const *archs, char out_hex[33])
{
    return ch_cache_key_text(e, archs, out_hex, NULL);
}

int ch_cache_key_text(const ch_entry *e, char *const *archs, char out_hex[33], ch_strbuf *text)
{
    XXH3_state_t *state = XXH3_createState();
    if (!state)
        abort();
    XXH3_128bits_reset(state);
    key_stream stream = {state, text}, *st = &stream;
    char fmt[32];
    snprintf(fmt, sizeof fmt, "ch-cc-entry-key %d", CH_CACHE_KEY_FORMAT);
    add_str(st, "format", fmt);
    add_str(st, "kind", ch_kind_name(e->kind));
    char *spec = e->spec ? normalize_ws(e->spec) : NULL;
    add_str(st, "spec", spec);
    free(spec);
    add_str(st, "clauses", e->clauses_text ? e->clauses_text : "");
    add_str(st, "signature", e->signature);
    add_str(st, "body", e->body_tokens);
    /* the functions the body calls are part of what it means (absent when there are none, so
     * the keys of entries without helpers stay what they were) */
    for (size_t i = 0; i < e->n_helpers; i++)
        add_str(st, "helper", e->helpers[i].source);
    /* a sample(fn) function makes the test data: changing it retries a recorded refusal */
    if (e->sample_source)
        add_str(st, "sample", e->sample_source);

    size_t n = 0;
    while (archs && archs[n])
        n++;
    char **sorted = ch_xcalloc(n + 1, sizeof *sorted);
    for (size_t i = 0; i < n; i++)
        sorted[i] = archs[i];
    qsort(sorted, n, sizeof *sorted, cmp_str);
    size_t uniq = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(sorted[i], sorted[i - 1]) != 0)
            uniq++;
    char count[32];
    snprintf(count, sizeof count, "%zu", uniq);
    add_str(st, "archs", count);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(sorted[i], sorted[i - 1]) != 0)
            add_str(st, "arch", sorted[i]);
    free(sorted);

    ch_xxh128_hex(XXH3_128bits_digest(state), out_hex);
    XXH3_freeState(state);
    return 0;
}

int ch_cache_object_key(const char *entry_key, const ch_object_ident *id, char out_hex[33])
{
    XXH3_state_t *state = XXH3_createState();
    if (!state)
        abort();
    XXH3_128bits_reset(state);
    key_stream stream = {state, NULL}, *st = &stream;
    char fmt[32];
    snprintf(fmt, sizeof fmt, "ch-cc-object-key %d", CH_CACHE_KEY_FORMAT);
    add_str(st, "format", fmt);
    add_str(st, "entry", entry_key);
    add_str(st, "nvcc", id->nvcc_ident);
    add_str(st, "host_cc", id->host_cc_ident);
    size_t nflags = 0;
    while (id->flags && id->flags[nflags])
        nflags++;
    char count[32];
    snprintf(count, sizeof count, "%zu", nflags);
    add_str(st, "flags", count);
    for (size_t i = 0; i < nflags; i++)
        add_str(st, "flag", id->flags[i]);
    add_str(st, "NVCC_PREPEND_FLAGS",
            id->env_given ? id->nvcc_prepend_flags : getenv("NVCC_PREPEND_FLAGS"));
    add_str(st, "NVCC_APPEND_FLAGS",
            id->env_given ? id->nvcc_append_flags : getenv("NVCC_APPEND_FLAGS"));
    add_str(st, "NVCC_CCBIN", id->env_given ? id->nvcc_ccbin : getenv("NVCC_CCBIN"));
    ch_xxh128_hex(XXH3_128bits_digest(state), out_hex);
    XXH3_freeState(state);
    return 0;
}

int ch_cache_tool_ident(const char *path, ch_strbuf *out, ch_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return ch_error_set(err, "cannot identify '%s': %s", path, strerror(errno));
    char *const argv[] = {(char *)path, "--version", NULL};
    ch_proc_opts opts = {0};
    opts.capture_stdout = 1;
    opts.merge_stderr = 1;
    opts.stdin_path = "/dev/null";
    opts.wall_seconds = 60;
    ch_proc_result res;
    ch_proc_result_init(&res);
    if (ch_proc_run(argv, &opts, &res, err) != 0) {
        ch_proc_result_free(&res);
        return ch_error_prefix(err, "cannot identify '%s'", path);
    }
    ch_strbuf_addf(out, "%s\n%lld\n%lld.%09ld\n", path, (long long)sb.st_size,
                   (long long)sb.st_mtim.tv_sec, (long)sb.st_mtim.tv_nsec);
    ch_strbuf_add(out, res.out.data, res.out.len);
    ch_proc_result_free(&res);
    return 0;
}

int ch_cache_key_valid(const char *s)
{
    if (!s)
        return 0;
    size_t i = 0;
    for (; s[i]; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return i == 32;
}
