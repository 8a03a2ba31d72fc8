/* The storage front over real file:// shares (directories): a team of two cache directories
 * sharing one remote (the second is a hit through it), a list of remotes (written to each, read
 * from the first that has the entry, a bad URL in the list one warning), the counters of each
 * failure kind (an item over remote_max_size, a damaged item, an unsigned writer), and the rule
 * that a reader never sees a partial item. The HTTP and Redis backends are driven against real
 * servers by tests/integration/cache_remote*.t. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/cache.h"
#include "ch/fsutil.h"

static char *root; /* every cache and share of a test lives here */

static void setup(void)
{
    ch_error err;
    root = ch_make_temp_dir("storage-test", &err);
    cr_assert(root, "%s", err.msg);
}

static void teardown(void)
{
    ch_error err;
    ch_remove_tree(root, &err);
    free(root);
}

TestSuite(cache_storage, .init = setup, .fini = teardown);

/* A key pair under root/NAME; *key (the secret) and *pub are paths, caller frees. */
static void keypair(const char *name, char **key, char **pub)
{
    char *d = ch_path_join(root, name);
    ch_error err;
    cr_assert_eq(ch_cache_keygen(d, pub, &err), 0, "%s", err.msg);
    *key = ch_path_join(d, "ch-cc-sign.key");
    free(d);
}

typedef struct team {
    char *sign_key, *trusted;
} team;

static team make_team(void)
{
    team t;
    keypair("team", &t.sign_key, &t.trusted);
    return t;
}

static void team_free(team *t)
{
    free(t->sign_key);
    free(t->trusted);
}

/* A cache in root/NAME with remote (a list of URLs). */
static ch_cache *open_cache(const char *name, const char *remote, const team *t,
                            unsigned long long max_get)
{
    char *d = ch_path_join(root, name);
    ch_cache_opts o = {0};
    o.dir = d;
    o.lock_timeout = 10;
    o.no_fsync = 1;
    o.remote = remote;
    o.remote_timeout = 5;
    o.remote_max_size = max_get;
    o.sign_key = t->sign_key;
    o.trusted_keys = t->trusted;
    ch_cache *c;
    ch_error err;
    cr_assert_eq(ch_cache_open_opts(&c, &o, &err), 0, "%s", err.msg);
    free(d);
    return c;
}

/* A share: the directory exists (mounted), the URL names it. Caller frees. */
static char *share_url(const char *name)
{
    char *d = ch_path_join(root, name);
    ch_error err;
    cr_assert_eq(ch_mkdir_p(d, &err), 0, "%s", err.msg);
    free(d);
    return ch_xasprintf("file://%s/%s", root, name);
}

static char *item_path(const char *share, const char *key)
{
    return ch_xasprintf("%s/%s/%.2s/%s.char", root, share, key, key + 2);
}

static void generate(ch_cache *c, const char *key)
{
    ch_cache_txn *t;
    ch_cache_hit hit;
    ch_error err;
    cr_assert_eq(ch_cache_begin(c, key, &t, &hit, &err), 0, "%s", err.msg);
    cr_assert_eq(ch_cache_put(t, "kernel.cu", "__global__ void k() {}\n", 23, &err), 0);
    cr_assert_eq(ch_cache_put(t, "objects/ffffffffffffffffffffffffffffffff.o", "OBJ", 3, &err), 0);
    ch_cache_txn_meta(t, "name", "k");
    cr_assert_eq(ch_cache_commit(t, &err), 0, "%s", err.msg);
}

static int lookup(ch_cache *c, const char *key)
{
    ch_cache_hit hit;
    ch_error err;
    int rc = ch_cache_lookup(c, key, &hit, &err);
    cr_assert_geq(rc, 0, "%s", err.msg);
    if (rc > 0) {
        const ch_cache_file *f = ch_cache_hit_file(&hit, "kernel.cu");
        cr_assert_not_null(f);
        cr_assert_eq(f->len, 23);
        cr_assert_not_null(ch_cache_hit_file(&hit, "objects/ffffffffffffffffffffffffffffffff.o"),
                           "the signer vouched for the object: it travels");
    }
    ch_cache_hit_free(&hit);
    return rc;
}

