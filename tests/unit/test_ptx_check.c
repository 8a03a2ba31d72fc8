/* The device-code check judges the PTX nvcc made of a candidate (issue 15): special registers
 * of the time, the GPU and the launch history are refused wherever they come from, as are traps,
 * assertions and a __device__ variable written or whose address escapes; the registers of the
 * launch's own geometry (what CUB reads), a table only loaded from and a __constant__ variable
 * only read pass. PTX as nvcc 13 writes it, with -lineinfo. */
#include <criterion/criterion.h>
#include <string.h>

#include "ch/verify.h"

static const char head[] = ".version 9.0\n.target sm_90\n.address_size 64\n\n";

static const char entry[] = ".visible .entry _Z7saxpy_kifPKfPf(\n"
                            "\t.param .u32 _Z7saxpy_kifPKfPf_param_0,\n"
                            "\t.param .u64 _Z7saxpy_kifPKfPf_param_1\n"
                            ")\n.maxntid 256, 1, 1\n{\n"
                            "\t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<12>;\n\t.reg .b64 \t%rd<12>;\n"
                            "\t.loc\t1 5 0\n"
                            "\tld.param.u32 \t%r3, [_Z7saxpy_kifPKfPf_param_0];\n"
                            "\tld.param.u64 \t%rd1, [_Z7saxpy_kifPKfPf_param_1];\n";

static const char tail[] =
    "$L__BB0_2:\n\tret;\n\n}\n"
    "\t.file\t1 \"/tmp/cand-x/candidate.cu\"\n"
    "\t.file\t2 \"/usr/local/cuda/include/cuda/std/__chrono/system_clock.h\"\n"
    "\t.section\t.debug_str\n\t{\n$L__info_string0:\n"
    ".b8 95,95,103,108,111,98,97,108,116,105,109,101,114,0\n\t}\n";

/* A module with decls at module scope and body inside the kernel; the check's verdict. */
static int judge(const char *decls, const char *body, ch_strbuf *msg)
{
    char *ptx = ch_xasprintf("%s%s%s%s%s", head, decls, entry, body, tail);
    ch_strbuf_init(msg);
    int rc = ch_ptx_check(ptx, "candidate.cu", msg);
    free(ptx);
    return rc;
}

static void refused(const char *decls, const char *body, const char *want)
{
    ch_strbuf m;
    cr_assert_eq(judge(decls, body, &m), 1, "passed: %s", body);
    cr_assert(strstr(m.data, want), "message '%s' lacks '%s'", m.data, want);
    ch_strbuf_free(&m);
}

static void passed(const char *decls, const char *body)
{
    ch_strbuf m;
    cr_assert_eq(judge(decls, body, &m), 0, "refused: %s", m.data);
    ch_strbuf_free(&m);
}

Test(ptx_check, time_registers_refused_with_line)
{
    refused("", "\t.loc\t1 9 5\n\tmov.u64 \t%rd3, %globaltimer;\n",
            "line 9: the device code of 'saxpy_k' reads %globaltimer, which depends on the time");
    refused("", "\tmov.u32 \t%r4, %globaltimer_lo;\n", "%globaltimer_lo");
    refused("", "\tmov.u32 \t%r4, %clock;\n", "%clock, which depends on a clock");
    refused("", "\tmov.u64 \t%rd4, %clock64;\n", "%clock64");
}

Test(ptx_check, header_code_located_at_its_call_site)
{
    /* libcu++'s system_clock::now() inlined from a header: the candidate's line it is called on */
    refused("",
            "\t.loc\t1 7 3\n\tadd.s32 \t%r5, %r3, 1;\n"
            "\t.loc\t2 40 12, function_name $L__info_string0, inlined_at 1 11 20\n"
            "\tmov.u64 \t%rd3, %globaltimer;\n",
            "line 11: ");
}

