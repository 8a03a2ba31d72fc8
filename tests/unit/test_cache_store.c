/* The local store: put/lookup round trip and counters, damage (truncated, bit-flipped, deleted
 * files, broken index) detected, warned once, removed and missed, LRU eviction order and the
 * rule that entries in use are never evicted, size suffixes, lock timeout and stale-lock
 * recovery, the archive's rejection of every corruption, and an unreachable remote as one
 * warning. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ch/cache.h"
#include "ch/fsutil.h"
#include "ch/lock.h"
#include "ch/remote.h"

static char *dir;

static void setup(void)
{
    ch_error err;
    dir = ch_make_temp_dir("cache-test", &err);
    cr_assert(dir, "%s", err.msg);
}

static void teardown(void)
{
    ch_error err;
    ch_remove_tree(dir, &err);
    free(dir);
}

static ch_cache *open_cache(unsigned long long max_size, double lock_timeout)
{
    ch_cache_opts o = {0};
    o.dir = dir;
    o.max_size = max_size;
    o.lock_timeout = lock_timeout;
    o.no_fsync = 1;
    ch_cache *c;
    ch_error err;
    cr_assert_eq(ch_cache_open_opts(&c, &o, &err), 0, "%s", err.msg);
    return c;
}

static void key_n(int i, char k[33])
{
    snprintf(k, 33, "%032x", 0xabc000 + i);
}

static void generate(ch_cache *c, const char *key, size_t size)
{
    ch_cache_txn *t;
    ch_cache_hit hit;
    ch_error err;
    cr_assert_eq(ch_cache_begin(c, key, &t, &hit, &err), 0, "%s", err.msg);
    char *big = ch_xmalloc(size + 1);
    memset(big, 'k', size);
    cr_assert_eq(ch_cache_put(t, "kernel.cu", big, size, &err), 0, "%s", err.msg);
    free(big);
    cr_assert_eq(ch_cache_put(t, "checklist.json", "{\"name\": \"saxpy\"}", 17, &err), 0);
    cr_assert_eq(ch_cache_put(t, "report.json", "{\"summary\": \"ok\"}", 17, &err), 0);
    cr_assert_eq(ch_cache_put(t, "objects/ffffffffffffffffffffffffffffffff.o",
                              "\x7f"
                              "ELF\0\1",
                              6, &err),
                 0);
    ch_cache_txn_meta(t, "name", "saxpy");
    ch_cache_txn_meta(t, "agent", "builtin");
    cr_assert_eq(ch_cache_commit(t, &err), 0, "%s", err.msg);
}

static ch_cache_stats stats(ch_cache *c)
{
    ch_cache_stats s;
    ch_error err;
    cr_assert_eq(ch_cache_stats_read(c, &s, &err), 0, "%s", err.msg);
    return s;
}

static size_t n_warnings(ch_cache *c, const char *must_contain)
{
    ch_strvec w;
    ch_strvec_init(&w);
    ch_cache_take_warnings(c, &w);
    size_t n = w.len;
    for (size_t i = 0; i < w.len && must_contain; i++)
        cr_expect(strstr(w.items[i], must_contain), "warning '%s' lacks '%s'", w.items[i],
                  must_contain);
    ch_strvec_free(&w);
    return n;
}

static int lookup(ch_cache *c, const char *key)
{
    ch_cache_hit hit;
    ch_error err;
    int rc = ch_cache_lookup(c, key, &hit, &err);
    cr_assert_geq(rc, 0, "%s", err.msg);
    ch_cache_hit_free(&hit);
    return rc;
}

static char *entry_file(const char *key, const char *name)
{
    return ch_xasprintf("%s/%.2s/%s/%s", dir, key, key + 2, name);
}

TestSuite(cache_store, .init = setup, .fini = teardown);

Test(cache_store, put_then_lookup_round_trip)
{
    ch_cache *c = open_cache(0, 10);
    char k[33];
    key_n(1, k);
    cr_assert_eq(lookup(c, k), 0);
    generate(c, k, 1000);
    ch_cache_hit hit;
    ch_error err;
    cr_assert_eq(ch_cache_lookup(c, k, &hit, &err), 1);
    cr_assert_eq(hit.n_files, 4);
    const ch_cache_file *f = ch_cache_hit_file(&hit, "kernel.cu");
    cr_assert(f && f->len == 1000 && f->data[999] == 'k');
    f = ch_cache_hit_file(&hit, "objects/ffffffffffffffffffffffffffffffff.o");
    cr_assert(f && f->len == 6 &&
              memcmp(f->data,
                     "\x7f"
                     "ELF\0\1",
                     6) == 0);
    cr_assert_str_eq(ch_cache_hit_meta(&hit, "agent"), "builtin");
    cr_assert_gt(hit.created, 0);
    ch_cache_hit_free(&hit);
    /* the layout of DESIGN §5 */
    char *p = entry_file(k, "checklist.json");
    cr_assert(ch_file_exists(p));
    free(p);
    /* begin on a present key hands back the entry instead of a transaction */
    ch_cache_txn *t;
    cr_assert_eq(ch_cache_begin(c, k, &t, &hit, &err), 1);
    cr_assert_null(t);
    cr_assert_eq(hit.n_files, 4);
    ch_cache_hit_free(&hit);
    ch_cache_stats s = stats(c);
    cr_assert_eq(s.lookups, 2);
    cr_assert_eq(s.hits, 1);
    cr_assert_eq(s.misses, 1);
    cr_assert_eq(s.generations, 1);
    cr_assert_eq(n_warnings(c, NULL), 0);
    ch_cache_close(c);
}

