# ttv: interactive terminal trace viewer.  See README.md.
#
#   make          install missing build dependencies, then build ./ttv
#   make demo     ... then open the viewer on generated sample traces
#   make check    ... then build and run every test (prove, three passes)
#   make bench    ... then generate large traces and print the benchmark table
#   make static   ... then build build-static/ttv: one file to copy to a host (no libraries)
#   make install  build, then install under $(DESTDIR)$(PREFIX) (default /usr/local):
#                 bin/ttv, share/ttv/{keymaps,themes}, share/man/man1/ttv.1,
#                 bash and zsh completions; `make uninstall` removes them
#   make fuzz     ... then build the libFuzzer targets (t/fuzz/) with clang and run
#                 each for FUZZ_SECONDS (FUZZ_TARGETS="podtrace atf" picks some)
#
# The real work happens in a sub-make, so that pkg-config is asked only after
# `deps` has installed what was missing.

BUILD   ?= build
CC      ?= cc
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
SAN     ?=
PKGS    := ncursesw termkey libpcre2-8 zlib sqlite3

STD_FLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -MMD -MP
ifeq ($(SAN),fuzz)
SAN_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all \
	     -fsanitize-coverage-ignorelist=t/fuzz/coverage-ignore.txt
else ifeq ($(SAN),thread)
SAN_FLAGS := -fsanitize=thread
else ifneq ($(SAN),)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# (the runtimes linked in: each of the suite's thousands of runs starts
# 4 ms sooner without resolving them)
SAN_LINK := -static-libasan -static-libubsan
endif

