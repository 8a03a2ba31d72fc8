/* Direct mode in the driver: which commands it serves, the key of a command, serving a hit in
 * the thin binary and recording a manifest after the full binary's compile. The manifests
 * themselves are the cache layer's (include/ch/manifest.h). */
#ifndef CH_DIRECT_H
#define CH_DIRECT_H

#include "driver.h"

/* The index of the one annotated input when the command can be served by direct mode (a
 * `-c` of one annotated C/C++ file to an object, no launcher, a cache directory), else -1. */
long ch_direct_input(const ch_driver *d, const int *annotated);

/* The thin binary: serves the command from its manifest. 1 served (the object, the dep file
 * when asked, and the report page when the report_dir setting asks for one, written; *status
 * set), 0 not served (the full path must build). A manifest without a page does not serve a
 * command that asks for one. */
int ch_direct_serve(ch_driver *d, size_t input, int *status);

/* The full binary, after a successful compile of input into user_obj: records the manifest,
 * with the report page the build wrote (page: its text, page_name: its file name in the
 * report_dir directory; both NULL when none was written). started: unix seconds when the
 * command began. Best effort: failures are silent. */
void ch_direct_record(ch_driver *d, size_t input, const char *user_obj, long long started,
                      const char *page, const char *page_name);

/* The dep file a compile of user_obj writes under -MD/-MMD: -MF, else user_obj with .d. */
char *ch_direct_depfile(const ch_args *a, const char *user_obj);
/* The object a `-c` of in writes: -o, else the input's base name with .o. */
char *ch_direct_object(const ch_args *a, const ch_input *in);

#endif