Test(cache_store, update_adds_an_object_and_abort_leaves_nothing)
{
    ch_cache *c = open_cache(0, 10);
    char k[33], k2[33];
    key_n(2, k);
    key_n(3, k2);
    generate(c, k, 10);
    /* the files already there are not written again: same inodes before and after */
    struct stat kernel_before, object_before, st;
    char *kernel = entry_file(k, "kernel.cu");
    char *object = entry_file(k, "objects/ffffffffffffffffffffffffffffffff.o");
    char *added = entry_file(k, "objects/eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee.o");
    cr_assert_eq(stat(kernel, &kernel_before), 0);
    cr_assert_eq(stat(object, &object_before), 0);
    ch_cache_txn *t;
    ch_error err;
    cr_assert_eq(ch_cache_begin_update(c, k, &t, &err), 0, "%s", err.msg);
    cr_assert_not_null(ch_cache_txn_file(t, "kernel.cu"), "an update sees the entry's files");
    cr_assert_eq(ch_cache_put(t, "objects/eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee.o", "obj2", 4, &err), 0);
    cr_assert_eq(ch_cache_put(t, "kernel.cu", "kkkkkkkkkk", 10, &err), 0, "same bytes again");
    cr_assert_eq(ch_cache_commit(t, &err), 0, "%s", err.msg);
    cr_assert_eq(stat(kernel, &st), 0);
    cr_assert_eq(st.st_ino, kernel_before.st_ino, "kernel.cu was copied again");
    cr_assert_eq(stat(object, &st), 0);
    cr_assert_eq(st.st_ino, object_before.st_ino, "the first object was copied again");
    cr_assert_eq(stat(added, &st), 0, "the added object is in the entry");
    free(kernel);
    free(object);
    free(added);
    ch_cache_hit hit;
    cr_assert_eq(ch_cache_peek(c, k, &hit, &err), 1);
    cr_assert_eq(hit.n_files, 5);
    cr_assert_str_eq(ch_cache_hit_meta(&hit, "name"), "saxpy");
    ch_cache_hit_free(&hit);
    cr_assert_eq(stats(c).generations, 1, "an update is not a generation");

    cr_assert_eq(ch_cache_begin(c, k2, &t, &hit, &err), 0);
    cr_assert_eq(ch_cache_put(t, "kernel.cu", "x", 1, &err), 0);
    ch_cache_abort(t);
    cr_assert_eq(lookup(c, k2), 0);
    cr_assert_neq(ch_cache_begin(c, "not-a-key", &t, &hit, &err), 0);
    cr_assert_eq(ch_cache_begin(c, k2, &t, &hit, &err), 0);
    cr_assert_neq(ch_cache_put(t, "../escape", "x", 1, &err), 0);
    cr_assert_neq(ch_cache_put(t, "/abs", "x", 1, &err), 0);
    cr_assert_neq(ch_cache_put(t, "index", "x", 1, &err), 0);
    ch_cache_abort(t);
    ch_cache_close(c);
}

/* Damages one entry with f, then checks: a miss, one warning naming the key, the entry gone,
 * damaged counted once, and the next lookup a plain miss without a warning. */