Test(ptx_check, launch_history_and_machine_registers_refused)
{
    refused("", "\tmov.u64 \t%rd3, %gridid;\n", "a launch counter");
    refused("", "\tmov.u32 \t%r4, %nsmid;\n", "how many SMs");
    refused("", "\tmov.u32 \t%r4, %smid;\n", "which SM");
    refused("", "\tmov.u32 \t%r4, %warpid;\n", "%warpid");
    refused("", "\tmov.u32 \t%r4, %nwarpid;\n", "%nwarpid");
    refused("", "\tmov.u32 \t%r4, %total_smem_size;\n", "shared memory size");
    refused("", "\tmov.u32 \t%r4, %pm3;\n", "a performance counter");
    refused("", "\tmov.u64 \t%rd4, %pm0_64;\n", "a performance counter");
    refused("", "\tmov.u32 \t%r4, %envreg17;\n", "environment registers");
    /* behind a predicate, after a label, inside an inline-asm block */
    refused("", "\t@%p1 mov.u32 \t%r4, %smid;\n", "%smid");
    refused("", "$L__BB0_1:\n\t{\n\t.reg .b32 t;\n\tmov.u32 t, %gridid;\n\t}\n", "%gridid");
}

Test(ptx_check, traps_and_assertions_refused)
{
    refused("", "\t.loc\t1 12 9\n\t@%p2 trap;\n",
            "line 12: the device code of 'saxpy_k' has a 'trap'");
    refused("", "\tbrkpt;\n", "'brkpt'");
    refused(".extern .func __assertfail\n(\n\t.param .b64 __assertfail_param_0\n)\n;\n",
            "\t{ // callseq 0, 0\n\t.param .b64 param0;\n\tst.param.b64 \t[param0+0], %rd6;\n"
            "\tcall.uni \n\t__assertfail, \n\t(\n\tparam0\n\t);\n\t} // callseq 0\n",
            "calls __assertfail");
}

/* What cub::BlockReduce and WarpScan compile to: lanes, thread and block indices, shuffles,
 * the empty customization-point objects libcu++ defines as .global bytes nothing touches. */
Test(ptx_check, cub_like_code_passes)
{
    passed(".global .align 1 .b8 "
           "_ZN36_INTERNAL_ce300a76_6_cub_cu_daaac7ba4cuda3std3__45__cpo5beginE[1];\n"
           ".global .align 1 .b8 "
           "_ZN36_INTERNAL_ce300a76_6_cub_cu_daaac7ba4cuda3std3__45__cpo3endE[1];\n"
           ".extern .shared .align 16 .b8 _ZN3cub6detail11shared_tmpE[];\n",
           "\tmov.u32 \t%r1, %tid.x;\n\tmov.u32 \t%r2, %laneid;\n\tmov.u32 \t%r5, %ntid.x;\n"
           "\tmov.u32 \t%r6, %ctaid.x;\n\tmov.u32 \t%r7, %nctaid.x;\n"
           "\tmov.u32 \t%r8, %lanemask_ge;\n\tmov.u32 \t%r9, %dynamic_smem_size;\n"
           "\tmov.b32 \t%r10, 1;\n\tshfl.sync.down.b32 \t%r11|%p1, %r8, %r10, 7711, -1;\n"
           "\tbar.sync \t0;\n\tnanosleep.u32 \t%r10;\n\tst.global.u32 \t[%rd1], %r11;\n");
}

Test(ptx_check, device_counter_refused)
{
    /* template <typename T> __device__ T tally; atomicAdd(&tally<int>, 1) */
    refused(".global .align 4 .u32 _Z5tallyIiE;\n",
            "\t.loc\t1 9 9\n\tmov.u64 \t%rd3, _Z5tallyIiE;\n"
            "\tatom.global.add.u32 \t%r4, [%rd3], 1;\n",
            "line 9: the device code of 'saxpy_k' writes, or hands on the address of, the "
            "__device__ variable '_Z5tallyIiE'");
    /* stored by name; through a generic address after a loop's back edge; its address stored */
    refused(".visible .global .align 4 .u32 count;\n",
            "\tld.global.u32 \t%r4, [count];\n\tadd.s32 \t%r5, %r4, 1;\n"
            "\tst.global.u32 \t[count], %r5;\n",
            "'count' (st.global.u32)");
    refused(".global .align 4 .u32 count;\n",
            "$L__BB0_1:\n\tst.u32 \t[%rd9], %r5;\n\tbra.uni \t$L__BB0_1;\n"
            "\tmov.u64 \t%rd7, count;\n\tcvta.global.u64 \t%rd8, %rd7;\n"
            "\tadd.s64 \t%rd9, %rd8, 4;\n",
            "'count' (st.u32)");
    refused(".global .align 4 .u32 count;\n",
            "\tmov.u64 \t%rd7, count;\n\tmov.b64 \t{%r6, %r7}, %rd7;\n"
            "\tmov.b64 \t%rd8, {%r6, %r7};\n\tst.global.u64 \t[%rd1], %rd8;\n",
            "'count'");
    refused(".global .align 4 .u32 count;\n.global .align 8 .u64 p[1] = {generic(count)};\n", "",
            "a module-scope initializer holds the address of the __device__ variable 'count'");
}

