/* Test driver of the cache API (tests/integration/cache_*.t, bench/cache.sh). Subcommands:
 *   put KEY [VERSION]      generate KEY through begin/put/commit (config from the environment)
 *   get KEY [FILE]         lookup; prints "hit"/"miss" (and FILE's bytes); exit 0 hit, 1 miss
 *   script STEP...         one build: get:KEY put:KEY touch:FILE wait:FILE on one handle;
 *                          add:KEY adds a second object to KEY's entry (an update)
 *   key                    the entry key of a fixed entry
 *   torture DIR P OPS K    P processes x OPS random operations on K keys; checks counters/entries
 *   once DIR N             N processes race to generate one missing key; exactly one may
 *   crash DIR ITERS        writers SIGKILLed at random points; no partial entry, locks recovered
 *   bench DIR              key throughput and local hit latency
 * Warnings of the store go to stderr as "warning: ..."; failures print "FAIL: ..." and exit 3. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ch/cache.h"
#include "ch/fsutil.h"

/* the object every generated entry has, and the one add:KEY adds */
#define OBJECT       "objects/0123456789abcdef0123456789abcdef.o"
#define ADDED_OBJECT "objects/fedcba9876543210fedcba9876543210.o"

static int fail(const char *fmt, const char *a)
{
    fprintf(stderr, "FAIL: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n");
    exit(3);
}

static void print_warnings(ch_cache *c)
{
    ch_strvec w;
    ch_strvec_init(&w);
    ch_cache_take_warnings(c, &w);
    for (size_t i = 0; i < w.len; i++)
        fprintf(stderr, "warning: %s\n", w.items[i]);
    ch_strvec_free(&w);
}

static ch_cache *open_env(void)
{
    ch_config cfg;
    ch_error err;
    ch_cache *c;
    if (ch_config_load(&cfg, NULL, &err) != 0 || ch_cache_open(&c, &cfg, &err) != 0)
        fail("open: %s", err.msg);
    ch_config_free(&cfg);
    return c;
}

static ch_cache *open_dir(const char *dir, unsigned long long max_size)
{
    ch_cache_opts o = {0};
    o.dir = dir;
    o.max_size = max_size;
    o.lock_timeout = 60;
    o.no_fsync = 1;
    ch_cache *c;
    ch_error err;
    if (ch_cache_open_opts(&c, &o, &err) != 0)
        fail("open: %s", err.msg);
    return c;
}

/* The files of version v of key: every file names key and v, so a mixed entry is detected. */
static int put_files(ch_cache_txn *t, const char *key, unsigned v, unsigned size)
{
    ch_error err;
    ch_strbuf b;
    ch_strbuf_init(&b);
    ch_strbuf_addf(&b, "// key=%s v=%u\n", key, v);
    for (unsigned i = 0; i < size; i++)
        ch_strbuf_addc(&b, (char)('a' + (v + i) % 26));
    ch_strbuf_addc(&b, '\n');
    int rc = ch_cache_put(t, "kernel.cu", b.data, b.len, &err);
    ch_strbuf_reset(&b);
    ch_strbuf_addf(&b, "{\"name\": \"k%.4s\", \"v\": %u}\n", key, v);
    rc = rc || ch_cache_put(t, "checklist.json", b.data, b.len, &err);
    ch_strbuf_reset(&b);
    ch_strbuf_addf(&b, "{\"summary\": \"passed stages 0-5\", \"v\": %u}\n", v);
    rc = rc || ch_cache_put(t, "report.json", b.data, b.len, &err);
    ch_strbuf_reset(&b);
    ch_strbuf_addf(&b, "OBJ key=%s v=%u\n", key, v);
    rc = rc || ch_cache_put(t, OBJECT, b.data, b.len, &err);
    ch_cache_txn_meta(t, "kind", "c-def");
    ch_cache_txn_meta(t, "name", "saxpy");
    ch_cache_txn_meta(t, "agent", "builtin");
    ch_strbuf_free(&b);
    if (rc)
        fprintf(stderr, "put: %s\n", err.msg);
    return rc;
}