static void damage_case(void (*f)(const char *key))
{
    ch_cache *c = open_cache(0, 10);
    char k[33];
    key_n(7, k);
    generate(c, k, 5000);
    f(k);
    cr_assert_eq(lookup(c, k), 0, "damaged entry must be a miss");
    cr_assert_eq(n_warnings(c, k), 1, "damage reported once");
    char *p = entry_file(k, "");
    cr_assert_not(ch_is_dir(p), "damaged entry removed");
    free(p);
    cr_assert_eq(lookup(c, k), 0);
    cr_assert_eq(n_warnings(c, NULL), 0, "no second warning");
    ch_cache_stats s = stats(c);
    cr_assert_eq(s.damaged, 1);
    cr_assert_eq(s.misses, 2);
    generate(c, k, 5000); /* rebuilt */
    cr_assert_eq(lookup(c, k), 1);
    ch_cache_close(c);
}

static void do_truncate(const char *key)
{
    char *p = entry_file(key, "kernel.cu");
    cr_assert_eq(truncate(p, 100), 0);
    free(p);
}

static void do_flip(const char *key)
{
    char *p = entry_file(key, "kernel.cu");
    int fd = open(p, O_RDWR);
    char b;
    cr_assert_eq(pread(fd, &b, 1, 2500), 1);
    b ^= 0x10;
    cr_assert_eq(pwrite(fd, &b, 1, 2500), 1);
    close(fd);
    free(p);
}

static void do_delete(const char *key)
{
    char *p = entry_file(key, "objects/ffffffffffffffffffffffffffffffff.o");
    cr_assert_eq(unlink(p), 0);
    free(p);
}

static void do_delete_index(const char *key)
{
    char *p = entry_file(key, "index");
    cr_assert_eq(unlink(p), 0);
    free(p);
}

static void do_flip_index(const char *key)
{
    char *p = entry_file(key, "index");
    int fd = open(p, O_RDWR);
    char b;
    cr_assert_eq(pread(fd, &b, 1, 40), 1);
    b ^= 1;
    cr_assert_eq(pwrite(fd, &b, 1, 40), 1);
    close(fd);
    free(p);
}

/* A file grown to 1 TiB (sparse: it costs no disk): reading it whole would take the memory
 * (1 TiB): a store that reads before it compares with the index crashes or times out. */
static void do_grow_huge(const char *key)
{
    char *p = entry_file(key, "kernel.cu");
    cr_assert_eq(truncate(p, (off_t)1 << 40), 0);
    free(p);
}

static void do_grow_index_huge(const char *key)
{
    char *p = entry_file(key, "index");
    cr_assert_eq(truncate(p, (off_t)1 << 40), 0);
    free(p);
}

/* A FIFO where the entry keeps its index or a file: opening it for reading would wait for a
 * writer forever (attacks6 #25); it is damage like any other. */
static void fifo_at(const char *key, const char *name)
{
    char *p = entry_file(key, name);
    cr_assert_eq(unlink(p), 0);
    cr_assert_eq(mkfifo(p, 0644), 0);
    free(p);
}

static void do_fifo_index(const char *key)
{
    fifo_at(key, "index");
}

static void do_fifo_file(const char *key)
{
    fifo_at(key, "kernel.cu");
}

static void do_link_index(const char *key)
{
    char *p = entry_file(key, "index");
    char *q = entry_file(key, "index.real");
    cr_assert_eq(rename(p, q), 0);
    cr_assert_eq(symlink(q, p), 0);
    free(q);
    free(p);
}

Test(cache_store, damage_fifo_index_is_never_waited_on, .timeout = 20)
{
    damage_case(do_fifo_index);
}
Test(cache_store, damage_fifo_file_is_never_waited_on, .timeout = 20)
{
    damage_case(do_fifo_file);
}
Test(cache_store, damage_linked_index_is_not_followed)
{
    damage_case(do_link_index);
}

/* A FIFO at the stats file: counted from zero with one warning, and the next update replaces
 * it with a regular file. */
