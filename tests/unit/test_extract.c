/* Reading model replies: fenced blocks, the CUDA / C / JSON payloads of the three jobs with prose
 * and several blocks around them, the design line, templates, embedded prompts and redaction. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ch/llm.h"

Test(extract, blocks_with_languages_and_prose)
{
    const char *r = "Intro.\n```CUDA\na\n```\ntext\n  ~~~c {.x}\nb\n```\nstill b\n~~~\n````\n"
                    "```inner\n````\n";
    ch_code_block *b;
    size_t n = ch_code_blocks(r, &b);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(b[0].lang, "cuda");
    cr_assert_str_eq(b[0].text, "a\n");
    cr_assert_str_eq(b[1].lang, "c");
    cr_assert_str_eq(b[1].text, "b\n```\nstill b\n");
    cr_assert_str_eq(b[2].lang, "");
    cr_assert_str_eq(b[2].text, "```inner\n");
    cr_assert(b[2].closed);
    ch_code_blocks_free(b, n);
}

Test(extract, unterminated_block_is_reported)
{
    ch_error err;
    char *s =
        ch_extract_cuda("```cuda\nextern \"C\" void k_launcher(int n) {\n", "k_launcher", &err);
    cr_assert_null(s);
    cr_assert(strstr(err.msg, "ends inside a code block"), "%s", err.msg);
}

Test(extract, cuda_picks_the_block_defining_the_launcher)
{
    const char *r = "Design: tiled 32x8\n```text\nnot code\n```\n```cu\n// old version\n```\n"
                    "```cu\n#include <cuda_runtime.h>\n__global__ void k(){}\nextern \"C\" void "
                    "f_launcher (int n) { k<<<1,1>>>(); }\n```\nbye\n";
    ch_error err;
    char *s = ch_extract_cuda(r, "f_launcher", &err);
    cr_assert(s, "%s", err.msg);
    cr_assert(strstr(s, "__global__ void k"));
    cr_assert_null(strstr(s, "old version"));
    cr_assert_null(strstr(s, "bye"));
    free(s);
    char *d = ch_extract_design(r);
    cr_assert_str_eq(d, "tiled 32x8");
    free(d);
    cr_assert_null(ch_extract_design("no design line"));
}

Test(extract, cuda_joins_a_file_split_over_blocks)
{
    const char *r = "Kernel:\n```cuda\n__global__ void k(float *y){}\n```\nLauncher:\n```cuda\n"
                    "extern \"C\" void f_launcher(float *y) { k<<<1,1>>>(y); }\n```\n";
    ch_error err;
    char *s = ch_extract_cuda(r, "f_launcher", &err);
    cr_assert(s, "%s", err.msg);
    const char *k = strstr(s, "__global__"), *l = strstr(s, "f_launcher");
    cr_assert(k && l && k < l, "%s", s);
    free(s);
}

/* Models, like users, also write the launcher under the entry's own name; a block that only
 * calls it (a usage example) is not the kernel file. */
Test(extract, cuda_takes_the_launcher_under_the_entry_name)
{
    const char *r = "Design: one thread per element\n```cuda\n#include <cuda_runtime.h>\n"
                    "__global__ void k(float *y){}\nextern \"C\" void f(int n, float *y)\n"
                    "{ k<<<1,1>>>(y); }\n```\nUse it like this:\n```c\nf(n, y);\n```\n";
    ch_error err;
    char *s = ch_extract_cuda(r, "f_launcher", &err);
    cr_assert(s, "%s", err.msg);
    cr_assert(strstr(s, "extern \"C\" void f(int n"), "%s", s);
    free(s);
    /* a block defining f_launcher wins over one defining f */
    r = "```cuda\nextern \"C\" void f(int n) { }\n```\n"
        "```cuda\n__global__ void k(){}\nextern \"C\" void f_launcher(int n) { k<<<1,1>>>(); "
        "}\n```\n";
    s = ch_extract_cuda(r, "f_launcher", &err);
    cr_assert(s, "%s", err.msg);
    cr_assert(strstr(s, "f_launcher"), "%s", s);
    free(s);
    /* only calls of f: nothing defines the launcher */
    cr_assert_null(ch_extract_cuda("```cuda\nextern \"C\" void g(int n) { f(n); }\n```\n",
                                   "f_launcher", &err));
    cr_assert(strstr(err.msg, "defines f_launcher()"), "%s", err.msg);
}