/* Checks that a hit is one complete version of key. A hit read through a remote may lack its
 * objects (refused: they are compiled again); none is ever mixed in from another version. */
static void check_hit(const ch_cache_hit *h, const char *key)
{
    const ch_cache_file *k = ch_cache_hit_file(h, "kernel.cu");
    const ch_cache_file *r = ch_cache_hit_file(h, "report.json");
    const ch_cache_file *o = ch_cache_hit_file(h, OBJECT);
    const ch_cache_file *c = ch_cache_hit_file(h, "checklist.json");
    size_t objects = (o != NULL) + (ch_cache_hit_file(h, ADDED_OBJECT) != NULL);
    if (!k || !r || !c || h->n_files != 3 + objects || (!o && !h->from_remote))
        fail("entry %s lacks files", key);
    unsigned v1, v2, v3;
    char kk[33], ko[33];
    if (sscanf((const char *)k->data, "// key=%32s v=%u", kk, &v1) != 2 ||
        (o && sscanf((const char *)o->data, "OBJ key=%32s v=%u", ko, &v2) != 2) ||
        !strstr((const char *)r->data, "\"v\": ") ||
        sscanf(strstr((const char *)r->data, "\"v\": ") + 5, "%u", &v3) != 1)
        fail("entry %s has unreadable files", key);
    if (strcmp(kk, key) || (o && (strcmp(ko, key) || v1 != v2)) || v1 != v3)
        fail("entry %s mixes versions", key);
}

static void make_key(unsigned i, char out[33])
{
    snprintf(out, 33, "%08x%024x", 0xc0ffee00u + i, i);
}

static void do_put(ch_cache *c, const char *key, unsigned v)
{
    ch_cache_txn *t;
    ch_cache_hit hit;
    ch_error err;
    int rc = ch_cache_begin(c, key, &t, &hit, &err);
    if (rc < 0)
        fail("begin: %s", err.msg);
    if (rc == 1) {
        printf("existing\n");
        ch_cache_hit_free(&hit);
    } else {
        if (put_files(t, key, v, 1000) != 0)
            fail("%s", "put");
        if (ch_cache_commit(t, &err) != 0)
            fail("commit: %s", err.msg);
        printf("generated\n");
    }
}

static int do_get(ch_cache *c, const char *key, const char *file)
{
    ch_cache_hit hit;
    ch_error err;
    int rc = ch_cache_lookup(c, key, &hit, &err);
    if (rc < 0)
        fail("lookup: %s", err.msg);
    printf("%s\n", rc ? "hit" : "miss");
    if (rc) {
        check_hit(&hit, key);
        const ch_cache_file *f = file ? ch_cache_hit_file(&hit, file) : NULL;
        if (f)
            fwrite(f->data, 1, f->len, stdout);
    }
    ch_cache_hit_free(&hit);
    return rc ? 0 : 1;
}

static int cmd_put(const char *key, unsigned v)
{
    ch_cache *c = open_env();
    do_put(c, key, v);
    print_warnings(c);
    ch_cache_close(c);
    return 0;
}

static int cmd_get(const char *key, const char *file)
{
    ch_cache *c = open_env();
    int rc = do_get(c, key, file);
    print_warnings(c);
    ch_cache_close(c);
    return rc;
}

/* Adds a second object to key's entry through an update (a build for another flag set). */
static void do_add(ch_cache *c, const char *key)
{
    ch_cache_txn *t;
    ch_error err;
    if (ch_cache_begin_update(c, key, &t, &err) != 0)
        fail("begin_update: %s", err.msg);
    ch_strbuf b;
    ch_strbuf_init(&b);
    ch_strbuf_addf(&b, "OBJ2 key=%s\n", key);
    if (ch_cache_put(t, ADDED_OBJECT, b.data, b.len, &err) != 0)
        fail("put: %s", err.msg);
    ch_strbuf_free(&b);
    if (ch_cache_commit(t, &err) != 0)
        fail("commit: %s", err.msg);
    printf("added\n");
}