Test(cache_store, stats_fifo_is_rebuilt_with_one_warning, .timeout = 20)
{
    ch_cache *c = open_cache(0, 10);
    char *p = ch_path_join(dir, "stats");
    unlink(p);
    cr_assert_eq(mkfifo(p, 0644), 0);
    char k[33];
    key_n(3, k);
    cr_assert_eq(lookup(c, k), 0);
    cr_assert_eq(n_warnings(c, "statistics"), 1, "one warning");
    struct stat st;
    cr_assert_eq(lstat(p, &st), 0);
    cr_assert(S_ISREG(st.st_mode), "rebuilt as a regular file");
    cr_assert_eq(stats(c).misses, 1);
    cr_assert_eq(n_warnings(c, NULL), 0, "no second warning");
    free(p);
    ch_cache_close(c);
}

Test(cache_store, damage_huge_file_is_never_read, .timeout = 20)
{
    damage_case(do_grow_huge);
}
Test(cache_store, damage_huge_index_is_never_read, .timeout = 20)
{
    damage_case(do_grow_index_huge);
}
Test(cache_store, damage_truncated)
{
    damage_case(do_truncate);
}
Test(cache_store, damage_bit_flip)
{
    damage_case(do_flip);
}
Test(cache_store, damage_deleted_file)
{
    damage_case(do_delete);
}
Test(cache_store, damage_deleted_index)
{
    damage_case(do_delete_index);
}
Test(cache_store, damage_index_bit_flip)
{
    damage_case(do_flip_index);
}

static void pause_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

Test(cache_store, eviction_is_lru_by_last_use)
{
    ch_cache *c = open_cache(0, 10);
    char k[4][33];
    for (int i = 0; i < 4; i++) {
        key_n(10 + i, k[i]);
        generate(c, k[i], 10000);
        pause_ms(15);
    }
    /* use 0 and 1 again: 2 is now the least recently used, then 3 */
    cr_assert_eq(lookup(c, k[0]), 1);
    pause_ms(15);
    cr_assert_eq(lookup(c, k[1]), 1);
    ch_cache_info *list;
    size_t n;
    ch_error err;
    cr_assert_eq(ch_cache_list(c, &list, &n, &err), 0);
    cr_assert_eq(n, 4);
    unsigned long long each = list[0].bytes;
    cr_assert_gt(each, 10000);
    free(list);
    size_t evicted;
    cr_assert_eq(ch_cache_evict_to(c, 3 * each, &evicted, &err), 0, "%s", err.msg);
    cr_assert_eq(evicted, 1);
    cr_assert_eq(lookup(c, k[2]), 0, "least recently used evicted first");
    cr_assert_eq(ch_cache_evict_to(c, 2 * each, &evicted, &err), 0);
    cr_assert_eq(evicted, 1);
    cr_assert_eq(lookup(c, k[3]), 0);
    cr_assert_eq(lookup(c, k[0]), 1);
    cr_assert_eq(lookup(c, k[1]), 1);
    cr_assert_eq(stats(c).evictions, 2);
    ch_cache_close(c);
}

Test(cache_store, commit_applies_the_size_limit)
{
    ch_cache *c = open_cache(25000, 10);
    char k[3][33];
    for (int i = 0; i < 3; i++) {
        key_n(20 + i, k[i]);
        generate(c, k[i], 10000);
        pause_ms(15);
    }
    cr_assert_eq(lookup(c, k[0]), 0, "oldest evicted when the third entry exceeded max_size");
    cr_assert_eq(lookup(c, k[1]), 1);
    cr_assert_eq(lookup(c, k[2]), 1);
    cr_assert_eq(stats(c).evictions, 1);
    ch_cache_close(c);
}

Test(cache_store, entries_in_use_are_never_evicted)
{
    ch_cache *c = open_cache(0, 10);
    char a[33], b[33];
    key_n(30, a);
    key_n(31, b);
    generate(c, a, 100);
    generate(c, b, 100);
    ch_cache_txn *t; /* a writer holds a's lock (as does a reader, shared) */
    ch_error err;
    cr_assert_eq(ch_cache_begin_update(c, a, &t, &err), 0);
    size_t evicted, removed;
    cr_assert_eq(ch_cache_evict_to(c, 0, &evicted, &err), 0);
    cr_assert_eq(evicted, 1);
    cr_assert_eq(ch_cache_clean(c, &removed, &err), 0);
    cr_assert_eq(removed, 0);
    cr_assert_eq(ch_cache_commit(t, &err), 0);
    cr_assert_eq(lookup(c, a), 1, "the entry being written survived");
    cr_assert_eq(lookup(c, b), 0);
    cr_assert_eq(ch_cache_clean(c, &removed, &err), 0);
    cr_assert_eq(removed, 1);
    cr_assert_eq(lookup(c, a), 0);
    ch_cache_close(c);
}

