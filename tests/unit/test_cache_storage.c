/* The storage front over real file:// shares (directories): a team of two cache directories
 * sharing one remote (the second is a hit through it), a list of remotes (written to each, read
 * from the first that has the entry, a bad URL in the list one warning), the counters of each
 * failure kind (an item over remote_max_size, a damaged item, an unsigned writer), and the rule
 * that a reader never sees a partial item. Objects as items of their own: adding one to an entry
 * writes that object and the entry's object record and leaves the entry's archive and the
 * other objects alone; a format 1 archive (objects inside) is still read; an object swapped in
 * from another entry, an unsigned record, a record of another entry or of an untrusted writer
 * are refused (remote_rejected) while the entry is served; an object over remote_max_size is a
 * remote_too_large failure, the entry still served. The HTTP and Redis backends are
 * driven against real servers by tests/integration/cache_remote*.t. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "../../cache/sign.h"
#include "../../cache/storage/backend.h"
#include "ch/cache.h"
#include "ch/fsutil.h"
#include "ch/remote.h"

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

/* ---- objects as items of their own ---- */

static const char *OBJ1 = "objects/ffffffffffffffffffffffffffffffff.o";
static const char *OBJ2 = "objects/eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee.o";

/* The path of the one file under root/share whose name contains part (asserted unique). */
static char *only_item(const char *share, const char *part)
{
    char *dir = ch_path_join(root, share);
    cr_assert_eq(files_named(dir, part), 1, "one item named *%s* in %s", part, share);
    char *found = NULL;
    DIR *top = opendir(dir);
    struct dirent *de;
    while (!found && (de = readdir(top))) {
        if (de->d_name[0] == '.')
            continue;
        char *sub = ch_path_join(dir, de->d_name);
        DIR *d = opendir(sub);
        struct dirent *e;
        while (d && !found && (e = readdir(d)))
            if (strstr(e->d_name, part))
                found = ch_path_join(sub, e->d_name);
        if (d)
            closedir(d);
        free(sub);
    }
    closedir(top);
    free(dir);
    return found;
}

/* Adds object name with data to key's entry through an update (what a build for another nvcc or
 * flag set does). */
static void add_object(ch_cache *c, const char *key, const char *name, const char *data)
{
    ch_cache_txn *t;
    ch_error err;
    cr_assert_eq(ch_cache_begin_update(c, key, &t, &err), 0, "%s", err.msg);
    cr_assert_eq(ch_cache_put(t, name, data, strlen(data), &err), 0, "%s", err.msg);
    cr_assert_eq(ch_cache_commit(t, &err), 0, "%s", err.msg);
}

/* A lookup through the remote that must hit: the object called name, or NULL (caller frees). */
static char *object_of_hit(ch_cache *c, const char *key, const char *name)
{
    ch_cache_hit hit;
    ch_error err;
    cr_assert_eq(ch_cache_lookup(c, key, &hit, &err), 1, "the entry is served");
    cr_assert_not_null(ch_cache_hit_file(&hit, "kernel.cu"));
    const ch_cache_file *f = ch_cache_hit_file(&hit, name);
    char *data = f ? ch_xstrndup((const char *)f->data, f->len) : NULL;
    ch_cache_hit_free(&hit);
    return data;
}

typedef struct item_id {
    ino_t ino;
    struct timespec mtime;
} item_id;

static item_id id_of(const char *path)
{
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0, "%s exists", path);
    return (item_id){sb.st_ino, sb.st_mtim};
}

static int same_item(item_id a, item_id b)
{
    return a.ino == b.ino && a.mtime.tv_sec == b.mtime.tv_sec && a.mtime.tv_nsec == b.mtime.tv_nsec;
}

