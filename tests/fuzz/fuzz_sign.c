/* libFuzzer target for the signature reader of remote cache entries (cache/sign.c over what
 * cache/archive.c unpacks), for the object records beside them (cache/storage/objects.c) and for
 * the trusted_keys list. The first byte picks what the rest is:
 *   bit 1 set: a trusted_keys value (keys separated by commas, blanks, '#' comments);
 *   bit 3 set: an object record of fuzz_key for entry hash fuzz_entry; bit 0 replaces its last
 *              line by the fuzz writer's signature over the rest, so that the fuzzer gets past
 *              the signature to the key, entry and object lines. A record that passes must
 *              name only objects/ files with no "..", and must not pass for another key;
 *   otherwise: a remote archive of fuzz_key, read as remote_lookup reads it (unpack, then the
 *              signature check against the fuzz writer's key); bit 0 recomputes the index
 *              checksum first so that the fuzzer gets past it to the meta and file records.
 * Besides "no crash, no leak, a message on every refusal", an entry that unpacks must check
 * after the fuzz writer signs it, and that signature must not pass under another key. The seeds
 * (tests/fuzz/seeds/sign/) are entries the store wrote and signed with this writer's key
 * (tests/fuzz/sign-seeds.sh). The key is a test key: it guards nothing. */
#include <sodium.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../cache/internal.h"
#include "../../cache/storage/objects.h"
#include "index_sum.h"

static const char fuzz_key[] = "0123456789abcdef0123456789abcdef";
static const char other_key[] = "fedcba9876543210fedcba9876543210";
static const char fuzz_entry[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
/* the fuzz writer's secret key, as a sign_key file holds it (sign-seeds.sh reads it from here) */
#define WRITER_KEY                                                                                 \
    "63682d63632066757a7a207772697465723a206e6f7420612073656372657400"                             \
    "f4d5fbd6f0acbd646fc074425db7f98d2425f1776e2baf509bc4ca97f52eb315"

static ch_signer writer;
static ch_trust trust_writer;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    if (sodium_init() < 0)
        abort();
    size_t got = 0;
    if (sodium_hex2bin(writer.secret, sizeof writer.secret, WRITER_KEY, strlen(WRITER_KEY), NULL,
                       &got, NULL) != 0 ||
        got != sizeof writer.secret)
        abort();
    crypto_sign_ed25519_sk_to_pk(writer.public, writer.secret);
    trust_writer.keys = ch_xmalloc(sizeof *trust_writer.keys);
    memcpy(trust_writer.keys[0], writer.public, sizeof writer.public);
    trust_writer.n = 1;
    return 0;
}

static void fuzz_trusted_keys(const uint8_t *data, size_t len)
{
    char *spec = ch_xstrndup((const char *)data, len);
    /* a '/' makes the value a path to read: keep the fuzzer off the file system */
    for (char *p = spec; *p; p++)
        if (*p == '/')
            *p = ',';
    ch_trust t;
    ch_error err;
    if (ch_trust_parse(spec, &t, &err) == 0) {
        if (t.n > len / 64)
            abort(); /* every key takes 64 hex digits of the text */
        ch_trust_free(&t);
    } else if (!err.msg[0]) {
        abort();
    }
    free(spec);
}

/* The entry as the fuzz writer would sign it (every sig= line replaced by its own). */
static void resign(const ch_cache_hit *hit, int with_objects, ch_strvec *meta)
{
    ch_strvec_init(meta);
    for (size_t i = 0; i < hit->meta.len; i++)
        if (strncmp(hit->meta.items[i], CH_SIGN_META, strlen(CH_SIGN_META)) != 0)
            ch_strvec_push(meta, hit->meta.items[i]);
    ch_strvec_push_owned(
        meta, ch_sign_entry(&writer, fuzz_key, hit->files, hit->n_files, meta, with_objects));
}

static void check_entry(const ch_cache_hit *hit, int flags)
{
    int with_objects;
    ch_error err;
    if (ch_sign_check(&trust_writer, fuzz_key, hit->files, hit->n_files, &hit->meta, &with_objects,
                      &err) != 0 &&
        !err.msg[0])
        abort();
    /* a meta value holding a newline would let one message read two ways: the archive never
     * yields one, so signing what it yields is unambiguous */
    for (size_t i = 0; i < hit->meta.len; i++)
        if (strchr(hit->meta.items[i], '\n'))
            abort();
    int objects = flags & 1;
    ch_strvec meta;
    resign(hit, objects, &meta);
    if (ch_sign_check(&trust_writer, fuzz_key, hit->files, hit->n_files, &meta, &with_objects,
                      &err) != 0 ||
        with_objects != objects)
        abort(); /* the writer's own signature over what was read must hold */
    if (ch_sign_check(&trust_writer, other_key, hit->files, hit->n_files, &meta, &with_objects,
                      &err) == 0)
        abort(); /* and must not hold for the same files relabelled under another key */
    ch_strvec_free(&meta);
}

/* text up to its last line, then "sig <the fuzz writer's signature over it>\n" */
static char *resign_record(const char *text, size_t len, size_t *out_len)
{
    size_t body = len;
    if (body && text[body - 1] == '\n')
        body--;
    while (body && text[body - 1] != '\n')
        body--;
    char *sig = ch_sign_blob(&writer, text, body);
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_strbuf_add(&out, text, body); /* bytes, NULs included */
    ch_strbuf_addf(&out, "sig %s\n", sig);
    free(sig);
    *out_len = out.len;
    return ch_strbuf_detach(&out);
}

static void fuzz_object_record(const uint8_t *data, size_t len, int resign_it)
{
    char *text = ch_xmalloc(len + 1);
    memcpy(text, data, len);
    text[len] = '\0';
    if (resign_it) {
        char *signed_text = resign_record(text, len, &len);
        free(text);
        text = signed_text;
    }
    ch_object_record rec;
    ch_error err;
    if (ch_objects_record_check(&trust_writer, fuzz_key, fuzz_entry, text, len, &rec, &err) == 0) {
        for (size_t i = 0; i < rec.n; i++)
            if (!ch_sign_is_object(rec.objects[i].name) || strstr(rec.objects[i].name, "..") ||
                strchr(rec.objects[i].name, '\n'))
                abort();
        ch_object_record_free(&rec);
        if (ch_objects_record_check(&trust_writer, other_key, fuzz_entry, text, len, &rec, &err) ==
            0)
            abort(); /* a record of one key never serves another */
    } else if (!err.msg[0]) {
        abort();
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int flags = data[0];
    size_t len = size - 1;
    if (flags & 2) {
        fuzz_trusted_keys(data + 1, len);
        return 0;
    }
    if (flags & 8) {
        fuzz_object_record(data + 1, len, flags & 1);
        return 0;
    }
    char *buf = ch_xmalloc(len ? len : 1);
    memcpy(buf, data + 1, len);
    if (flags & 1)
        fuzz_fix_index_sum(buf, len);
    ch_cache_hit hit;
    ch_error err;
    if (ch_archive_unpack(fuzz_key, buf, len, &hit, &err) == 0) {
        check_entry(&hit, flags >> 2);
        ch_cache_hit_free(&hit);
    } else if (!err.msg[0]) {
        abort();
    }
    free(buf);
    return 0;
}
