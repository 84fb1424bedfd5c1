# tests/ - every tests/<module>/test_*.c is one cmocka program, linked with
# the libraries its module's fragment lists in TEST_LIBS_<module> and the
# extra link flags in TEST_LDLIBS_<module>.

TEST_SRC := $(wildcard tests/*/test_*.c)
# Every cmocka program is linked through tests/cmocka_group.c, whose wrapper
# of cmocka's group run gives them all SWEEP_TEST_FILTER and the per-test
# time limit without a line in their main()s; every link rule below names
# it, in the place of a bare -lcmocka.
TEST_CMOCKA_OBJ = $(BUILD)/tests/cmocka_group.o
TEST_CMOCKA = $(TEST_CMOCKA_OBJ) -Wl,--wrap=_cmocka_run_group_tests -lcmocka
TESTS += $(patsubst %.c,$(BUILD)/%,$(TEST_SRC))
# Compiler/optimisation-level determinism (rebuilds the walker from source).
TESTS += tests/core/cross_build.sh
# The same for the answers of lag-compensated queries (rebuilds test_query).
TESTS += tests/core/cross_build_queries.sh
# The CFLAGS the Makefile refuses for determinism's sake.
TESTS += tests/core/test_flags.sh
# docker/ against `make install`: Dockerfile, compose, Kubernetes, Agones.
TESTS += tests/docker/test_docker_files.sh
# sweepd(8) against sweepd --help and the log format version it writes.
TESTS += tests/server/test_manual.sh
# The performance targets' judge, on made-up benchmark lines.
TESTS += tests/bench/test_targets.sh
# The side-by-side runs of two builds (tests/bench/ab.sh), on stand-ins.
TESTS += tests/bench/test_ab.sh
# make coverage's report (tests/coverage/coverage.py), on a made-up project.
TESTS += tests/coverage/test_coverage.sh
# make install and uninstall into a temporary DESTDIR, and C++ and C programs
# built on the installed headers through the installed pkg-config files (a
# client against a real sweepd, the replay of the golden logs).
TESTS += tests/install/test_install.sh

# Core tests walk generated levels, which live in maps/.
TEST_LIBS_core = $(MAPS_LIB) $(CORE_LIB)
TEST_LDLIBS_core = $(MAPS_LDLIBS)

# The importer's tests of scenes (movers, sides: which meshes become
# two-sided, volumes, merged faces) call sweep_import_scene in-process, so they link the
# importer's objects and libassimp, as sweep-import does (this explicit
# rule wins over the pattern below); they also run the program.
SCENE_IMPORT_TESTS := $(patsubst %,$(BUILD)/tests/maps/test_import_%,movers sides volumes merge)
$(SCENE_IMPORT_TESTS): $(BUILD)/tests/maps/%: $(BUILD)/tests/maps/%.o $(TEST_CMOCKA_OBJ) $(MAPS_IMPORT_OBJ) \
		$(MAPS_LIB) $(CORE_LIB) | $(BIN)/sweep-import
	@mkdir -p $(@D)
	$(LINK) $< $(MAPS_IMPORT_OBJ) $(MAPS_LIB) $(CORE_LIB) $(TEST_CMOCKA) -lassimp $(MAPS_LDLIBS) $(SWEEP_LDLIBS) -o $@

# Test objects come from the object pattern rule through the one below,
# which makes them intermediate: keep them, so that a second `make test`
# rebuilds nothing. Every C file under tests/, not only test_*.c: a helper
# such as tests/protocol/interop_tool.c is linked the same way, and its
# object, deleted after the first run, was rebuilt by the second.
.SECONDARY: $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/*/*.c))

# The Quake 3 importer's tests call sweep_import_bsp in-process and write
# .pk3 files, so they link its object and libzip; they also run
# sweep-import, and sweep-walk on each level of the corpus.
$(BUILD)/tests/maps/test_import_bsp: $(BUILD)/tests/maps/test_import_bsp.o $(TEST_CMOCKA_OBJ) $(MAPS_BSP_OBJ) $(MAPS_LIB) \
		$(CORE_LIB) | $(BIN)/sweep-walk $(BIN)/sweep-import
	@mkdir -p $(@D)
	$(LINK) $< $(MAPS_BSP_OBJ) $(MAPS_LIB) $(CORE_LIB) $(TEST_CMOCKA) $(MAPS_BSP_LDLIBS) $(MAPS_LDLIBS) \
		$(SWEEP_LDLIBS) -o $@

