/* The signed object record of an entry on a remote (format in objects.h). Every line is checked
 * strictly: a record is written by ch-cc only, so anything unexpected is a refusal, never a
 * guess. */
#include <stdlib.h>
#include <string.h>

#include "objects.h"

#define RECORD_HEAD "ch-cc-objects 1\n"
#define SIG_PREFIX  "sig "

void ch_object_record_free(ch_object_record *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->objects[i].name);
    free(r->objects);
    memset(r, 0, sizeof *r);
}

void ch_objects_entry_hash(const char *key, const ch_cache_file *files, size_t n,
                           const ch_strvec *meta, char out[CH_SIGN_HASH_HEX + 1])
{
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    ch_sign_message(key, files, n, meta, 0, &msg);
    ch_sign_hash_hex(msg.data, msg.len, out);
    ch_strbuf_free(&msg);
}

char *ch_objects_record_item(const char *key, const char *entry_hash)
{
    return ch_xasprintf("%s.objects.%.32s", key, entry_hash);
}

char *ch_objects_object_item(const char *key, const char *object_hash)
{
    return ch_xasprintf("%s.o.%.32s", key, object_hash);
}

void ch_objects_record_format(const ch_signer *s, const char *key, const char *entry_hash,
                              const ch_cache_file *files, size_t n, ch_strbuf *out)
{
    size_t start = out->len;
    ch_strbuf_addf(out, RECORD_HEAD "key %s\nentry %s\n", key, entry_hash);
    for (size_t i = 0; i < n; i++) {
        if (!ch_sign_is_object(files[i].name))
            continue;
        char h[CH_SIGN_HASH_HEX + 1];
        ch_sign_hash_hex(files[i].data, files[i].len, h);
        ch_strbuf_addf(out, "object %zu %s %s\n", files[i].len, h, files[i].name);
    }
    char *sig = ch_sign_blob(s, out->data + start, out->len - start);
    ch_strbuf_addf(out, SIG_PREFIX "%s\n", sig);
    free(sig);
}

static int is_hex64(const char *s)
{
    return strlen(s) == CH_SIGN_HASH_HEX && strspn(s, "0123456789abcdef") == CH_SIGN_HASH_HEX;
}

/* A name a reader may store: an object, relative, no "..", not a directory. */
static int object_name_ok(const char *name)
{
    size_t n = strlen(name);
    return ch_sign_is_object(name) && n > 8 && n < 256 && !strstr(name, "..") &&
           name[n - 1] != '/' && !strchr(name, '\\');
}

/* "object <size> <hash> <name>" into r (a new entry); -1 when malformed or a repeated name. */
static int add_object(ch_object_record *r, const char *line)
{
    char *end;
    if (line[0] < '0' || line[0] > '9')
        return -1;
    unsigned long long size = strtoull(line, &end, 10);
    if (*end != ' ' || strlen(end + 1) < CH_SIGN_HASH_HEX + 2 || end[1 + CH_SIGN_HASH_HEX] != ' ')
        return -1;
    char hash[CH_SIGN_HASH_HEX + 1];
    memcpy(hash, end + 1, CH_SIGN_HASH_HEX);
    hash[CH_SIGN_HASH_HEX] = '\0';
    const char *name = end + 2 + CH_SIGN_HASH_HEX;
    if (!is_hex64(hash) || !object_name_ok(name))
        return -1;
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->objects[i].name, name) == 0)
            return -1;
    r->objects = ch_xrealloc(r->objects, (r->n + 1) * sizeof *r->objects);
    ch_object_ref *o = &r->objects[r->n++];
    o->name = ch_xstrdup(name);
    o->size = size;
    memcpy(o->hash, hash, sizeof o->hash);
    return 0;
}

/* The lines of the signed part: head, key, entry, objects. 0 or -1 with err. */
static int parse_body(const char *key, const char *entry_hash, const char *body, size_t len,
                      ch_object_record *out, ch_error *err)
{
    if (len < strlen(RECORD_HEAD) || memcmp(body, RECORD_HEAD, strlen(RECORD_HEAD)) != 0)
        return ch_error_set(err, "object record is damaged (no ch-cc-objects 1 head)");
    size_t pos = strlen(RECORD_HEAD);
    int line_no = 1, rc = 0;
    while (pos < len && rc == 0) {
        const char *nl = memchr(body + pos, '\n', len - pos);
        if (!nl) /* cannot happen: body ends where the sig line starts */
            return ch_error_set(err, "object record is damaged (unterminated line)");
        char *l = ch_xstrndup(body + pos, (size_t)(nl - body - pos));
        line_no++;
        if (memchr(body + pos, '\0', (size_t)(nl - body - pos)))
            rc = ch_error_set(err, "object record is damaged (a NUL in line %d)", line_no);
        else if (line_no == 2)
            rc = strncmp(l, "key ", 4) == 0 && strcmp(l + 4, key) == 0
                     ? 0
                     : ch_error_set(err, "object record is for another entry key");
        else if (line_no == 3)
            rc = strncmp(l, "entry ", 6) == 0 && strcmp(l + 6, entry_hash) == 0
                     ? 0
                     : ch_error_set(err, "object record is for another version of the entry");
        else if (strncmp(l, "object ", 7) != 0 || add_object(out, l + 7) != 0)
            rc = ch_error_set(err, "object record is damaged (line %d)", line_no);
        free(l);
        pos = (size_t)(nl - body) + 1;
    }
    if (rc == 0 && line_no < 3)
        rc = ch_error_set(err, "object record is damaged (no key or entry line)");
    return rc;
}

int ch_objects_record_check(const ch_trust *t, const char *key, const char *entry_hash,
                            const char *data, size_t len, ch_object_record *out, ch_error *err)
{
    memset(out, 0, sizeof *out);
    /* the sig line is the last line; what precedes it is the signed message */
    if (len < 2 || data[len - 1] != '\n')
        return ch_error_set(err, "object record is damaged (truncated)");
    size_t sig_at = len - 1;
    while (sig_at > 0 && data[sig_at - 1] != '\n')
        sig_at--;
    if (len - sig_at < strlen(SIG_PREFIX) ||
        memcmp(data + sig_at, SIG_PREFIX, strlen(SIG_PREFIX)) != 0)
        return ch_error_set(err, "object record is not signed");
    char *sig =
        ch_xstrndup(data + sig_at + strlen(SIG_PREFIX), len - 1 - sig_at - strlen(SIG_PREFIX));
    int rc = ch_sign_blob_check(t, sig, data, sig_at, "object record", err);
    free(sig);
    /* the fields are read only from a message whose signature holds */
    if (rc == 0)
        rc = parse_body(key, entry_hash, data, sig_at, out, err);
    if (rc != 0)
        ch_object_record_free(out);
    return rc;
}
