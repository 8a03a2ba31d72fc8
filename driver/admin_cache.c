/* --harness-stats[=json], --harness-clean, --harness-evict, --harness-explain=KEY: the cache's
 * admin commands. They open the store from the configuration, print to stdout, report errors and
 * the store's warnings on stderr, and return the exit status (0 done, 1 failed). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ch/cache.h"
#include "ch/fsutil.h"
#include "driver.h"

static void flush_warnings(ch_cache *c)
{
    ch_strvec w;
    ch_strvec_init(&w);
    ch_cache_take_warnings(c, &w);
    for (size_t i = 0; i < w.len; i++)
        ch_driver_warn("%s", w.items[i]);
    ch_strvec_free(&w);
}

static void human_size(unsigned long long b, char *out, size_t n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, n, "%llu B", b);
    else
        snprintf(out, n, "%.1f %s", v, units[u]);
}

static int cmd_stats(ch_cache *c, const char *form)
{
    ch_error err;
    ch_cache_stats s;
    ch_cache_info *list;
    size_t n;
    if (ch_cache_stats_read(c, &s, &err) != 0 || ch_cache_list(c, &list, &n, &err) != 0) {
        ch_driver_report(&err);
        return 1;
    }
    unsigned long long bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += list[i].bytes;
    free(list);
    if (form && strcmp(form, "json") == 0) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "cache_dir", ch_cache_dir(c));
        for (size_t i = 0; ch_cache_stat_names[i]; i++)
            cJSON_AddNumberToObject(o, ch_cache_stat_names[i],
                                    (double)*ch_cache_stats_field(&s, i));
        cJSON_AddNumberToObject(o, "entries", (double)n);
        cJSON_AddNumberToObject(o, "bytes", (double)bytes);
        cJSON_AddNumberToObject(o, "max_size", (double)ch_cache_max_size(c));
        char *text = cJSON_Print(o);
        printf("%s\n", text);
        free(text);
        cJSON_Delete(o);
        return 0;
    }
    if (form && *form) {
        fprintf(stderr, "ch-cc: error: --harness-stats takes no value or 'json', not '%s'\n", form);
        return 1;
    }
    char h[32];
    printf("%-15s %s\n", "cache_dir", ch_cache_dir(c));
    for (size_t i = 0; ch_cache_stat_names[i]; i++)
        printf("%-15s %llu\n", ch_cache_stat_names[i], *ch_cache_stats_field(&s, i));
    printf("%-15s %zu\n", "entries", n);
    human_size(bytes, h, sizeof h);
    printf("%-15s %llu (%s)\n", "bytes", bytes, h);
    if (ch_cache_max_size(c)) {
        human_size(ch_cache_max_size(c), h, sizeof h);
        printf("%-15s %llu (%s)\n", "max_size", ch_cache_max_size(c), h);
    } else {
        printf("%-15s %s\n", "max_size", "none");
    }
    return 0;
}

static cJSON *parse_json_file(const ch_cache_hit *hit, const char *name)
{
    const ch_cache_file *f = ch_cache_hit_file(hit, name);
    return f ? cJSON_ParseWithLength((const char *)f->data, f->len) : NULL;
}

static const char *json_str(const cJSON *o, const char *key)
{
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* "passed=true stages=5 kernel_ms=0.12": the scalar fields of a report object. */
static void summarize(const cJSON *o, ch_strbuf *out)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, o)
    {
        if (!it->string)
            continue;
        if (cJSON_IsString(it))
            ch_strbuf_addf(out, "%s%s=%s", out->len ? " " : "", it->string, it->valuestring);
        else if (cJSON_IsNumber(it))
            ch_strbuf_addf(out, "%s%s=%g", out->len ? " " : "", it->string, it->valuedouble);
        else if (cJSON_IsBool(it))
            ch_strbuf_addf(out, "%s%s=%s", out->len ? " " : "", it->string,
                           cJSON_IsTrue(it) ? "true" : "false");
    }
}

