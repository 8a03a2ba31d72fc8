# PolyBench/C 4.2.1 for scenario tests (sourced after tap.sh): finds the suite beside the
# repository (shared/suites, or CH_CC_POLYBENCH), copies it into the test directory and
# annotates each kernel there, as a user would: one `#pragma harness` line before each
# kernel_NAME function, `static` as shipped. The suite itself is never modified.
polybench_suite="${CH_CC_POLYBENCH:-$CH_CC_SRC/../shared/suites/polybench-4.2.1}"

# polybench_copy DIR: the annotated copy in DIR; prints the kernels' sources, one a line
polybench_copy() {
    cp -r "$polybench_suite" "$1"
    chmod -R u+w "$1"
    (cd "$1" && find . -name '*.c' ! -path './utilities/*' ! -name '*.orig.c' | sort) |
        while read -r src; do
            perl -0pi -e 's/^((?:static\s+)?void\s+kernel_\w+\s*\()/#pragma harness\n$1/m' "$1/$src"
            echo "$src"
        done
}
