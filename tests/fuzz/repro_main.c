/* The libFuzzer "reproducer main": feeds each file named on the command line to the target's
 * LLVMFuzzerTestOneInput once, so the regression corpus runs under ASan+UBSan without libFuzzer
 * (make check). A crash, a sanitizer report or an abort() in the target fails the run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    /* an exact-size copy, so ASan catches a read one past the input as libFuzzer would */
    uint8_t *exact = malloc(len ? len : 1);
    for (size_t i = 0; i < len; i++)
        exact[i] = buf[i];
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        if (run_file(argv[i]) != 0)
            failed = 1;
        else
            printf("ok %s\n", argv[i]);
    }
    return failed;
}
