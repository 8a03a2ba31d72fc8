/* --harness-explain's lookup without the driver (ch/explain.h): a name in a file keys as the
 * session keys it, a name alone finds the newest cache entry of that name, a unique key prefix
 * and a full key find their entry, an ambiguous prefix and an unknown name are errors that say
 * what to give instead; and the text of an entry lists its files. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch/explain.h"
#include "ch/fsutil.h"
#include "session_fixture.h"

static char *tmp_dir;
static ch_config cfg;

static void setup(void)
{
    fx_session_config(&cfg, &tmp_dir, "explain-test", NULL);
}

static void teardown(void)
{
    fx_session_free(&cfg, tmp_dir);
}

TestSuite(explain, .init = setup, .fini = teardown);

/* Seeds an entry named name under key. */
static void seed_named(ch_session *s, const char *key, const char *name, const char *status)
{
    const char *const meta[] = {"name", name, "status", status, NULL};
    fx_session_seed_meta(s, key, meta, (const char *const[]){"kernel.cu", "k\n", NULL});
}

/* the file's entry keys as the session keys it: other targets give another key */
Test(explain, name_in_file_is_the_session_key)
{
    ch_session s;
    fx_session_open(&s, &cfg, (const char *const[]){"-arch=compute_80", NULL});
    ch_entry_list l;
    fx_session_scan(&s, tmp_dir, "saxpy.c", fx_saxpy_c, &l);
    char want[33];
    ch_error err;
    cr_assert_eq(ch_session_key(&s, &l.items[0], want, &err), 0, "%s", err.msg);
    char *path = ch_path_join(tmp_dir, "saxpy.c");
    ch_explain_found f;
    cr_assert_eq(ch_session_explain_find(&s, "saxpy", path, CH_LANG_C, &f, &err), 0, "%s", err.msg);
    cr_assert_str_eq(f.key, want, "the build's key for this command line");
    cr_assert_neq(ch_session_explain_find(&s, "nosuch", path, CH_LANG_C, &f, &err), 0);
    cr_assert(strstr(err.msg, "no harness entry named nosuch"), "%s", err.msg);
    fx_session_close(&s);
    fx_session_open(&s, &cfg, (const char *const[]){"-arch=sm_90", NULL});
    cr_assert_eq(ch_session_explain_find(&s, "saxpy", path, CH_LANG_C, &f, &err), 0, "%s", err.msg);
    cr_assert_str_neq(f.key, want, "other targets, another key");
    fx_session_close(&s);
    free(path);
    ch_entry_list_free(&l);
}

/* by name alone: the newest entry of that name, with a count of the older ones */
Test(explain, name_alone_is_the_newest_entry)
{
    ch_session s;
    fx_session_open(&s, &cfg, NULL);
    const char *old_key = "11111111111111111111111111111111";
    const char *new_key = "22222222222222222222222222222222";
    seed_named(&s, old_key, "saxpy", "pending");
    /* created is in seconds: the second entry must be seen as newer */
    sleep(1);
    seed_named(&s, new_key, "saxpy", "verified");
    seed_named(&s, "33333333333333333333333333333333", "other", "failed");
    ch_explain_found f;
    ch_error err;
    cr_assert_eq(ch_session_explain_find(&s, "saxpy", NULL, CH_LANG_C, &f, &err), 0, "%s", err.msg);
    cr_assert_str_eq(f.key, new_key);
    cr_assert_eq(f.older, 1, "one older entry of that name");
    cr_assert_eq(ch_session_explain_find(&s, "other", NULL, CH_LANG_C, &f, &err), 0, "%s", err.msg);
    cr_assert_eq(f.older, 0);
    fx_session_close(&s);
}

/* a unique prefix, a full key (even one not cached: the text then says so), an ambiguous
 * prefix listing every match, an unknown name naming what was looked for */