Test(cache_storage, adding_an_object_writes_only_that_object_and_a_new_record)
{
    team t = make_team();
    char *url = share_url("share");
    ch_cache *a = open_cache("A", url, &t, 0);
    generate(a, K);
    char *entry = item_path("share", K);
    char *obj1 = only_item("share", ".o."), *record = only_item("share", ".objects.");
    char *text;
    ch_error err;
    cr_assert_eq(ch_read_file(entry, &text, NULL, &err), 0);
    cr_assert_null(strstr(text, "objects/"), "the entry's archive carries no object");
    free(text);
    item_id entry_before = id_of(entry), obj1_before = id_of(obj1), record_before = id_of(record);
    add_object(a, K, OBJ2, "OBJ-SECOND");
    cr_assert_eq(warnings(a, NULL), 0);
    char *share = ch_path_join(root, "share");
    cr_assert_eq(files_named(share, ".o."), 2, "the new object is an item of its own");
    cr_assert(same_item(id_of(entry), entry_before), "the entry's archive was not written again");
    cr_assert(same_item(id_of(obj1), obj1_before), "the first object was not written again");
    cr_assert_not(same_item(id_of(record), record_before), "the record was replaced");
    cr_assert_eq(ch_read_file(record, &text, NULL, &err), 0);
    cr_assert(strstr(text, OBJ1) && strstr(text, OBJ2), "the record lists both objects");
    free(text);
    ch_cache *b = open_cache("B", url, &t, 0);
    char *o1 = object_of_hit(b, K, OBJ1), *o2 = object_of_hit(b, K, OBJ2);
    cr_assert_str_eq(o1 ? o1 : "(none)", "OBJ");
    cr_assert_str_eq(o2 ? o2 : "(none)", "OBJ-SECOND", "a second cache gets the added object");
    cr_assert_eq(stats(b).remote_hits, 1);
    cr_assert_eq(stats(b).remote_rejected, 0);
    free(o1);
    free(o2);
    free(share);
    free(entry);
    free(obj1);
    free(record);
    ch_cache_close(a);
    ch_cache_close(b);
    free(url);
    team_free(&t);
}

Test(cache_storage, a_format_1_archive_with_its_objects_inside_is_still_read)
{
    team t = make_team();
    char *url = share_url("share");
    /* what an earlier ch-cc wrote: one archive, objects inside, signed "objects 1" */
    ch_cache_file files[] = {{"kernel.cu", (unsigned char *)"__global__ void k() {}\n", 23},
                             {(char *)OBJ1, (unsigned char *)"OBJ", 3}};
    ch_strvec meta;
    ch_strvec_init(&meta);
    ch_strvec_push(&meta, "name=k");
    ch_signer signer;
    ch_error err;
    cr_assert_eq(ch_sign_load_secret(t.sign_key, &signer, &err), 0, "%s", err.msg);
    ch_strvec_push_owned(&meta, ch_sign_entry(&signer, K, files, 2, &meta, 1));
    ch_strbuf ar;
    ch_strbuf_init(&ar);
    ch_archive_pack(K, files, 2, &meta, 1, &ar);
    char *entry = item_path("share", K), *dir = ch_path_dir(entry);
    cr_assert_eq(ch_mkdir_p(dir, &err), 0);
    cr_assert_eq(ch_write_file_atomic(entry, ar.data, ar.len, 0, &err), 0);
    ch_cache *b = open_cache("B", url, &t, 0);
    char *o1 = object_of_hit(b, K, OBJ1);
    cr_assert_str_eq(o1 ? o1 : "(none)", "OBJ", "the object inside a format 1 archive is taken");
    /* a format 2 writer adds an object beside it; a third cache gets both */
    add_object(b, K, OBJ2, "OBJ-SECOND");
    cr_assert_eq(warnings(b, NULL), 0);
    char *record = only_item("share", ".objects.");
    free(record);
    ch_cache *c = open_cache("C", url, &t, 0);
    char *c1 = object_of_hit(c, K, OBJ1), *c2 = object_of_hit(c, K, OBJ2);
    cr_assert_str_eq(c1 ? c1 : "(none)", "OBJ");
    cr_assert_str_eq(c2 ? c2 : "(none)", "OBJ-SECOND");
    cr_assert_eq(stats(c).remote_rejected, 0);
    free(o1);
    free(c1);
    free(c2);
    free(entry);
    free(dir);
    ch_strbuf_free(&ar);
    ch_strvec_free(&meta);
    ch_cache_close(b);
    ch_cache_close(c);
    free(url);
    team_free(&t);
}

/* B reads K from the share: the entry is a hit, OBJ1 is refused with one warning saying why and
 * counted in remote_rejected. */
static void object_refused(const team *t, const char *url, const char *cache, const char *why)
{
    ch_cache *b = open_cache(cache, url, t, 0);
    char *o1 = object_of_hit(b, K, OBJ1);
    cr_assert_null(o1, "%s: the object is not taken", cache);
    cr_assert_eq(warnings(b, why), 1, "%s: one warning saying '%s'", cache, why);
    cr_assert_eq(stats(b).remote_rejected, 1, "%s: counted in remote_rejected", cache);
    cr_assert_eq(stats(b).remote_hits, 1, "%s: the entry itself is served", cache);
    ch_cache_close(b);
}

static void copy_file(const char *from, const char *to)
{
    char *data;
    size_t len;
    ch_error err;
    cr_assert_eq(ch_read_file(from, &data, &len, &err), 0, "%s", err.msg);
    cr_assert_eq(ch_write_file_atomic(to, data, len, 0, &err), 0, "%s", err.msg);
    free(data);
}