CORE_SRCS := $(filter-out src/main.c,$(wildcard src/*.c)) $(wildcard decoders/*.c decoders/*/*.c)
UI_SRCS   := $(wildcard ui/*.c)
TEST_SRCS := $(wildcard t/*.c)

CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/%.o)
UI_OBJS   := $(UI_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/gen/builtin.o $(BUILD)/gen/terminfo.o
DATA_FILES := $(wildcard keymaps/*.keys themes/*.theme)
MAIN_OBJ  := $(BUILD)/src/main.o
TEST_BINS := $(TEST_SRCS:t/%.c=$(BUILD)/t/%)

.PHONY: pictures all deps test-deps build static tests test check check-release check-asan check-tsan demo bench fuzz fuzz-deps fuzz-bins clean install uninstall

all: deps
	@$(MAKE) --no-print-directory build

# --- dependencies ---------------------------------------------------------
# pkg-config name : Debian package
DEP_PKGS := ncursesw:libncurses-dev termkey:libtermkey-dev \
            libpcre2-8:libpcre2-dev zlib:zlib1g-dev sqlite3:libsqlite3-dev
# command : Debian package
DEP_CMDS := cc:gcc pkg-config:pkg-config tmux:tmux prove:perl zsh:zsh groff:groff man:man-db mandoc:mandoc
# header (libraries without pkg-config) : Debian package
DEP_HDRS := /usr/include/libiberty/demangle.h:libiberty-dev /usr/include/unibilium.h:libunibilium-dev

# The packages in the shell variable missing: installed by apt-get as root, else said.
INSTALL_MISSING = if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "ttv: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "ttv: missing dependencies; run:"; \
	    echo "  sudo apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi

deps:
	@missing=""; \
	for pair in $(DEP_CMDS); do \
	  command -v $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; \
	done; \
	for pair in $(DEP_PKGS); do \
	  pkg-config --exists $${pair%%:*} 2>/dev/null || missing="$$missing $${pair#*:}"; \
	done; \
	for pair in $(DEP_HDRS); do \
	  [ -f $${pair%%:*} ] || missing="$$missing $${pair#*:}"; \
	done; \
	$(INSTALL_MISSING)

# What only the tests need: a browser and speedscope (npm), which open the
# exports as their users would (t/batch/speedscope.t); DuckDB (npm), which reads
# --dump --json (t/sql/sql.t); ssh and sshd, which serve remote paths (t/remote/remote.t);
# Perl's JSON::XS, the tests' own reader of what ttv writes (JSON::PP, Perl's
# own, took a minute of the suite).
TEST_CMDS := chromium:chromium node:nodejs npm:npm ssh:openssh-client /usr/sbin/sshd:openssh-server
TEST_PERL := JSON::XS:libjson-xs-perl
SPEEDSCOPE := speedscope@1.25.0
DUCKDB := @duckdb/node-api@1.5.6-r.1
NPM_DIR := build/npm

test-deps: deps
	@missing=""; \
	for pair in $(TEST_CMDS); do \
	  command -v $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; \
	done; \
	for pair in $(TEST_PERL); do \
	  perl -M$${pair%:*} -e 1 2>/dev/null || missing="$$missing $${pair##*:}"; \
	done; \
	$(INSTALL_MISSING)
	@[ -f $(NPM_DIR)/node_modules/speedscope/package.json ] || \
	  npm install --prefix $(NPM_DIR) --no-audit --no-fund --loglevel=error $(SPEEDSCOPE)
	@[ -f $(NPM_DIR)/node_modules/@duckdb/node-api/package.json ] || \
	  npm install --prefix $(NPM_DIR) --no-audit --no-fund --loglevel=error $(DUCKDB)

# The README's pictures: the screens t/house/pictures.t checks, drawn in their
# colours (t/picture.py, with Debian's Python, Pillow and DejaVu fonts).
PICTURE_DEPS := /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf:fonts-dejavu-core \
                /usr/lib/python3/dist-packages/PIL/__init__.py:python3-pil
pictures:
	@missing=""; \
	for pair in $(PICTURE_DEPS); do \
	  [ -f $${pair%%:*} ] || missing="$$missing $${pair#*:}"; \
	done; \
	$(INSTALL_MISSING)
	@for s in t/house/screens/picture-*.txt; do /usr/bin/python3 t/picture.py $$s $${s%.txt}.png || exit 1; done

# --- build ----------------------------------------------------------------
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS  = $(STD_FLAGS) $(SAN_FLAGS) -I. $(PKG_CFLAGS) $(CFLAGS)
LIBS        = $(PKG_LIBS) -liberty -lm -lpthread

# make static: build-static/ttv, linked statically and stripped: no dynamic
# loader, libraries or terminfo needed where it is copied (ui/terminfo.c).
# The release build's objects (not compiled a second time), linked apart.
STATIC_LIBS := -lncursesw -ltinfo -ltermkey -lunibilium -lpcre2-8 -lsqlite3 -lz -liberty -lm -lpthread
static: deps
	@$(MAKE) --no-print-directory build-static/ttv
build-static/ttv: build/src/main.o $(CORE_SRCS:%.c=build/%.o) $(UI_SRCS:%.c=build/%.o) build/gen/builtin.o build/gen/terminfo.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ -static -s $(STATIC_LIBS)

build: $(BUILD)/ttv
ifeq ($(BUILD),build)
	@ln -sf build/ttv ttv
endif

$(BUILD)/ttv: $(MAIN_OBJ) $(CORE_OBJS) $(UI_OBJS)
	$(CC) $(SAN_FLAGS) $(SAN_LINK) $(CFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# keymaps/ and themes/ compiled in (ui/builtin.h): a binary copied alone
# still has its keys and colours.
$(BUILD)/gen/builtin.c: $(DATA_FILES) Makefile
	@mkdir -p $(@D)
	@{ echo '#include "ui/builtin.h"'; echo 'const struct builtin_file builtin_files[] = {'; \
	  for f in $(DATA_FILES); do \
	    echo "{\"$$f\","; \
	    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' "$$f"; \
	    echo '},'; \
	  done; \
	  echo '};'; echo 'const size_t nbuiltin_files = sizeof builtin_files / sizeof *builtin_files;'; } >$@

# The build host's compiled descriptions of the common terminals (ui/terminfo.c):
# a binary copied to a host without terminfo still draws there.
BUILTIN_TERMS := xterm xterm-256color screen screen-256color tmux tmux-256color vt100 vt220 linux
TERMINFO_DIRS_HERE := /etc/terminfo /lib/terminfo /usr/share/terminfo /usr/lib/terminfo
$(BUILD)/gen/terminfo.c: Makefile
	@mkdir -p $(@D)
	@{ echo '#include "ui/builtin.h"'; echo 'const struct builtin_term builtin_terms[] = {'; \
	  for t in $(BUILTIN_TERMS); do \
	    f=$$(for d in $(TERMINFO_DIRS_HERE); do [ -f "$$d/$$(printf %.1s $$t)/$$t" ] && echo "$$d/$$(printf %.1s $$t)/$$t"; done | head -1); \
	    [ -n "$$f" ] || { echo "ttv: no terminfo entry for $$t on this host" >&2; exit 1; }; \
	    printf '{"%s", "%s", %s},\n' "$$t" "$$(od -An -v -tx1 "$$f" | tr -d ' \n' | sed 's/../\\x&/g')" "$$(wc -c <"$$f")"; \
	  done; \
	  echo '};'; echo 'const size_t nbuiltin_terms = sizeof builtin_terms / sizeof *builtin_terms;'; } >$@.tmp && mv $@.tmp $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Test programs (unit tests and fixture writers) link the core, not the UI.
tests: $(TEST_BINS)
$(BUILD)/t/%: t/%.c $(CORE_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN_LINK) -o $@ $< $(CORE_OBJS) $(LIBS)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# --- use ------------------------------------------------------------------
# The suite runs three times, the three passes side by side (each test's
# output held and shown whole when its pass ends, make -Otarget): on the
# normal build (with the static binary, which t/house/static.t checks), on
# an ASan+UBSan build, and what runs on two threads (filters:
# t/query_test.c; the --stats walk: t/batch/stats.t; the viewer saving its
# index: t/engine/savebg.t) under ThreadSanitizer.  Side by side they fill
# the time one pass spends waiting (on the terminal, timers, ssh): a fresh
# clone's make check took 542 s on this 2-core VM (879 one pass at a time,
# the tests reading JSON with JSON::PP, and the static binary compiled apart).
TSAN_BINS := build-tsan/ttv $(addprefix build-tsan/t/,query_test ptwrite scwrite d9write htwrite atfwrite)
# Everything a pass starts carries its TTV_SUITE_TAG; after the pass,
# t/leftovers.sh names and stops what still runs, and the pass fails.
SUITE_TAG := check-$(shell date +%s%N)
suite = TTV_SUITE_TAG=$(SUITE_TAG)-$@ $(1); s=$$?; t/leftovers.sh "TTV_SUITE_TAG=$(SUITE_TAG)-$@" || s=1; exit $$s
# Two test files of a pass run side by side (each has its own directory,
# cache and tmux server).  TEST_JOBS=1 runs them one at a time.
TEST_JOBS ?= 2
PROVE = prove -j$(TEST_JOBS)
# The longest test files first (prove would take them in the order of their
# folders), so that none is left running alone at the end of a pass.
SLOW_TESTS := t/engine/saved.t t/remote/remote.t t/viewer/tmux.t t/formats/dial9.t t/batch/speedscope.t
ALL_TESTS := $(SLOW_TESTS) $(filter-out $(SLOW_TESTS),$(sort $(wildcard t/*/*.t)))
JOBS := $(shell nproc 2>/dev/null || echo 2)
check: test-deps
	@$(MAKE) --no-print-directory -j$(JOBS) build tests
	@echo "== three passes side by side (release, ASan+UBSan, TSan): each is shown when it ends"
	@$(MAKE) --no-print-directory -k -j3 -Otarget check-release check-asan check-tsan
