# ch-cc: build, dependencies, tests, benchmarks, install, demo.
#
#   make            build build/bin/ch-cc and the module libraries
#   make deps       install missing Debian packages (apt-get update only when something is missing)
#   make check      deps + build + every test this machine can run (GPU tests report skipped)
#   make check-gpu  the GPU tests; fails when no CUDA device is present
#   make bench      benchmarks (driver overhead, scan, cache, verification, kernels)
#   make demo       build and run the examples with CC=ch-cc
#   make install PREFIX=/usr/local
#
# The compiler that builds ch-cc itself is BUILD_CC (not CC, so `make CC=ch-cc` in a user's
# tree never recurses into this Makefile's rules).

VERSION   := 0.1.0
PREFIX    ?= /usr/local
BUILD     ?= build
BUILD_CC  ?= cc
CUDA_HOME ?= /usr/local/cuda
LLVM_DIR  ?= /usr/lib/llvm-14

export PATH := $(PATH):$(CUDA_HOME)/bin

DEB_PACKAGES := make gcc g++ libc6-dev perl python3 cmake valgrind clang libclang-rt-14-dev \
                libclang-14-dev libcjson-dev libxxhash-dev libcurl4-openssl-dev libcriterion-dev \
                nginx-light libnginx-mod-http-dav-ext redis-server clang-format binutils file \
                libisl-dev meson ninja-build libsodium-dev libseccomp-dev libhiredis-dev chromium

# the revision of ch-cc that recorded a refusal: a later one retries it (its agent may have
# learnt to translate the entry)
REVISION  := $(shell git describe --always --dirty 2>/dev/null || echo $(VERSION))
CPPFLAGS_ALL := -Iinclude -I$(LLVM_DIR)/include -D_GNU_SOURCE -DCH_CC_VERSION=\"$(VERSION)\" \
                -DCH_CC_REVISION=\"$(REVISION)\"
CFLAGS_ALL   := -std=c11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -g
LDLIBS_ALL   := -L$(LLVM_DIR)/lib -Wl,-rpath,$(LLVM_DIR)/lib -lclang -lcjson -lxxhash -lcurl \
                -lsodium -lhiredis -lisl -lseccomp -lpthread -lm -ldl
OPT_rel      := -O2
OPT_asan     := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
                -fno-sanitize-recover=undefined

