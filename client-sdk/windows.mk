# client-sdk/windows.mk - `make windows`: libsweep for Windows on x86-64,
# cross-built with Debian's mingw-w64 into build-win/, and the programs
# that test it there under wine (tests/windows/test_windows.c).
#
# build-win/sdk/ is what a Windows game builds with, laid out as `make
# install` lays out its own: include/sweep/ (the headers, rewritten the same
# way), lib/ (libsweep-client.a, -protocol.a, -maps.a, -core.a; link them in
# that order with -lws2_32), lib/cmake/sweep/ (find_package(sweep), as
# client-sdk/sweepConfig.cmake.in says). The SDK leaves SQLite out, as
# Debian has no SQLite for mingw-w64: a Windows client loads a level image
# (maps/level_image.h, made by sweep-map-image on Linux) instead of a map
# database, and build-win/sdk/share/sweep/maps/ holds the sample maps'.
#
# The client-side code is built as ISO C11 (-std=c11 -pedantic), with
# every warning an error, so that it stays portable to compilers without
# GNU C; the determinism flags are the Linux build's (SWEEP_FPFLAGS): on
# x86-64 the arithmetic is SSE2's, never x87's, and sqrt is the sqrtsd
# instruction, so the bits are Linux's (tests/windows/ checks them). Of
# libm only fmod runs on the x87 in mingw-w64 (fprem), and fmod's result is
# exact, whoever computes it.

WIN_CC := x86_64-w64-mingw32-gcc
WIN_AR := x86_64-w64-mingw32-ar
WIN_BUILD := build-win
WIN_SDK := $(WIN_BUILD)/sdk
WIN_CFLAGS := -O2
# __USE_MINGW_ANSI_STDIO: the C99 printf family (%zu, %lld), which the
# msvcrt that mingw-w64 links by default does not have.
WIN_COMPILE = $(WIN_CC) -std=c11 -pedantic -Wall -Wextra -Werror -I. -MMD -MP -D_WIN32_WINNT=0x0601 \
	-D__USE_MINGW_ANSI_STDIO=1 $(WIN_CFLAGS) $(SWEEP_FPFLAGS)
WIN_LDLIBS := -lws2_32

# Debian packages: the cross compiler for `make windows`. make test
# installs more, that only tests need: the cross compiler, wine to run the
# Windows programs, and cmake for the installed CMake package's test
# (tests/install/test_install.sh). wine is the largest (about 650 MB
# installed, well under a minute to install from a Debian mirror; its
# first start in a new prefix takes about 30 s), which is why `make` alone
# does not ask for it.
WIN_DEB_PACKAGES := gcc-mingw-w64-x86-64-win32
TEST_DEB_PACKAGES := $(WIN_DEB_PACKAGES) wine wine64 cmake
test: $(WIN_BUILD)/.test-deps-ok

# What libsweep is made of on Windows: the core, the protocol, the level
# without SQLite (level arrays, content hash, map row checks, the world
# over a level, the level image) and the client with its Win32 layer.
WIN_MAPS_SRC := maps/level.c maps/levelgen.c maps/content_hash.c maps/map_values.c maps/build_world.c \
	maps/level_image.c
WIN_CLIENT_SRC := $(filter-out client-sdk/platform_posix.c,$(CLIENT_SRC)) client-sdk/platform_win32.c
WIN_LIB_NAMES := client protocol maps core
WIN_LIBS := $(patsubst %,$(WIN_SDK)/lib/libsweep-%.a,$(WIN_LIB_NAMES))
WIN_HEADERS := $(filter-out client-sdk/replay.h,$(INSTALL_HEADERS))
WIN_IMAGES := $(patsubst $(BUILD)/maps/%,$(WIN_SDK)/share/sweep/maps/%,$(MAPS_IMAGES))

win_objs = $(patsubst %.c,$(WIN_BUILD)/%.o,$(1))
$(WIN_SDK)/lib/libsweep-client.a: $(call win_objs,$(WIN_CLIENT_SRC))
$(WIN_SDK)/lib/libsweep-protocol.a: $(call win_objs,$(PROTOCOL_SRC))
$(WIN_SDK)/lib/libsweep-maps.a: $(call win_objs,$(WIN_MAPS_SRC))
$(WIN_SDK)/lib/libsweep-core.a: $(call win_objs,$(CORE_SRC))
$(WIN_LIBS): client-sdk/windows.mk
	@mkdir -p $(@D)
	rm -f $@ && $(WIN_AR) rcs $@ $(filter %.o,$^)