Test(cache_store, size_suffixes_from_the_configuration)
{
    static const struct {
        const char *text;
        unsigned long long bytes;
    } cases[] = {{"0", 0},           {"512", 512},   {"10K", 10240},      {"5M", 5ull << 20},
                 {"2G", 2ull << 30}, {"1.5K", 1536}, {"3MiB", 3ull << 20}};
    setenv("CH_CC_CACHE_DIR", dir, 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ch_config cfg;
        ch_error err;
        cr_assert_eq(ch_config_load(&cfg, dir, &err), 0, "%s", err.msg);
        ch_config_set(&cfg, "max_size", cases[i].text, CH_CFG_CMDLINE, &err);
        ch_config_set(&cfg, "remote", "", CH_CFG_CMDLINE, &err);
        ch_cache *c;
        cr_assert_eq(ch_cache_open(&c, &cfg, &err), 0, "%s", err.msg);
        cr_expect_eq(ch_cache_max_size(c), cases[i].bytes, "%s", cases[i].text);
        ch_cache_close(c);
        ch_config_free(&cfg);
    }
    ch_config cfg;
    ch_error err;
    cr_assert_eq(ch_config_load(&cfg, dir, &err), 0);
    ch_config_set(&cfg, "max_size", "5X", CH_CFG_CMDLINE, &err);
    ch_cache *c;
    cr_assert_neq(ch_cache_open(&c, &cfg, &err), 0, "bad suffix rejected");
    cr_assert(strstr(err.msg, "max_size"), "%s", err.msg);
    ch_config_free(&cfg);
}

/* A lock released while a process forked meanwhile (which never execs: O_CLOEXEC closes
 * nothing) still holds a copy of its descriptor is free for everyone at once, not when that
 * process ends: sandboxed runs started by other threads fork such helpers. */
Test(cache_store, a_released_lock_is_free_though_a_forked_child_holds_its_descriptor)
{
    char *path = ch_path_join(dir, "held.lock");
    ch_lock l;
    ch_error err;
    cr_assert_eq(ch_lock_acquire(path, 1, 1.0, &l, &err), 0, "%s", err.msg);
    int p[2];
    cr_assert_eq(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) { /* holds the copy until the parent says it is done */
        close(p[1]);
        char c;
        ssize_t n = read(p[0], &c, 1);
        _exit(n < 0);
    }
    close(p[0]);
    ch_lock_release(&l);
    int fd = open(path, O_RDWR);
    cr_assert_geq(fd, 0);
    int free_now = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    close(p[1]);
    waitpid(pid, NULL, 0);
    cr_assert(free_now, "the lock stayed held by the forked child's copy of the descriptor");
    free(path);
}