/* One "build": get:KEY, put:KEY, add:KEY, touch:FILE, wait:FILE steps on one handle. */
static int cmd_script(int n, char **steps)
{
    ch_cache *c = open_env();
    for (int i = 0; i < n; i++) {
        const char *arg = strchr(steps[i], ':') ? strchr(steps[i], ':') + 1 : "";
        if (strncmp(steps[i], "get:", 4) == 0) {
            do_get(c, arg, NULL);
        } else if (strncmp(steps[i], "put:", 4) == 0) {
            do_put(c, arg, 1);
        } else if (strncmp(steps[i], "add:", 4) == 0) {
            do_add(c, arg);
        } else if (strncmp(steps[i], "touch:", 6) == 0) {
            ch_error err;
            ch_write_file_atomic(arg, "", 0, 0, &err);
        } else if (strncmp(steps[i], "wait:", 5) == 0) {
            for (int k = 0; k < 3000 && !ch_file_exists(arg); k++)
                usleep(10000);
        }
        fflush(stdout);
    }
    print_warnings(c);
    ch_cache_close(c);
    return 0;
}

static void fixed_entry(ch_entry *e, char *body)
{
    memset(e, 0, sizeof *e);
    e->kind = CH_KIND_C_DEF;
    e->spec = "y = a*x + y";
    e->clauses_text = "tune(n = 1 << 20)";
    e->signature = "void saxpy(int n, float a, const float *x, float *y)";
    e->body_tokens = body;
}

static int cmd_key(void)
{
    char body[] = "{ for ( int i = 0 ; i < n ; i ++ ) y [ i ] = a * x [ i ] + y [ i ] ; }";
    ch_entry e;
    fixed_entry(&e, body);
    char *archs[] = {"sm_90", "sm_80", NULL};
    char key[33];
    ch_cache_key(&e, archs, key);
    printf("%s\n", key);
    return 0;
}

/* tallies a child reports to the parent: lookups hits misses generations evictions */
typedef struct tally {
    unsigned long long n[5];
} tally;

static void torture_child(const char *dir, unsigned seed, int ops, int nkeys, int fd)
{
    ch_cache *c = open_dir(dir, 0);
    srand(seed);
    tally t = {{0}};
    ch_error err;
    for (int i = 0; i < ops; i++) {
        char key[33];
        make_key((unsigned)(rand() % nkeys), key);
        int op = rand() % 100;
        ch_cache_hit hit;
        ch_cache_txn *txn;
        if (op < 40) {
            int rc = ch_cache_lookup(c, key, &hit, &err);
            if (rc < 0)
                fail("lookup: %s", err.msg);
            t.n[0]++;
            t.n[rc ? 1 : 2]++;
            if (rc)
                check_hit(&hit, key);
            ch_cache_hit_free(&hit);
        } else if (op < 65) {
            int rc = ch_cache_begin(c, key, &txn, &hit, &err);
            if (rc < 0)
                fail("begin: %s", err.msg);
            if (rc == 1) {
                check_hit(&hit, key);
                ch_cache_hit_free(&hit);
            } else if (put_files(txn, key, (unsigned)rand(), (unsigned)(rand() % 4000)) != 0) {
                fail("%s", "put");
            } else if (rand() % 10 == 0) {
                ch_cache_abort(txn);
            } else {
                if (ch_cache_commit(txn, &err) != 0)
                    fail("commit: %s", err.msg);
                t.n[3]++;
            }
        } else if (op < 85) {
            if (ch_cache_begin_update(c, key, &txn, &err) != 0)
                fail("begin_update: %s", err.msg);
            if (put_files(txn, key, (unsigned)rand(), (unsigned)(rand() % 4000)) != 0)
                fail("%s", "put");
            if (ch_cache_commit(txn, &err) != 0)
                fail("commit: %s", err.msg);
            /* an update (a new object for an entry) is not a generation */
        } else {
            size_t n;
            if (ch_cache_evict_to(c, (unsigned long long)(rand() % 20000), &n, &err) != 0)
                fail("evict: %s", err.msg);
            t.n[4] += n;
        }
    }
    ch_strvec w;
    ch_strvec_init(&w);
    ch_cache_take_warnings(c, &w);
    if (w.len)
        fail("unexpected warning: %s", w.items[0]);
    ch_strvec_free(&w);
    ch_cache_close(c);
    if (write(fd, &t, sizeof t) != (ssize_t)sizeof t)
        exit(4);
}

