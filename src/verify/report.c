/* Verification reports: the structured result of one candidate's run through the stages, its
 * JSON form, and the feedback text the kernel author sees (correctness before speed, never any
 * test data, seed or reference code). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/sandbox.h"
#include "ch/verify.h"

const char *ch_stage_name(int stage)
{
    static const char *const names[] = {"static",      "compile",   "smoke",
                                        "correctness", "sanitizer", "performance"};
    return stage >= 0 && stage < CH_STAGE_COUNT_ ? names[stage] : "?";
}

static const char *status_name(ch_stage_status s)
{
    static const char *const names[] = {"not-run", "pass", "fail", "skipped"};
    return names[s];
}

void ch_verify_report_init(ch_verify_report *r)
{
    memset(r, 0, sizeof *r);
    r->launcher_ms = r->kernel_ms = r->floor_ms = r->fraction = -1;
    r->host_ms = r->small_ms = -1;
    r->setup_ms = r->first_use_ms = -1;
    r->call_runtime = -1;
    r->dram_floor_ms = r->pcie_floor_ms = r->call_fraction = r->peak_gflops = -1;
    r->details = cJSON_CreateObject();
}

void ch_verify_report_free(ch_verify_report *r)
{
    free(r->message);
    free(r->work_dir);
    cJSON_Delete(r->details);
    memset(r, 0, sizeof *r);
}

void ch_verify_report_copy(ch_verify_report *dst, const ch_verify_report *src)
{
    *dst = *src;
    dst->message = src->message ? ch_xstrdup(src->message) : NULL;
    dst->work_dir = NULL;
    dst->details = src->details ? cJSON_Duplicate(src->details, 1) : cJSON_CreateObject();
}

char *ch_verify_report_json(const ch_verify_report *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "verdict", r->correct ? "correct" : "incorrect");
    cJSON_AddBoolToObject(o, "passed", r->passed);
    cJSON_AddNumberToObject(o, "stage", r->stage);
    cJSON_AddStringToObject(o, "stage_name", ch_stage_name(r->stage));
    cJSON_AddStringToObject(o, "message", r->message ? r->message : "");
    char seed[32];
    snprintf(seed, sizeof seed, "%016llx", (unsigned long long)r->seed);
    cJSON_AddStringToObject(o, "seed", seed);
    cJSON *stages = cJSON_AddArrayToObject(o, "stages");
    for (int i = 0; i < CH_STAGE_COUNT_; i++) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "name", ch_stage_name(i));
        cJSON_AddStringToObject(s, "status", status_name(r->status[i]));
        cJSON_AddNumberToObject(s, "seconds", r->seconds[i]);
        cJSON *d = cJSON_GetObjectItemCaseSensitive(r->details, ch_stage_name(i));
        if (d)
            cJSON_AddItemToObject(s, "details", cJSON_Duplicate(d, 1));
        cJSON_AddItemToArray(stages, s);
    }
    if (r->launcher_ms >= 0)
        cJSON_AddItemToObject(o, "timing", ch_verify_timing_json(r));
    if (r->work_dir)
        cJSON_AddStringToObject(o, "work_dir", r->work_dir);
    char *iso = ch_sandbox_isolation_text(r->isolation_failed);
    cJSON_AddStringToObject(o, "isolation", iso);
    free(iso);
    char *s = cJSON_Print(o);
    cJSON_Delete(o);
    return s;
}

static void add_ms(cJSON *o, const char *name, double v)
{
    if (v >= 0)
        cJSON_AddNumberToObject(o, name, v);
    else
        cJSON_AddNullToObject(o, name);
}

cJSON *ch_verify_timing_json(const ch_verify_report *r)
{
    cJSON *p = cJSON_CreateObject();
    /* the kernels: what a kernel author tunes, against the DRAM floor */
    add_ms(p, "kernel_ms", r->kernel_ms);
    cJSON_AddBoolToObject(p, "kernel_resident", r->kernel_resident);
    if (!r->kernel_resident && r->kernel_ms >= 0)
        cJSON_AddStringToObject(p, "kernel_note",
                                "kernel_ms includes the host-device copies (the candidate has no "
                                "device launcher)");
    add_ms(p, "dram_floor_ms", r->dram_floor_ms);
    add_ms(p, "kernel_fraction_of_dram_floor",
           r->kernel_resident && r->dram_floor_ms >= 0 && r->kernel_ms > 0
               ? r->dram_floor_ms / r->kernel_ms
               : -1);
    add_ms(p, "fp32_peak_gflops", r->peak_gflops);
    cJSON_AddStringToObject(p, "compute_floor", "unknown (no flop count in the checklist)");
    /* the whole host-pointer call: what a user's call costs; the dispatcher reads it */
    add_ms(p, "launcher_ms", r->launcher_ms);
    add_ms(p, "pcie_floor_ms", r->pcie_floor_ms);
    add_ms(p, "call_fraction_of_pcie_floor", r->call_fraction);
    add_ms(p, "host_ms", r->host_ms);
    add_ms(p, "small_size_launcher_ms", r->small_ms);
    if (r->call_runtime >= 0)
        cJSON_AddStringToObject(p, "call_path", r->call_runtime ? "runtime" : "launcher");
    /* a process's first call: the device's set-up and the first use of the entry's buffers */
    add_ms(p, "device_setup_ms", r->setup_ms);
    add_ms(p, "first_use_ms", r->first_use_ms);
    /* the floor evolution reads (kernel vs DRAM when resident, else the whole call) */
    add_ms(p, "floor_ms", r->floor_ms);
    add_ms(p, "fraction_of_floor", r->fraction);
    return p;
}

