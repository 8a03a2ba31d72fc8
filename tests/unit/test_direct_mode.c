/* Direct mode's library steps (ch/direct_mode.h) without the driver: what the key covers and
 * what it leaves out, make's dependency syntax, and a record served back byte for byte until a
 * file it lists changes. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ch/cache.h"
#include "ch/direct_mode.h"
#include "ch/fsutil.h"
#include "session_fixture.h"

static char *tmp_dir;
static ch_config cfg;

static void setup(void)
{
    fx_session_config(&cfg, &tmp_dir, "direct-mode-test", NULL);
}

static void teardown(void)
{
    fx_session_free(&cfg, tmp_dir);
}

TestSuite(direct_mode, .init = setup, .fini = teardown);

static char *const base_args[] = {"-c", "-O2", "saxpy.c", NULL};

static void key_of(const char *compiler, char *const *args, char key[33])
{
    ch_direct_command c = {.cfg = &cfg,
                           .self = "/bin/sh",
                           .source = "saxpy.c",
                           .compiler = compiler,
                           .nvcc = NULL,
                           .args = args,
                           .n_args = 3};
    cr_assert_eq(ch_direct_mode_key(&c, key), 0);
    cr_assert_eq(strlen(key), 32);
}

static void set(const char *name, const char *value)
{
    ch_error err;
    cr_assert_eq(ch_config_set(&cfg, name, value, CH_CFG_CMDLINE, &err), 0, "%s", err.msg);
}

/* what decides the object changes the key; where things go and how long to wait do not */
Test(direct_mode, key_covers_what_decides_the_object)
{
    char first[33], again[33], other[33];
    key_of("/bin/true", base_args, first);
    key_of("/bin/true", base_args, again);
    cr_assert_str_eq(first, again, "the key is a function of the command");
    set("report_dir", "/somewhere/else");
    set("quiet", "1");
    key_of("/bin/true", base_args, again);
    cr_assert_str_eq(first, again, "report_dir and quiet are not keyed");
    set("budget", "7");
    key_of("/bin/true", base_args, other);
    cr_assert_str_neq(first, other, "budget is keyed");
    set("budget", "");
    char *const o3[] = {"-c", "-O3", "saxpy.c", NULL};
    key_of("/bin/true", o3, other);
    cr_assert_str_neq(again, other, "the arguments are keyed");
    key_of("/bin/false", base_args, other);
    cr_assert_str_neq(again, other, "the compiler is keyed");
    cr_assert_eq(setenv("CPATH", "/opt/include", 1), 0);
    key_of("/bin/true", base_args, other);
    unsetenv("CPATH");
    cr_assert_str_neq(again, other, "the preprocessor's environment is keyed");
    /* a file of trusted keys by its keys: one removed (revoked) misses (attacks7 #26) */
    char *keys = ch_path_join(tmp_dir, "trusted.txt");
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(keys, "aa\nbb\n", 6, 0, &err), 0, "%s", err.msg);
    set("trusted_keys", keys);
    key_of("/bin/true", base_args, first);
    cr_assert_eq(ch_write_file_atomic(keys, "aa\n", 3, 0, &err), 0, "%s", err.msg);
    key_of("/bin/true", base_args, other);
    cr_assert_str_neq(first, other, "the keys in the trusted_keys file are keyed");
    set("trusted_keys", "");
    free(keys);
}

Test(direct_mode, deps_in_make_syntax)
{
    ch_strvec files;
    ch_strvec_init(&files);
    ch_direct_mode_parse_deps("x: a.c dir/b\\ c.h \\\n  d\\#1.h\n", &files);
    cr_assert_eq(files.len, 3);
    cr_assert_str_eq(files.items[0], "a.c");
    cr_assert_str_eq(files.items[1], "dir/b c.h");
    cr_assert_str_eq(files.items[2], "d#1.h");
    ch_strvec_free(&files);
    ch_strvec_init(&files);
    ch_direct_mode_parse_deps("no rule here", &files);
    cr_assert_eq(files.len, 0);
    ch_strvec_free(&files);
}

static char *write_in_tmp(const char *name, const char *text)
{
    char *path = ch_path_join(tmp_dir, name);
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(path, text, strlen(text), 0, &err), 0, "%s", err.msg);
    return path;
}

