/* attacks5's forging tool (an attacker with write access to a shared remote, no signing key):
 *   forge5 IN OUT KEY add NAME PATH   adds a file NAME (PATH's bytes) to the archive of KEY,
 *                                     keeping its signature; checksums recomputed
 *   forge5 IN OUT KEY flip - -        turns the signature's "objects 0" into "objects 1" (a
 *                                     format 2 entry passed off as format 1, whose signature
 *                                     would vouch for objects inside the archive)
 * Built by tests/integration/attacks_fifth.t against the cache library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/remote.h"

int main(int argc, char **argv)
{
    int flip = argc == 7 && strcmp(argv[4], "flip") == 0;
    if (argc != 7 || (!flip && strcmp(argv[4], "add") != 0)) {
        fprintf(stderr, "usage: forge5 IN OUT KEY add NAME PATH | flip - -\n");
        return 2;
    }
    char *body, *extra;
    size_t len, elen;
    ch_error err;
    ch_cache_hit hit;
    if (ch_read_file(argv[1], &body, &len, &err) != 0 ||
        ch_archive_unpack(argv[3], body, len, &hit, &err) != 0 ||
        (!flip && ch_read_file(argv[6], &extra, &elen, &err) != 0)) {
        fprintf(stderr, "forge5: %s\n", err.msg);
        return 2;
    }
    free(body);
    if (flip) {
        for (size_t i = 0; i < hit.meta.len; i++) {
            char *sp =
                strncmp(hit.meta.items[i], "sig=", 4) == 0 ? strchr(hit.meta.items[i], ' ') : NULL;
            if (sp && sp[1] == '0')
                sp[1] = '1';
        }
        goto pack;
    }
    hit.files = realloc(hit.files, (hit.n_files + 1) * sizeof *hit.files);
    hit.files[hit.n_files].name = strdup(argv[5]);
    hit.files[hit.n_files].data = (unsigned char *)extra;
    hit.files[hit.n_files].len = elen;
    hit.n_files++;
pack:;
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_archive_pack(argv[3], hit.files, hit.n_files, &hit.meta, hit.created, &out);
    int rc = ch_write_file_atomic(argv[2], out.data, out.len, 0, &err);
    ch_strbuf_free(&out);
    ch_cache_hit_free(&hit);
    return rc ? 2 : 0;
}
