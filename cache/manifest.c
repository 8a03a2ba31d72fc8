/* Direct mode's manifests: see include/ch/manifest.h for the format and what a key covers.
 * This file only reads, checks and writes manifests; which files and options go in is direct
 * mode's business (src/pipeline/direct_mode.c, from the driver's description of the command). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "ch/fsutil.h"
#include "ch/manifest.h"
#include "ch/types.h"
#include "hex.h"

#define MAGIC "ch-cc-direct 3\n"

/* A manifest lists a command's inputs and their hashes: KiB. One far larger is damage, refused
 * before it is read. */
#define MANIFEST_MAX_BYTES ((size_t)16 << 20)

void ch_manifest_key(char *const *parts, size_t n, char out_hex[33])
{
    XXH3_state_t *st = XXH3_createState();
    assert(st);
    XXH3_128bits_reset(st);
    for (size_t i = 0; i < n; i++) {
        /* length-prefixed: ("a b", "c") and ("a", "b c") never collide */
        size_t len = strlen(parts[i]);
        XXH3_128bits_update(st, &len, sizeof len);
        XXH3_128bits_update(st, parts[i], len);
    }
    ch_xxh128_hex(XXH3_128bits_digest(st), out_hex);
    XXH3_freeState(st);
}

static void hash_bytes(const void *data, size_t len, char out_hex[33])
{
    ch_xxh128_hex(XXH3_128bits(data, len), out_hex);
}

int ch_manifest_hash_file(const char *path, char out_hex[33], ch_error *err)
{
    char *data;
    size_t len;
    if (ch_read_file(path, &data, &len, err) != 0)
        return -1;
    hash_bytes(data, len, out_hex);
    free(data);
    return 0;
}

static char *manifest_path(const char *cache_dir, const char *key)
{
    return ch_xasprintf("%s/direct/%.2s/%s", cache_dir, key, key + 2);
}

void ch_manifest_hit_free(ch_manifest_hit *h)
{
    free(h->data);
    free(h->page_name);
    memset(h, 0, sizeof *h);
}

/* Parses "NAME <decimal>\n" at *p; advances *p. */
static int take_size(const char **p, const char *end, const char *name, size_t *out)
{
    size_t n = strlen(name);
    if ((size_t)(end - *p) < n + 2 || strncmp(*p, name, n) != 0 || (*p)[n] != ' ')
        return -1;
    char *stop;
    unsigned long long v = strtoull(*p + n + 1, &stop, 10);
    if (stop >= end || *stop != '\n')
        return -1;
    *out = (size_t)v;
    *p = stop + 1;
    return 0;
}

/* Parses "page <decimal>[ <name>]\n" at *p; advances *p. *name: the name (malloc'd), NULL for
 * none. A name that could leave the report directory is damage. */
static int take_page(const char **p, const char *end, size_t *len, char **name)
{
    *name = NULL;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    if (!nl || (size_t)(nl - *p) < 6 || strncmp(*p, "page ", 5) != 0)
        return -1;
    char *stop;
    unsigned long long v = strtoull(*p + 5, &stop, 10);
    if (stop == *p + 5 || (stop != nl && *stop != ' '))
        return -1;
    if (stop != nl) {
        size_t n = (size_t)(nl - stop - 1);
        if (n == 0 || memchr(stop + 1, '/', n) || (n <= 2 && strncmp(stop + 1, "..", n) == 0))
            return -1;
        *name = ch_xstrndup(stop + 1, n);
    }
    if ((v > 0) != (*name != NULL)) {
        free(*name);
        *name = NULL;
        return -1;
    }
    *len = (size_t)v;
    *p = nl + 1;
    return 0;
}

/* Checks the "file" lines at *p against the files now; 1 all unchanged, 0 changed, -1 damaged. */
static int files_unchanged(const char **p, const char *end)
{
    while ((size_t)(end - *p) > 5 && strncmp(*p, "file ", 5) == 0) {
        const char *line = *p + 5;
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        if (!nl || nl - line < 34 || line[32] != ' ')
            return -1;
        char *path = ch_xasprintf("%.*s", (int)(nl - line - 33), line + 33);
        char now[33];
        ch_error err;
        int same = ch_manifest_hash_file(path, now, &err) == 0 && memcmp(now, line, 32) == 0;
        free(path);
        if (!same)
            return 0;
        *p = nl + 1;
    }
    return 1;
}

/* Nonzero when path is a regular file (what an include search takes). */
static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Checks the "probe" lines at *p: 1 each path is still a file or still not one, 0 one changed
 * (an include would now find another file), -1 damaged. */
static int probes_unchanged(const char **p, const char *end)
{
    while ((size_t)(end - *p) > 8 && strncmp(*p, "probe ", 6) == 0) {
        const char *line = *p + 6;
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        if (!nl || nl - line < 3 || (line[0] != '0' && line[0] != '1') || line[1] != ' ')
            return -1;
        char *path = ch_xasprintf("%.*s", (int)(nl - line - 2), line + 2);
        int same = is_file(path) == (line[0] == '1');
        free(path);
        if (!same)
            return 0;
        *p = nl + 1;
    }
    return 1;
}

