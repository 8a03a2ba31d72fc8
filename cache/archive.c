/* The index record of an entry and the archive format of the remote store. An archive is the
 * index record followed by the files' bytes in index order; every file is checked against its
 * size and XXH3-64 and the record against its own checksum, and the archive must end exactly
 * after the last file, so a truncated, padded or bit-flipped body is always rejected. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "internal.h"

void ch_index_free(ch_index *idx)
{
    for (size_t i = 0; i < idx->n; i++)
        free(idx->files[i].name);
    free(idx->files);
    ch_strvec_free(&idx->meta);
    memset(idx, 0, sizeof *idx);
}

void ch_index_format(const char *key, const ch_cache_file *files, size_t n, const ch_strvec *meta,
                     long long created, ch_strbuf *out)
{
    size_t start = out->len;
    ch_strbuf_addf(out, "ch-cc-index 1\nkey %s\ncreated %lld\n", key, created);
    for (size_t i = 0; meta && i < meta->len; i++)
        ch_strbuf_addf(out, "meta %s\n", meta->items[i]);
    for (size_t i = 0; i < n; i++)
        ch_strbuf_addf(out, "file %zu %016llx %s\n", files[i].len,
                       (unsigned long long)XXH3_64bits(files[i].data, files[i].len), files[i].name);
    unsigned long long sum = XXH3_64bits(out->data + start, out->len - start);
    ch_strbuf_addf(out, "end %016llx\n", sum);
}

int ch_index_parse(const char *key, const char *data, size_t len, ch_index *idx, ch_error *err)
{
    memset(idx, 0, sizeof *idx);
    ch_strvec_init(&idx->meta);
    size_t pos = 0, cap = 0;
    int seen_key = 0, seen_head = 0;
    while (pos < len) {
        const char *line = data + pos;
        const char *nl = memchr(line, '\n', len - pos);
        if (!nl)
            break;
        size_t ll = (size_t)(nl - line);
        char *l = ch_xstrndup(line, ll);
        int bad = 0, done = 0;
        if (!seen_head) {
            bad = strcmp(l, "ch-cc-index 1") != 0;
            seen_head = 1;
        } else if (strncmp(l, "key ", 4) == 0) {
            bad = strcmp(l + 4, key) != 0;
            seen_key = 1;
        } else if (strncmp(l, "created ", 8) == 0) {
            idx->created = strtoll(l + 8, NULL, 10);
        } else if (strncmp(l, "meta ", 5) == 0) {
            ch_strvec_push(&idx->meta, l + 5);
        } else if (strncmp(l, "file ", 5) == 0) {
            char *end;
            unsigned long long size = strtoull(l + 5, &end, 10);
            bad = *end != ' ';
            unsigned long long sum = bad ? 0 : strtoull(end + 1, &end, 16);
            bad = bad || *end != ' ' || !end[1] || strstr(end + 1, "..") || end[1] == '/';
            if (!bad) {
                if (idx->n == cap) {
                    cap = cap ? 2 * cap : 8;
                    idx->files = ch_xrealloc(idx->files, cap * sizeof *idx->files);
                }
                idx->files[idx->n].name = ch_xstrdup(end + 1);
                idx->files[idx->n].size = size;
                idx->files[idx->n].sum = sum;
                idx->n++;
            }
        } else if (strncmp(l, "end ", 4) == 0) {
            unsigned long long want = strtoull(l + 4, NULL, 16);
            bad = XXH3_64bits(data, pos) != want || !seen_key;
            done = 1;
        } else {
            bad = 1;
        }
        /* a record line never holds a NUL: l ends there, so "key K\0junk" would read as key K
         * and "file ... a\0b" as a file named a (two byte strings, one index) */
        bad = bad || memchr(line, '\0', ll) != NULL;
        free(l);
        pos += ll + 1;
        if (bad)
            break;
        if (done) {
            idx->text_len = pos;
            return 0;
        }
    }
    ch_index_free(idx);
    return ch_error_set(err, "index record is damaged");
}

void ch_archive_pack(const char *key, const ch_cache_file *files, size_t n_files,
                     const ch_strvec *meta, long long created, ch_strbuf *out)
{
    ch_index_format(key, files, n_files, meta, created, out);
    for (size_t i = 0; i < n_files; i++)
        ch_strbuf_add(out, files[i].data, files[i].len);
}

int ch_archive_unpack(const char *key, const void *data, size_t len, ch_cache_hit *hit,
                      ch_error *err)
{
    ch_index idx;
    if (ch_index_parse(key, data, len, &idx, err) != 0)
        return ch_error_prefix(err, "archive of %s", key);
    const unsigned char *p = (const unsigned char *)data + idx.text_len;
    size_t left = len - idx.text_len;
    ch_cache_hit_init(hit);
    memcpy(hit->key, key, 33);
    hit->files = ch_xcalloc(idx.n ? idx.n : 1, sizeof *hit->files);
    for (size_t i = 0; i < idx.n; i++) {
        if (idx.files[i].size > left || XXH3_64bits(p, idx.files[i].size) != idx.files[i].sum) {
            ch_error_set(err, "archive of %s: file '%s' is %s", key, idx.files[i].name,
                         idx.files[i].size > left ? "truncated" : "corrupted (checksum mismatch)");
            ch_index_free(&idx);
            ch_cache_hit_free(hit);
            return -1;
        }
        ch_cache_file *f = &hit->files[hit->n_files++];
        f->name = ch_xstrdup(idx.files[i].name);
        f->len = idx.files[i].size;
        f->data = ch_xmalloc(f->len + 1);
        memcpy(f->data, p, f->len);
        f->data[f->len] = '\0';
        p += f->len;
        left -= f->len;
    }
    if (left != 0) {
        ch_index_free(&idx);
        ch_cache_hit_free(hit);
        return ch_error_set(err, "archive of %s: %zu unexpected bytes after the last file", key,
                            left);
    }
    ch_strvec_pushv(&hit->meta, &idx.meta);
    hit->created = idx.created;
    ch_index_free(&idx);
    return 0;
}