static ch_cache_stats stats(ch_cache *c)
{
    ch_cache_stats s;
    ch_error err;
    cr_assert_eq(ch_cache_stats_read(c, &s, &err), 0, "%s", err.msg);
    return s;
}

static size_t warnings(ch_cache *c, const char *needle)
{
    ch_strvec w;
    ch_strvec_init(&w);
    ch_cache_take_warnings(c, &w);
    size_t n = 0;
    for (size_t i = 0; i < w.len; i++)
        n += !needle || strstr(w.items[i], needle) != NULL;
    ch_strvec_free(&w);
    return n;
}

/* Files in dir (recursively) whose name contains part. */
static size_t files_named(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' && (!de->d_name[1] || strcmp(de->d_name, "..") == 0))
            continue;
        char *p = ch_path_join(dir, de->d_name);
        n += ch_is_dir(p) ? files_named(p, part) : strstr(de->d_name, part) != NULL;
        free(p);
    }
    closedir(d);
    return n;
}

static const char *K = "000000000000000000000000000f0001";

Test(cache_storage, team_sharing_a_directory_second_cache_hits_through_it)
{
    team t = make_team();
    char *url = share_url("share");
    ch_cache *a = open_cache("A", url, &t, 0);
    generate(a, K);
    cr_assert_eq(warnings(a, NULL), 0, "a healthy share warns nothing");
    char *item = item_path("share", K);
    cr_assert(ch_file_exists(item), "the entry was written to the share");
    char *share = ch_path_join(root, "share");
    cr_assert_eq(files_named(share, ".tmp."), 0, "no temp file is left in the share");
    ch_cache *b = open_cache("B", url, &t, 0);
    cr_assert_eq(lookup(b, K), 1, "an empty cache hits through the share");
    ch_cache_stats s = stats(b);
    cr_assert_eq(s.remote_hits, 1);
    cr_assert_eq(s.generations, 0, "nothing generated in B");
    cr_assert_eq(lookup(b, K), 1);
    cr_assert_eq(stats(b).remote_hits, 1, "the second lookup is local");
    ch_cache_close(a);
    ch_cache_close(b);
    free(share);
    free(item);
    free(url);
    team_free(&t);
}

Test(cache_storage, a_list_of_remotes_writes_each_and_reads_the_first_that_has_it)
{
    team t = make_team();
    char *one_url = share_url("one"), *two_url = share_url("two");
    char *both = ch_xasprintf("%s, %s", one_url, two_url);
    ch_cache *a = open_cache("A", both, &t, 0);
    generate(a, K);
    char *one = item_path("one", K), *two = item_path("two", K);
    cr_assert(ch_file_exists(one) && ch_file_exists(two), "written to every remote");
    unlink(one);
    /* a bad URL in the list is one warning; the others still serve */
    char *list = ch_xasprintf("ftp://example.org/cache/ %s %s", one_url, two_url);
    ch_cache *b = open_cache("B", list, &t, 0);
    cr_assert_eq(warnings(b, "ftp://example.org"), 1, "the bad URL is said once");
    cr_assert_eq(lookup(b, K), 1, "read from the second share after a miss in the first");
    ch_cache_stats s = stats(b);
    cr_assert_eq(s.remote_misses, 1);
    cr_assert_eq(s.remote_hits, 1);
    cr_assert_eq(s.remote_errors, 0);
    ch_cache_close(a);
    ch_cache_close(b);
    free(one);
    free(two);
    free(list);
    free(both);
    free(one_url);
    free(two_url);
    team_free(&t);
}

