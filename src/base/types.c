/* Names, sizes and parsing of the scalar types, roles, directions and entry kinds. */
#include <string.h>

#include "ch/types.h"

static const struct {
    const char *name;
    const char *tag;
    size_t size;
    int is_float, is_signed;
} scalars[CH_T_COUNT_] = {
    [CH_T_UNKNOWN] = {"?", "?", 0, 0, 0},
    [CH_T_BOOL] = {"_Bool", "b8", 1, 0, 0},
    [CH_T_CHAR] = {"char", "i8", 1, 0, 1},
    [CH_T_SCHAR] = {"signed char", "s8", 1, 0, 1},
    [CH_T_UCHAR] = {"unsigned char", "u8", 1, 0, 0},
    [CH_T_SHORT] = {"short", "i16", 2, 0, 1},
    [CH_T_USHORT] = {"unsigned short", "u16", 2, 0, 0},
    [CH_T_INT] = {"int", "i32", 4, 0, 1},
    [CH_T_UINT] = {"unsigned int", "u32", 4, 0, 0},
    [CH_T_LONG] = {"long", "i64", 8, 0, 1},
    [CH_T_ULONG] = {"unsigned long", "u64", 8, 0, 0},
    [CH_T_LLONG] = {"long long", "l64", 8, 0, 1},
    [CH_T_ULLONG] = {"unsigned long long", "ul64", 8, 0, 0},
    [CH_T_FLOAT] = {"float", "f32", 4, 1, 1},
    [CH_T_DOUBLE] = {"double", "f64", 8, 1, 1},
    [CH_T_VOID] = {"void", "void", 0, 0, 0},
};

const char *ch_scalar_name(ch_scalar t)
{
    return (unsigned)t < CH_T_COUNT_ ? scalars[t].name : "?";
}

const char *ch_scalar_tag(ch_scalar t)
{
    return (unsigned)t < CH_T_COUNT_ ? scalars[t].tag : "?";
}

size_t ch_scalar_size(ch_scalar t)
{
    return (unsigned)t < CH_T_COUNT_ ? scalars[t].size : 0;
}

int ch_scalar_is_float(ch_scalar t)
{
    return (unsigned)t < CH_T_COUNT_ && scalars[t].is_float;
}

int ch_scalar_is_signed(ch_scalar t)
{
    return (unsigned)t < CH_T_COUNT_ && scalars[t].is_signed;
}

int ch_scalar_is_integer(ch_scalar t)
{
    return t >= CH_T_BOOL && t <= CH_T_ULLONG;
}

ch_scalar ch_scalar_from_tag(const char *tag)
{
    for (int t = CH_T_BOOL; t < CH_T_COUNT_; t++)
        if (strcmp(scalars[t].tag, tag) == 0)
            return (ch_scalar)t;
    return CH_T_UNKNOWN;
}

ch_scalar ch_scalar_parse(const char *s)
{
    static const struct {
        const char *spelling;
        ch_scalar t;
    } aliases[] = {
        {"bool", CH_T_BOOL},
        {"signed", CH_T_INT},
        {"signed int", CH_T_INT},
        {"unsigned", CH_T_UINT},
        {"short int", CH_T_SHORT},
        {"signed short", CH_T_SHORT},
        {"unsigned short int", CH_T_USHORT},
        {"long int", CH_T_LONG},
        {"signed long", CH_T_LONG},
        {"unsigned long int", CH_T_ULONG},
        {"long long int", CH_T_LLONG},
        {"unsigned long long int", CH_T_ULLONG},
        {"size_t", CH_T_ULONG},
        {"ssize_t", CH_T_LONG},
        {"ptrdiff_t", CH_T_LONG},
        {"int8_t", CH_T_SCHAR},
        {"uint8_t", CH_T_UCHAR},
        {"int16_t", CH_T_SHORT},
        {"uint16_t", CH_T_USHORT},
        {"int32_t", CH_T_INT},
        {"uint32_t", CH_T_UINT},
        {"int64_t", CH_T_LONG},
        {"uint64_t", CH_T_ULONG},
    };
    for (int t = CH_T_BOOL; t < CH_T_COUNT_; t++)
        if (strcmp(scalars[t].name, s) == 0)
            return (ch_scalar)t;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].spelling, s) == 0)
            return aliases[i].t;
    return CH_T_UNKNOWN;
}

static const char *const role_names[] = {"scalar", "pointer", "array"};
static const char *const dir_names[] = {"none", "in", "out", "inout"};
static const char *const kind_names[] = {"spec-decl", "spec-def", "c-def"};

const char *ch_role_name(ch_role r)
{
    return (unsigned)r < 3 ? role_names[r] : "?";
}

const char *ch_dir_name(ch_dir d)
{
    return (unsigned)d < 4 ? dir_names[d] : "?";
}

const char *ch_kind_name(ch_kind k)
{
    return (unsigned)k < 3 ? kind_names[k] : "?";
}

static int parse_name(const char *s, const char *const *names, int n, int *out)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return 0;
        }
    return -1;
}

int ch_role_parse(const char *s, ch_role *out)
{
    int v;
    if (parse_name(s, role_names, 3, &v) != 0)
        return -1;
    *out = (ch_role)v;
    return 0;
}

int ch_dir_parse(const char *s, ch_dir *out)
{
    int v;
    if (parse_name(s, dir_names, 4, &v) != 0)
        return -1;
    *out = (ch_dir)v;
    return 0;
}

int ch_kind_parse(const char *s, ch_kind *out)
{
    int v;
    if (parse_name(s, kind_names, 3, &v) != 0)
        return -1;
    *out = (ch_kind)v;
    return 0;
}
