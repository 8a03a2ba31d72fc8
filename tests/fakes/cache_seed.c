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
    if (ch_config_load(&cfg, NULL, &err) != 0 || ch_cache_open(&c, &cfg, &err) != 0)
        return die("open", &err);
    if (ch_cache_begin_update(c, argv[1], &t, &err) != 0)
        return die("begin", &err);
    for (int i = 2; i < argc; i++) {
        char *arg = ch_xstrdup(argv[i]);
        char *eq = strchr(arg, '=');
        if (!eq) {
            fprintf(stderr, "cache_seed: expected NAME=VALUE: %s\n", arg);
            return 2;
        }
        *eq = '\0';
        if (strncmp(arg, "meta:", 5) == 0) {
            ch_cache_txn_meta(t, arg + 5, eq + 1);
        } else {
            char *data;
            size_t len;
            if (ch_read_file(eq + 1, &data, &len, &err) != 0 ||
                ch_cache_put(t, arg, data, len, &err) != 0)
                return die(arg, &err);
            free(data);
        }
        free(arg);
    }
    if (ch_cache_commit(t, &err) != 0)
        return die("commit", &err);
    ch_cache_close(c);
    ch_config_free(&cfg);
    return 0;
}