/* what a fake compiler writes to stderr for -v: its include search list */
#define SEARCH_LIST                                                                                \
    "printf '#include \"...\" search starts here:\\n#include <...> search starts here:\\n"         \
    " /nonexistent-include\\nEnd of search list.\\n' >&2; "

static int probes_of(const char *report, char *const *read, ch_strvec *probes, ch_error *err)
{
    ch_strvec files;
    ch_strvec_init(&files);
    for (size_t i = 0; read[i]; i++)
        ch_strvec_push(&files, read[i]);
    int rc = ch_direct_search_probes(report, &files, probes, err);
    ch_strvec_free(&files);
    return rc;
}

static int has(const ch_strvec *v, const char *s)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i], s) == 0)
            return 1;
    return 0;
}

/* the places an include could find another file (attacks7 #13): every directory of the search
 * list, ignored ones included, and every includer's, under every name a read file has there */
Test(direct_mode, search_probes_cover_every_earlier_place)
{
    const char *report = "ignoring nonexistent directory \"inc1\"\n"
                         "#include \"...\" search starts here:\n"
                         " quote\n"
                         "#include <...> search starts here:\n"
                         " ./inc2/\n"
                         " /usr/include\n"
                         "End of search list.\n";
    char *const read[] = {"k.c", "inc2/val.h", "inc2/sub/w.h", "/usr/include/stdio.h", NULL};
    ch_strvec probes;
    ch_strvec_init(&probes);
    ch_error err;
    cr_assert_eq(probes_of(report, read, &probes, &err), 0, "%s", err.msg);
    cr_assert(has(&probes, "inc1/val.h"), "a missing -I directory before the one that found it");
    cr_assert(has(&probes, "quote/val.h"), "an -iquote directory");
    cr_assert(has(&probes, "inc2/sub/val.h"), "an includer's directory");
    cr_assert(has(&probes, "inc1/sub/w.h"), "a name with a directory part");
    cr_assert(has(&probes, "/usr/include/val.h"), "a system directory");
    cr_assert(has(&probes, "inc1/stdio.h"), "a system header's name in a user's directory");
    cr_assert(!has(&probes, "inc2/val.h"), "a file read is checked by its hash, not probed");
    ch_strvec_free(&probes);
}

/* what cannot be known is refused: no search list, a framework, a computed __has_include */
Test(direct_mode, search_probes_refuse_what_they_cannot_know)
{
    char *const none[] = {"k.c", NULL};
    ch_strvec probes;
    ch_strvec_init(&probes);
    ch_error err;
    cr_assert_eq(probes_of("nvcc says nothing of it\n", none, &probes, &err), -1);
    cr_assert(strstr(err.msg, "search path"), "%s", err.msg);
    cr_assert_eq(probes_of("#include <...> search starts here:\n /Library/F (framework "
                           "directory)\nEnd of search list.\n",
                           none, &probes, &err),
                 -1);
    cr_assert(strstr(err.msg, "not a plain one"), "%s", err.msg);
    char *hdr = write_in_tmp("h.h", "#if __has_include(HDR)\n#endif\n");
    char *const computed[] = {hdr, NULL};
    cr_assert_eq(probes_of("#include <...> search starts here:\nEnd of search list.\n", computed,
                           &probes, &err),
                 -1);
    cr_assert(strstr(err.msg, "computed"), "%s", err.msg);
    free(write_in_tmp("h.h", "#ifdef __has_include\n#if __has_include(<opt.h>)\n#endif\n#endif\n"));
    cr_assert_eq(probes_of("#include <...> search starts here:\n /x\nEnd of search list.\n",
                           computed, &probes, &err),
                 0, "%s", err.msg);
    cr_assert(has(&probes, "/x/opt.h"), "a literal __has_include name is probed");
    ch_strvec_free(&probes);
    free(hdr);
}

static char *read_text(const char *path)
{
    char *text = NULL;
    ch_error err;
    cr_assert_eq(ch_read_file(path, &text, NULL, &err), 0, "%s", err.msg);
    return text;
}

/* a record is served back (dep file, object) until a file the compiler read changes; hits and
 * misses are counted */
