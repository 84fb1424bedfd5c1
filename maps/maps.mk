# maps/ - levels: the in-memory level (level.c), generated levels
# (levelgen.c), the walker benchmark (walker.c) and the tools over them.

# Library: every maps/*.c except program mains (*_main.c) and the importer
# (import*.c, the only code that links libassimp).
MAPS_SRC := $(filter-out maps/%_main.c maps/import%.c,$(wildcard maps/*.c))
MAPS_LIB := $(LIB)/libsweep-maps.a
# Link flags every user of MAPS_LIB needs.
MAPS_LDLIBS = -lsqlite3

LIBRARIES += $(MAPS_LIB)
INSTALL_HEADERS += maps/level.h maps/levelgen.h

$(MAPS_LIB): $(patsubst %.c,$(BUILD)/%.o,$(MAPS_SRC))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

TEST_LIBS_maps = $(MAPS_LIB) $(CORE_LIB)
TEST_LDLIBS_maps = $(MAPS_LDLIBS)

# sweep-walk: walkers on a generated level (or a map), the core benchmark.
PROGRAMS += $(BIN)/sweep-walk
$(BIN)/sweep-walk: $(BUILD)/maps/sweep_walk_main.o $(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(LINK) $^ $(MAPS_LDLIBS) $(SWEEP_LDLIBS) -o $@
