/* Test double for "a teammate's GPU machine verified this entry": writes a cache entry by hand
 * through the real store, so that end-to-end tests on machines without a GPU can exercise what
 * a verified entry does to a build (emit, nvcc, ld -r, link, host dispatch).
 *   cache_seed KEY NAME=PATH... meta:NAME=VALUE...
 * NAME=PATH puts the file PATH as NAME ("kernel.cu"); meta:NAME=VALUE records meta; an entry
 * that exists is updated (its other files stay). The cache
 * directory comes from the configuration (CH_CC_CACHE_DIR). Exit 0, or 1 with a message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/cache.h"
#include "ch/config.h"
#include "ch/fsutil.h"

static int die(const char *what, const ch_error *err)
{
    fprintf(stderr, "cache_seed: %s: %s\n", what, err->msg);
    return 1;
}

/* Puts each NAME=PATH and meta:NAME=VALUE of args into t; 0, 1 with a message, or 2. */
static int put_args(ch_cache_txn *t, int argc, char **argv, ch_error *err)
{
    for (int i = 2; i < argc; i++) {
        char *arg = ch_xstrdup(argv[i]);
        char *eq = strchr(arg, '=');
        int rc = 0;
        if (eq)
            *eq = '\0';
        if (!eq) {
            fprintf(stderr, "cache_seed: expected NAME=VALUE: %s\n", arg);
            rc = 2;
        } else if (strncmp(arg, "meta:", 5) == 0) {
            ch_cache_txn_meta(t, arg + 5, eq + 1);
        } else {
            char *data = NULL;
            size_t len;
            if (ch_read_file(eq + 1, &data, &len, err) != 0 ||
                ch_cache_put(t, arg, data, len, err) != 0)
                rc = die(arg, err);
            free(data);
        }
        free(arg);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Every way out frees what it opened: LeakSanitizer (make asan) reported the configuration of
 * a run that failed (a key that is no cache key, an unreadable PATH) as leaked. */
int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: cache_seed KEY NAME=PATH... meta:NAME=VALUE...\n");
        return 2;
    }
    ch_error err;
    ch_config cfg;
    ch_cache *c = NULL;
    ch_cache_txn *t = NULL;
    if (ch_config_load(&cfg, NULL, &err) != 0)
        return die("open", &err);
    int rc;
    if (ch_cache_open(&c, &cfg, &err) != 0)
        rc = die("open", &err);
    else if (ch_cache_begin_update(c, argv[1], &t, &err) != 0)
        rc = die("begin", &err);
    else if ((rc = put_args(t, argc, argv, &err)) != 0)
        ch_cache_abort(t);
    else if (ch_cache_commit(t, &err) != 0) /* frees t, also on error */
        rc = die("commit", &err);
    if (c)
        ch_cache_close(c);
    ch_config_free(&cfg);
    return rc;
}