Test(direct_mode, record_serves_until_a_read_file_changes)
{
    char *src = write_in_tmp("saxpy.c", "int saxpy;\n");
    char *obj = write_in_tmp("saxpy.o", "OBJECT BYTES");
    char *dep = write_in_tmp("saxpy.d", "saxpy.o: saxpy.c\n");
    char *cache = ch_path_join(tmp_dir, "cache");
    ch_error err;
    cr_assert_eq(ch_mkdir_p(cache, &err), 0, "%s", err.msg);
    char *script = ch_xasprintf(SEARCH_LIST "printf 'x: %s\\n'", src);
    char *const deps[] = {"/bin/sh", "-c", script, NULL};
    const char key[] = "00112233445566778899aabbccddeeff";
    cr_assert_eq(ch_direct_mode_record(cache, key, deps, obj, dep, NULL, NULL,
                                       (long long)time(NULL) + 5, &err),
                 0, "%s", err.msg);

    char *obj2 = ch_path_join(tmp_dir, "served.o");
    char *dep2 = ch_path_join(tmp_dir, "served.d");
    ch_direct_outputs out = {obj2, dep2, NULL};
    ch_strvec warnings;
    ch_strvec_init(&warnings);
    cr_assert_eq(ch_direct_mode_serve(cache, key, &out, &warnings), 1);
    char *got = read_text(obj2);
    cr_assert_str_eq(got, "OBJECT BYTES");
    free(got);
    got = read_text(dep2);
    cr_assert_str_eq(got, "saxpy.o: saxpy.c\n");
    free(got);
    /* a page asked for but not recorded: the full path writes one */
    ch_direct_outputs with_page = {obj2, NULL, tmp_dir};
    cr_assert_eq(ch_direct_mode_serve(cache, key, &with_page, &warnings), 0);
    free(write_in_tmp("saxpy.c", "int saxpy = 1;\n"));
    cr_assert_eq(ch_direct_mode_serve(cache, key, &out, &warnings), 0, "the source changed");
    cr_assert_eq(warnings.len, 0);

    ch_cache *c = NULL;
    cr_assert_eq(ch_cache_open(&c, &cfg, &err), 0, "%s", err.msg);
    ch_cache_stats st;
    cr_assert_eq(ch_cache_stats_read(c, &st, &err), 0, "%s", err.msg);
    cr_assert_eq(st.direct_hits, 1);
    cr_assert_eq(st.direct_misses, 2);
    ch_cache_close(c);
    ch_strvec_free(&warnings);
    free(obj2);
    free(dep2);
    free(script);
    free(cache);
    free(dep);
    free(obj);
    free(src);
}

/* a compiler that fails its -M, or an object that is not a regular file, is not recorded */
Test(direct_mode, record_refuses_what_it_cannot_serve)
{
    char *obj = write_in_tmp("saxpy.o", "OBJECT BYTES");
    char *cache = ch_path_join(tmp_dir, "cache");
    ch_error err;
    char *const failing[] = {"/bin/sh", "-c", "exit 3", NULL};
    const char key[] = "00112233445566778899aabbccddeeff";
    cr_assert_eq(ch_direct_mode_record(cache, key, failing, obj, NULL, NULL, NULL,
                                       (long long)time(NULL) + 5, &err),
                 -1);
    cr_assert(strstr(err.msg, "status 3"), "%s", err.msg);
    char *const deps[] = {"/bin/sh", "-c", SEARCH_LIST "echo 'x: /dev/null'", NULL};
    cr_assert_eq(ch_direct_mode_record(cache, key, deps, "/dev/null", NULL, NULL, NULL,
                                       (long long)time(NULL) + 5, &err),
                 -1);
    cr_assert(strstr(err.msg, "regular file"), "%s", err.msg);
    char *out = ch_path_join(tmp_dir, "none.o");
    ch_direct_outputs o = {out, NULL, NULL};
    ch_strvec warnings;
    ch_strvec_init(&warnings);
    cr_assert_eq(ch_direct_mode_serve(cache, key, &o, &warnings), 0);
    cr_assert_eq(ch_file_exists(out), 0, "nothing served");
    ch_strvec_free(&warnings);
    free(out);
    free(cache);
    free(obj);
}