Test(explain, keys_prefixes_and_errors)
{
    ch_session s;
    fx_session_open(&s, &cfg, NULL);
    const char *a = "abcd0000000000000000000000000001";
    const char *b = "abcd0000000000000000000000000002";
    const char *c = "ef000000000000000000000000000003";
    seed_named(&s, a, "fa", "pending");
    seed_named(&s, b, "fb", "pending");
    seed_named(&s, c, "fc", "unsupported");
    ch_explain_found f;
    ch_error err;
    cr_assert_eq(ch_session_explain_find(&s, "ef", NULL, CH_LANG_C, &f, &err), 0, "%s", err.msg);
    cr_assert_str_eq(f.key, c, "a unique prefix");
    cr_assert_eq(ch_session_explain_find(&s, a, NULL, CH_LANG_C, &f, &err), 0, "%s", err.msg);
    cr_assert_str_eq(f.key, a, "a full key");
    cr_assert_neq(ch_session_explain_find(&s, "abcd", NULL, CH_LANG_C, &f, &err), 0);
    cr_assert(strstr(err.msg, "ambiguous: 2 cache entries match"), "%s", err.msg);
    cr_assert(strstr(err.msg, a) && strstr(err.msg, b), "lists the matches: %s", err.msg);
    cr_assert(!strstr(err.msg, c), "and only them: %s", err.msg);
    cr_assert_neq(ch_session_explain_find(&s, "nosuch", NULL, CH_LANG_C, &f, &err), 0);
    cr_assert(strstr(err.msg, "'nosuch'") && strstr(err.msg, "--harness-explain nosuch FILE"),
              "says what to give: %s", err.msg);
    cr_assert_neq(ch_session_explain_find(&s, "", NULL, CH_LANG_C, &f, &err), 0);
    cr_assert(strstr(err.msg, "needs a function name"), "%s", err.msg);
    /* an uppercase hex word is no prefix (keys are lowercase): looked up as a name */
    cr_assert_neq(ch_session_explain_find(&s, "ABCD", NULL, CH_LANG_C, &f, &err), 0);
    cr_assert(strstr(err.msg, "function name 'ABCD'"), "%s", err.msg);

    ch_strbuf out;
    ch_strbuf_init(&out);
    cr_assert_eq(ch_session_explain_text(&s, c, &out, &err), 0, "%s", err.msg);
    cr_assert(strstr(out.data, c), "the text names the key:\n%s", out.data);
    cr_assert(strstr(out.data, "files\n  kernel.cu"), "and lists the files:\n%s", out.data);
    ch_strbuf_free(&out);
    ch_strbuf_init(&out);
    const char *absent = "99999999999999999999999999999999";
    cr_assert_neq(ch_session_explain_text(&s, absent, &out, &err), 0);
    cr_assert(strstr(err.msg, "has not been built yet"), "%s", err.msg);
    ch_strbuf_free(&out);
    fx_session_close(&s);
}

/* attacks9 #30: what explain, warnings and progress print of a model's text keeps newlines,
 * tabs and UTF-8 text and shows every byte a terminal would act on as \xNN */
Test(explain, printed_model_text_has_no_terminal_controls)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"one thread per element\n\tcoalesced", "one thread per element\n\tcoalesced"},
        {"clip \x1b]52;c;Y2g5\x07 title \x1b]0;ch9\x07",
         "clip \\x1b]52;c;Y2g5\\x07 title \\x1b]0;ch9\\x07"},
        {"\x1b[2Jcleared\r", "\\x1b[2Jcleared\\x0d"},
        {"del \x7f", "del \\x7f"},
        {"C1 CSI \xc2\x9b"
         "2J, OSC \xc2\x9d",
         "C1 CSI \\xc2\\x9b2J, OSC \\xc2\\x9d"},
        {"raw \x9b"
         "2J",
         "raw \\x9b2J"},
        {"cut \xe2\x82", "cut \\xe2\\x82"},
        {"overlong \xc0\x9b", "overlong \\xc0\\x9b"},
        {"caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x9a\x80 \xc2\xa0",
         "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x9a\x80 \xc2\xa0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ch_strbuf b;
        ch_strbuf_init(&b);
        ch_strbuf_add_printable(&b, cases[i].in);
        cr_expect_str_eq(b.data ? b.data : "", cases[i].out, "case %zu", i);
        ch_strbuf_free(&b);
    }
}
