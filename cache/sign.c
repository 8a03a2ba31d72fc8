/* Ed25519 signatures of remote cache entries; the message format is in sign.h. Keys are kept as
 * hex text so that a user can paste a public key into a config line. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch/fsutil.h"
#include "sign.h"

#define SIG_HEX (2 * crypto_sign_BYTES)
#define PUB_HEX (2 * CH_SIGN_PUBLIC_BYTES)

int ch_sign_is_object(const char *name)
{
    return strncmp(name, "objects/", 8) == 0;
}

static int sodium_ready(ch_error *err)
{
    if (sodium_init() < 0)
        return ch_error_set(err, "cannot initialise libsodium");
    return 0;
}

/* Exactly len bytes from the hex digits at text[0..2*len); -1 on anything else. */
static int from_hex(const char *text, size_t text_len, unsigned char *out, size_t len)
{
    size_t got = 0;
    if (text_len != 2 * len || sodium_hex2bin(out, len, text, text_len, NULL, &got, NULL) != 0 ||
        got != len)
        return -1;
    return 0;
}

static void add_hex(ch_strbuf *out, const unsigned char *bin, size_t len)
{
    char *hex = ch_xmalloc(2 * len + 1);
    sodium_bin2hex(hex, 2 * len + 1, bin, len);
    ch_strbuf_adds(out, hex);
    free(hex);
}

int ch_sign_load_secret(const char *path, ch_signer *out, ch_error *err)
{
    memset(out, 0, sizeof *out);
    if (sodium_ready(err) != 0)
        return -1;
    char *text = NULL;
    size_t len = 0;
    if (ch_read_file(path, &text, &len, err) != 0)
        return ch_error_prefix(err, "sign_key");
    while (len && isspace((unsigned char)text[len - 1]))
        len--;
    int bad = from_hex(text, len, out->secret, sizeof out->secret) != 0;
    sodium_memzero(text, len);
    free(text);
    if (bad)
        return ch_error_set(err,
                            "sign_key %s: not a ch-cc secret key (make one with "
                            "ch-cc --harness-keygen=DIR)",
                            path);
    crypto_sign_ed25519_sk_to_pk(out->public, out->secret);
    return 0;
}

static void trust_add(ch_trust *t, const unsigned char *key)
{
    t->keys = ch_xrealloc(t->keys, (t->n + 1) * sizeof *t->keys);
    memcpy(t->keys[t->n++], key, CH_SIGN_PUBLIC_BYTES);
}

/* Adds every key in text (separated by commas/white space; '#' starts a comment to the end of
 * its line). */
static int trust_add_text(ch_trust *t, const char *text, const char *where, ch_error *err)
{
    const char *p = text;
    while (*p) {
        if (*p == '#') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        if (isspace((unsigned char)*p) || *p == ',') {
            p++;
            continue;
        }
        size_t n = strcspn(p, ", \t\r\n#");
        unsigned char key[CH_SIGN_PUBLIC_BYTES];
        if (from_hex(p, n, key, sizeof key) != 0)
            return ch_error_set(err, "trusted_keys%s%s: '%.*s' is not a public key (64 hex digits)",
                                where ? " " : "", where ? where : "", (int)(n > 70 ? 70 : n), p);
        trust_add(t, key);
        p += n;
    }
    return 0;
}

int ch_trust_parse(const char *spec, ch_trust *out, ch_error *err)
{
    memset(out, 0, sizeof *out);
    if (sodium_ready(err) != 0)
        return -1;
    if (!spec || !*spec)
        return 0;
    int rc;
    if (strchr(spec, '/')) {
        char *text = NULL;
        if (ch_read_file(spec, &text, NULL, err) != 0)
            return ch_error_prefix(err, "trusted_keys");
        rc = trust_add_text(out, text, spec, err);
        free(text);
    } else {
        rc = trust_add_text(out, spec, NULL, err);
    }
    if (rc != 0)
        ch_trust_free(out);
    return rc;
}

void ch_trust_free(ch_trust *t)
{
    free(t->keys);
    memset(t, 0, sizeof *t);
}

void ch_sign_hash_hex(const void *data, size_t len, char out[CH_SIGN_HASH_HEX + 1])
{
    unsigned char h[crypto_generichash_BYTES];
    crypto_generichash(h, sizeof h, data, len, NULL, 0);
    sodium_bin2hex(out, CH_SIGN_HASH_HEX + 1, h, sizeof h);
}