void ch_verify_resources(const ch_verify_report *r, int *registers, int *smem_bytes,
                         int *spill_bytes)
{
    *registers = *smem_bytes = -1;
    *spill_bytes = 0;
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r->details, "compile"), "resources");
    const cJSON *it;
    cJSON_ArrayForEach(it, res)
    {
        const cJSON *regs = cJSON_GetObjectItemCaseSensitive(it, "registers");
        const cJSON *smem = cJSON_GetObjectItemCaseSensitive(it, "smem_bytes");
        const cJSON *spill = cJSON_GetObjectItemCaseSensitive(it, "spill_store_bytes");
        if (cJSON_IsNumber(regs) && regs->valueint > *registers)
            *registers = regs->valueint;
        if (cJSON_IsNumber(smem) && smem->valueint > *smem_bytes)
            *smem_bytes = smem->valueint;
        if (cJSON_IsNumber(spill) && spill->valueint > 0)
            *spill_bytes += spill->valueint;
    }
}

char *ch_verify_feedback(const ch_verify_report *r)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(r->details, ch_stage_name(r->stage));
    if (!r->correct) {
        ch_strbuf_addf(&sb, "Verification failed at stage %d (%s): %s\n", r->stage,
                       ch_stage_name(r->stage), r->message ? r->message : "");
        const cJSON *diag = cJSON_GetObjectItemCaseSensitive(d, "diagnostics");
        if (cJSON_IsString(diag) && *diag->valuestring)
            ch_strbuf_addf(&sb, "Diagnostics:\n%s\n", diag->valuestring);
        const cJSON *mm = cJSON_GetObjectItemCaseSensitive(d, "mismatches");
        const cJSON *it;
        if (cJSON_IsArray(mm)) {
            ch_strbuf_adds(&sb, "First mismatches:\n");
            cJSON_ArrayForEach(it, mm)
            {
                if (cJSON_IsString(it))
                    ch_strbuf_addf(&sb, "  %s\n", it->valuestring);
            }
        }
        const cJSON *out = cJSON_GetObjectItemCaseSensitive(d, "tool_output");
        if (cJSON_IsString(out) && *out->valuestring)
            ch_strbuf_addf(&sb, "Tool output:\n%s\n", out->valuestring);
        return ch_strbuf_detach(&sb);
    }
    ch_strbuf_adds(&sb, "The candidate is correct (stages 0-4 passed).\n");
    if (r->kernel_resident && r->kernel_ms >= 0) {
        ch_strbuf_addf(&sb,
                       "Kernel time %.4f ms at the tune size (device-resident data, no "
                       "copies)",
                       r->kernel_ms);
        if (r->dram_floor_ms > 0)
            ch_strbuf_addf(&sb, ": %.0f%% of the DRAM floor %.4f ms", 100.0 * r->fraction,
                           r->dram_floor_ms);
        ch_strbuf_adds(&sb, ".\n");
    } else if (r->kernel_ms >= 0) {
        ch_strbuf_addf(&sb,
                       "Kernel time %.4f ms at the tune size, host-device copies included "
                       "(define the device launcher to have the kernels timed alone).\n",
                       r->kernel_ms);
        if (r->floor_ms > 0)
            ch_strbuf_addf(&sb, "Memory floor %.4f ms: %.0f%% of the floor achieved.\n",
                           r->floor_ms, 100.0 * r->fraction);
    }
    if (r->peak_gflops > 0)
        ch_strbuf_addf(&sb,
                       "Compute peak about %.0f GFLOP/s (fp32); the checklist gives no "
                       "flop count, so only the memory floor applies.\n",
                       r->peak_gflops);
    if (r->launcher_ms >= 0) {
        ch_strbuf_addf(&sb, "Whole call (copies included) %.4f ms", r->launcher_ms);
        if (r->pcie_floor_ms > 0)
            ch_strbuf_addf(&sb, " against a PCIe floor of %.4f ms", r->pcie_floor_ms);
        if (r->host_ms >= 0)
            ch_strbuf_addf(&sb, "; the host path takes %.4f ms", r->host_ms);
        ch_strbuf_adds(&sb, ".\n");
    }
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r->details, "compile"), "resources");
    const cJSON *it;
    cJSON_ArrayForEach(it, res)
    {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(it, "line");
        if (cJSON_IsString(f))
            ch_strbuf_addf(&sb, "ptxas: %s\n", f->valuestring);
    }
    if (!r->passed && r->message)
        ch_strbuf_addf(&sb, "Performance stage: %s\n", r->message);
    return ch_strbuf_detach(&sb);
}