Test(cache_store, lock_timeout_and_stale_lock_recovery)
{
    char k[33];
    key_n(40, k);
    int p[2];
    cr_assert_eq(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) { /* a generator that holds the lock and then dies without committing */
        ch_cache *c = open_cache(0, 10);
        ch_cache_txn *t;
        ch_cache_hit hit;
        ch_error err;
        if (ch_cache_begin(c, k, &t, &hit, &err) != 0)
            _exit(1);
        ch_cache_put(t, "kernel.cu", "partial", 7, &err);
        if (write(p[1], "x", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char b;
    cr_assert_eq(read(p[0], &b, 1), 1);
    ch_cache *c = open_cache(0, 0.3);
    ch_cache_txn *t;
    ch_cache_hit hit;
    ch_error err;
    cr_assert_eq(ch_cache_begin(c, k, &t, &hit, &err), -1, "the live holder keeps the lock");
    cr_assert(strstr(err.msg, "timed out"), "%s", err.msg);
    char pidtxt[32];
    snprintf(pidtxt, sizeof pidtxt, "pid %ld", (long)pid);
    cr_assert(strstr(err.msg, pidtxt), "names the holder: %s", err.msg);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    cr_assert_eq(lookup(c, k), 0, "a dead writer's partial files are not visible");
    cr_assert_eq(ch_cache_begin(c, k, &t, &hit, &err), 0, "stale lock recovered: %s", err.msg);
    cr_assert_eq(ch_cache_put(t, "kernel.cu", "whole", 5, &err), 0);
    cr_assert_eq(ch_cache_commit(t, &err), 0);
    char *cmd = ch_xasprintf("test -z \"$(ls %s/tmp)\"", dir);
    cr_assert_eq(system(cmd), 0, "the dead writer's temp directory was removed");
    free(cmd);
    cr_assert_eq(lookup(c, k), 1);
    ch_cache_close(c);
}

Test(cache_store, archive_rejects_every_corruption)
{
    ch_cache_file files[2] = {{"kernel.cu", (unsigned char *)"__global__ void k(){}", 21},
                              {"objects/a.o", (unsigned char *)"\0\1\2\3", 4}};
    ch_strvec meta;
    ch_strvec_init(&meta);
    ch_strvec_push(&meta, "agent=builtin");
    const char *key = "00000000000000000000000000abc001";
    ch_strbuf ar;
    ch_strbuf_init(&ar);
    ch_archive_pack(key, files, 2, &meta, 1700000000, &ar);
    ch_cache_hit hit;
    ch_error err;
    cr_assert_eq(ch_archive_unpack(key, ar.data, ar.len, &hit, &err), 0, "%s", err.msg);
    cr_assert_eq(hit.n_files, 2);
    cr_assert_eq(hit.files[1].len, 4);
    cr_assert_eq(memcmp(hit.files[1].data, "\0\1\2\3", 4), 0);
    cr_assert_str_eq(ch_cache_hit_meta(&hit, "agent"), "builtin");
    cr_assert_eq(hit.created, 1700000000);
    ch_cache_hit_free(&hit);
    cr_assert_neq(
        ch_archive_unpack("00000000000000000000000000abc002", ar.data, ar.len, &hit, &err), 0,
        "another key's archive");
    for (size_t cut = 0; cut < ar.len; cut++)
        cr_assert_neq(ch_archive_unpack(key, ar.data, cut, &hit, &err), 0, "truncated at %zu", cut);
    for (size_t i = 0; i < ar.len; i++) {
        ar.data[i] ^= 0x04;
        cr_assert_neq(ch_archive_unpack(key, ar.data, ar.len, &hit, &err), 0,
                      "bit flip at %zu accepted", i);
        ar.data[i] ^= 0x04;
    }
    ch_strbuf_addc(&ar, 'x');
    cr_assert_neq(ch_archive_unpack(key, ar.data, ar.len, &hit, &err), 0, "trailing garbage");
    cr_assert_neq(ch_archive_unpack(key, "<html>500</html>", 16, &hit, &err), 0);
    ch_strbuf_free(&ar);
    ch_strvec_free(&meta);
}

Test(cache_store, unreachable_remote_is_one_warning)
{
    ch_cache_opts o = {0};
    o.dir = dir;
    o.lock_timeout = 10;
    o.no_fsync = 1;
    o.remote = "http://127.0.0.1:1/cache/"; /* nothing listens on port 1 */
    o.remote_token = "SECRET-TOKEN-123";
    o.remote_timeout = 2;
    /* reads are tried only with a trusted key (any key: nothing answers) */
    o.trusted_keys = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    ch_cache *c;
    ch_error err;
    cr_assert_eq(ch_cache_open_opts(&c, &o, &err), 0, "%s", err.msg);
    char k[33];
    key_n(50, k);
    cr_assert_eq(lookup(c, k), 0);
    cr_assert_eq(lookup(c, k), 0);
    generate(c, k, 10); /* write-back skipped after the failure: the build goes on */
    cr_assert_eq(lookup(c, k), 1);
    ch_strvec w;
    ch_strvec_init(&w);
    ch_cache_take_warnings(c, &w);
    cr_assert_eq(w.len, 1, "one warning per build");
    cr_assert(strstr(w.items[0], "127.0.0.1:1"), "%s", w.items[0]);
    cr_assert_null(strstr(w.items[0], "SECRET"), "token leaked: %s", w.items[0]);
    ch_strvec_free(&w);
    ch_cache_stats s = stats(c);
    cr_assert_eq(s.remote_errors, 1);
    cr_assert_eq(s.remote_unreachable, 1, "counted as unreachable");
    cr_assert_eq(s.hits, 1);
    cr_assert_eq(s.misses, 2);
    ch_cache_close(c);
}