check-release:
	@$(MAKE) --no-print-directory static
	@echo "== the suite on the release build"
	@$(call suite,$(PROVE) $(ALL_TESTS))
check-asan:
	@$(MAKE) --no-print-directory BUILD=build-asan SAN=1 build tests
	@echo "== the suite on the ASan+UBSan build"
	@$(call suite,TTV_BUILD=build-asan $(PROVE) $(ALL_TESTS))
check-tsan:
	@$(MAKE) --no-print-directory BUILD=build-tsan SAN=thread $(TSAN_BINS)
	@echo "== the tests of what runs on two threads, under ThreadSanitizer"
	@$(call suite,TTV_BUILD=build-tsan TSAN_OPTIONS=halt_on_error=1 $(PROVE) t/batch/query.t t/batch/stats.t t/engine/savebg.t t/engine/gzipahead.t)

# The quick loop: the release build and its suite only (no static binary,
# no sanitizer builds).
test: test-deps
	@$(MAKE) --no-print-directory build tests
	$(call suite,TTV_QUICK=1 $(PROVE) $(ALL_TESTS))

demo: deps
	@$(MAKE) --no-print-directory build tests
	@t/demo.sh

bench: deps
	@$(MAKE) --no-print-directory build tests
	@t/bench.sh

# --- fuzzing --------------------------------------------------------------
# The targets link the core and the UI (keymap and theme parsers) built with
# clang's -fsanitize=fuzzer-no-link in build-fuzz/; seeds come from the
# writers (t/fuzz/seeds.sh), crashes land in build-fuzz/artifacts/.
FUZZ_SECONDS ?= 10
FUZZ_TARGETS ?= $(patsubst t/fuzz/fuzz_%.c,%,$(wildcard t/fuzz/fuzz_*.c))
FUZZ_CC      ?= clang

