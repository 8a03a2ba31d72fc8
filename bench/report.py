#!/usr/bin/env python3
"""What bench/speed.sh and bench/polybench.sh read from ch-cc's reports, and their tables.

usage:
  report.py path CACHE_DIR [NAME] < harness-list.json    the entry's report.json path
  report.py best REPORT                 variant, precision, kernel ms, whole-call ms (TSV; '-'
                                        where unknown)
  report.py speed-header                the micro table's header
  report.py speed-row BASELINES RECORD  one micro's row (RECORD: the file speed.sh wrote);
                                        appends the machine-readable row to $CH_CC_SPEED_TSV;
                                        exits 1 when the result differs from gcc's
  report.py pb-cols | pb-header | pb-row < TSV-LINE | pb-summary TSV... | pb-table TSV...
                                        PolyBench: the TSV header, the table's header, one row,
                                        the geometric-mean line, or the whole table merged from
                                        several streams' TSVs

The winning candidate's times are read under every name they have had: the device-resident
kernel time as device_ms or kernel_ms, the whole call (copies in and out included) as call_ms or
launcher_ms, the first present that is a number.
"""
import json
import math
import os
import sys

KERNEL_KEYS = ("device_ms", "kernel_ms")
CALL_KEYS = ("call_ms", "launcher_ms")
VARIANT_KEYS = ("design", "variant")
PRECISION_KEYS = ("precision",)


def first_number(obj, keys):
    for k in keys:
        v = obj.get(k)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0:
            return float(v)
    return None


def first_text(obj, keys):
    for k in keys:
        v = obj.get(k)
        if isinstance(v, str) and v:
            return v
    return None