static int wait_all(int n)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int st;
        if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            bad++;
    }
    return bad;
}

/* Every visible entry must be complete and checksum-valid. Returns the count. */
static size_t verify_all(ch_cache *c)
{
    ch_cache_info *list;
    size_t n;
    ch_error err;
    if (ch_cache_list(c, &list, &n, &err) != 0)
        fail("list: %s", err.msg);
    for (size_t i = 0; i < n; i++) {
        ch_cache_hit hit;
        if (ch_cache_peek(c, list[i].key, &hit, &err) != 1)
            fail("entry invalid: %s", err.msg);
        check_hit(&hit, list[i].key);
        ch_cache_hit_free(&hit);
    }
    free(list);
    return n;
}

static int cmd_torture(const char *dir, int procs, int ops, int nkeys)
{
    int p[2];
    if (pipe(p) != 0)
        fail("%s", "pipe");
    for (int i = 0; i < procs; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            close(p[0]);
            torture_child(dir, 1000u + (unsigned)i * 7919u + (unsigned)time(NULL), ops, nkeys,
                          p[1]);
            _exit(0);
        }
    }
    close(p[1]);
    tally sum = {{0}}, t;
    int got = 0;
    while (read(p[0], &t, sizeof t) == (ssize_t)sizeof t) {
        for (int k = 0; k < 5; k++)
            sum.n[k] += t.n[k];
        got++;
    }
    if (wait_all(procs) != 0 || got != procs)
        fail("%s", "a torture process failed");
    ch_cache *c = open_dir(dir, 0);
    ch_cache_stats s;
    ch_error err;
    if (ch_cache_stats_read(c, &s, &err) != 0)
        fail("stats: %s", err.msg);
    size_t entries = verify_all(c);
    unsigned long long want[] = {sum.n[0], sum.n[1], sum.n[2], sum.n[3], sum.n[4], 0};
    unsigned long long have[] = {s.lookups,     s.hits,      s.misses,
                                 s.generations, s.evictions, s.damaged};
    const char *names[] = {"lookups", "hits", "misses", "generations", "evictions", "damaged"};
    int bad = 0;
    for (int k = 0; k < 6; k++) {
        printf("%-12s counted %llu done %llu\n", names[k], have[k], want[k]);
        bad |= have[k] != want[k];
    }
    printf("entries %zu\n", entries);
    ch_cache_close(c);
    if (bad)
        fail("%s", "counters differ from the operations done");
    return 0;
}

static int cmd_once(const char *dir, int n)
{
    char key[33];
    make_key(999, key);
    int go[2], res[2];
    if (pipe(go) != 0 || pipe(res) != 0)
        fail("%s", "pipe");
    for (int i = 0; i < n; i++) {
        if (fork() == 0) {
            close(go[1]);
            char b;
            if (read(go[0], &b, 1) != 0) /* released when the parent closes the pipe */
                _exit(5);
            ch_cache *c = open_dir(dir, 0);
            ch_cache_hit hit;
            ch_cache_txn *t;
            ch_error err;
            char outcome = 'h';
            int rc = ch_cache_lookup(c, key, &hit, &err);
            if (rc == 0) {
                rc = ch_cache_begin(c, key, &t, &hit, &err);
                if (rc < 0)
                    fail("begin: %s", err.msg);
                if (rc == 0) {
                    usleep(100000); /* generation takes a while: everyone else waits */
                    if (put_files(t, key, 1, 100) || ch_cache_commit(t, &err))
                        fail("%s", "generate");
                    outcome = 'g';
                } else {
                    outcome = 'w';
                }
            }
            if (outcome != 'g')
                check_hit(&hit, key);
            ch_cache_hit_free(&hit);
            ch_cache_close(c);
            if (write(res[1], &outcome, 1) != 1)
                _exit(4);
            _exit(0);
        }
    }
    close(go[0]);
    close(go[1]);
    close(res[1]);
    int g = 0, w = 0, h = 0;
    char o;
    while (read(res[0], &o, 1) == 1)
        o == 'g' ? g++ : o == 'w' ? w++ : h++;
    if (wait_all(n))
        fail("%s", "a racing process failed");
    ch_cache *c = open_dir(dir, 0);
    ch_cache_stats s;
    ch_error err;
    ch_cache_stats_read(c, &s, &err);
    printf("generated %d waited %d hit %d generations %llu\n", g, w, h, s.generations);
    verify_all(c);
    ch_cache_close(c);
    if (g != 1 || s.generations != 1 || g + w + h != n)
        fail("%s", "not exactly one generation");
    return 0;
}

