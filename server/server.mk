# server/ - sweepd, the networked authoritative server: the
# library libsweep-server.a (everything but main, so tests can embed it),
# the thin program sweepd, its man page, its tests and `make run`.

SERVER_SRC := $(filter-out server/sweepd_main.c,$(wildcard server/*.c))
SERVER_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(SERVER_SRC))
SERVER_LIB := $(LIB)/libsweep-server.a
# Link flags every user of SERVER_LIB needs (after the other sweep libraries).
SERVER_LDLIBS = -luv -ldeflate -lmicrohttpd -lpthread $(MAPS_LDLIBS)

LIBRARIES += $(SERVER_LIB)
INSTALL_HEADERS += server/server.h server/options.h server/record.h

$(SERVER_LIB): $(SERVER_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

PROGRAMS += $(BIN)/sweepd
$(BIN)/sweepd: $(BUILD)/server/sweepd_main.o $(SERVER_LIB) $(PROTOCOL_LIB) $(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(LINK) $^ $(SERVER_LDLIBS) $(SWEEP_LDLIBS) -o $@

# Tests: unit tests of the library and integration tests that start the
# built sweepd on 127.0.0.1 through tests/sweepd_fixture.h (it finds the
# programs in $(BUILD)/bin beside the tests, or under SWEEP_BUILD_DIR).
TEST_LIBS_server = $(SERVER_LIB) $(PROTOCOL_LIB) $(MAPS_LIB) $(CORE_LIB)
TEST_LDLIBS_server = $(SERVER_LDLIBS) -lpthread
SERVER_TESTS := $(patsubst %.c,$(BUILD)/%,$(wildcard tests/server/test_*.c))
$(SERVER_TESTS): | $(BIN)/sweepd $(BUILD)/maps/arena.db
test: $(BUILD)/maps/arena.db

# The man page, installed with the programs.
install: install-server-man
.PHONY: install-server-man
install-server-man: all
	install -D -m 644 server/sweepd.8 $(DESTDIR)$(PREFIX)/share/man/man8/sweepd.8

# make run: sweepd on the sample arena (replaces the core demo of maps.mk).
SWEEPD_RUN_LISTEN ?= 127.0.0.1:7878
RUN_DEPS := $(BIN)/sweepd $(BUILD)/maps/arena.db
RUN_CMD = @echo "sweepd: serving $(BUILD)/maps/arena.db on $(SWEEPD_RUN_LISTEN) (TCP and UDP); Ctrl-C stops it."; \
	echo "connect to the address of the ready line below, e.g. $(BIN)/sweep move --connect $(SWEEPD_RUN_LISTEN) --velocity 1,0,0"; \
	echo "(or any FlatBuffers client of protocol/sweep.fbs; TCP frames are size-prefixed, UDP needs the cookie handshake)."; \
	exec $(BIN)/sweepd --map $(BUILD)/maps/arena.db --listen $(SWEEPD_RUN_LISTEN)