def best_candidate(report_path):
    """The winning candidate of a report.json, or None (no report, no correct candidate)."""
    try:
        with open(report_path) as f:
            ev = json.load(f)["evolution"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    for c in ev.get("candidates") or []:
        if ev.get("best") is not None and c.get("id") == ev["best"]:
            return c
    return None


def best_fields(report_path):
    """(variant, precision, kernel_ms, call_ms) of the winner; None where unknown."""
    c = best_candidate(report_path)
    if c is None:
        return None, None, None, None
    return (first_text(c, VARIANT_KEYS), first_text(c, PRECISION_KEYS),
            first_number(c, KERNEL_KEYS), first_number(c, CALL_KEYS))


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def ratio(a, b):
    return a / b if a is not None and b else None


def report_path(cache, listing, name=None):
    """'' when the listing is not there (the scan failed): the row then shows no kernel."""
    try:
        entries = json.loads(listing)
    except ValueError:
        return ""
    for e in entries:
        if name is None or e.get("name") == name:
            key = e["key"]
            return os.path.join(cache, key[:2], key[2:], "report.json")
    return ""


# ---- micros (bench/speed.sh) ----------------------------------------------------------------

SPEED_COLS = ("micro", "linked", "variant", "precision", "kernel_ms", "report_call_ms",
              "achieved", "unit", "fraction", "reference", "call_ms", "dispatched_ms",
              "dispatched_path", "gcc_ms", "speedup_call", "speedup_dispatched", "check",
              "build_s")


def read_kv(path):
    """A file of 'key value...' lines (baselines, a micro's record)."""
    out = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.split(None, 1)
                if len(parts) == 2:
                    out[parts[0]] = parts[1].strip()
    except OSError:
        pass
    return out


def driver_line(text):
    """One line of the micro driver: name first median reps bytes flops sum scale."""
    f = (text or "").split()
    if len(f) != 8:
        return None
    keys = ("first", "median", "reps", "bytes", "flops", "sum", "scale")
    return {k: num(v) for k, v in zip(keys, f[1:])}


def same_result(a, b, rel=1e-5):
    if a is None or b is None or a["sum"] is None or b["sum"] is None:
        return False
    yard = max(a["scale"] or 0, b["scale"] or 0, 1e-300)
    return abs(a["sum"] - b["sum"]) <= rel * yard


SPEED_FORMAT = "%-10s %9s %12s %14s %10s %10s %7s %-12s %-5s %s"


def speed_header():
    print(SPEED_FORMAT % ("micro", "kernel_ms", "achieved", "of_ref", "call_ms", "gcc_ms",
                          "x_call", "x_disp path", "check", "winning variant"))


def reference(name, flops, variant, precision, base):
    """(yardstick value, its name): the copy floor, or cuBLAS of the GEMM's type and precision
    (TF32 only where the winner used it, which its tol() must have admitted)."""
    if not flops:
        return num(base.get("copy_floor_gbs")), "floor"
    if name == "dgemm":
        return num(base.get("dgemm_tflops")), "cuBLAS"
    if "tf32" in ((precision or "") + " " + (variant or "")).lower():
        return num(base.get("sgemm_tf32_tflops")), "cuBLAS-TF32"
    return num(base.get("sgemm_tflops")), "cuBLAS"


def speed_row(baselines_path, record_path):
    base, rec = read_kv(baselines_path), read_kv(record_path)
    name = rec.get("name", "?")
    gcc, disp, gpu = (driver_line(rec.get(k)) for k in ("gcc", "dispatched", "gpu"))
    variant, precision, kernel_ms, report_call = best_fields(rec.get("report", ""))
    linked = rec.get("linked", "host")
    size = gcc or disp or gpu or {}
    flops, nbytes = size.get("flops") or 0, size.get("bytes") or 0
    ref, ref_name = reference(name, flops, variant, precision, base)
    achieved = ratio(flops / 1e9 if flops else nbytes / 1e6, kernel_ms)
    unit = "TF/s" if flops else "GB/s"
    fraction = ratio(achieved, ref)
    # the forced call counts only where the kernel ran (CH_CC_TRACE said gpu)
    call = gpu["median"] if gpu and rec.get("gpu_path") == "gpu" else None
    dispatched = disp["median"] if disp else None
    path = rec.get("dispatched_path") or "host"
    gcc_ms = gcc["median"] if gcc else None
    if gcc is None or (disp is None and gpu is None):
        check = "-"
    else:
        check = "ok" if all(same_result(gcc, r) for r in (disp, gpu) if r) else "DIFF"
    shown = variant or ("no kernel (host path)" if linked != "kernel" else "?")
    if precision:
        shown += " [%s]" % precision
    x_disp = ratio(gcc_ms, dispatched)
    print(SPEED_FORMAT % (
        name, fmt(kernel_ms, ".3f"),
        "-" if achieved is None else ("%.2f " if flops else "%.0f ") % achieved + unit,
        "-" if fraction is None else "%.1f%% %s" % (100 * fraction, ref_name),
        fmt(call, ".3f"), fmt(gcc_ms, ".3f"), fmt(ratio(gcc_ms, call), ".2f"),
        "-" if x_disp is None else "%.2f %s" % (x_disp, path), check, shown))
    tsv = os.environ.get("CH_CC_SPEED_TSV")
    if tsv:
        row = (name, linked, variant, precision, kernel_ms, report_call, achieved, unit,
               fraction, ref_name, call, dispatched, path, gcc_ms, ratio(gcc_ms, call), x_disp,
               check, num(rec.get("build_s")))
        write_tsv(tsv, SPEED_COLS, row)
    return 1 if check == "DIFF" else 0


def write_tsv(path, cols, row):
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a") as f:
        if new:
            f.write("\t".join(cols) + "\n")
        f.write("\t".join("-" if v is None else (
            "%.6g" % v if isinstance(v, float) else str(v).replace("\t", " ")) for v in row) + "\n")


# ---- PolyBench (bench/polybench.sh) -----------------------------------------------------------

PB_COLS = ("kernel", "linked", "gcc_s", "dispatched_s", "gpu_s", "speedup_gpu",
           "speedup_dispatched", "dispatched_path", "kernel_ms", "call_ms", "dump", "variant",
           "gpu_load_s", "speedup_gpu_load", "dispatched_load_s", "speedup_dispatched_load",
           "dispatched_load_path", "size_threshold")
# the columns shown, in this order (the variant, the longest, last)
PB_SHOWN = (0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 8, 9, 10, 11)
PB_FORMAT = ("%-15s %-6s %9s %9s %9s %8s %8s %-5s %9s %8s %9s %8s %-5s %-18s %10s %10s %-10s "
             "%s")


def pb_header():
    print(PB_FORMAT % ("kernel", "linked", "gcc_s", "disp_s", "gpu_s", "x_gpu", "x_disp",
                       "path", "gpu_l_s", "x_gpu_l", "disp_l_s", "x_disp_l", "path", "size>=gpu_from",
                       "kernel_ms", "call_ms", "dump", "winning variant"))


def pb_row(line):
    f = line.rstrip("\n").split("\t")
    f += ["-"] * (len(PB_COLS) - len(f))
    print(PB_FORMAT % tuple(f[i] for i in PB_SHOWN))


def pb_rows(paths):
    rows = []
    for p in paths:
        with open(p) as f:
            for line in f:
                if line.startswith("kernel\t") or not line.strip():
                    continue
                rows.append(line.rstrip("\n").split("\t"))
    return rows


def geomean(values):
    vals = [v for v in values if v is not None and v > 0]
    return (math.exp(sum(math.log(v) for v in vals) / len(vals)), len(vals)) if vals else (None, 0)


def pb_summary(rows):
    linked = [r for r in rows if len(r) > 6 and r[1] == "kernel"]
    g_gpu, n_gpu = geomean(num(r[5]) for r in linked)
    g_disp, n_disp = geomean(num(r[6]) for r in linked)
    g_all, n_all = geomean(num(r[6]) for r in rows if len(r) > 6)
    print("geomean over the %d kernels with a linked kernel: x_gpu %s (%d timed), x_disp %s "
          "(%d timed); x_disp over all %d kernels %s (%d timed)" % (
              len(linked), fmt(g_gpu, ".2f"), n_gpu, fmt(g_disp, ".2f"), n_disp, len(rows),
              fmt(g_all, ".2f"), n_all))
    # with the device set up before main (CH_CC_DEVICE_INIT=load): the calls alone
    g_gpu_l, n_gpu_l = geomean(num(r[13]) for r in linked if len(r) > 13)
    g_disp_l, n_disp_l = geomean(num(r[15]) for r in linked if len(r) > 15)
    print("device set up before main: x_gpu_l %s (%d timed), x_disp_l %s (%d timed)" % (
        fmt(g_gpu_l, ".2f"), n_gpu_l, fmt(g_disp_l, ".2f"), n_disp_l))


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "path":
        print(report_path(args[0], sys.stdin.read(), args[1] if len(args) > 1 else None))
    elif cmd == "best":
        print("\t".join("-" if v is None else (v if isinstance(v, str) else "%.6g" % v)
                        for v in best_fields(args[0])))
    elif cmd == "speed-header":
        speed_header()
    elif cmd == "speed-row":
        sys.exit(speed_row(args[0], args[1]))
    elif cmd == "pb-cols":
        print("\t".join(PB_COLS))
    elif cmd == "pb-header":
        pb_header()
    elif cmd == "pb-row":
        pb_row(sys.stdin.readline())
    elif cmd == "pb-summary":
        pb_summary(pb_rows(args))
    elif cmd == "pb-table":
        pb_header()
        rows = pb_rows(args)
        rows.sort(key=lambda r: r[0])
        for r in rows:
            pb_row("\t".join(r))
        pb_summary(rows)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
