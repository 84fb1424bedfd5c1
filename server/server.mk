# server/ - three libraries and the program over them:
#   server/world/   libsweep-world.a: the world library, the simulation with
#                   no transport and no clock (worlds, owners, entities,
#                   spawns, moves, rules, ticks, the state hash); what the
#                   server serves and a replay re-runs;
#   server/record/  libsweep-record.a: the session log's format (its MOVE
#                   image, the checked reader, the compressing writer);
#   server/         libsweep-server.a: sweepd over them (the loop, TCP and
#                   UDP, sessions, threads, limits, metrics, recording), and
#                   the thin program sweepd, its man page, its tests and
#                   `make run`.

WORLD_SRC := $(wildcard server/world/*.c)
WORLD_LIB := $(LIB)/libsweep-world.a
# Link flags every user of WORLD_LIB needs (after the protocol, maps and core libraries).
WORLD_LDLIBS = $(MAPS_LDLIBS)
RECORD_SRC := $(wildcard server/record/*.c)
RECORD_LIB := $(LIB)/libsweep-record.a
RECORD_LDLIBS = -ldeflate -lpthread
SERVER_SRC := $(filter-out server/sweepd_main.c,$(wildcard server/*.c))
SERVER_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(SERVER_SRC))
SERVER_LIB := $(LIB)/libsweep-server.a
# What sweepd and the server's tests link, in order, and the flags after them.
SERVER_DEPLIBS = $(SERVER_LIB) $(RECORD_LIB) $(WORLD_LIB) $(PROTOCOL_LIB) $(MAPS_LIB) $(CORE_LIB)
SERVER_LDLIBS = -luv -lmicrohttpd -lcurl -ljansson $(RECORD_LDLIBS) $(WORLD_LDLIBS)

# No server header is installed: a game links libsweep, never the server,
# and the replay (client-sdk/replay.h) declares what its users need. So the
# world and record libraries are installed (sweep-replay.pc links them) and
# libsweep-server.a, which only sweepd and the tests link, is built but not.
LIBRARIES += $(WORLD_LIB) $(RECORD_LIB)
all: $(SERVER_LIB)

$(WORLD_LIB): $(patsubst %.c,$(BUILD)/%.o,$(WORLD_SRC))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(RECORD_LIB): $(patsubst %.c,$(BUILD)/%.o,$(RECORD_SRC))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(SERVER_LIB): $(SERVER_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

PROGRAMS += $(BIN)/sweepd
$(BIN)/sweepd: $(BUILD)/server/sweepd_main.o $(SERVER_DEPLIBS)
	@mkdir -p $(@D)
	$(LINK) $^ $(SERVER_LDLIBS) $(SWEEP_LDLIBS) -o $@

# Tests: unit tests of the library and integration tests that start the
# built sweepd on 127.0.0.1 through tests/sweepd_fixture.h (it finds the
# programs in $(BUILD)/bin beside the tests, or under SWEEP_BUILD_DIR).
TEST_LIBS_server = $(SERVER_DEPLIBS)
TEST_LDLIBS_server = $(SERVER_LDLIBS) -lpthread
SERVER_TESTS := $(patsubst %.c,$(BUILD)/%,$(wildcard tests/server/test_*.c))
$(SERVER_TESTS): | $(BIN)/sweepd $(BUILD)/maps/arena.db
# The world library's own unit tests (tests/world/): requests and ticks
# through a recording sink on the sample arena, with no socket, no loop
# and no sweepd. They link the world library and what it stands on, never
# libuv: a dependency on the transport would show here as a link error.
TEST_LIBS_world = $(WORLD_LIB) $(PROTOCOL_LIB) $(MAPS_LIB) $(CORE_LIB)
TEST_LDLIBS_world = $(WORLD_LDLIBS)
WORLD_TESTS := $(patsubst %.c,$(BUILD)/%,$(wildcard tests/world/test_*.c))
$(WORLD_TESTS): | $(BUILD)/maps/arena.db $(BUILD)/maps/pads.db
# The shipped levels' places, imported by the real importer.
$(BUILD)/tests/world/test_place_corpus: | $(BIN)/sweep-import
test: $(BUILD)/maps/arena.db
# make bench runs sweepd on the sample arena too (run-bench.sh).
bench: $(BUILD)/maps/arena.db

# --- fuzzing the session-log reader --------------------------------------------
# tests/fuzz/fuzz_log.c with clang's libFuzzer, ASan and UBSan (FUZZ_CC and
# FUZZ_FLAGS from protocol.mk): the reader of server/record/record_read.c over any
# bytes, the frames' checksums made right so that mutations reach the
# records. Seeds: tests/fuzz/corpus/log/ (short version 2 and version 5
# logs of the arena: two sessions walking and jumping; version 6 and 7 ones
# whose sliding door pushes a player, so their compact MOVE images have
# every part, the version 7 one's answers as ANSWERs) and the golden logs of
# tests/replay (version 1; longer than -max_len, so cut short: torn tails).
# New inputs go to $(BUILD)/fuzz-corpus/log and a crashing input to
# $(BUILD)/fuzz-crashes/, never into the source tree.
#   make fuzz-log FUZZ_SECONDS=N     fuzz for N seconds (default 60)
#   make test                        includes a bounded smoke run
LOG_FUZZ := $(BUILD)/tests/fuzz/fuzz_log
LOG_CORPUS := tests/fuzz/corpus/log
LOG_FUZZ_SMOKE_RUNS ?= 20000
$(LOG_FUZZ): tests/fuzz/fuzz_log.c tests/fuzz/log_frames.h server/record/record_read.c server/record/record_move.c server/record/record.h \
		server/record/record_move.h server/record/record_results.c server/record/record_results.h \
		server/record/record_patch.c server/record/record_patch.h \
		protocol/format.h protocol/contact_image.h protocol/schema.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) tests/fuzz/fuzz_log.c server/record/record_read.c server/record/record_move.c \
		server/record/record_results.c server/record/record_patch.c -ldeflate -lpthread -o $@

.PHONY: fuzz-log
fuzz-log: $(LOG_FUZZ)
	@mkdir -p $(BUILD)/fuzz-corpus/log $(BUILD)/fuzz-crashes
	$(LOG_FUZZ) -artifact_prefix=$(BUILD)/fuzz-crashes/log- -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -print_final_stats=1 \
		$(BUILD)/fuzz-corpus/log $(LOG_CORPUS) tests/replay/golden

$(eval $(call SWEEP_FUZZ_SMOKE,$(LOG_FUZZ),$(wildcard $(LOG_CORPUS)/*),log $(LOG_FUZZ_SMOKE_RUNS) 16384 "$(BUILD)/fuzz-crashes" "$(LOG_CORPUS)" tests/replay/golden))

# --- fuzzing the world's requests ---------------------------------------------
# tests/fuzz/fuzz_world.c with clang's libFuzzer, ASan and UBSan: scripts of
# sessions of both roles sending well-formed requests with any values in
# them (tests/fuzz/world_script.h), between ticks, on the sample maps, each
# script run again as a replay runs a log, which must agree byte for byte.
# The world library, the protocol and the core are compiled into the
# harness (with coverage, the sanitizers and the world's and core's own
# checks, SWEEP_CHECKS); the rest of maps/ comes from the gcc build. Seeds: written
# by tests/fuzz/make_world_seeds.c (nothing committed: they follow the
# script's layout). New inputs go to $(BUILD)/fuzz-corpus/world, a crashing
# input to $(BUILD)/fuzz-crashes/.
#   make fuzz-world FUZZ_SECONDS=N   fuzz for N seconds (default 60)
#   make test                        includes a bounded smoke run
WORLD_FUZZ := $(BUILD)/tests/fuzz/fuzz_world
WORLD_SEEDS := $(BUILD)/tests/fuzz/make_world_seeds
WORLD_FUZZ_SMOKE_RUNS ?= 400
$(WORLD_FUZZ): tests/fuzz/fuzz_world.c tests/fuzz/world_script.h tests/fuzz/sample_maps.h $(WORLD_SRC) $(wildcard server/world/*.h) \
		$(PROTOCOL_SRC) $(wildcard protocol/*.h) $(CORE_SRC) $(wildcard core/*.h) $(MAPS_LIB) | $(MAPS_SAMPLES)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -DSWEEP_CHECKS=1 tests/fuzz/fuzz_world.c $(WORLD_SRC) $(PROTOCOL_SRC) $(CORE_SRC) \
		$(MAPS_LIB) $(MAPS_LDLIBS) -lm -o $@
$(WORLD_SEEDS): $(BUILD)/tests/fuzz/make_world_seeds.o
	@mkdir -p $(@D)
	$(LINK) $^ -lm -o $@

.PHONY: fuzz-world
fuzz-world: $(WORLD_FUZZ) $(WORLD_SEEDS)
	@mkdir -p $(BUILD)/fuzz-corpus/world $(BUILD)/fuzz-corpus/world-seeds $(BUILD)/fuzz-crashes
	$(WORLD_SEEDS) $(BUILD)/fuzz-corpus/world-seeds
	$(WORLD_FUZZ) -artifact_prefix=$(BUILD)/fuzz-crashes/world- -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
		-print_final_stats=1 $(BUILD)/fuzz-corpus/world $(BUILD)/fuzz-corpus/world-seeds

$(eval $(call SWEEP_FUZZ_SMOKE,$(WORLD_FUZZ),$(WORLD_SEEDS),world $(WORLD_FUZZ_SMOKE_RUNS) 8192 "$(BUILD)/fuzz-crashes" --seeds-by "$(WORLD_SEEDS)"))

# The man page, installed with the programs.
install: install-server-man
.PHONY: install-server-man
install-server-man: all
	install -D -m 644 server/sweepd.8 $(DESTDIR)$(PREFIX)/share/man/man8/sweepd.8

# make run: sweepd on the sample arena (replaces the core demo of maps.mk).
SWEEPD_RUN_LISTEN ?= 127.0.0.1:7878
# Every program first: the lines it prints name build/bin/sweep, and the
# README says make run builds everything.
RUN_DEPS = $(PROGRAMS) $(BUILD)/maps/arena.db
RUN_CMD = @echo "sweepd: serving $(BUILD)/maps/arena.db on $(SWEEPD_RUN_LISTEN) (TCP and UDP); Ctrl-C stops it."; \
	echo "connect to the address of the ready line below, e.g. $(BIN)/sweep move --connect $(SWEEPD_RUN_LISTEN) --velocity 1,0,0"; \
	echo "(or any FlatBuffers client of protocol/sweep.fbs; TCP frames are size-prefixed, UDP needs the cookie handshake)."; \
	exec $(BIN)/sweepd --map $(BUILD)/maps/arena.db --listen $(SWEEPD_RUN_LISTEN)

# The honest players' test plays libsweep's predictor against the world
# library (tests/world/honest_sim.h), so it links the client library too
# (named in client-sdk.mk, read after this file).
$(BUILD)/tests/world/test_honest_players: $(BUILD)/tests/world/test_honest_players.o $(TEST_CMOCKA_OBJ) $$(CLIENT_LIB) \
		$$(TEST_LIBS_world)
	@mkdir -p $(@D)
	$(LINK) $< $(CLIENT_LIB) $(TEST_LIBS_world) $(TEST_CMOCKA) $(TEST_LDLIBS_world) $(SWEEP_LDLIBS) -o $@

# The authority's false flags (tests/bench/bench_authority.c): the same
# honest players, many more moves.
BENCHES += $(BUILD)/tests/bench/bench_authority
$(BUILD)/tests/bench/bench_authority: $(BUILD)/tests/bench/bench_authority.o $$(CLIENT_LIB) $(WORLD_LIB) $(PROTOCOL_LIB) \
		$(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(LINK) $< $(CLIENT_LIB) $(WORLD_LIB) $(PROTOCOL_LIB) $(MAPS_LIB) $(CORE_LIB) $(WORLD_LDLIBS) $(SWEEP_LDLIBS) -o $@
