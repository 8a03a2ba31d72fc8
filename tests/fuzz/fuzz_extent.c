/* libFuzzer target for extent expressions (src/scan/poly.c): any text must give a polynomial or
 * NULL (with a reason when the text is wrong), never a crash, a stack overflow on deep nesting,
 * signed overflow (UBSan) or a leak; a parsed polynomial must print and re-parse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/scan/poly.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    const char *why = NULL;
    ch_poly *p = poly_parse(text, &why);
    if (p) {
        /* an accepted polynomial stays within the bounds that keep products fast */
        if (p->n > POLY_MAX_TERMS || p->overflow)
            abort();
        for (int i = 0; i < p->n; i++)
            if (p->t[i].degree > POLY_MAX_DEGREE)
                abort();
        char *s = poly_print(p);
        ch_poly *sq = poly_mul(p, p);
        ch_poly *sum = poly_add(sq, p);
        poly_sign(sum);
        poly_sample(sum);
        poly_free(sq);
        poly_free(sum);
        free(s);
        poly_free(p);
    }
    free(text);
    return 0;
}