Test(cache_storage, an_item_over_remote_max_size_is_a_miss_counted_too_large)
{
    team t = make_team();
    char *url = share_url("share");
    ch_cache *a = open_cache("A", url, &t, 0);
    generate(a, K);
    ch_cache *b = open_cache("B", url, &t, 64);
    cr_assert_eq(lookup(b, K), 0);
    cr_assert_eq(warnings(b, "larger than remote_max_size"), 1);
    ch_cache_stats s = stats(b);
    cr_assert_eq(s.remote_too_large, 1);
    cr_assert_eq(s.remote_errors, 1);
    cr_assert_eq(s.remote_hits, 0);
    char *bdir = ch_path_join(root, "B");
    cr_assert_eq(files_named(bdir, "remote."), 0, "the streamed body is gone");
    free(bdir);
    ch_cache_close(a);
    ch_cache_close(b);
    free(url);
    team_free(&t);
}

Test(cache_storage, a_damaged_item_is_a_miss_counted_bad_reply)
{
    team t = make_team();
    char *url = share_url("share");
    ch_cache *a = open_cache("A", url, &t, 0);
    generate(a, K);
    char *item = item_path("share", K);
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(item, "<html>not an archive</html>", 27, 0, &err), 0);
    ch_cache *b = open_cache("B", url, &t, 0);
    cr_assert_eq(lookup(b, K), 0);
    cr_assert_eq(warnings(b, "remote cache read failed"), 1);
    ch_cache_stats s = stats(b);
    cr_assert_eq(s.remote_bad_reply, 1);
    cr_assert_eq(s.remote_errors, 1);
    ch_cache_close(a);
    ch_cache_close(b);
    free(item);
    free(url);
    team_free(&t);
}

Test(cache_storage, an_entry_from_an_untrusted_writer_is_refused_by_the_front)
{
    team t = make_team(), other;
    keypair("other", &other.sign_key, &other.trusted);
    char *url = share_url("share");
    ch_cache *a = open_cache("A", url, &other, 0); /* signs with a key B does not trust */
    generate(a, K);
    ch_cache *b = open_cache("B", url, &t, 0);
    cr_assert_eq(lookup(b, K), 0);
    cr_assert_eq(warnings(b, "refused"), 1);
    ch_cache_stats s = stats(b);
    cr_assert_eq(s.remote_rejected, 1);
    cr_assert_eq(s.remote_errors, 0, "a refusal is not a remote failure");
    ch_cache_close(a);
    ch_cache_close(b);
    free(url);
    team_free(&t);
    team_free(&other);
}

Test(cache_storage, a_missing_share_is_unreachable_for_writes)
{
    team t = make_team();
    char *url = ch_xasprintf("file://%s/not-mounted", root);
    ch_cache *a = open_cache("A", url, &t, 0);
    generate(a, K);
    cr_assert_eq(warnings(a, "is missing"), 1);
    ch_cache_stats s = stats(a);
    cr_assert_eq(s.remote_unreachable, 1);
    cr_assert_eq(s.generations, 1, "the entry is generated and kept locally all the same");
    cr_assert_eq(lookup(a, K), 1);
    ch_cache_close(a);
    free(url);
    team_free(&t);
}

Test(cache_storage, bad_remote_urls_are_warnings_and_the_local_cache_works)
{
    team t = make_team();
    const char *bad[] = {"redis://", "redis://host:99999", "redis://host:6379/x", "file://server/x",
                         "gopher://x"};
    const char *said[] = {"names no host", "bad port", "bad database number", "host part",
                          "not an http://"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ch_cache *c = open_cache("A", bad[i], &t, 0);
        cr_assert_eq(warnings(c, said[i]), 1, "%s: one warning saying '%s'", bad[i], said[i]);
        generate(c, K);
        cr_assert_eq(lookup(c, K), 1, "%s: the local cache serves", bad[i]);
        cr_assert_eq(stats(c).remote_errors, 0, "%s: nothing was asked of it", bad[i]);
        size_t removed;
        ch_error err;
        cr_assert_eq(ch_cache_clean(c, &removed, &err), 0, "%s", err.msg);
        ch_cache_close(c);
    }
    team_free(&t);
}
