/* Direct mode's manifests: keys separate their parts; a record round-trips (object, dep file
 * and report page); a changed file, a damaged manifest or none at all is a miss; files modified
 * since the command began or using __DATE__/__TIME__ are refused. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ch/fsutil.h"
#include "ch/manifest.h"
#include "ch/types.h"

static char *dir;

static void setup(void)
{
    ch_error err;
    dir = ch_make_temp_dir("manifest-test", &err);
    cr_assert(dir, "%s", err.msg);
}

static void teardown(void)
{
    ch_error err;
    ch_remove_tree(dir, &err);
    free(dir);
}

static char *file_with(const char *name, const char *text)
{
    ch_error err;
    char *path = ch_path_join(dir, name);
    cr_assert_eq(ch_write_file_atomic(path, text, strlen(text), 0, &err), 0, "%s", err.msg);
    return path;
}

/* a record of src and hdr with an object "OBJ" and a dep file "DEP", as of a later start */
static int record(const char *key, char *src, char *hdr, long long started, const char **why)
{
    char *files[] = {src, hdr};
    ch_manifest_record r = {.files = files,
                            .n_files = 2,
                            .dep = "DEP",
                            .dep_len = 3,
                            .obj = "OBJ",
                            .obj_len = 3,
                            .started = started};
    ch_error err;
    int rc = ch_manifest_write(dir, key, &r, why, &err);
    cr_assert_geq(rc, 0, "%s", rc < 0 ? err.msg : "");
    return rc;
}

TestSuite(manifest, .init = setup, .fini = teardown, .timeout = 60);

Test(manifest, key_parts_are_separated)
{
    char a[33], b[33], c[33];
    char *p1[] = {"a b", "c"}, *p2[] = {"a", "b c"}, *p3[] = {"a b", "c"};
    ch_manifest_key(p1, 2, a);
    ch_manifest_key(p2, 2, b);
    ch_manifest_key(p3, 2, c);
    cr_expect_str_neq(a, b);
    cr_expect_str_eq(a, c);
    cr_expect_eq(strlen(a), 32);
}

Test(manifest, round_trip_and_misses)
{
    char *src = file_with("k.c", "#include \"h.h\"\nint f(void) { return H; }\n");
    char *hdr = file_with("h.h", "#define H 1\n");
    const char *key = "0123456789abcdef0123456789abcdef", *why = NULL;
    ch_manifest_hit hit;
    cr_expect_eq(ch_manifest_lookup(dir, key, &hit, &why), 0, "no manifest yet");
    cr_assert_eq(record(key, src, hdr, (long long)time(NULL) + 2, &why), 1);
    cr_assert_eq(ch_manifest_lookup(dir, key, &hit, &why), 1, "%s", why);
    cr_expect_eq(hit.obj_len, 3);
    cr_expect_eq(memcmp(hit.obj, "OBJ", 3), 0);
    cr_expect_eq(hit.dep_len, 3);
    cr_expect_eq(memcmp(hit.dep, "DEP", 3), 0);
    cr_expect_eq(hit.page_len, 0, "recorded without a report page");
    cr_expect_null(hit.page);
    cr_expect_null(hit.page_name);
    ch_manifest_hit_free(&hit);

    free(file_with("h.h", "#define H 2\n"));
    cr_expect_eq(ch_manifest_lookup(dir, key, &hit, &why), 0, "an edited header misses");
    cr_expect_str_eq(why, "a file it read changed");
    free(file_with("h.h", "#define H 1\n"));
    cr_expect_eq(ch_manifest_lookup(dir, key, &hit, &why), 1, "the old content hits again");
    ch_manifest_hit_free(&hit);

    /* a damaged manifest (truncated) is a miss, never a wrong object */
    char *path = ch_xasprintf("%s/direct/%.2s/%s", dir, key, key + 2);
    char *text;
    size_t len;
    ch_error err;
    cr_assert_eq(ch_read_file(path, &text, &len, &err), 0);
    cr_assert_eq(ch_write_file_atomic(path, text, len - 1, 0, &err), 0);
    cr_expect_eq(ch_manifest_lookup(dir, key, &hit, &why), 0);
    cr_expect_str_eq(why, "a damaged manifest");
    /* a manifest grown to 1 TiB (sparse) is damage judged by its size: reading it first needs
     * 1 TiB of memory (a crash, or the suite's timeout) */
    cr_assert_eq(truncate(path, (off_t)1 << 40), 0);
    cr_expect_eq(ch_manifest_lookup(dir, key, &hit, &why), 0);
    cr_expect_str_eq(why, "a damaged manifest");
    free(text);
    free(path);
    free(src);
    free(hdr);
}

