/* --harness-stats[=json], --harness-clean, --harness-evict: the cache's admin commands
 * (--harness-explain: admin_report.c). They open the store from the configuration, print to stdout,
 * report errors and the store's warnings on stderr, and return the exit status (0 done, 1 failed).
 */
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
    /* one column for the values: as wide as the longest counter name */
    int w = 15;
    for (size_t i = 0; ch_cache_stat_names[i]; i++)
        if ((int)strlen(ch_cache_stat_names[i]) > w)
            w = (int)strlen(ch_cache_stat_names[i]);
    printf("%-*s %s\n", w, "cache_dir", ch_cache_dir(c));
    for (size_t i = 0; ch_cache_stat_names[i]; i++)
        printf("%-*s %llu\n", w, ch_cache_stat_names[i], *ch_cache_stats_field(&s, i));
    printf("%-*s %zu\n", w, "entries", n);
    human_size(bytes, h, sizeof h);
    printf("%-*s %llu (%s)\n", w, "bytes", bytes, h);
    if (ch_cache_max_size(c)) {
        human_size(ch_cache_max_size(c), h, sizeof h);
        printf("%-*s %llu (%s)\n", w, "max_size", ch_cache_max_size(c), h);
    } else {
        printf("%-*s %s\n", w, "max_size", "none");
    }
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