fuzz: deps fuzz-deps
	@$(MAKE) --no-print-directory build tests
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) SAN=fuzz fuzz-bins
	t/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# clang and its libFuzzer runtime (Debian: clang, libclang-rt-dev)
fuzz-deps:
	@printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n; }\n' | \
	  $(FUZZ_CC) -x c -fsanitize=fuzzer,address,undefined -o /dev/null - >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "ttv: installing clang libclang-rt-dev"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends clang libclang-rt-dev; \
	  else \
	    echo "ttv: make fuzz needs clang with libFuzzer; run:"; \
	    echo "  sudo apt-get install -y clang libclang-rt-dev"; \
	    exit 1; \
	  fi; }

fuzz-bins: $(patsubst t/fuzz/fuzz_%.c,$(BUILD)/fuzz/%,$(wildcard t/fuzz/fuzz_*.c))
$(BUILD)/fuzz/%: t/fuzz/fuzz_%.c t/fuzz/harness.h $(CORE_OBJS) $(UI_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(CORE_OBJS) $(UI_OBJS) $(LIBS)

clean:
	rm -rf build build-* ttv

# --- install --------------------------------------------------------------
# The binary finds its data in ../share/ttv next to it (ui/theme.c
# data_open), so any PREFIX works without rebuilding.
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  := $(DESTDIR)$(PREFIX)/bin
DATADIR := $(DESTDIR)$(PREFIX)/share/ttv
MANDIR  := $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR  := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
INSTALL ?= install

install: all
	$(INSTALL) -d $(BINDIR) $(DATADIR)/keymaps $(DATADIR)/themes $(MANDIR) $(BASHDIR) $(ZSHDIR)
	$(INSTALL) -m 755 $(BUILD)/ttv $(BINDIR)/ttv
	$(INSTALL) -m 644 keymaps/*.keys $(DATADIR)/keymaps/
	$(INSTALL) -m 644 themes/*.theme $(DATADIR)/themes/
	$(INSTALL) -m 644 ttv.1 $(MANDIR)/ttv.1
	$(INSTALL) -m 644 completions/ttv.bash $(BASHDIR)/ttv
	$(INSTALL) -m 644 completions/_ttv $(ZSHDIR)/_ttv

uninstall:
	rm -f $(BINDIR)/ttv $(MANDIR)/ttv.1 $(BASHDIR)/ttv $(ZSHDIR)/_ttv
	rm -f $(patsubst keymaps/%,$(DATADIR)/keymaps/%,$(wildcard keymaps/*.keys))
	rm -f $(patsubst themes/%,$(DATADIR)/themes/%,$(wildcard themes/*.theme))
	-rmdir $(DATADIR)/keymaps $(DATADIR)/themes $(DATADIR) 2>/dev/null
