/* --harness-args: prints the argument model of the rest of the command line as JSON, with the
 * real compiler it would go to. For tests and for users debugging a build's flags. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "ch/pipeline.h"
#include "driver.h"

static const char *lang_name(ch_lang lang)
{
    static const char *const names[] = {"none", "c", "c++", "cu", "asm", "object", "other"};
    return names[lang];
}

static cJSON *strvec_json(const ch_strvec *v)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < v->len; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(v->items[i]));
    return arr;
}

static void add_opt_string(cJSON *obj, const char *key, const char *value)
{
    if (value)
        cJSON_AddStringToObject(obj, key, value);
    else
        cJSON_AddNullToObject(obj, key);
}

int ch_admin_args(ch_driver *d)
{
    const ch_args *a = &d->args;
    cJSON *root = cJSON_CreateObject();
    cJSON *inputs = cJSON_AddArrayToObject(root, "inputs");
    for (size_t i = 0; i < a->n_inputs; i++) {
        cJSON *in = cJSON_CreateObject();
        cJSON_AddStringToObject(in, "path", a->inputs[i].path);
        cJSON_AddStringToObject(in, "lang", lang_name(a->inputs[i].lang));
        cJSON_AddItemToArray(inputs, in);
    }
    add_opt_string(root, "output", a->output);
    cJSON_AddBoolToObject(root, "compile_only", a->compile_only);
    cJSON_AddBoolToObject(root, "preprocess_only", a->preprocess_only);
    cJSON_AddBoolToObject(root, "dep_only", a->dep_only);
    cJSON_AddBoolToObject(root, "dep_md", a->dep_md);
    cJSON_AddBoolToObject(root, "dep_system_excluded", a->dep_mmd);
    add_opt_string(root, "dep_file", a->dep_mf);
    cJSON_AddItemToObject(root, "dep_targets", strvec_json(&a->dep_targets));
    cJSON_AddItemToObject(root, "includes", strvec_json(&a->includes));
    cJSON_AddItemToObject(root, "isystem", strvec_json(&a->isystem));
    cJSON_AddItemToObject(root, "defines", strvec_json(&a->defines));
    cJSON_AddItemToObject(root, "undefs", strvec_json(&a->undefs));
    cJSON_AddItemToObject(root, "pre_includes", strvec_json(&a->pre_includes));
    add_opt_string(root, "std", a->std);
    add_opt_string(root, "opt", a->opt);
    cJSON_AddItemToObject(root, "arch_options", strvec_json(&a->arch_opts));
    /* the targets the build would key and compile kernels for */
    ch_session s;
    ch_driver_session_open(d, &s);
    cJSON_AddItemToObject(root, "archs", strvec_json(&s.archs));
    ch_driver_session_close(&s);
    cJSON_AddItemToObject(root, "codegen", strvec_json(&a->codegen));
    cJSON_AddBoolToObject(root, "rdc", a->rdc);
    cJSON_AddItemToObject(root, "xcompiler", strvec_json(&a->xcompiler));
    cJSON_AddItemToObject(root, "xlinker", strvec_json(&a->xlinker));
    add_opt_string(root, "ccbin", a->ccbin);
    cJSON_AddBoolToObject(root, "nvcc_only", a->nvcc_only);
    cJSON_AddItemToObject(root, "expanded", strvec_json(&a->expanded));
    ch_error err;
    char *compiler = ch_driver_compiler(d, &err);
    add_opt_string(root, "compiler", compiler);
    add_opt_string(root, "launcher", d->launcher);
    free(compiler);
    char *text = cJSON_Print(root);
    puts(text);
    free(text);
    cJSON_Delete(root);
    return 0;
}
