/* Signatures of remote entries (cache/sign.c): a signed entry verifies under a trusted key;
 * changing the key, any file's name or bytes, a meta line, the objects flag, adding or dropping
 * a file, or the signature itself makes it fail; an untrusted signer, an unsigned entry and two
 * signatures fail; key files and trusted_keys specs parse or give a message. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cache/sign.h"
#include "ch/fsutil.h"

#define KEY       "00112233445566778899aabbccddeeff"
#define OTHER_KEY "00112233445566778899aabbccddeef0"

static char *dir;
static ch_signer writer, stranger;
static ch_trust team;

static void load_pair(const char *sub, ch_signer *out)
{
    ch_error err;
    char *d = ch_path_join(dir, sub), *pub;
    cr_assert_eq(ch_cache_keygen(d, &pub, &err), 0, "%s", err.msg);
    char *sec = ch_path_join(d, "ch-cc-sign.key");
    cr_assert_eq(ch_sign_load_secret(sec, out, &err), 0, "%s", err.msg);
    free(sec);
    free(pub);
    free(d);
}

static void setup(void)
{
    ch_error err;
    dir = ch_make_temp_dir("sign-test", &err);
    cr_assert(dir, "%s", err.msg);
    load_pair("team", &writer);
    load_pair("stranger", &stranger);
    char *pub = ch_path_join(dir, "team/ch-cc-sign.pub");
    cr_assert_eq(ch_trust_parse(pub, &team, &err), 0, "%s", err.msg);
    cr_assert_eq(team.n, 1);
    free(pub);
}

static void teardown(void)
{
    ch_error err;
    ch_trust_free(&team);
    ch_remove_tree(dir, &err);
    free(dir);
}

TestSuite(cache_sign, .init = setup, .fini = teardown);

typedef struct entry {
    ch_cache_file files[3];
    size_t n;
    ch_strvec meta;
} entry;

static void entry_init(entry *e, const ch_signer *s, const char *key)
{
    static const char *const names[] = {"kernel.cu", "report.json", "objects/0abc.o"};
    static const char *const bodies[] = {"__global__ void k() {}\n", "{\"ok\": 1}\n", "OBJ"};
    e->n = 3;
    for (size_t i = 0; i < e->n; i++) {
        e->files[i].name = ch_xstrdup(names[i]);
        e->files[i].data = (unsigned char *)ch_xstrdup(bodies[i]);
        e->files[i].len = strlen(bodies[i]);
    }
    ch_strvec_init(&e->meta);
    ch_strvec_push(&e->meta, "kind=c-def");
    ch_strvec_push(&e->meta, "verified=passed stages 0-5");
    if (s)
        ch_strvec_push_owned(&e->meta, ch_sign_entry(s, key, e->files, e->n, &e->meta, 1));
}

static void entry_free(entry *e)
{
    for (size_t i = 0; i < e->n; i++) {
        free(e->files[i].name);
        free(e->files[i].data);
    }
    ch_strvec_free(&e->meta);
}

static int check(const entry *e, const char *key, ch_error *err)
{
    int objects;
    return ch_sign_check(&team, key, e->files, e->n, &e->meta, &objects, err);
}

static void expect_refused(const entry *e, const char *key, const char *why)
{
    ch_error err;
    cr_assert_eq(check(e, key, &err), -1, "accepted: %s", why);
    cr_assert(strlen(err.msg) > 0);
}

Test(cache_sign, signed_entry_verifies_with_objects_covered)
{
    entry e;
    entry_init(&e, &writer, KEY);
    ch_error err;
    int objects = 0;
    cr_assert_eq(ch_sign_check(&team, KEY, e.files, e.n, &e.meta, &objects, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(objects, 1);
    entry_free(&e);
}

Test(cache_sign, tampering_with_any_field_is_refused)
{
    entry e;
    entry_init(&e, &writer, KEY);
    expect_refused(&e, OTHER_KEY, "entry re-labelled under another key");
    e.files[0].data[0] ^= 1;
    expect_refused(&e, KEY, "source byte flipped");
    e.files[0].data[0] ^= 1;
    e.files[2].data[0] = 'X';
    expect_refused(&e, KEY, "object swapped");
    e.files[2].data[0] = 'O';
    e.files[1].len--;
    expect_refused(&e, KEY, "report truncated");
    e.files[1].len++;
    e.files[0].name[0] = 'K';
    expect_refused(&e, KEY, "file renamed");
    e.files[0].name[0] = 'k';
    free(e.meta.items[0]);
    e.meta.items[0] = ch_xstrdup("kind=evil");
    expect_refused(&e, KEY, "meta changed");
    free(e.meta.items[0]);
    e.meta.items[0] = ch_xstrdup("kind=c-def");
    e.n = 2;
    expect_refused(&e, KEY, "object dropped");
    e.n = 3;
    ch_error err;
    cr_assert_eq(check(&e, KEY, &err), 0, "restored entry refused: %s", err.msg);
    entry_free(&e);
}

Test(cache_sign, signature_and_flag_bytes_are_bound)
{
    entry e;
    entry_init(&e, &writer, KEY);
    char *sig = e.meta.items[e.meta.len - 1];
    size_t len = strlen(sig);
    sig[len - 1] = sig[len - 1] == '0' ? '1' : '0';
    expect_refused(&e, KEY, "signature byte changed");
    sig[len - 1] = sig[len - 1] == '0' ? '1' : '0';
    char *flag = sig + strlen(CH_SIGN_META) + 2 * CH_SIGN_PUBLIC_BYTES + 1;
    cr_assert_eq(*flag, '1');
    *flag = '0';
    expect_refused(&e, KEY, "objects flag lowered");
    *flag = '1';
    ch_strvec_push(&e.meta, sig);
    expect_refused(&e, KEY, "two signatures");
    entry_free(&e);
}

Test(cache_sign, unsigned_and_untrusted_are_refused)
{
    entry e;
    entry_init(&e, NULL, KEY);
    expect_refused(&e, KEY, "unsigned");
    entry_free(&e);
    entry_init(&e, &stranger, KEY);
    ch_error err;
    cr_assert_eq(check(&e, KEY, &err), -1);
    cr_assert(strstr(err.msg, "not in trusted_keys"), "%s", err.msg);
    entry_free(&e);
}

Test(cache_sign, objects_left_out_unless_vouched)
{
    entry e;
    entry_init(&e, NULL, KEY);
    ch_strvec_push_owned(&e.meta, ch_sign_entry(&writer, KEY, e.files, e.n, &e.meta, 0));
    e.files[2].data[0] = 'X'; /* not covered: the reader drops objects */
    ch_error err;
    int objects = 1;
    cr_assert_eq(ch_sign_check(&team, KEY, e.files, e.n, &e.meta, &objects, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(objects, 0);
    entry_free(&e);
}

Test(cache_sign, trusted_keys_specs)
{
    ch_trust t;
    ch_error err;
    cr_assert_eq(ch_trust_parse("", &t, &err), 0);
    cr_assert_eq(t.n, 0);
    char a[65], b[65];
    memset(a, 'a', 64);
    memset(b, '0', 64);
    a[64] = b[64] = '\0';
    char *spec = ch_xasprintf("%s, %s\n", a, b);
    cr_assert_eq(ch_trust_parse(spec, &t, &err), 0, "%s", err.msg);
    cr_assert_eq(t.n, 2);
    ch_trust_free(&t);
    free(spec);
    cr_assert_eq(ch_trust_parse("abc", &t, &err), -1);
    cr_assert(strstr(err.msg, "64 hex digits"), "%s", err.msg);
    char *file = ch_path_join(dir, "keys");
    char *text = ch_xasprintf("# the team\n%s\n", a);
    cr_assert_eq(ch_write_file_atomic(file, text, strlen(text), 0, &err), 0);
    cr_assert_eq(ch_trust_parse(file, &t, &err), 0, "%s", err.msg);
    cr_assert_eq(t.n, 1);
    ch_trust_free(&t);
    free(text);
    free(file);
    cr_assert_eq(ch_trust_parse("/nonexistent/keys", &t, &err), -1);
}

Test(cache_sign, secret_key_file_must_be_a_key)
{
    ch_error err;
    ch_signer s;
    char *file = ch_path_join(dir, "not-a-key");
    cr_assert_eq(ch_write_file_atomic(file, "hello\n", 6, 0, &err), 0);
    cr_assert_eq(ch_sign_load_secret(file, &s, &err), -1);
    cr_assert(strstr(err.msg, "--harness-keygen"), "%s", err.msg);
    free(file);
}
