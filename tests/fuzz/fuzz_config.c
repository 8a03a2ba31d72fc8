/* libFuzzer target for the config file parser (src/base/config.c): any .ch-cc.conf text must
 * load or give a located error, never a crash or a leak. The text is written as the project file
 * of a private directory (HOME and XDG_CONFIG_HOME point inside it, so no real config is read). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ch/config.h"

static char dir[64];
static char conf[96];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    snprintf(dir, sizeof dir, "/tmp/ch-cc-fuzz-config-%ld", (long)getpid());
    mkdir(dir, 0700);
    snprintf(conf, sizeof conf, "%s/.ch-cc.conf", dir);
    setenv("HOME", dir, 1);
    setenv("XDG_CONFIG_HOME", dir, 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!conf[0])
        LLVMFuzzerInitialize(NULL, NULL);
    FILE *f = fopen(conf, "wb");
    if (!f)
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
    ch_config cfg;
    ch_error err;
    if (ch_config_load(&cfg, dir, &err) == 0) {
        /* the typed reads parse the values the file gave */
        unsigned long long size;
        long seconds;
        double temperature;
        int offline;
        ch_config_size(&cfg, "max_size", &size, &err);
        ch_config_long(&cfg, "lock_timeout", &seconds, &err);
        ch_config_double(&cfg, "temperature", &temperature, &err);
        ch_config_bool(&cfg, "offline", &offline, &err);
        ch_strbuf out;
        ch_strbuf_init(&out);
        ch_config_print(&cfg, &out);
        ch_strbuf_free(&out);
    } else if (!err.located) {
        abort(); /* a bad project file is a located error */
    }
    ch_config_free(&cfg);
    return 0;
}