Test(extract, cuda_rejections_say_what_is_missing)
{
    ch_error err;
    cr_assert_null(ch_extract_cuda("just words", "f_launcher", &err));
    cr_assert(strstr(err.msg, "no ```cuda code block"), "%s", err.msg);
    cr_assert_null(ch_extract_cuda("```cuda\n__global__ void g(){}\n```", "f_launcher", &err));
    cr_assert(strstr(err.msg, "defines f_launcher()"), "%s", err.msg);
    cr_assert_null(ch_extract_cuda("```cuda\nvoid f_launcher(int n){}\n```", "f_launcher", &err));
    cr_assert(strstr(err.msg, "extern \"C\""), "%s", err.msg);
    cr_assert_null(ch_extract_cuda(
        "```cuda\nextern \"C\" void f_launcher(int n){}\nint main(void){return 0;}\n```",
        "f_launcher", &err));
    cr_assert(strstr(err.msg, "main()"), "%s", err.msg);
    /* A name that merely contains the launcher's does not count. */
    cr_assert_null(ch_extract_cuda("```cuda\nextern \"C\" void xf_launcher(int n){}\n```",
                                   "f_launcher", &err));
}

Test(extract, bare_code_without_fences)
{
    ch_error err;
    char *s = ch_extract_cuda("extern \"C\" void f_launcher(int n) {}\n", "f_launcher", &err);
    cr_assert(s, "%s", err.msg);
    free(s);
}

Test(extract, c_reference)
{
    ch_error err;
    char *s = ch_extract_c("Sure.\n```c\n#include <math.h>\nvoid f_reference(int n) {}\n```\n",
                           "f_reference", &err);
    cr_assert(s, "%s", err.msg);
    cr_assert_str_eq(s, "#include <math.h>\nvoid f_reference(int n) {}\n");
    free(s);
    cr_assert_null(ch_extract_c("```python\ndef f_reference(n): pass\n```", "f_reference", &err));
}

Test(extract, json_in_block_or_prose)
{
    ch_error err;
    cJSON *j = ch_extract_json("x\n```json\n{\"a\": 1}\n```\n", &err);
    cr_assert(j, "%s", err.msg);
    cr_assert_eq(cJSON_GetObjectItem(j, "a")->valueint, 1);
    cJSON_Delete(j);
    j = ch_extract_json("The answer is {\"b\": {\"c\": 2}} as requested.", &err);
    cr_assert(j, "%s", err.msg);
    cJSON_Delete(j);
    cr_assert_null(ch_extract_json("```json\n{\"a\": }\n```", &err));
    cr_assert(strstr(err.msg, "not valid JSON"), "%s", err.msg);
    cr_assert_null(ch_extract_json("nothing", &err));
    cr_assert(strstr(err.msg, "no JSON object"), "%s", err.msg);
    cr_assert_null(ch_extract_json("[1, 2]", &err));
}

Test(extract, templates_and_prompts)
{
    const char *vars[] = {"a", "1", "bb", "two", NULL};
    char *s = ch_template_fill("{{a}}+{{bb}}={{c}} {{a", vars);
    cr_assert_str_eq(s, "1+two={{c}} {{a");
    free(s);
    const char *names[] = {"system.md", "checklist.md", "test_author.md", "kernel_author.md",
                           "feedback.md"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        cr_assert(ch_prompt(names[i]), "prompt %s not embedded", names[i]);
    cr_assert(strstr(ch_prompt("kernel_author.md"), "{{launcher_signature}}"));
    cr_assert(strstr(ch_prompt("kernel_author.md"), "cublas_v2.h"));
    cr_assert_null(ch_prompt("nope.md"));
}

Test(extract, redaction)
{
    char *s = ch_redact("key=sk-abcdef and sk-abcdef again", "sk-abcdef");
    cr_assert_str_eq(s, "key=[REDACTED] and [REDACTED] again");
    free(s);
    s = ch_redact("unchanged", NULL);
    cr_assert_str_eq(s, "unchanged");
    free(s);
}