Test(ptx_check, tables_loaded_from_pass)
{
    /* a __constant__ table, a __device__ table indexed through its address: loads only */
    passed(".const .align 4 .u32 calls_seen;\n"
           ".global .align 4 .b8 _ZL3tab[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, "
           "128, 64};\n",
           "\tld.const.u32 \t%r1, [calls_seen];\n\tmov.u64 \t%rd4, _ZL3tab;\n"
           "\tcvta.global.u64 \t%rd5, %rd4;\n\tmul.wide.s32 \t%rd6, %r3, 4;\n"
           "\tadd.s64 \t%rd7, %rd5, %rd6;\n\tld.u32 \t%r2, [%rd7];\n"
           "\tld.global.nc.u32 \t%r5, [_ZL3tab+4];\n\tst.global.u32 \t[%rd1], %r2;\n");
}

Test(ptx_check, comments_do_not_count)
{
    passed("// mov.u64 %rd1, %globaltimer; trap;\n/* %smid */\n",
           "\tadd.s32 \t%r4, %r3, 1; // %clock64\n");
}

/* attacks8 #07, #45: inline assembly declares local and register memory of its own, which the
 * hardening cannot give an initialiser: a .local array other than nvcc's __local_depot is
 * refused, and a register it declares is read only after it is written (at the body's level
 * too, a guard counting as a read); what nvcc itself declares and writes first passes. */
Test(ptx_check, inline_assembly_memory_starts_written)
{
    refused("", "\t{\n\t.local .align 4 .b8 stash[128];\n\tld.local.u32 \t%r4, [stash+4];\n\t}\n",
            "declares .local memory in inline assembly");
    refused("", "\t{\n\t.reg .b32 t;\n\tmov.b32 \t%r4, t;\n\t}\n",
            "reads the register 't' its inline assembly declares before writing it");
    refused("", "\t.reg .b32 left;\n\tadd.s32 \t%r4, %r3, left;\n", "register 'left'");
    refused("", "\t{\n\t.reg .pred q;\n\t@q mov.b32 \t%r4, 1;\n\t}\n", "register 'q'");
    refused("", "\t{\n\t.reg .b64 a;\n\tst.global.u32 \t[a], %r3;\n\t}\n", "register 'a'");
    passed("", "\t.local .align 8 .b8 \t__local_depot0[16];\n"
               "\t{\n\t.reg .b32 t;\n\tmov.b32 \tt, 5;\n\tadd.s32 \t%r4, t, 1;\n\t}\n"
               "\t{\n\t.reg .b32 u<2>;\n\tmov.b32 \tu0, %r3;\n\tmov.b32 \tu1, u0;\n\t}\n"
               "\t{ // callseq 1, 0\n\t.reg .b32 temp_param_reg;\n\t.param .b64 param0;\n"
               "\tst.param.b64 \t[param0+0], %rd1;\n\t} // callseq 1\n");
    /* a block's registers end with it: another block's of the same name starts unwritten */
    refused("",
            "\t{\n\t.reg .b32 t;\n\tmov.b32 \tt, 5;\n\t}\n\t{\n\t.reg .b32 t;\n"
            "\tmov.b32 \t%r4, t;\n\t}\n",
            "register 't'");
}