int ch_manifest_lookup(const char *cache_dir, const char *key, ch_manifest_hit *hit,
                       const char **why)
{
    memset(hit, 0, sizeof *hit);
    char *path = manifest_path(cache_dir, key);
    char *data;
    size_t len;
    ch_error err;
    int rc = ch_file_exists(path)
                 ? ch_read_regular_file_max(path, MANIFEST_MAX_BYTES, &data, &len, &err)
                 : -1;
    free(path);
    if (rc == 1) {
        *why = "a damaged manifest";
        return 0;
    }
    if (rc != 0) {
        *why = "no manifest for this command";
        return 0;
    }
    const char *p = data, *end = data + len;
    size_t magic = strlen(MAGIC);
    int ok = len > magic && memcmp(data, MAGIC, magic) == 0;
    if (ok)
        p += magic;
    int unchanged = ok ? files_unchanged(&p, end) : -1;
    const char *changed = "a file it read changed";
    if (unchanged == 1) {
        unchanged = probes_unchanged(&p, end);
        changed = "an include would now find another file";
    }
    size_t dep_len = 0, obj_len = 0, page_len = 0;
    char *page_name = NULL;
    if (unchanged == 1 &&
        (take_size(&p, end, "dep", &dep_len) != 0 || take_size(&p, end, "obj", &obj_len) != 0 ||
         take_page(&p, end, &page_len, &page_name) != 0 ||
         (size_t)(end - p) != dep_len + obj_len + page_len || obj_len == 0)) {
        free(page_name);
        unchanged = -1;
    }
    if (unchanged != 1) {
        *why = unchanged == 0 ? changed : "a damaged manifest";
        free(data);
        return 0;
    }
    hit->data = data;
    hit->dep = p;
    hit->dep_len = dep_len;
    hit->obj = p + dep_len;
    hit->obj_len = obj_len;
    hit->page = page_len ? p + dep_len + obj_len : NULL;
    hit->page_len = page_len;
    hit->page_name = page_name;
    return 1;
}

/* Nonzero when the file's contents would make the object depend on the time of the compile. */
static int uses_time_macros(const char *data, size_t len)
{
    static const char *const macros[] = {"__DATE__", "__TIME__", "__TIMESTAMP__", NULL};
    for (size_t i = 0; macros[i]; i++)
        if (memmem(data, len, macros[i], strlen(macros[i])))
            return 1;
    return 0;
}

/* Appends "file HASH PATH" for path; 0 done, 1 refused (*why set), -1 error. */
static int add_file(ch_strbuf *sb, const char *path, long long started, const char **why,
                    ch_error *err)
{
    struct stat st;
    if (strchr(path, '\n')) {
        *why = "a file name holds a newline";
        return 1;
    }
    if (stat(path, &st) != 0)
        return ch_error_set(err, "cannot stat '%s'", path);
    /* ccache's "file too new": modified since the command began, it may have changed while
     * the compiler read it, so its hash now need not be what the object was made from */
    if ((long long)st.st_mtime >= started || (long long)st.st_ctime >= started) {
        *why = "a file it read was modified during the compile";
        return 1;
    }
    char *data;
    size_t len;
    if (ch_read_file(path, &data, &len, err) != 0)
        return -1;
    int timed = uses_time_macros(data, len);
    char hex[33];
    hash_bytes(data, len, hex);
    free(data);
    if (timed) {
        *why = "it uses __DATE__, __TIME__ or __TIMESTAMP__";
        return 1;
    }
    ch_strbuf_addf(sb, "file %s %s\n", hex, path);
    return 0;
}

/* Appends "probe <1|0> PATH" for path: whether it is a file now; 0 done, 1 refused (*why). */
static int add_probe(ch_strbuf *sb, const char *path, long long started, const char **why)
{
    struct stat st;
    if (strchr(path, '\n')) {
        *why = "a file name holds a newline";
        return 1;
    }
    int file = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    /* one that appeared since the command began may be what the compile found, not the file
     * the listing says it read */
    if (file && ((long long)st.st_mtime >= started || (long long)st.st_ctime >= started)) {
        *why = "a header in the include path appeared during the compile";
        return 1;
    }
    ch_strbuf_addf(sb, "probe %d %s\n", file, path);
    return 0;
}

int ch_manifest_write(const char *cache_dir, const char *key, const ch_manifest_record *r,
                      const char **why, ch_error *err)
{
    assert(r->obj && r->obj_len > 0 && r->n_files > 0);
    /* a page's name is a file name in the report directory, on the page line */
    assert(!r->page ||
           (r->page_len > 0 && r->page_name && *r->page_name && !strpbrk(r->page_name, "/\n") &&
            strcmp(r->page_name, "..") != 0 && strcmp(r->page_name, ".") != 0));
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_adds(&sb, MAGIC);
    int rc = 0;
    for (size_t i = 0; i < r->n_files && rc == 0; i++)
        rc = add_file(&sb, r->files[i], r->started, why, err);
    for (size_t i = 0; i < r->n_probes && rc == 0; i++)
        rc = add_probe(&sb, r->probes[i], r->started, why);
    if (rc == 0) {
        size_t dep_len = r->dep ? r->dep_len : 0;
        ch_strbuf_addf(&sb, "dep %zu\nobj %zu\n", dep_len, r->obj_len);
        if (r->page)
            ch_strbuf_addf(&sb, "page %zu %s\n", r->page_len, r->page_name);
        else
            ch_strbuf_adds(&sb, "page 0\n");
        ch_strbuf_add(&sb, r->dep ? r->dep : "", dep_len);
        ch_strbuf_add(&sb, r->obj, r->obj_len);
        if (r->page)
            ch_strbuf_add(&sb, r->page, r->page_len);
        char *path = manifest_path(cache_dir, key);
        char *dir = ch_path_dir(path);
        rc = ch_mkdir_p(dir, err) == 0 && ch_write_file_atomic(path, sb.data, sb.len, 0, err) == 0
                 ? 0
                 : -1;
        free(dir);
        free(path);
    }
    ch_strbuf_free(&sb);
    return rc < 0 ? -1 : rc == 1 ? 0 : 1;
}
