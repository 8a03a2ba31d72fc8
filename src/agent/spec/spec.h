/* Internals of the spec reader (include/ch/spec_reader.h): the normalised words, the formula
 * reading and the catalog reading. */
#ifndef CH_AGENT_SPEC_H
#define CH_AGENT_SPEC_H

#include "ch/entry.h"
#include "ch/error.h"
#include "ch/strbuf.h"

/* The spec in lower case, every run of non-alphanumerics one space, padded with a space on
 * both sides, so that " phrase " finds whole words. Caller frees. */
char *spec_words(const char *spec);

/* Whether the padded words contain phrase as whole words. */
int spec_has_phrase(const char *words, const char *phrase);
int spec_has_phrase_near(const char *words, const char *phrase, int max_gap);

/* The declared parameter called name, or NULL. */
const ch_param *spec_param(const ch_entry *e, const char *name);

/* The element type every array of e shares with the first written one ("float", "double",
 * ...), for {{T}}; the first floating array wins when the types differ. */
ch_scalar spec_elem_type(const ch_entry *e);

/* A formula reading: 1 when the spec holds no assignment (try the catalog), 0 with body and
 * how filled, -1 with err when it holds one that cannot be made a reference. */
int spec_read_formula(const ch_entry *e, char **body, char **how, ch_error *err);

/* A catalog reading: 0 with body and how, -1 with err (what was understood in it). */
int spec_read_catalog(const ch_entry *e, char **body, char **how, ch_error *err);

#endif
