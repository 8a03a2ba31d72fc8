/* Direct mode's steps (src/pipeline/direct_mode.c): the key of a command, serving a hit from
 * its manifest and recording one after a compile. The driver says which commands qualify and
 * what they are (driver/direct.c: the argument model); the manifests are the cache layer's
 * (ch/manifest.h).
 *
 * The key covers what decides the object besides file contents: ch-cc's own binary (path,
 * size, mtime: a rebuilt ch-cc misses), the working directory, the source path, every argument
 * as expanded, the real compiler and nvcc (resolved path, size, mtime), the settings that
 * change outcomes (a trusted_keys file by its content), the environment the preprocessor
 * reads, and the GPUs the NVIDIA driver lists. The manifest then lists every file the
 * preprocessor read, with content hashes, learnt at record time from the real compiler's own
 * `-M` (the compiler that made the object, with the user's include paths and its built-in
 * headers), and the paths where a new header would be found before one read (from its `-v`
 * search list); it costs one preprocess, on a miss only.
 *
 * Library code that the thin binary links: no libclang, libcurl or cJSON here, and nothing
 * printed (warnings are handed back). Internal to ch-cc (not installed). */
#ifndef CH_DIRECT_MODE_H
#define CH_DIRECT_MODE_H

#include <stddef.h>

#include "ch/config.h"
#include "ch/error.h"
#include "ch/strbuf.h"

/* One command, as the driver resolved it. Borrowed. */
typedef struct ch_direct_command {
    const ch_config *cfg;
    const char *self;     /* the full binary ch-cc-full, NULL: unknown */
    const char *source;   /* the annotated input, as the command names it */
    const char *compiler; /* the real compiler, resolved; NULL: none found */
    const char *nvcc;     /* the real nvcc, resolved; NULL: none found */
    char *const *args;    /* the command's arguments as expanded */
    size_t n_args;
} ch_direct_command;

/* The manifest key of c (32 hex digits). -1 when the working directory cannot be named. */
int ch_direct_mode_key(const ch_direct_command *c, char key[33]);

/* What a served command writes. */
typedef struct ch_direct_outputs {
    const char *obj;        /* the object */
    const char *dep;        /* the dep file, NULL: the command asks for none */
    const char *report_dir; /* the report page's directory, NULL or "": none asked for */
} ch_direct_outputs;

/* Serves key's manifest in cache_dir: 1 when every output was written (the dep file before
 * the object, so make never sees an object older than its dep file), 0 when not (no
 * manifest, a changed file, a page asked for but not recorded, an output that cannot be
 * written: the full path builds and says what is wrong). Counts a direct hit or miss in the
 * cache's statistics; warnings (a page not written, damaged statistics) go to warnings. */
int ch_direct_mode_serve(const char *cache_dir, const char *key, const ch_direct_outputs *out,
                         ch_strvec *warnings);

/* Splits make's "x: a b \\\n c" into paths ("\\ " is a space in a name). */
void ch_direct_mode_parse_deps(const char *text, ch_strvec *files);

/* The paths whose being a file or not decides which files the include search finds (see
 * src/pipeline/direct_search.c), from report (the compiler's `-v` report of its search list)
 * and files (what `-M` listed): sorted, without the files themselves. -1 with err when the
 * search cannot be known (no search list, frameworks, a computed __has_include, too many). */
int ch_direct_search_probes(const char *report, const ch_strvec *files, ch_strvec *probes,
                            ch_error *err);

/* After a successful compile: runs deps_argv (the real compiler listing what it reads, `-M`,
 * and its include search list, `-v`),
 * and records key's manifest with the object at obj, the dep file at dep (NULL: none asked
 * for) and the report page (page, its name page_name; NULL: none). started: unix seconds
 * when the command began. Best effort: 0 recorded, -1 not (why in err). */
int ch_direct_mode_record(const char *cache_dir, const char *key, char *const *deps_argv,
                          const char *obj, const char *dep, const char *page, const char *page_name,
                          long long started, ch_error *err);

#endif