$(WIN_BUILD)/%.o: %.c | $(WIN_BUILD)/.deps-ok
	@mkdir -p $(@D)
	$(WIN_COMPILE) -c $< -o $@

$(WIN_BUILD)/.deps-ok:
	@mkdir -p $(@D)
	@SWEEP_DEB_PACKAGES="$(WIN_DEB_PACKAGES)" sh tests/install-deps.sh
	@touch $@

# The SDK's headers, made afresh when a source header or this file changes.
$(WIN_SDK)/include/.stamp: $(WIN_HEADERS) client-sdk/windows.mk
	rm -rf $(WIN_SDK)/include
	$(call sweep_install_headers,$(WIN_SDK),$(WIN_HEADERS))
	@touch $@

$(WIN_SDK)/share/sweep/maps/%: $(BUILD)/maps/%
	@mkdir -p $(@D)
	cp $< $@

# The test programs (tests/windows/): portable_check prints the walk
# hashes and a prediction run, the same source built for Linux beside the
# cmocka test; net_check, Windows only, what the client makes of a UDP
# server that is not there; use_sdk is tests/install/use_sdk.c, the
# installed SDK's own client, built on build-win/sdk as a Windows game
# would build it.
WIN_TEST_EXES := $(WIN_BUILD)/tests/portable_check.exe $(WIN_BUILD)/tests/net_check.exe \
	$(WIN_BUILD)/tests/use_sdk.exe
$(WIN_BUILD)/tests/portable_check.exe $(WIN_BUILD)/tests/net_check.exe: $(WIN_BUILD)/tests/%.exe: \
		$(WIN_BUILD)/tests/windows/%.o $(WIN_LIBS)
	@mkdir -p $(@D)
	$(WIN_CC) $^ $(WIN_LDLIBS) -o $@
$(WIN_BUILD)/tests/use_sdk.exe: tests/install/use_sdk.c $(WIN_LIBS) $(WIN_SDK)/include/.stamp
	@mkdir -p $(@D)
	$(WIN_CC) -std=c11 -pedantic-errors -Werror -O2 -I$(WIN_SDK)/include -DUSE_SDK_LEVEL_IMAGE $< \
		-L$(WIN_SDK)/lib $(patsubst %,-lsweep-%,$(WIN_LIB_NAMES)) $(WIN_LDLIBS) -o $@

# find_package(sweep) for Windows games: the same files as make install's,
# naming Winsock's library in the place of SQLite's.
WIN_CMAKE := $(WIN_SDK)/lib/cmake/sweep/sweepConfig.cmake $(WIN_SDK)/lib/cmake/sweep/sweepConfigVersion.cmake
$(WIN_SDK)/lib/cmake/sweep/%.cmake: client-sdk/%.cmake.in client-sdk/windows.mk core/version.h
	@mkdir -p $(@D)
	$(call sweep_cmake_sed,$(patsubst %,sweep-%,$(WIN_LIB_NAMES)),$(patsubst -l%,%,$(WIN_LDLIBS))) $< >$@.tmp && \
		mv $@.tmp $@

.PHONY: windows
windows: $(WIN_LIBS) $(WIN_SDK)/include/.stamp $(WIN_CMAKE) $(WIN_IMAGES) $(WIN_TEST_EXES)

# The cmocka test runs them under wine against the Linux build's own
# portable_check and a real sweepd.
$(BUILD)/tests/windows/portable_check: $(BUILD)/tests/windows/portable_check.o $(CLIENT_LIB) $(CLIENT_DEPLIBS)
	@mkdir -p $(@D)
	$(LINK) $^ $(CLIENT_LDLIBS) $(SWEEP_LDLIBS) -o $@
TEST_LIBS_windows = $(CLIENT_LIB) $(CLIENT_DEPLIBS)
TEST_LDLIBS_windows = $(CLIENT_LDLIBS)
$(BUILD)/tests/windows/test_windows: | windows $(BUILD)/tests/windows/portable_check $(BUILD)/maps/arena.swl \
	$(WIN_BUILD)/.test-deps-ok $(filter $(BIN)/sweepd,$(PROGRAMS))
$(WIN_BUILD)/.test-deps-ok:
	@mkdir -p $(@D)
	@SWEEP_DEB_PACKAGES="$(TEST_DEB_PACKAGES)" sh tests/install-deps.sh
	@touch $@

-include $(shell find $(WIN_BUILD) -name '*.d' 2>/dev/null)