static int count_temps(const char *dir, const char *key)
{
    char *cmd = ch_xasprintf("ls -1 %s/tmp | grep -c '^%s\\.' > %s/tmp-count", dir, key, dir);
    int n = 0;
    if (system(cmd) >= 0) {
        char *p = ch_xasprintf("%s/tmp-count", dir), *text;
        ch_error err;
        if (ch_read_file(p, &text, NULL, &err) == 0) {
            n = atoi(text);
            free(text);
        }
        unlink(p);
        free(p);
    }
    free(cmd);
    return n;
}

static int cmd_crash(const char *dir, int iters)
{
    char key[33];
    make_key(4242, key);
    srand((unsigned)time(NULL));
    int killed_visible = 0, complete = 0, absent = 0;
    for (int i = 0; i < iters; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            ch_cache *c = open_dir(dir, 0);
            ch_cache_txn *t;
            ch_error err;
            if (ch_cache_begin_update(c, key, &t, &err) != 0)
                _exit(6);
            for (unsigned v = 0; v < 3; v++)
                put_files(t, key, (unsigned)i, 20000);
            ch_cache_commit(t, &err);
            ch_cache_close(c);
            _exit(0);
        }
        usleep((useconds_t)(rand() % 8000));
        kill(pid, SIGKILL);
        int st;
        waitpid(pid, &st, 0);
        killed_visible += WIFSIGNALED(st);
        ch_cache *c = open_dir(dir, 0);
        ch_cache_hit hit;
        ch_error err;
        int rc = ch_cache_peek(c, key, &hit, &err);
        if (rc < 0)
            fail("partial entry visible after SIGKILL: %s", err.msg);
        if (rc == 1) {
            check_hit(&hit, key);
            complete++;
        } else if (complete) {
            fail("%s", "a replaced entry vanished after SIGKILL");
        } else {
            absent++;
        }
        ch_cache_hit_free(&hit);
        ch_cache_close(c);
    }
    /* the dead writers' locks are free and their temp directories are removed by the next one */
    ch_cache_opts o = {0};
    o.dir = dir;
    o.lock_timeout = 2;
    o.no_fsync = 1;
    ch_cache *c;
    ch_error err;
    if (ch_cache_open_opts(&c, &o, &err) != 0)
        fail("open: %s", err.msg);
    ch_cache_txn *t;
    if (ch_cache_begin_update(c, key, &t, &err) != 0)
        fail("stale lock not recovered: %s", err.msg);
    if (put_files(t, key, 7, 10) || ch_cache_commit(t, &err))
        fail("%s", "final commit");
    int temps = count_temps(dir, key);
    verify_all(c);
    ch_cache_close(c);
    printf("killed %d complete %d absent %d leftover_temps %d\n", killed_visible, complete, absent,
           temps);
    if (temps)
        fail("%s", "temp directories of dead writers left behind");
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmd_bench(const char *dir)
{
    size_t len = 64u << 20;
    char *body = ch_xmalloc(len + 1);
    for (size_t i = 0; i < len; i++)
        body[i] = "abc ( ) + ; 1 x [ i ] "[i % 22];
    body[len] = '\0';
    ch_entry e;
    fixed_entry(&e, body);
    char key[33];
    double t0 = now_s();
    int reps = 4;
    for (int i = 0; i < reps; i++)
        ch_cache_key(&e, NULL, key);
    double dt = now_s() - t0;
    printf("key_throughput_MBps %.0f\n", (double)len * reps / dt / 1e6);
    free(body);

    ch_cache *c = open_dir(dir, 0);
    make_key(1, key);
    ch_cache_txn *t;
    ch_cache_hit hit;
    ch_error err;
    if (ch_cache_begin(c, key, &t, &hit, &err) == 0) {
        put_files(t, key, 1, 20000);
        ch_cache_commit(t, &err);
    } else {
        ch_cache_hit_free(&hit);
    }
    enum { N = 301 };
    double lat[N];
    for (int i = 0; i < N; i++) {
        double a = now_s();
        if (ch_cache_lookup(c, key, &hit, &err) != 1)
            fail("%s", "bench lookup missed");
        lat[i] = (now_s() - a) * 1e6;
        ch_cache_hit_free(&hit);
    }
    qsort(lat, N, sizeof lat[0], cmp_double);
    printf("local_hit_us_median %.1f\n", lat[N / 2]);
    ch_cache_close(c);

    /* remote hit: a fresh, empty cache each time reads the entry through from CH_CC_REMOTE */
    const char *remote = getenv("CH_CC_REMOTE");
    if (!remote || !*remote)
        return 0;
    ch_cache_opts o = {0};
    o.lock_timeout = 10;
    o.no_fsync = 1;
    o.remote = remote;
    o.remote_timeout = 10;
    o.sign_key = getenv("CH_CC_SIGN_KEY");
    o.trusted_keys = getenv("CH_CC_TRUSTED_KEYS");
    char *src = ch_xasprintf("%s/remote-src", dir);
    o.dir = src;
    if (ch_cache_open_opts(&c, &o, &err) != 0)
        fail("open: %s", err.msg);
    if (ch_cache_begin(c, key, &t, &hit, &err) == 0) {
        put_files(t, key, 1, 20000);
        ch_cache_commit(t, &err);
    } else {
        ch_cache_hit_free(&hit);
    }
    ch_cache_close(c);
    enum { R = 51 };
    double rl[R];
    for (int i = 0; i < R; i++) {
        char *d = ch_xasprintf("%s/remote-%d", dir, i);
        o.dir = d;
        if (ch_cache_open_opts(&c, &o, &err) != 0)
            fail("open: %s", err.msg);
        double a = now_s();
        if (ch_cache_lookup(c, key, &hit, &err) != 1 || !hit.from_remote)
            fail("%s", "bench remote lookup missed");
        rl[i] = (now_s() - a) * 1e6;
        ch_cache_hit_free(&hit);
        ch_cache_close(c);
        free(d);
    }
    free(src);
    qsort(rl, R, sizeof rl[0], cmp_double);
    printf("remote_hit_us_median %.1f\n", rl[R / 2]);
    return 0;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "put") == 0 && argc >= 3)
        return cmd_put(argv[2], argc > 3 ? (unsigned)atoi(argv[3]) : 1);
    if (strcmp(cmd, "get") == 0 && argc >= 3)
        return cmd_get(argv[2], argc > 3 ? argv[3] : NULL);
    if (strcmp(cmd, "script") == 0)
        return cmd_script(argc - 2, argv + 2);
    if (strcmp(cmd, "key") == 0)
        return cmd_key();
    if (strcmp(cmd, "torture") == 0 && argc == 6)
        return cmd_torture(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    if (strcmp(cmd, "once") == 0 && argc == 4)
        return cmd_once(argv[2], atoi(argv[3]));
    if (strcmp(cmd, "crash") == 0 && argc == 4)
        return cmd_crash(argv[2], atoi(argv[3]));
    if (strcmp(cmd, "bench") == 0 && argc == 3)
        return cmd_bench(argv[2]);
    fprintf(stderr, "usage: cache_torture put|get|key|torture|once|crash|bench ...\n");
    return 2;
}
