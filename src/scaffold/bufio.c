/* The parent's side of the buffer files (see ch/scaffold.h): test data written for candidates
 * and references, outputs read back and validated before anything is compared. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/scaffold.h"

typedef struct header {
    char magic[8];
    char tag[8];
    uint64_t count;
    uint64_t checksum;
} header;

int ch_buf_write(const char *path, ch_scalar t, const void *data, size_t count, ch_error *err)
{
    header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CH_BUF_MAGIC, 8);
    strncpy(h.tag, ch_scalar_tag(t), sizeof h.tag - 1);
    size_t bytes = count * ch_scalar_size(t);
    h.count = count;
    h.checksum = ch_buf_checksum(data, bytes);
    FILE *f = fopen(path, "wb");
    if (!f)
        return ch_error_set(err, "cannot write %s: %s", path, strerror(errno));
    int bad = fwrite(&h, sizeof h, 1, f) != 1 || (bytes && fwrite(data, 1, bytes, f) != bytes);
    if (fclose(f) != 0 || bad)
        return ch_error_set(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

int ch_buf_read(const char *path, ch_scalar t, size_t expect_count, void **data, size_t *count,
                ch_error *err)
{
    *data = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return ch_error_set(err, "%s: missing (%s)", ch_path_base(path), strerror(errno));
    header h;
    if (fread(&h, sizeof h, 1, f) != 1) {
        fclose(f);
        return ch_error_set(err, "%s: truncated header", ch_path_base(path));
    }
    if (memcmp(h.magic, CH_BUF_MAGIC, 8) != 0) {
        fclose(f);
        return ch_error_set(err, "%s: not a buffer file", ch_path_base(path));
    }
    if (strncmp(h.tag, ch_scalar_tag(t), 8) != 0) {
        fclose(f);
        return ch_error_set(err, "%s: element type %.8s, expected %s", ch_path_base(path), h.tag,
                            ch_scalar_tag(t));
    }
    if (expect_count != (size_t)-1 && h.count != expect_count) {
        fclose(f);
        return ch_error_set(err, "%s: %llu elements, expected %zu", ch_path_base(path),
                            (unsigned long long)h.count, expect_count);
    }
    size_t bytes = (size_t)h.count * ch_scalar_size(t);
    unsigned char *buf = ch_xmalloc(bytes ? bytes : 1);
    if (bytes && fread(buf, 1, bytes, f) != bytes) {
        fclose(f);
        free(buf);
        return ch_error_set(err, "%s: truncated payload", ch_path_base(path));
    }
    fclose(f);
    if (ch_buf_checksum(buf, bytes) != h.checksum) {
        free(buf);
        return ch_error_set(err, "%s: checksum mismatch", ch_path_base(path));
    }
    *data = buf;
    if (count)
        *count = (size_t)h.count;
    return 0;
}