static int cmd_explain(ch_cache *c, const char *key)
{
    ch_error err;
    if (!key || !*key) {
        ch_error_set(&err, "--harness-explain needs a cache key (32 hex digits)");
        ch_driver_report(&err);
        return 1;
    }
    ch_cache_hit hit;
    int rc = ch_cache_peek(c, key, &hit, &err);
    if (rc <= 0) {
        if (rc == 0)
            ch_error_set(&err, "no cache entry %s in %s", key, ch_cache_dir(c));
        ch_driver_report(&err);
        return 1;
    }
    cJSON *report = parse_json_file(&hit, "report.json");
    cJSON *checklist = parse_json_file(&hit, "checklist.json");
    const char *v;
#define FIELD(label, value) printf("%-13s %s\n", label, (v = (value)) && *v ? v : "-")
    FIELD("key", key);
    FIELD("kind", ch_cache_hit_meta(&hit, "kind") ? ch_cache_hit_meta(&hit, "kind")
                                                  : json_str(report, "kind"));
    FIELD("name", ch_cache_hit_meta(&hit, "name") ? ch_cache_hit_meta(&hit, "name")
                                                  : json_str(checklist, "name"));
    FIELD("agent", ch_cache_hit_meta(&hit, "agent") ? ch_cache_hit_meta(&hit, "agent")
                                                    : json_str(report, "agent"));
    FIELD("model", ch_cache_hit_meta(&hit, "model") ? ch_cache_hit_meta(&hit, "model")
                                                    : json_str(report, "model"));
    char when[64] = "";
    time_t t = (time_t)hit.created;
    struct tm tm;
    if (hit.created && gmtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    FIELD("created", when);
    ch_strbuf sum;
    ch_strbuf_init(&sum);
    const cJSON *ver = report ? cJSON_GetObjectItemCaseSensitive(report, "verification") : NULL;
    if (json_str(report, "summary"))
        ch_strbuf_adds(&sum, json_str(report, "summary"));
    else if (cJSON_IsObject(ver))
        summarize(ver, &sum);
    else if (report)
        summarize(report, &sum);
    else if (ch_cache_hit_meta(&hit, "verification"))
        ch_strbuf_adds(&sum, ch_cache_hit_meta(&hit, "verification"));
    FIELD("verification", sum.data);
#undef FIELD
    ch_strbuf_free(&sum);
    printf("files\n");
    for (size_t i = 0; i < hit.n_files; i++)
        printf("  %-40s %zu\n", hit.files[i].name, hit.files[i].len);
    /* a spec-only entry's reference is what the words were read as: the user checks it here */
    for (size_t i = 0; i < hit.n_files; i++)
        if (strcmp(hit.files[i].name, "reference.c") == 0)
            printf("reference\n%.*s", (int)hit.files[i].len, (const char *)hit.files[i].data);
    cJSON_Delete(report);
    cJSON_Delete(checklist);
    ch_cache_hit_free(&hit);
    return 0;
}

int ch_admin_cache(ch_driver *d, const char *command, const char *value)
{
    ch_error err;
    ch_cache *c;
    if (ch_cache_open(&c, &d->cfg, &err) != 0) {
        ch_driver_report(&err);
        return 1;
    }
    int status = 1;
    size_t n = 0;
    if (strcmp(command, "stats") == 0) {
        status = cmd_stats(c, value);
    } else if (strcmp(command, "explain") == 0) {
        status = cmd_explain(c, value);
    } else if (strcmp(command, "clean") == 0) {
        if (ch_cache_clean(c, &n, &err) != 0)
            ch_driver_report(&err);
        else {
            printf("removed %zu cache entries from %s\n", n, ch_cache_dir(c));
            status = 0;
        }
    } else if (strcmp(command, "evict") == 0) {
        if (ch_cache_evict(c, &n, &err) != 0)
            ch_driver_report(&err);
        else {
            printf("evicted %zu cache entries\n", n);
            status = 0;
        }
    } else {
        ch_error_set(&err, "unknown cache command --harness-%s", command);
        ch_driver_report(&err);
    }
    flush_warnings(c);
    ch_cache_close(c);
    return status;
}

int ch_admin_keygen(const char *dir)
{
    if (!dir || !*dir) {
        fprintf(stderr, "ch-cc: error: --harness-keygen needs a directory: --harness-keygen=DIR\n");
        return 1;
    }
    ch_error err;
    char *pub_path;
    if (ch_cache_keygen(dir, &pub_path, &err) != 0) {
        ch_driver_report(&err);
        return 1;
    }
    char *pub = NULL;
    ch_read_file(pub_path, &pub, NULL, &err);
    printf("secret key: %s/ch-cc-sign.key (a writer's sign_key; keep it private)\n"
           "public key: %s (add to readers' trusted_keys)\n%s",
           dir, pub_path, pub ? pub : "");
    free(pub);
    free(pub_path);
    return 0;
}