Test(cache_storage, an_object_swapped_from_another_entry_is_refused)
{
    team t = make_team();
    char *url = share_url("share"), *url2 = share_url("other");
    ch_cache *a = open_cache("A", url, &t, 0);
    generate(a, K);
    /* another entry, signed by the same team, with another object under the same name */
    ch_cache *x = open_cache("X", url2, &t, 0);
    ch_cache_txn *tx;
    ch_cache_hit hit;
    ch_error err;
    const char *K2 = "000000000000000000000000000f0002";
    cr_assert_eq(ch_cache_begin(x, K2, &tx, &hit, &err), 0);
    cr_assert_eq(ch_cache_put(tx, "kernel.cu", "// other\n", 9, &err), 0);
    cr_assert_eq(ch_cache_put(tx, OBJ1, "EVIL", 4, &err), 0);
    cr_assert_eq(ch_cache_commit(tx, &err), 0, "%s", err.msg);
    char *mine = only_item("share", ".o."), *theirs = only_item("other", ".o.");
    copy_file(theirs, mine);
    object_refused(&t, url, "B", "is not the one its signed record names");
    /* its record copied over this entry's: signed, but for another key */
    char *rec_mine = only_item("share", ".objects."), *rec_theirs = only_item("other", ".objects.");
    copy_file(rec_theirs, rec_mine);
    object_refused(&t, url, "C", "another entry key");
    free(mine);
    free(theirs);
    free(rec_mine);
    free(rec_theirs);
    ch_cache_close(a);
    ch_cache_close(x);
    free(url);
    free(url2);
    team_free(&t);
}

Test(cache_storage, an_unsigned_or_untrusted_object_record_is_refused)
{
    team t = make_team(), other;
    keypair("other", &other.sign_key, &other.trusted);
    char *url = share_url("share");
    ch_cache *a = open_cache("A", url, &t, 0);
    generate(a, K);
    char *record = only_item("share", ".objects.");
    char *text;
    size_t len;
    ch_error err;
    cr_assert_eq(ch_read_file(record, &text, &len, &err), 0);
    char *sig = strstr(text, "\nsig ");
    cr_assert_not_null(sig);
    sig[1] = '\0'; /* the record without its signature line */
    cr_assert_eq(ch_write_file_atomic(record, text, strlen(text), 0, &err), 0);
    free(text);
    object_refused(&t, url, "B", "object record is not signed");
    /* an untrusted writer adds an object: its record replaces the team's */
    ch_cache *m = open_cache("M", url, &other, 0);
    cr_assert_eq(lookup(m, K), 0, "M trusts only its own key: the entry is refused");
    generate(m, K);
    add_object(m, K, OBJ2, "MALLORY");
    object_refused(&t, url, "C", "a key not in trusted_keys");
    free(record);
    ch_cache_close(a);
    ch_cache_close(m);
    free(url);
    team_free(&t);
    team_free(&other);
}

