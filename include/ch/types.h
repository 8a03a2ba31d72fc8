/* Scalar element types of harness parameters, shared by scan, checklist, scaffold and verify.
 *
 * Every parameter of a harness function is a scalar, a pointer to a scalar or a C99 array of
 * scalars; this enum names the scalar after typedefs are resolved (size_t becomes unsigned long
 * on LP64). Names are the canonical C spellings used in checklists and generated code. */
#ifndef CH_TYPES_H
#define CH_TYPES_H

#include <stddef.h>

/* The language of a compiler input (by suffix or -x): the scan and the driver both need it. */
typedef enum ch_lang {
    CH_LANG_NONE = 0, /* not an input */
    CH_LANG_C,
    CH_LANG_CXX,
    CH_LANG_CU,
    CH_LANG_ASM,
    CH_LANG_OBJECT, /* .o, .a, .so, .obj, .lib, -l: goes to the linker */
    CH_LANG_OTHER   /* unknown suffix: handed to the real compiler unchanged */
} ch_lang;

typedef enum ch_scalar {
    CH_T_UNKNOWN = 0,
    CH_T_BOOL,
    CH_T_CHAR,
    CH_T_SCHAR,
    CH_T_UCHAR,
    CH_T_SHORT,
    CH_T_USHORT,
    CH_T_INT,
    CH_T_UINT,
    CH_T_LONG,
    CH_T_ULONG,
    CH_T_LLONG,
    CH_T_ULLONG,
    CH_T_FLOAT,
    CH_T_DOUBLE,
    CH_T_VOID, /* only as a return type */
    CH_T_COUNT_
} ch_scalar;

/* "float", "unsigned long", ...; "?" for CH_T_UNKNOWN. */
const char *ch_scalar_name(ch_scalar t);
/* Parses a canonical spelling (also accepts "size_t", "uint32_t"-style fixed-width names,
 * "unsigned", "signed", "long int"...); CH_T_UNKNOWN when not a supported scalar. */
ch_scalar ch_scalar_parse(const char *spelling);
size_t ch_scalar_size(ch_scalar t);
int ch_scalar_is_float(ch_scalar t);
int ch_scalar_is_signed(ch_scalar t);
int ch_scalar_is_integer(ch_scalar t);
/* The short tag used in binary data headers and JSON ("f32", "f64", "i32", "u64", ...). */
const char *ch_scalar_tag(ch_scalar t);
ch_scalar ch_scalar_from_tag(const char *tag);

typedef enum ch_role { CH_ROLE_SCALAR = 0, CH_ROLE_POINTER, CH_ROLE_ARRAY } ch_role;
typedef enum ch_dir { CH_DIR_NONE = 0, CH_DIR_IN, CH_DIR_OUT, CH_DIR_INOUT } ch_dir;
typedef enum ch_kind { CH_KIND_SPEC_DECL = 0, CH_KIND_SPEC_DEF, CH_KIND_C_DEF } ch_kind;

const char *ch_role_name(ch_role r); /* "scalar", "pointer", "array" */
const char *ch_dir_name(ch_dir d);   /* "none", "in", "out", "inout" */
const char *ch_kind_name(ch_kind k); /* "spec-decl", "spec-def", "c-def" */
int ch_role_parse(const char *s, ch_role *out);
int ch_dir_parse(const char *s, ch_dir *out);
int ch_kind_parse(const char *s, ch_kind *out);

#endif