.SECONDEXPANSION:
$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_CMOCKA_OBJ) $$(TEST_LIBS_$$(firstword $$(subst /, ,$$*)))
	@mkdir -p $(@D)
	$(LINK) $< $(TEST_LIBS_$(firstword $(subst /, ,$*))) $(TEST_CMOCKA) \
		$(TEST_LDLIBS_$(firstword $(subst /, ,$*))) $(SWEEP_LDLIBS) -o $@

# The host's own speed at the start and end of a bench run: libc only.
BENCHES += $(BUILD)/tests/bench/bench_host
$(BUILD)/tests/bench/bench_host: $(BUILD)/tests/bench/bench_host.o
	@mkdir -p $(@D)
	$(LINK) $^ -o $@

# Movers benchmark: core plus the level arrays of maps/.
BENCHES += $(BUILD)/tests/bench/bench_movers
$(BUILD)/tests/bench/bench_movers: $(BUILD)/tests/bench/bench_movers.o $(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(LINK) $^ $(MAPS_LDLIBS) $(SWEEP_LDLIBS) -o $@

# The volume walk cross_build.sh compares across builds (this build's own).
$(BUILD)/tests/core/volume_walk: $(BUILD)/tests/core/volume_walk.o $(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(LINK) $^ $(MAPS_LDLIBS) $(SWEEP_LDLIBS) -o $@
test: $(BUILD)/tests/core/volume_walk
# cross_build.sh also builds that walk for aarch64 and runs it under
# qemu-user: Debian's cross compiler and emulator, installed for the tests.
CROSS_DEB_PACKAGES := gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
$(BUILD)/.cross-deps-ok:
	@mkdir -p $(@D)
	@SWEEP_DEB_PACKAGES="$(CROSS_DEB_PACKAGES)" sh tests/install-deps.sh
	@touch $@
test: $(BUILD)/.cross-deps-ok

# Volumes benchmarks: the same walks with and without volumes, on a grid of
# them and on a level's own.
VOLUME_BENCHES := $(BUILD)/tests/bench/bench_volumes $(BUILD)/tests/bench/bench_level_volumes
BENCHES += $(VOLUME_BENCHES)
$(VOLUME_BENCHES): %: %.o $(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(LINK) $^ $(MAPS_LDLIBS) $(SWEEP_LDLIBS) -o $@

# Liquids and ladders benchmark: the same walks with and without them.
BENCHES += $(BUILD)/tests/bench/bench_liquids
$(BUILD)/tests/bench/bench_liquids: $(BUILD)/tests/bench/bench_liquids.o $(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(LINK) $^ $(MAPS_LDLIBS) $(SWEEP_LDLIBS) -o $@

# Lag-compensated queries and the history behind them.
BENCHES += $(BUILD)/tests/bench/bench_query
$(BUILD)/tests/bench/bench_query: $(BUILD)/tests/bench/bench_query.o $(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(LINK) $^ $(MAPS_LDLIBS) $(SWEEP_LDLIBS) -o $@

# sweep's core against Bullet's kinematic character controller on a level
# (Debian's libbullet-dev, installed for the benchmarks only; its C++ side
# is tests/bench/bullet_walk.cpp).
BULLET_DEB_PACKAGES := libbullet-dev
$(BUILD)/.bullet-deps-ok:
	@mkdir -p $(@D)
	@SWEEP_DEB_PACKAGES="$(BULLET_DEB_PACKAGES)" sh tests/install-deps.sh
	@touch $@
BENCHES += $(BUILD)/tests/bench/bench_vs_bullet
$(BUILD)/tests/bench/bullet_walk.o: tests/bench/bullet_walk.cpp tests/bench/bullet_walk.h | $(BUILD)/.bullet-deps-ok
	@mkdir -p $(@D)
	g++ -std=c++17 -O2 -Wall -Wextra -I. $$(pkg-config --cflags bullet) -c $< -o $@
$(BUILD)/tests/bench/bench_vs_bullet.o: | $(BUILD)/.bullet-deps-ok
$(BUILD)/tests/bench/bench_vs_bullet: $(BUILD)/tests/bench/bench_vs_bullet.o $(BUILD)/tests/bench/bullet_walk.o \
		$(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	g++ $^ $(MAPS_LDLIBS) $$(pkg-config --libs bullet) $(SWEEP_LDLIBS) -o $@

# Players-as-obstacles benchmark.
BENCHES += $(BUILD)/tests/bench/bench_crowd
$(BUILD)/tests/bench/bench_crowd: $(BUILD)/tests/bench/bench_crowd.o $(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(LINK) $^ $(MAPS_LDLIBS) $(SWEEP_LDLIBS) -o $@

# Replay tests: the golden session logs of tests/replay/golden replayed
# through the C API (libsweep-replay, linked as sweep-replay links it),
# logs a real sweepd records while sweep-bots play (killed, rotated) or the
# sweep CLI drives (riders, raw moves), and sweep-replay itself; another
# map comes from sweep-mapgen. Deferred (=): the libraries are named in
# client-sdk.mk and server.mk, read after this file; REPLAY_LINK's system
# libraries go with the link flags.
TEST_LIBS_replay = $(REPLAY_LIB) $(filter %.a,$(REPLAY_LINK))
TEST_LDLIBS_replay = $(filter-out %.a,$(REPLAY_LINK))
$(BUILD)/tests/replay/test_replay: | $(BUILD)/maps/arena.db $(BUILD)/maps/pads.db $(BUILD)/maps/pool.db $(BIN)/sweepd $(BIN)/sweep-bots $(BIN)/sweep-replay \
	$(BIN)/sweep-mapgen $(BIN)/sweep

# Faults (tests/server/test_faults.c): allocation failures need a sweepd
# built with FAULTS=1, which a normal build makes beside itself in
# $(BUILD)-faults (make's own dependencies are the cache: a second run
# rebuilds nothing); a FAULTS=1 build tests its own. The logs it records
# under faults must replay.
$(BUILD)/tests/server/test_faults: | $(BIN)/sweep-replay
# Threads (tests/server/test_threads.c): two generated maps, two worlds;
# libsweep too, whose UDP sessions move to their thread's own port (the
# libraries are named in client-sdk.mk and server.mk, read after this file).
$(BUILD)/tests/server/test_threads: $(BUILD)/tests/server/test_threads.o $(TEST_CMOCKA_OBJ) $$(CLIENT_LIB) $$(TEST_LIBS_server) \
		| $(BIN)/sweep-mapgen $(BIN)/sweep-replay
	@mkdir -p $(@D)
	$(LINK) $< $(CLIENT_LIB) $(TEST_LIBS_server) $(TEST_CMOCKA) $(TEST_LDLIBS_server) $(SWEEP_LDLIBS) -o $@
# Worlds at run time (tests/server/test_worlds.c): a generated map in the
# maps directory, and libsweep's calls for them.
$(BUILD)/tests/server/test_worlds: $(BUILD)/tests/server/test_worlds.o $(TEST_CMOCKA_OBJ) $$(CLIENT_LIB) $$(TEST_LIBS_server) \
		| $(BIN)/sweep-mapgen
	@mkdir -p $(@D)
	$(LINK) $< $(CLIENT_LIB) $(TEST_LIBS_server) $(TEST_CMOCKA) $(TEST_LDLIBS_server) $(SWEEP_LDLIBS) -o $@
# Real-time loops (tests/server/test_realtime.c): libsweep opens a world at
# run time.
$(BUILD)/tests/server/test_realtime: $(BUILD)/tests/server/test_realtime.o $(TEST_CMOCKA_OBJ) $$(CLIENT_LIB) \
		$$(TEST_LIBS_server)
	@mkdir -p $(@D)
	$(LINK) $< $(CLIENT_LIB) $(TEST_LIBS_server) $(TEST_CMOCKA) $(TEST_LDLIBS_server) $(SWEEP_LDLIBS) -o $@
ifeq ($(FAULTS),)
$(BUILD)/tests/server/test_faults: | faults-sweepd
.PHONY: faults-sweepd
faults-sweepd:
	+@$(MAKE) --no-print-directory FAULTS=1 $(BUILD)-faults/bin/sweepd
endif