void ch_sign_message(const char *key, const ch_cache_file *files, size_t n, const ch_strvec *meta,
                     int with_objects, ch_strbuf *out)
{
    ch_strbuf_addf(out, "ch-cc-signed-entry 1\nkey %s\nobjects %d\n", key, with_objects ? 1 : 0);
    for (size_t i = 0; meta && i < meta->len; i++)
        if (strncmp(meta->items[i], CH_SIGN_META, strlen(CH_SIGN_META)) != 0)
            ch_strbuf_addf(out, "meta %s\n", meta->items[i]);
    for (size_t i = 0; i < n; i++) {
        if (!with_objects && ch_sign_is_object(files[i].name))
            continue;
        char h[CH_SIGN_HASH_HEX + 1];
        ch_sign_hash_hex(files[i].data, files[i].len, h);
        ch_strbuf_addf(out, "file %s %s\n", files[i].name, h);
    }
}

char *ch_sign_entry(const ch_signer *s, const char *key, const ch_cache_file *files, size_t n,
                    const ch_strvec *meta, int with_objects)
{
    ch_strbuf msg, value;
    ch_strbuf_init(&msg);
    ch_strbuf_init(&value);
    ch_sign_message(key, files, n, meta, with_objects, &msg);
    unsigned char sig[crypto_sign_BYTES];
    crypto_sign_detached(sig, NULL, (const unsigned char *)msg.data, msg.len, s->secret);
    ch_strbuf_adds(&value, CH_SIGN_META);
    add_hex(&value, s->public, sizeof s->public);
    ch_strbuf_addf(&value, " %d ", with_objects ? 1 : 0);
    add_hex(&value, sig, sizeof sig);
    ch_strbuf_free(&msg);
    return ch_strbuf_detach(&value);
}

/* The sig= line of meta, or NULL; two of them make the entry ambiguous (error). */
static const char *find_sig(const ch_strvec *meta, int *count)
{
    const char *found = NULL;
    *count = 0;
    for (size_t i = 0; meta && i < meta->len; i++)
        if (strncmp(meta->items[i], CH_SIGN_META, strlen(CH_SIGN_META)) == 0) {
            found = meta->items[i] + strlen(CH_SIGN_META);
            ++*count;
        }
    return found;
}

static int trusted(const ch_trust *t, const unsigned char *pub)
{
    for (size_t i = 0; i < t->n; i++)
        if (sodium_memcmp(t->keys[i], pub, CH_SIGN_PUBLIC_BYTES) == 0)
            return 1;
    return 0;
}

int ch_sign_signer_trusted(const ch_trust *t, const ch_strvec *meta, ch_error *err)
{
    int count;
    const char *sig_line = find_sig(meta, &count);
    if (!sig_line)
        return 0; /* built here: nobody else vouched for it, nothing to take back */
    unsigned char pub[CH_SIGN_PUBLIC_BYTES];
    if (count > 1 || strlen(sig_line) < PUB_HEX ||
        from_hex(sig_line, PUB_HEX, pub, sizeof pub) != 0)
        return ch_error_set(err, "its record of who signed it is malformed");
    if (!trusted(t, pub))
        return ch_error_set(err,
                            "it was fetched from a remote signed by key %.64s, which trusted_keys "
                            "no longer lists",
                            sig_line);
    return 0;
}