# src/runtime/ is not part of libharness: it is the trusted runtime linked into users' programs
# (libch_runtime.a, built below without sanitizers and position-independent)
LIB_SRC    := $(sort $(filter-out src/runtime/%,$(wildcard src/*/*.c src/*/*/*.c)))
RT_SRC     := $(sort $(wildcard src/runtime/*.c))
# the runtime without its CUDA half, for unit tests over a fake device
RT_CORE_SRC := $(filter-out src/runtime/cuda.c src/runtime/api.c,$(RT_SRC))
RT_HEADERS := include/ch/runtime.h src/runtime/rt.h
CACHE_SRC  := $(sort $(wildcard cache/*.c cache/storage/*.c))
DRIVER_SRC := $(sort $(wildcard driver/*.c))
# The thin front binary (bin/ch-cc) links no libclang/libcurl; admin and harness commands run in
# the full binary (libexec/ch-cc/ch-cc-full), which it execs. See driver/thin.c.
DRIVER_FULL_ONLY := $(wildcard driver/harness*.c) driver/session.c $(wildcard driver/admin*.c)
# driver/ files of pure functions (no printing, no driver state) that unit tests link too
DRIVER_UNIT :=
DRIVER_THIN_ONLY := driver/thin.c
DRIVER_CORE := $(filter-out $(DRIVER_FULL_ONLY) $(DRIVER_THIN_ONLY),$(DRIVER_SRC))
UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
FAKE_SRC   := $(sort $(wildcard tests/fakes/*.c))
PROMPTS    := $(sort $(wildcard src/agent/prompts/*))
TEMPLATES  := $(sort $(wildcard src/translate/templates/* src/emit/templates/* \
                              src/verify/templates/*))
SPEC_CATALOG := $(sort $(wildcard src/agent/spec/catalog/*))
# every header an object may include, those beside their module (src/verify/*.h ...) too: an
# object is rebuilt when any changes (a coarse rule, but never a stale struct layout)
HEADERS    := $(sort $(wildcard include/ch/*.h include/*.h driver/*.h cache/*.h cache/storage/*.h \
                              src/*/*.h))
# What `make install` puts under include/: the public API only. harness.h (the HARNESS
# attribute) and the trusted runtime's interface that generated units call (find_package users
# link libch_runtime.a); every other header is internal to ch-cc (pipeline, agents, the argument
# model) and stays in the source tree.
PUBLIC_CH_HEADERS := include/ch/runtime.h
GEN_PROMPTS := $(BUILD)/gen/prompts.c
GEN_TEMPLATES := $(BUILD)/gen/templates.c
GEN_SPEC_CATALOG := $(BUILD)/gen/spec_catalog.c
GEN_RTHEADER := $(BUILD)/gen/runtime_header.c
REPORT_PAGE := $(sort $(wildcard src/report/page/*))
GEN_REPORT_PAGE := $(BUILD)/gen/report_page.c

.PHONY: all deps build asan check check-gpu test-unit test-integration bench demo install \
        uninstall clean format format-check fuzz fuzz-build fuzz-regress gpu-carry
all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "deps: all installed"; fi
	@command -v nvcc >/dev/null 2>&1 || { echo "deps: nvcc not found (install the CUDA toolkit, or set CUDA_HOME)" >&2; exit 1; }

$(GEN_PROMPTS): $(PROMPTS) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $@ ch_prompt $(PROMPTS)

$(GEN_TEMPLATES): $(TEMPLATES) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $@ ch_template $(TEMPLATES)

$(GEN_SPEC_CATALOG): $(SPEC_CATALOG) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $@ ch_spec_catalog $(SPEC_CATALOG)

# the report page's templates, CSS and highlighting words (--harness-report)
$(GEN_REPORT_PAGE): $(REPORT_PAGE) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $@ ch_report_page $(REPORT_PAGE)

# the runtime's header travels inside ch-cc: emit pastes it into every generated unit

$(GEN_RTHEADER): include/ch/runtime.h tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $@ ch_runtime_header include/ch/runtime.h

# The trusted runtime: one set of objects (no sanitizer: it is linked into users' programs,
# -fPIC: also into their shared libraries), archived beside each variant's libharness.
RT_OBJ := $(patsubst src/runtime/%.c,$(BUILD)/runtime/obj/%.o,$(RT_SRC))
$(BUILD)/runtime/obj/%.o: src/runtime/%.c $(RT_HEADERS)
	@mkdir -p $(dir $@)
	@echo "  CC    $@"
	@$(BUILD_CC) -Iinclude -I$(CUDA_HOME)/include -D_GNU_SOURCE $(CFLAGS_ALL) -O2 -fPIC -c $< -o $@
$(BUILD)/lib/libch_runtime.a $(BUILD)/asan/lib/libch_runtime.a: $(RT_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

# variant(NAME): objects, libraries and binaries under $(BUILD)/NAME-or-root.
define variant
$(1)_DIR := $(if $(filter rel,$(1)),$(BUILD),$(BUILD)/$(1))
$(1)_CFLAGS := $$(CFLAGS_ALL) $$(OPT_$(1))
$(1)_LIB_OBJ := $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$$(LIB_SRC)) $$($(1)_DIR)/obj/gen/prompts.o \
                $$($(1)_DIR)/obj/gen/templates.o $$($(1)_DIR)/obj/gen/runtime_header.o \
                $$($(1)_DIR)/obj/gen/spec_catalog.o $$($(1)_DIR)/obj/gen/report_page.o
$(1)_CACHE_OBJ := $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$$(CACHE_SRC))
$(1)_CORE_OBJ := $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$$(DRIVER_CORE))
$(1)_FULL_OBJ := $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$$(DRIVER_FULL_ONLY))
$(1)_THIN_OBJ := $$(patsubst %.c,$$($(1)_DIR)/obj/%.o,$$(DRIVER_THIN_ONLY))
$(1)_LIBS := $$($(1)_DIR)/lib/libchcache.a $$($(1)_DIR)/lib/libharness.a

$$($(1)_DIR)/obj/%.o: %.c $$(HEADERS)
	@mkdir -p $$(dir $$@)
	@echo "  CC    $$@"
	@$$(BUILD_CC) $$(CPPFLAGS_ALL) $$($(1)_CFLAGS) -c $$< -o $$@

$$($(1)_DIR)/obj/gen/prompts.o: $$(GEN_PROMPTS)
	@mkdir -p $$(dir $$@)
	@echo "  CC    $$@"
	@$$(BUILD_CC) $$(CPPFLAGS_ALL) $$($(1)_CFLAGS) -c $$< -o $$@

$$($(1)_DIR)/obj/gen/templates.o: $$(GEN_TEMPLATES)
	@mkdir -p $$(dir $$@)
	@echo "  CC    $$@"
	@$$(BUILD_CC) $$(CPPFLAGS_ALL) $$($(1)_CFLAGS) -c $$< -o $$@

$$($(1)_DIR)/obj/gen/spec_catalog.o: $$(GEN_SPEC_CATALOG)
	@mkdir -p $$(dir $$@)
	@echo "  CC    $$@"
	@$$(BUILD_CC) $$(CPPFLAGS_ALL) $$($(1)_CFLAGS) -c $$< -o $$@

$$($(1)_DIR)/obj/gen/report_page.o: $$(GEN_REPORT_PAGE)
	@mkdir -p $$(dir $$@)
	@echo "  CC    $$@"
	@$$(BUILD_CC) $$(CPPFLAGS_ALL) $$($(1)_CFLAGS) -c $$< -o $$@

$$($(1)_DIR)/obj/gen/runtime_header.o: $$(GEN_RTHEADER)
	@mkdir -p $$(dir $$@)
	@echo "  CC    $$@"
	@$$(BUILD_CC) $$(CPPFLAGS_ALL) $$($(1)_CFLAGS) -c $$< -o $$@

$$($(1)_DIR)/lib/libharness.a: $$($(1)_LIB_OBJ)
	@mkdir -p $$(dir $$@)
	@rm -f $$@ && ar rcs $$@ $$^

$$($(1)_DIR)/lib/libchcache.a: $$($(1)_CACHE_OBJ)
	@mkdir -p $$(dir $$@)
	@rm -f $$@ && ar rcs $$@ $$^

$$($(1)_DIR)/libexec/ch-cc/ch-cc-full: $$($(1)_CORE_OBJ) $$($(1)_FULL_OBJ) $$($(1)_LIBS)
	@mkdir -p $$(dir $$@)
	@echo "  LD    $$@"
	@$$(BUILD_CC) $$($(1)_CFLAGS) $$($(1)_CORE_OBJ) $$($(1)_FULL_OBJ) -Wl,--start-group $$($(1)_LIBS) -Wl,--end-group $$(LDLIBS_ALL) -o $$@

$$($(1)_DIR)/bin/ch-cc: $$($(1)_CORE_OBJ) $$($(1)_THIN_OBJ) $$($(1)_LIBS) $$($(1)_DIR)/libexec/ch-cc/ch-cc-full
	@mkdir -p $$(dir $$@)
	@echo "  LD    $$@"
	@$$(BUILD_CC) $$($(1)_CFLAGS) $$($(1)_CORE_OBJ) $$($(1)_THIN_OBJ) -Wl,--as-needed -Wl,--start-group $$($(1)_DIR)/lib/libchcache.a $$($(1)_DIR)/lib/libharness.a -Wl,--end-group -lxxhash -o $$@
	@ln -sf ch-cc $$(dir $$@)ch-nvcc
endef
$(eval $(call variant,rel))
$(eval $(call variant,asan))

UNIT_BIN := $(patsubst tests/unit/%.c,$(asan_DIR)/tests/unit/%,$(UNIT_SRC))
FAKE_BIN := $(patsubst tests/fakes/%.c,$(asan_DIR)/tests/fakes/%,$(FAKE_SRC))

UNIT_DRIVER_OBJ := $(patsubst %.c,$(asan_DIR)/obj/%.o,$(DRIVER_UNIT))
$(asan_DIR)/tests/unit/%: tests/unit/%.c $(asan_LIBS) $(UNIT_DRIVER_OBJ) $(HEADERS)
	@mkdir -p $(dir $@)
	$(BUILD_CC) $(CPPFLAGS_ALL) -Itests/unit -Idriver $(UNIT_INCLUDES) $(asan_CFLAGS) $< $(UNIT_DRIVER_OBJ) $(UNIT_EXTRA) -Wl,--start-group $(asan_LIBS) -Wl,--end-group $(LDLIBS_ALL) -lcriterion -o $@

# The runtime's unit test: its core under the sanitizers, over a fake device.
RT_CORE_OBJ := $(patsubst src/runtime/%.c,$(asan_DIR)/runtime-core/%.o,$(RT_CORE_SRC))
$(asan_DIR)/runtime-core/%.o: src/runtime/%.c $(RT_HEADERS)
	@mkdir -p $(dir $@)
	@echo "  CC    $@"
	@$(BUILD_CC) -Iinclude -D_GNU_SOURCE $(asan_CFLAGS) -c $< -o $@
$(asan_DIR)/lib/libch_runtime_core.a: $(RT_CORE_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^
$(asan_DIR)/tests/unit/test_runtime: $(asan_DIR)/lib/libch_runtime_core.a $(RT_HEADERS)
$(asan_DIR)/tests/unit/test_runtime: UNIT_INCLUDES := -Isrc/runtime
$(asan_DIR)/tests/unit/test_runtime: UNIT_EXTRA := $(asan_DIR)/lib/libch_runtime_core.a
# the sanitizer tool choice is internal to src/verify
$(asan_DIR)/tests/unit/test_sanitize_tools: UNIT_INCLUDES := -Isrc/verify
# the emit test links generated units against the runtime
$(asan_DIR)/tests/unit/test_emit: $(asan_DIR)/lib/libch_runtime.a
# the verifier's test links scaffold programs against the runtime, and reaches the calibration
$(asan_DIR)/tests/unit/test_verify_build: $(asan_DIR)/lib/libch_runtime.a
$(asan_DIR)/tests/unit/test_verify_build: UNIT_INCLUDES := -Isrc/verify

$(asan_DIR)/tests/fakes/%: tests/fakes/%.c $(asan_LIBS) $(HEADERS)
	@mkdir -p $(dir $@)
	$(BUILD_CC) $(CPPFLAGS_ALL) $(asan_CFLAGS) $< -Wl,--start-group $(asan_LIBS) -Wl,--end-group $(LDLIBS_ALL) -o $@

build: $(BUILD)/bin/ch-cc $(BUILD)/lib/libch_runtime.a
asan: $(asan_DIR)/bin/ch-cc $(asan_DIR)/lib/libch_runtime.a $(UNIT_BIN) $(FAKE_BIN)

# Tests drive the sanitizer build of the real binary (CH_CC_BIN) on real trees.
TEST_ENV = CH_CC_BIN=$(abspath $(asan_DIR)/bin/ch-cc) CH_CC_REL_BIN=$(abspath $(BUILD)/bin/ch-cc) \
           CH_CC_SRC=$(abspath .) CH_CC_TEST_BUILD=$(abspath $(asan_DIR)) \
           CH_CC_FUZZ_BUILD=$(abspath $(BUILD)/fuzz) \
           ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
           LSAN_OPTIONS=suppressions=$(abspath tests/lib/lsan.supp):print_suppressions=0 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# The slowest scenarios start first: prove runs two at a time on two cores, and one of them
# begun last would run alone at the end.
SLOW_TESTS := $(addprefix tests/integration/,attacks_fresh.t attacks_heldout.t attacks_fifth.t \
              everyday.t harness_build.t attacks_redteam.t cache_poisoned_build.t polybench.t)
check: deps build asan fuzz-regress format-check
	@$(TEST_ENV) sh tests/run.sh $(SLOW_TESTS) $(UNIT_BIN) \
	    $(filter-out $(SLOW_TESTS),$(sort $(wildcard tests/integration/*.t tests/gpu/*.t)))

check-gpu: deps build asan
	@sh tests/gpu/require-gpu.sh
	@$(TEST_ENV) CH_CC_REQUIRE_GPU=1 sh tests/run.sh $(sort $(wildcard tests/gpu/*.t))

bench: deps build
	@CH_CC_BIN=$(abspath $(BUILD)/bin/ch-cc) CH_CC_SRC=$(abspath .) sh bench/run.sh

demo: deps build
	@CH_CC_BIN=$(abspath $(BUILD)/bin/ch-cc) sh examples/run-demo.sh

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/ch $(DESTDIR)$(PREFIX)/lib/cmake/CudaHarness
	install -d $(DESTDIR)$(PREFIX)/libexec/ch-cc
	install -m 755 $(BUILD)/bin/ch-cc $(DESTDIR)$(PREFIX)/bin/ch-cc
	ln -sf ch-cc $(DESTDIR)$(PREFIX)/bin/ch-nvcc
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 docs/ch-cc.1 $(DESTDIR)$(PREFIX)/share/man/man1/ch-cc.1
	ln -sf ch-cc.1 $(DESTDIR)$(PREFIX)/share/man/man1/ch-nvcc.1
	install -m 755 $(BUILD)/libexec/ch-cc/ch-cc-full $(DESTDIR)$(PREFIX)/libexec/ch-cc/ch-cc-full
	install -m 644 include/harness.h $(DESTDIR)$(PREFIX)/include/harness.h
	install -m 644 $(PUBLIC_CH_HEADERS) $(DESTDIR)$(PREFIX)/include/ch/
	install -d $(DESTDIR)$(PREFIX)/lib
	install -m 644 $(BUILD)/lib/libch_runtime.a $(DESTDIR)$(PREFIX)/lib/libch_runtime.a
	@for f in cmake-module/*; do [ -f "$$f" ] && install -m 644 "$$f" $(DESTDIR)$(PREFIX)/lib/cmake/CudaHarness/ || true; done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ch-cc $(DESTDIR)$(PREFIX)/bin/ch-nvcc $(DESTDIR)$(PREFIX)/include/harness.h
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/ch-cc.1 $(DESTDIR)$(PREFIX)/share/man/man1/ch-nvcc.1
	rm -f $(DESTDIR)$(PREFIX)/lib/libch_runtime.a
	rm -rf $(DESTDIR)$(PREFIX)/libexec/ch-cc
	rm -rf $(DESTDIR)$(PREFIX)/include/ch $(DESTDIR)$(PREFIX)/lib/cmake/CudaHarness

# test inputs (tests/data: user programs, attack payloads whose exact text is the attack) are
# kept as written
FORMAT_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^tests/data/' | grep -v '^tests/integration/data/' | \
               grep -v '^examples/')
format:
	clang-format -i $(FORMAT_FILES)
format-check:
	@bad=$$(for f in $(FORMAT_FILES); do clang-format --dry-run -Werror $$f >/dev/null 2>&1 || echo $$f; done); \
	if [ -n "$$bad" ]; then echo "format-check: not clang-formatted (run make format):" $$bad >&2; exit 1; fi; \
	echo "format-check: ok"

# Everything the GPU machine needs that it lacks (see tests/gpu/README.md).
gpu-carry: build asan
	BUILD=$(BUILD) sh tests/gpu/make-carry.sh

# libFuzzer over every parser of untrusted text (not part of make check): each target in
# FUZZ_TARGETS runs FUZZ_TIME seconds, one after the other, from its seeds in tests/fuzz/seeds/
# (corpus grown under $(BUILD)/fuzz/corpus/<target>); crashes land in $(BUILD)/fuzz/crash/<target>
# and belong in tests/fuzz/regress/<target> once fixed. The same targets linked with
# tests/fuzz/repro_main.c (no libFuzzer) replay tests/fuzz/regress under ASan+UBSan in make check.
# `make fuzz-build` builds every target for tests/fuzz/run-long.sh (all at once, for long runs,
# also on another machine): xxHash is linked statically, libcjson and libsodium are copied into
# $(BUILD)/fuzz/lib (found through the rpath $ORIGIN/lib), so a target needs only libc,
# libstdc++ (libFuzzer) and, for archive and sign (the cache links its remote store), libcurl;
# extract also needs the libraries ch-cc links (libclang, isl, seccomp, hiredis).
FUZZ_TIME ?= 20
FUZZ_ALL := pragma extent checklist config archive extract sign guard magic
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_FLAGS ?= -max_len=4096 -timeout=10 -rss_limit_mb=2048
FUZZ_BASE := src/base/strbuf.c src/base/error.c
FUZZ_SRC_pragma := src/scan/pragma.c $(FUZZ_BASE)
FUZZ_SRC_extent := src/scan/poly.c $(FUZZ_BASE)
FUZZ_SRC_checklist := src/checklist/json.c src/checklist/validate.c src/checklist/model.c \
                      src/checklist/expr.c src/base/types.c $(FUZZ_BASE)
FUZZ_SRC_config := src/base/config.c src/base/fsutil.c src/base/cleanup.c $(FUZZ_BASE)
FUZZ_SRC_archive := tests/fuzz/index_sum.c $(CACHE_SRC) src/base/fsutil.c src/base/cleanup.c src/base/config.c \
                    src/base/proc.c src/base/types.c $(FUZZ_BASE)
FUZZ_SRC_sign := $(FUZZ_SRC_archive)
FUZZ_SRC_guard := src/verify/source_guard.c $(FUZZ_BASE)
# magic reads tokens alone; the sizes half (checklist and plan code) comes from the archives
FUZZ_SRC_magic := src/verify/magic_sizes.c $(FUZZ_BASE)
FUZZ_LINK_magic := $(BUILD)/lib/libharness.a $(BUILD)/lib/libchcache.a
FUZZ_LIBS_magic := $(LDLIBS_ALL)
FUZZ_SRC_extract := src/agent/extract.c src/verify/source_guard.c src/base/embed.c \
                    $(GEN_PROMPTS) $(FUZZ_BASE)
# extract judges a reference with the host subset (libclang): the rest of the library comes from
# the release build's archives, uninstrumented (the fuzzer's coverage is extract's own code)
FUZZ_LINK_extract := $(BUILD)/lib/libharness.a $(BUILD)/lib/libchcache.a
FUZZ_LIBS_extract := $(LDLIBS_ALL)
FUZZ_LIBS := -Wl,--as-needed -Wl,-rpath,'$$ORIGIN/lib' -lcjson -l:libxxhash.a -lcurl -lsodium -l:libhiredis.a -lm
FUZZ_CFLAGS := $(CPPFLAGS_ALL) -std=c11 -g -O1 -fno-omit-frame-pointer \
               -fno-sanitize-recover=undefined
fuzz: $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))
	@set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(BUILD)/fuzz/corpus/$$t $(BUILD)/fuzz/crash/$$t; \
	  echo "fuzz $$t: $(FUZZ_TIME) s"; \
	  $(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_TIME) $(FUZZ_FLAGS) \
	    -artifact_prefix=$(BUILD)/fuzz/crash/$$t/ $(BUILD)/fuzz/corpus/$$t tests/fuzz/seeds/$$t; \
	done
fuzz-regress: $(patsubst %,$(BUILD)/fuzz/repro_%,$(FUZZ_ALL))
fuzz-build: $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_ALL))
	@mkdir -p $(BUILD)/fuzz/lib
	for l in libcjson.so.1 libsodium.so.23; do cp -L /usr/lib/x86_64-linux-gnu/$$l $(BUILD)/fuzz/lib/$$l; done

.SECONDEXPANSION:
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(HEADERS) $(GEN_PROMPTS) $$(FUZZ_SRC_$$*) $$(FUZZ_LINK_$$*)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined $< $(FUZZ_SRC_$*) \
	  -Wl,--start-group $(FUZZ_LINK_$*) -Wl,--end-group $(FUZZ_LIBS) $(FUZZ_LIBS_$*) -o $@
$(BUILD)/fuzz/repro_%: tests/fuzz/fuzz_%.c tests/fuzz/repro_main.c $(HEADERS) $(GEN_PROMPTS) \
                       $$(FUZZ_SRC_$$*) $$(FUZZ_LINK_$$*)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=address,undefined $< tests/fuzz/repro_main.c $(FUZZ_SRC_$*) \
	  -Wl,--start-group $(FUZZ_LINK_$*) -Wl,--end-group $(FUZZ_LIBS) $(FUZZ_LIBS_$*) -o $@

clean:
	rm -rf $(BUILD)
