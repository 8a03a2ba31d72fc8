/* An attacker's tool for the remote-trust tests: rewrites a remote archive of the cache.
 *   remote_forge IN OUT KEY_IN KEY_OUT MODE [NAME=PATH]...
 * reads the archive IN of KEY_IN, replaces each named file with PATH's bytes, and writes a
 * well-formed archive of KEY_OUT (checksums recomputed, so only the signature can tell) to OUT.
 * MODE: keep      the original signature stays (files swapped / key re-labelled after signing)
 *       strip     no signature, a "verified" meta line added (an unsigned entry claiming trust)
 *       SKFILE    signed anew with that secret key after the swaps (an untrusted writer) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cache/sign.h"
#include "ch/fsutil.h"
#include "ch/remote.h"

static int die(const char *what, const char *msg)
{
    fprintf(stderr, "remote_forge: %s: %s\n", what, msg);
    return 2;
}

static void drop_sig(ch_strvec *meta)
{
    ch_strvec kept;
    ch_strvec_init(&kept);
    for (size_t i = 0; i < meta->len; i++)
        if (strncmp(meta->items[i], CH_SIGN_META, strlen(CH_SIGN_META)) != 0)
            ch_strvec_push(&kept, meta->items[i]);
    ch_strvec_free(meta);
    *meta = kept;
}

static int swap_file(ch_cache_hit *hit, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (!eq)
        return -1;
    char *name = ch_xstrndup(spec, (size_t)(eq - spec));
    ch_cache_file *f = (ch_cache_file *)ch_cache_hit_file(hit, name);
    free(name);
    char *data;
    size_t len;
    ch_error err;
    if (!f || ch_read_file(eq + 1, &data, &len, &err) != 0)
        return -1;
    free(f->data);
    f->data = (unsigned char *)data;
    f->len = len;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 6)
        return die("usage", "remote_forge IN OUT KEY_IN KEY_OUT keep|strip|SKFILE [NAME=PATH]...");
    const char *mode = argv[5];
    char *body;
    size_t len;
    ch_error err;
    ch_cache_hit hit;
    if (ch_read_file(argv[1], &body, &len, &err) != 0 ||
        ch_archive_unpack(argv[3], body, len, &hit, &err) != 0)
        return die(argv[1], err.msg);
    free(body);
    for (int i = 6; i < argc; i++)
        if (swap_file(&hit, argv[i]) != 0)
            return die(argv[i], "no such file in the entry, or unreadable");
    if (strcmp(mode, "strip") == 0) {
        drop_sig(&hit.meta);
        ch_strvec_push(&hit.meta, "verified=passed stages 0-5");
    } else if (strcmp(mode, "keep") != 0) {
        ch_signer s;
        if (ch_sign_load_secret(mode, &s, &err) != 0)
            return die(mode, err.msg);
        drop_sig(&hit.meta);
        ch_strvec_push_owned(&hit.meta,
                             ch_sign_entry(&s, argv[4], hit.files, hit.n_files, &hit.meta, 1));
    }
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_archive_pack(argv[4], hit.files, hit.n_files, &hit.meta, hit.created, &out);
    int rc = ch_write_file_atomic(argv[2], out.data, out.len, 0, &err);
    ch_strbuf_free(&out);
    ch_cache_hit_free(&hit);
    return rc ? die(argv[2], err.msg) : 0;
}