Test(manifest, unsafe_records_are_refused)
{
    char *src = file_with("k.c", "int f(void) { return 1; }\n");
    char *hdr = file_with("h.h", "#define H 1\n");
    const char *key = "fedcba9876543210fedcba9876543210", *why = NULL;
    ch_manifest_hit hit;
    /* the command began before the files were written: they may have changed under it */
    cr_expect_eq(record(key, src, hdr, (long long)time(NULL) - 5, &why), 0);
    cr_expect_str_eq(why, "a file it read was modified during the compile");
    cr_expect_eq(ch_manifest_lookup(dir, key, &hit, &why), 0);

    free(file_with("h.h", "const char *when = __DATE__;\n"));
    cr_expect_eq(record(key, src, hdr, (long long)time(NULL) + 2, &why), 0);
    cr_expect_str_eq(why, "it uses __DATE__, __TIME__ or __TIMESTAMP__");
    cr_expect_eq(ch_manifest_lookup(dir, key, &hit, &why), 0);
    free(src);
    free(hdr);
}

/* The report page a build wrote travels with its object: the thin binary writes it again. */
Test(manifest, report_page_round_trip)
{
    char *src = file_with("k.c", "int f(void) { return 1; }\n");
    char *files[] = {src};
    const char *key = "00112233445566778899aabbccddeeff", *why = NULL;
    const char page[] = "<!DOCTYPE html>\n<p>page\nobj 3\n</p>\n";
    ch_manifest_record r = {.files = files,
                            .n_files = 1,
                            .obj = "OBJ",
                            .obj_len = 3,
                            .page = page,
                            .page_len = strlen(page),
                            .page_name = "k.c.html",
                            .started = (long long)time(NULL) + 2};
    ch_error err;
    cr_assert_eq(ch_manifest_write(dir, key, &r, &why, &err), 1, "%s", why ? why : err.msg);
    ch_manifest_hit hit;
    cr_assert_eq(ch_manifest_lookup(dir, key, &hit, &why), 1, "%s", why);
    cr_expect_eq(hit.dep_len, 0);
    cr_expect_eq(hit.obj_len, 3);
    cr_expect_eq(memcmp(hit.obj, "OBJ", 3), 0);
    cr_assert_eq(hit.page_len, strlen(page));
    cr_expect_eq(memcmp(hit.page, page, hit.page_len), 0);
    cr_expect_str_eq(hit.page_name, "k.c.html");
    ch_manifest_hit_free(&hit);

    /* a page name that would leave the report directory is damage, not a path to write */
    char *path = ch_xasprintf("%s/direct/%.2s/%s", dir, key, key + 2);
    char *text;
    size_t len;
    cr_assert_eq(ch_read_file(path, &text, &len, &err), 0);
    char *line = strstr(text, "page ");
    cr_assert(line);
    char *name = strstr(line, "k.c.html");
    cr_assert(name);
    memcpy(name, "../x.htm", 8);
    cr_assert_eq(ch_write_file_atomic(path, text, len, 0, &err), 0);
    cr_expect_eq(ch_manifest_lookup(dir, key, &hit, &why), 0);
    cr_expect_str_eq(why, "a damaged manifest");
    free(text);
    free(path);
    free(src);
}