Test(cache_storage, an_object_over_remote_max_size_is_counted_and_the_entry_still_served)
{
    team t = make_team();
    char *url = share_url("share");
    ch_cache *a = open_cache("A", url, &t, 0);
    generate(a, K);
    char big[4000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    add_object(a, K, OBJ2, big);
    ch_cache *b = open_cache("B", url, &t, 2000); /* the entry and record fit, OBJ2 does not */
    char *o2 = object_of_hit(b, K, OBJ2);
    cr_assert_null(o2, "the object over the limit is not taken");
    cr_assert_eq(warnings(b, "larger than remote_max_size"), 1);
    ch_cache_stats s = stats(b);
    cr_assert_eq(s.remote_too_large, 1);
    cr_assert_eq(s.remote_errors, 1);
    cr_assert_eq(s.remote_hits, 1, "the entry itself is served");
    cr_assert_eq(s.remote_rejected, 0, "a size limit is not a refusal");
    ch_cache_close(a);
    ch_cache_close(b);
    free(url);
    team_free(&t);
}

/* The file:// backend against another local user who can write the share: the item's directory
 * swapped for a link to a victim directory after the writer checked it (a step run between
 * opening that directory and creating the temp file makes the race happen every time), or
 * planted before a read. Nothing may be written or read through the link. */
typedef struct dir_swap {
    char *dir, *moved, *victim;
} dir_swap;

static void swap_dir_for_link(void *arg)
{
    const dir_swap *s = arg;
    cr_assert_eq(rename(s->dir, s->moved), 0, "%s", strerror(errno));
    cr_assert_eq(symlink(s->victim, s->dir), 0, "%s", strerror(errno));
}

static void *open_file_backend(const char *url)
{
    ch_storage_params p = {.timeout_s = 5, .max_get = 1 << 20};
    void *st;
    ch_error err;
    cr_assert_eq(ch_storage_file.open(&st, url, &p, &err), 0, "%s", err.msg);
    return st;
}

Test(cache_storage, a_share_directory_swapped_for_a_link_mid_put_writes_nothing_through_it)
{
    char *url = share_url("share");
    char *victim = ch_path_join(root, "victim");
    ch_error err;
    cr_assert_eq(ch_mkdir_p(victim, &err), 0, "%s", err.msg);
    /* overwrite 0 links the temp file into place, overwrite 1 renames it */
    const char *names[] = {"ab00000000000000000000000000e007", "cd00000000000000000000000000e008"};
    for (int overwrite = 0; overwrite < 2; overwrite++) {
        const char *name = names[overwrite];
        dir_swap s = {ch_xasprintf("%s/share/%.2s", root, name),
                      ch_xasprintf("%s/share/%.2s.moved", root, name), victim};
        cr_assert_eq(ch_mkdir_p(s.dir, &err), 0, "%s", err.msg); /* earlier items made it */
        void *st = open_file_backend(url);
        ch_storage_file_set_step(st, swap_dir_for_link, &s);
        ch_storage_fault fault = CH_STORAGE_TIMEOUT;
        err.msg[0] = '\0';
        int rc = ch_storage_file.put(st, name, "ITEM", 4, overwrite, &fault, &err);
        cr_assert_eq(files_named(victim, ""), 0,
                     "overwrite %d: nothing is written in the directory the link points to",
                     overwrite);
        cr_assert_eq(rc, -1, "overwrite %d: the put reports failure", overwrite);
        cr_assert_eq(fault, CH_STORAGE_FAILED);
        cr_assert(strstr(err.msg, "was replaced while writing"), "%s", err.msg);
        ch_storage_file.close(st);
        free(s.dir);
        free(s.moved);
    }
    free(victim);
    free(url);
}

Test(cache_storage, a_share_directory_that_is_a_link_is_never_read_or_written_through)
{
    char *url = share_url("share");
    char *victim = ch_path_join(root, "victim");
    char *link = ch_xasprintf("%s/share/ab", root);
    char *bait = ch_xasprintf("%s/00000000000000000000000000e009.char", victim);
    ch_error err;
    cr_assert_eq(ch_mkdir_p(victim, &err), 0, "%s", err.msg);
    cr_assert_eq(ch_write_file_atomic(bait, "BAIT", 4, 0, &err), 0, "%s", err.msg);
    cr_assert_eq(symlink(victim, link), 0);
    void *st = open_file_backend(url);
    ch_storage_fault fault = CH_STORAGE_TIMEOUT;
    char *out = ch_path_join(root, "got");
    int got = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
    cr_assert_eq(ch_storage_file.get(st, "ab00000000000000000000000000e009", got, &fault, &err), -1,
                 "an item behind a linked directory is not read");
    cr_assert_eq(fault, CH_STORAGE_FAILED);
    cr_assert(strstr(err.msg, "is not a directory of the share"), "%s", err.msg);
    cr_assert_eq(lseek(got, 0, SEEK_END), 0, "no byte of it was copied");
    cr_assert_eq(
        ch_storage_file.put(st, "ab00000000000000000000000000e00a", "ITEM", 4, 1, &fault, &err), -1,
        "a put through a planted link is refused");
    cr_assert(strstr(err.msg, "is not a directory of the share"), "%s", err.msg);
    cr_assert_eq(files_named(victim, ""), 1, "only the bait is in the victim directory");
    close(got);
    ch_storage_file.close(st);
    free(out);
    free(bait);
    free(link);
    free(victim);
    free(url);
}

Test(cache_storage, a_put_through_a_planted_directory_link_is_one_warning_and_a_local_entry)
{
    team t = make_team();
    char *url = share_url("share");
    char *victim = ch_path_join(root, "victim");
    char *link = ch_xasprintf("%s/share/%.2s", root, K);
    ch_error err;
    cr_assert_eq(ch_mkdir_p(victim, &err), 0, "%s", err.msg);
    cr_assert_eq(symlink(victim, link), 0);
    ch_cache *a = open_cache("A", url, &t, 0);
    generate(a, K);
    cr_assert_eq(warnings(a, NULL), 1, "one warning");
    cr_assert_eq(files_named(victim, ""), 0, "nothing written through the link");
    cr_assert_eq(lookup(a, K), 1, "the entry is kept locally all the same");
    ch_cache_close(a);
    ch_cache *b = open_cache("B", url, &t, 0);
    cr_assert_eq(lookup(b, K), 0, "a reader of the share misses");
    ch_cache_close(b);
    free(link);
    free(victim);
    free(url);
    team_free(&t);
}