int ch_sign_check(const ch_trust *t, const char *key, const ch_cache_file *files, size_t n,
                  const ch_strvec *meta, int *with_objects, ch_error *err)
{
    *with_objects = 0;
    if (sodium_ready(err) != 0)
        return -1;
    int count;
    const char *sig_line = find_sig(meta, &count);
    if (!sig_line)
        return ch_error_set(err, "entry is not signed");
    if (count > 1)
        return ch_error_set(err, "entry carries %d signatures", count);
    unsigned char pub[CH_SIGN_PUBLIC_BYTES], sig[crypto_sign_BYTES];
    size_t len = strlen(sig_line);
    if (len != PUB_HEX + 3 + SIG_HEX || sig_line[PUB_HEX] != ' ' ||
        (sig_line[PUB_HEX + 1] != '0' && sig_line[PUB_HEX + 1] != '1') ||
        sig_line[PUB_HEX + 2] != ' ' || from_hex(sig_line, PUB_HEX, pub, sizeof pub) != 0 ||
        from_hex(sig_line + PUB_HEX + 3, SIG_HEX, sig, sizeof sig) != 0)
        return ch_error_set(err, "entry signature is malformed");
    if (!trusted(t, pub))
        return ch_error_set(err, "entry is signed by %.16s..., a key not in trusted_keys",
                            sig_line);
    int objects = sig_line[PUB_HEX + 1] == '1';
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    ch_sign_message(key, files, n, meta, objects, &msg);
    int ok = crypto_sign_verify_detached(sig, (const unsigned char *)msg.data, msg.len, pub) == 0;
    ch_strbuf_free(&msg);
    if (!ok)
        return ch_error_set(err, "entry signature does not match its key and files "
                                 "(altered after signing)");
    *with_objects = objects;
    return 0;
}

char *ch_sign_blob(const ch_signer *s, const void *msg, size_t len)
{
    unsigned char sig[crypto_sign_BYTES];
    crypto_sign_detached(sig, NULL, msg, len, s->secret);
    ch_strbuf value;
    ch_strbuf_init(&value);
    add_hex(&value, s->public, sizeof s->public);
    ch_strbuf_adds(&value, " ");
    add_hex(&value, sig, sizeof sig);
    return ch_strbuf_detach(&value);
}

int ch_sign_blob_check(const ch_trust *t, const char *value, const void *msg, size_t len,
                       const char *what, ch_error *err)
{
    if (sodium_ready(err) != 0)
        return -1;
    unsigned char pub[CH_SIGN_PUBLIC_BYTES], sig[crypto_sign_BYTES];
    if (strlen(value) != PUB_HEX + 1 + SIG_HEX || value[PUB_HEX] != ' ' ||
        from_hex(value, PUB_HEX, pub, sizeof pub) != 0 ||
        from_hex(value + PUB_HEX + 1, SIG_HEX, sig, sizeof sig) != 0)
        return ch_error_set(err, "%s signature is malformed", what);
    if (!trusted(t, pub))
        return ch_error_set(err, "%s is signed by %.16s..., a key not in trusted_keys", what,
                            value);
    if (crypto_sign_verify_detached(sig, msg, len, pub) != 0)
        return ch_error_set(err, "%s signature does not match its contents (altered after signing)",
                            what);
    return 0;
}

static int write_new(const char *path, const char *text, mode_t mode, ch_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0)
        return ch_error_set(err, "cannot create %s: %s", path, strerror(errno));
    size_t len = strlen(text);
    ssize_t w = write(fd, text, len);
    int rc = (w == (ssize_t)len && fsync(fd) == 0) ? 0 : -1;
    if (close(fd) != 0)
        rc = -1;
    if (rc != 0) {
        unlink(path);
        return ch_error_set(err, "cannot write %s: %s", path, strerror(errno));
    }
    return 0;
}

int ch_cache_keygen(const char *dir, char **pub_path, ch_error *err)
{
    *pub_path = NULL;
    if (sodium_ready(err) != 0 || ch_mkdir_p(dir, err) != 0)
        return -1;
    unsigned char pub[CH_SIGN_PUBLIC_BYTES], sec[CH_SIGN_SECRET_BYTES];
    crypto_sign_keypair(pub, sec);
    ch_strbuf s, p;
    ch_strbuf_init(&s);
    ch_strbuf_init(&p);
    add_hex(&s, sec, sizeof sec);
    ch_strbuf_adds(&s, "\n");
    add_hex(&p, pub, sizeof pub);
    ch_strbuf_adds(&p, "\n");
    sodium_memzero(sec, sizeof sec);
    char *sec_path = ch_path_join(dir, "ch-cc-sign.key");
    char *pub_file = ch_path_join(dir, "ch-cc-sign.pub");
    int rc = write_new(sec_path, s.data, 0600, err);
    if (rc == 0 && (rc = write_new(pub_file, p.data, 0644, err)) != 0)
        unlink(sec_path);
    sodium_memzero(s.data, s.len);
    ch_strbuf_free(&s);
    ch_strbuf_free(&p);
    free(sec_path);
    if (rc == 0)
        *pub_path = pub_file;
    else
        free(pub_file);
    return rc;
}
