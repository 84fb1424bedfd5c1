# sweep - top-level build.
#
#   make            build every library and program into $(BUILD)/bin
#   make test       build and run every test (unit, integration, interop);
#                   TESTS_FILTER=PATTERN runs only the tests of that name
#   make bench      run the benchmarks, one BENCH line per figure
#   make run        run the main job (see README.md)
#   make install    install programs, libraries and headers under $(DESTDIR)$(PREFIX)
#   make uninstall  remove what make install put under $(DESTDIR)$(PREFIX)
#   make clean      remove build directories
#
# Knobs: CC, CFLAGS, LDFLAGS (yours; project flags live in SWEEP_*),
# SANITIZER=address|undefined (builds into build-<sanitizer>/), DEBUG=1 (the
# server's and the core's invariant checks, into build-debug/; sanitizer
# builds have them too), FAULTS=1 (allocation failures injected on demand,
# server/alloc.h, into build-faults/; with the invariant checks), PREFIX,
# DESTDIR.
#
# Each folder adds its own rules in <folder>/<folder>.mk; this file holds what
# they share: flags, the object rule, Debian dependencies and the top targets.

PREFIX ?= /usr/local
DESTDIR ?=
CFLAGS ?= -O2 -g
LDFLAGS ?=
SANITIZER ?=
DEBUG ?=
FAULTS ?=

BUILD := build$(if $(SANITIZER),-$(SANITIZER))$(if $(DEBUG),-debug)$(if $(FAULTS),-faults)
BIN := $(BUILD)/bin
LIB := $(BUILD)/lib

# Determinism (docs/design.md): no fused multiply-add, no fast-math, ever. These
# come after the user's CFLAGS so they cannot be switched off by accident,
# and a fast-math request is refused outright. -fno-math-errno changes no
# result (sqrt is correctly rounded either way); it lets sqrt be the one
# instruction instead of a check and, in places, a call to libm for errno.
SWEEP_FPFLAGS := -ffp-contract=off -fno-fast-math -fno-math-errno
ifneq ($(findstring fast-math,$(CFLAGS))$(findstring -Ofast,$(CFLAGS)),)
$(error sweep: -ffast-math/-Ofast break bit-identical replay; remove them from CFLAGS)
endif

SWEEP_CFLAGS := -std=gnu11 -Wall -Wextra -I. -MMD -MP
SWEEP_LDLIBS := -lm
ifneq ($(SANITIZER),)
SWEEP_SANFLAGS := -fsanitize=$(SANITIZER) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
# Internal invariants asserted after every request and tick (server/invariants.c)
# and in the core (core/check.h; a release build never evaluates them); in a
# fault-injection build too, where the failure paths are the point.
ifneq ($(SANITIZER)$(DEBUG)$(FAULTS),)
SWEEP_SANFLAGS += -DSWEEP_CHECKS=1
endif
# Allocations of server/ that fail when SWEEP_FAIL_ALLOC says (server/alloc.h).
ifneq ($(FAULTS),)
SWEEP_SANFLAGS += -DSWEEP_FAULTS=1
endif

COMPILE = $(CC) $(SWEEP_CFLAGS) $(CFLAGS) $(SWEEP_SANFLAGS) $(SWEEP_FPFLAGS)
LINK = $(CC) $(CFLAGS) $(SWEEP_SANFLAGS) $(LDFLAGS)

# Filled in by the folder fragments.
PROGRAMS :=
LIBRARIES :=
TESTS :=
BENCHES :=
INSTALL_HEADERS :=

.PHONY: all test bench run install uninstall clean deps
all:

include core/core.mk
include maps/maps.mk
include tests/tests.mk
-include protocol/protocol.mk
-include server/server.mk
-include client-sdk/client-sdk.mk

all: $(LIBRARIES) $(PROGRAMS)

$(BUILD)/%.o: %.c | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	$(COMPILE) -c $< -o $@

# --- Debian dependencies ----------------------------------------------------
# Checked once per build directory. As root the missing ones are installed;
# otherwise the exact apt-get line is printed and the build stops.
DEB_PACKAGES := gcc make pkgconf libc6-dev libuv1-dev libsqlite3-dev sqlite3 \
	libcmocka-dev clang flatbuffers-compiler libflatbuffers-dev \
	python3-flatbuffers g++ libassimp-dev libzip-dev libdeflate-dev libmicrohttpd-dev \
	libcurl4-openssl-dev libjansson-dev python3-yaml

deps: $(BUILD)/.deps-ok

$(BUILD)/.deps-ok:
	@mkdir -p $(@D)
	@SWEEP_DEB_PACKAGES="$(DEB_PACKAGES)" sh tests/install-deps.sh
	@touch $@

# --- top targets ------------------------------------------------------------
# TESTS_FILTER=PATTERN runs only the tests so named in every cmocka program
# (SWEEP_TEST_FILTER, tests/README.md); TESTS=PROGRAM... only those programs.
ifneq ($(TESTS_FILTER),)
test: export SWEEP_TEST_FILTER := $(TESTS_FILTER)
endif
test: $(filter $(BUILD)/%,$(TESTS)) $(PROGRAMS)
	@BUILD=$(BUILD) sh tests/run-tests.sh $(TESTS)

# The main job. A fragment sets RUN_DEPS and RUN_CMD; the last one included
# wins, so the server's (server/server.mk) replaces the core demo of maps.mk.
run: $(RUN_DEPS)
	$(RUN_CMD)

bench: $(BENCHES) $(PROGRAMS)
	@BUILD=$(BUILD) sh tests/bench/run-bench.sh

# Installed headers: what a game includes to use libsweep and the replay
# (each fragment's INSTALL_HEADERS: the client SDK's headers and what they
# include), under include/sweep. They name each other <sweep/core/world.h>,
# and pkg-config's Cflags is -I$(PREFIX)/include, so a game with its own
# core/world.h on its include path never has it taken for sweep's. The
# sources say "core/world.h" (found through -I.); install rewrites each
# such line with SWEEP_HEADER_SED, and puts the client SDK's own headers
# at the top (client-sdk/client.h is <sweep/client.h>): sweep_header_dest.
# tests/install/test_install.sh checks the result.
sweep_header_dest = $(patsubst client-sdk/%,%,$(1))
SWEEP_HEADER_SED = -e 's|^\#include "client-sdk/|\#include "|' -e 's|^\#include "\([^"]*\)"|\#include <sweep/\1>|'

# $(call sweep_install_headers,ROOT,HEADERS): HEADERS, rewritten so, into
# ROOT/include/sweep (the Windows SDK of client-sdk/windows.mk too).
sweep_install_headers = for h in $(foreach h,$(2),$(h):$(call sweep_header_dest,$(h))); do \
		d=$(1)/include/sweep/$${h\#*:}; install -d "$${d%/*}" && \
		sed $(SWEEP_HEADER_SED) "$${h%%:*}" >"$$d.tmp" && chmod 644 "$$d.tmp" && mv "$$d.tmp" "$$d" || exit 1; done

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/sweep
	install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin/
	$(if $(LIBRARIES),install -m 644 $(LIBRARIES) $(DESTDIR)$(PREFIX)/lib/)
	$(call sweep_install_headers,$(DESTDIR)$(PREFIX),$(INSTALL_HEADERS))

# What make install puts under $(DESTDIR)$(PREFIX): the lists above, and
# what the fragments' install rules add (sample maps: maps/maps.mk; the man
# page: server/server.mk; the pkg-config and CMake files: client-sdk/client-sdk.mk). A
# new install rule needs its files here too. uninstall removes exactly these,
# builds nothing, and leaves anything else it finds (a map of your own in
# share/sweep/maps keeps that folder).
INSTALLED_FILES = $(addprefix bin/,$(notdir $(PROGRAMS))) $(addprefix lib/,$(notdir $(LIBRARIES))) \
	$(addprefix include/sweep/,$(call sweep_header_dest,$(INSTALL_HEADERS))) \
	$(addprefix share/sweep/maps/,$(notdir $(MAPS_SAMPLES))) \
	$(if $(filter $(BIN)/sweepd,$(PROGRAMS)),share/man/man8/sweepd.8) \
	$(addprefix lib/pkgconfig/,$(notdir $(CLIENT_PCS))) $(addprefix lib/cmake/sweep/,$(notdir $(CLIENT_CMAKE)))
# The folders that are sweep's alone, each before the one holding it (header
# folders are one level deep; the client SDK's headers are in include/sweep
# itself); bin, lib, share/man and the rest are shared with other packages
# and stay.
INSTALLED_DIRS = $(addprefix include/sweep/,$(filter-out ./,$(sort $(dir $(call sweep_header_dest,$(INSTALL_HEADERS)))))) \
	include/sweep share/sweep/maps share/sweep lib/cmake/sweep

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALLED_FILES))
	for d in $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALLED_DIRS)); do \
		if [ -d "$$d" ] && [ -z "$$(ls -A "$$d")" ]; then rmdir "$$d" || exit 1; fi; done

clean:
	rm -rf build build-*

# The corpus of real levels (Debian's openarena-oacmp1, Quake 3 maps) that
# the BSP importer's tests and benchmark use when it is installed.
.PHONY: corpus
corpus:
	@sh tests/install-corpus.sh

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
