# maps/ - levels: the in-memory level (level.c), generated levels
# (levelgen.c), the SQLite map format and the tools over them (the walkers
# they run are core/walker.c).

# Library: every maps/*.c except program mains (*_main.c) and the importer
# (import*.c, the only code that links libassimp).
MAPS_SRC := $(filter-out maps/%_main.c maps/import%.c,$(wildcard maps/*.c))
MAPS_LIB := $(LIB)/libsweep-maps.a
# Link flags every user of MAPS_LIB needs.
MAPS_LDLIBS = -lsqlite3

LIBRARIES += $(MAPS_LIB)
# Installed: the level a predicting game builds its world from.
INSTALL_HEADERS += maps/level.h

$(MAPS_LIB): $(patsubst %.c,$(BUILD)/%.o,$(MAPS_SRC))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

TEST_LIBS_maps = $(MAPS_LIB) $(CORE_LIB)
TEST_LDLIBS_maps = $(MAPS_LDLIBS)

# sweep-walk: walkers on a generated level (or a map), the core benchmark.
PROGRAMS += $(BIN)/sweep-walk
$(BIN)/sweep-walk: $(BUILD)/maps/sweep_walk_main.o $(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(LINK) $^ $(MAPS_LDLIBS) $(SWEEP_LDLIBS) -o $@

# --- the map format, loader and tools ----------------------------------------
# Installed: the loader (a predicting game loads the server's map); the
# writer and the schema are the tools' own.
INSTALL_HEADERS += maps/loader.h
# And the level image, which a build without SQLite loads instead
# (maps/level_image.h; sweep-map-image makes it).
INSTALL_HEADERS += maps/level_image.h

# schema.sql compiled into the library as a C string (maps/schema.h), so the
# tools create exactly the documented schema. maps/schema_sql.c is generated
# from it but kept in the source tree (and in git), so that every build of
# maps/*.c, including tests/core/cross_build.sh's, has it; make regenerates
# it whenever schema.sql changes, and tests/maps/test_writer checks they match.
maps/schema_sql.c: maps/schema.sql
	{ echo '/* schema_sql.c - maps/schema.sql as a C string (see schema.h).'; \
	  echo ' * Generated from schema.sql by maps/maps.mk: edit schema.sql, not this. */'; \
	  echo '#include "maps/schema.h"'; echo; echo 'const char sweep_map_schema_sql[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' $<; \
	  echo '    ;'; } >$@.tmp && mv $@.tmp $@

# Programs.
PROGRAMS += $(BIN)/sweep-mapgen $(BIN)/sweep-import $(BIN)/sweep-map-image
$(BIN)/sweep-map-image: $(BUILD)/maps/map_image_main.o $(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(LINK) $^ $(MAPS_LDLIBS) $(SWEEP_LDLIBS) -o $@
$(BIN)/sweep-mapgen: $(BUILD)/maps/mapgen_main.o $(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(LINK) $^ $(MAPS_LDLIBS) $(SWEEP_LDLIBS) -o $@
# The importer is the only program linked with libassimp (the scene reader,
# import_scene*.c: MAPS_IMPORT_OBJ), and with libzip for the Quake 3 reader
# (import_bsp*.c, kept apart so that what links the scene reader alone does
# not need libzip).
MAPS_BSP_SRC := $(wildcard maps/import_bsp*.c)
MAPS_BSP_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(MAPS_BSP_SRC))
MAPS_BSP_LDLIBS := -lzip
MAPS_SCENE_SRC := $(filter-out maps/import_main.c $(MAPS_BSP_SRC),$(wildcard maps/import*.c))
MAPS_IMPORT_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(MAPS_SCENE_SRC))
$(BIN)/sweep-import: $(BUILD)/maps/import_main.o $(MAPS_IMPORT_OBJ) $(MAPS_BSP_OBJ) $(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(LINK) $^ -lassimp $(MAPS_BSP_LDLIBS) $(MAPS_LDLIBS) $(SWEEP_LDLIBS) -o $@

# --- fuzzing the Quake 3 importer ---------------------------------------------
# tests/fuzz/fuzz_bsp.c with clang's libFuzzer, ASan and UBSan (FUZZ_CC and
# FUZZ_FLAGS from protocol.mk): any bytes imported as a .bsp, and a level
# that comes out checked as every import checks it, and walked by players
# (tests/fuzz/level_walk.h). The importer, its face merge, the level check
# and the core are compiled into the harness (with coverage, and the core's
# own checks, SWEEP_CHECKS), the rest of the maps library taken from the gcc
# build. Seeds:
# the importer tests' levels, written at run time by
# tests/fuzz/make_bsp_seeds.c (nothing committed: they follow the tests'
# writer). New inputs go to $(BUILD)/fuzz-corpus/bsp and a crashing input
# to $(BUILD)/fuzz-crashes/, never into the source tree.
#   make fuzz-bsp FUZZ_SECONDS=N     fuzz for N seconds (default 60)
#   make test                        includes a bounded smoke run
BSP_FUZZ := $(BUILD)/tests/fuzz/fuzz_bsp
BSP_FUZZ_SRC := $(MAPS_BSP_SRC) maps/face_merge.c maps/level_check.c
BSP_SEEDS := $(BUILD)/tests/fuzz/make_bsp_seeds
BSP_FUZZ_SMOKE_RUNS ?= 3000
$(BSP_FUZZ): tests/fuzz/fuzz_bsp.c tests/fuzz/level_invariants.h tests/fuzz/level_walk.h $(BSP_FUZZ_SRC) \
		maps/import_bsp_impl.h $(CORE_SRC) $(wildcard core/*.h) $(MAPS_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -DSWEEP_CHECKS=1 tests/fuzz/fuzz_bsp.c $(BSP_FUZZ_SRC) $(CORE_SRC) $(MAPS_LIB) \
		$(MAPS_BSP_LDLIBS) $(MAPS_LDLIBS) -lm -o $@
$(BSP_SEEDS): $(BUILD)/tests/fuzz/make_bsp_seeds.o
	@mkdir -p $(@D)
	$(LINK) $^ $(SWEEP_LDLIBS) -o $@

.PHONY: fuzz-bsp
fuzz-bsp: $(BSP_FUZZ) $(BSP_SEEDS)
	@mkdir -p $(BUILD)/fuzz-corpus/bsp $(BUILD)/fuzz-corpus/bsp-seeds $(BUILD)/fuzz-crashes
	$(BSP_SEEDS) $(BUILD)/fuzz-corpus/bsp-seeds
	$(BSP_FUZZ) -artifact_prefix=$(BUILD)/fuzz-crashes/bsp- -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
		-print_final_stats=1 $(BUILD)/fuzz-corpus/bsp $(BUILD)/fuzz-corpus/bsp-seeds

$(eval $(call SWEEP_FUZZ_SMOKE,$(BSP_FUZZ),$(BSP_SEEDS),bsp $(BSP_FUZZ_SMOKE_RUNS) 65536 "$(BUILD)/fuzz-crashes" --seeds-by "$(BSP_SEEDS)"))

# Sample maps: maps/NAME.sql (rows) after maps/schema.sql, in one
# transaction, into $(BUILD)/maps/NAME.db. Built into a temporary file and
# renamed, so a failed build leaves no map behind; foreign keys are on, so
# a triangle naming a missing vertex or material stops the build.
MAPS_SAMPLES := $(patsubst maps/%.sql,$(BUILD)/maps/%.db,$(filter-out maps/schema.sql,$(wildcard maps/*.sql)))
all: $(MAPS_SAMPLES)
$(BUILD)/maps/%.db: maps/%.sql maps/schema.sql | $(BUILD)/.deps-ok
	@mkdir -p $(@D)
	@rm -f $@.tmp
	{ echo 'PRAGMA foreign_keys = ON;'; echo 'BEGIN;'; cat maps/schema.sql $<; echo 'COMMIT;'; } \
		| sqlite3 -bail $@.tmp >/dev/null || { rm -f $@.tmp; exit 1; }
	mv $@.tmp $@

# The sample maps' level images too, which the Windows build predicts on
# (client-sdk/windows.mk).
MAPS_IMAGES := $(MAPS_SAMPLES:.db=.swl)
all: $(MAPS_IMAGES)
$(BUILD)/maps/%.swl: $(BUILD)/maps/%.db $(BIN)/sweep-map-image
	$(BIN)/sweep-map-image $< -o $@ >/dev/null

# --- fuzzing the movers side file --------------------------------------------
# tests/fuzz/fuzz_movers_file.c with clang's libFuzzer, ASan and UBSan: any
# bytes as the --movers side file of a small OBJ scene, imported whole by
# the scene importer (compiled into the harness, with coverage; libassimp
# reads the scene). Seeds: tests/fuzz/corpus/movers/ (text), the format's
# words in tests/fuzz/movers.dict. New inputs go to
# $(BUILD)/fuzz-corpus/movers, a crashing input to $(BUILD)/fuzz-crashes/.
#   make fuzz-movers FUZZ_SECONDS=N  fuzz for N seconds (default 60)
#   make test                        includes a bounded smoke run
MOVERS_FUZZ := $(BUILD)/tests/fuzz/fuzz_movers_file
MOVERS_CORPUS := tests/fuzz/corpus/movers
MOVERS_FUZZ_SMOKE_RUNS ?= 5000
$(MOVERS_FUZZ): tests/fuzz/fuzz_movers_file.c tests/fuzz/level_invariants.h $(MAPS_SCENE_SRC) \
		maps/import_scene_impl.h $(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) tests/fuzz/fuzz_movers_file.c $(MAPS_SCENE_SRC) $(MAPS_LIB) $(CORE_LIB) -lassimp \
		$(MAPS_LDLIBS) -lm -o $@

.PHONY: fuzz-movers
fuzz-movers: $(MOVERS_FUZZ)
	@mkdir -p $(BUILD)/fuzz-corpus/movers $(BUILD)/fuzz-crashes
	$(MOVERS_FUZZ) -artifact_prefix=$(BUILD)/fuzz-crashes/movers- -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
		-dict=tests/fuzz/movers.dict -print_final_stats=1 $(BUILD)/fuzz-corpus/movers $(MOVERS_CORPUS)

$(eval $(call SWEEP_FUZZ_SMOKE,$(MOVERS_FUZZ),$(wildcard $(MOVERS_CORPUS)/*),movers $(MOVERS_FUZZ_SMOKE_RUNS) 4096 "$(BUILD)/fuzz-crashes" "$(MOVERS_CORPUS)"))

# --- fuzzing the scene importer -------------------------------------------------
# tests/fuzz/fuzz_scene.c with clang's libFuzzer, ASan and UBSan: any bytes
# as an OBJ scene (libassimp reads it, not instrumented), imported with
# options the first byte picks, then checked, built and walked. The scene
# importer, its shell volumes, its face merge, the level check and the core are compiled
# into the harness (with coverage, and the core's own checks,
# SWEEP_CHECKS). Seeds: tests/fuzz/corpus/scene/, the format's words and
# sweep's name prefixes in tests/fuzz/obj.dict. About 13 runs a second: each
# import has libassimp clear some megabytes, so the smoke run is short.
#   make fuzz-scene FUZZ_SECONDS=N   fuzz for N seconds (default 60)
#   make test                        includes a bounded smoke run
SCENE_FUZZ := $(BUILD)/tests/fuzz/fuzz_scene
SCENE_FUZZ_SRC := $(MAPS_SCENE_SRC) maps/shell_volume.c maps/face_merge.c maps/level_check.c
SCENE_CORPUS := tests/fuzz/corpus/scene
SCENE_FUZZ_SMOKE_RUNS ?= 300
$(SCENE_FUZZ): tests/fuzz/fuzz_scene.c tests/fuzz/level_invariants.h tests/fuzz/level_walk.h $(SCENE_FUZZ_SRC) \
		maps/import_scene_impl.h $(CORE_SRC) $(wildcard core/*.h) $(MAPS_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -DSWEEP_CHECKS=1 tests/fuzz/fuzz_scene.c $(SCENE_FUZZ_SRC) $(CORE_SRC) $(MAPS_LIB) \
		-lassimp $(MAPS_LDLIBS) -lm -o $@

.PHONY: fuzz-scene
fuzz-scene: $(SCENE_FUZZ)
	@mkdir -p $(BUILD)/fuzz-corpus/scene $(BUILD)/fuzz-crashes
	$(SCENE_FUZZ) -artifact_prefix=$(BUILD)/fuzz-crashes/scene- -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
		-dict=tests/fuzz/obj.dict -print_final_stats=1 $(BUILD)/fuzz-corpus/scene $(SCENE_CORPUS)

$(eval $(call SWEEP_FUZZ_SMOKE,$(SCENE_FUZZ),$(wildcard $(SCENE_CORPUS)/*),scene $(SCENE_FUZZ_SMOKE_RUNS) 4096 "$(BUILD)/fuzz-crashes" "$(SCENE_CORPUS)"))

# --- fuzzing the level image reader -------------------------------------------
# tests/fuzz/fuzz_level_image.c with clang's libFuzzer, ASan and UBSan: any
# bytes read as a level image (what libsweep loads without SQLite), and a
# level that comes out built into a world and movers, and walked by players.
# The reader and the core are compiled into the harness (with coverage, the
# sanitizers and the core's own checks, SWEEP_CHECKS); the rest of maps/
# comes from the gcc build. Seeds: the sample maps' images above. New inputs
# go to $(BUILD)/fuzz-corpus/image, a crashing input to $(BUILD)/fuzz-crashes/.
#   make fuzz-image FUZZ_SECONDS=N   fuzz for N seconds (default 60)
#   make test                        includes a bounded smoke run
IMAGE_FUZZ := $(BUILD)/tests/fuzz/fuzz_level_image
IMAGE_FUZZ_SMOKE_RUNS ?= 20000
$(IMAGE_FUZZ): tests/fuzz/fuzz_level_image.c tests/fuzz/level_invariants.h tests/fuzz/level_walk.h maps/level_image.c \
		$(CORE_SRC) $(wildcard core/*.h) $(MAPS_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -DSWEEP_CHECKS=1 tests/fuzz/fuzz_level_image.c maps/level_image.c $(CORE_SRC) \
		$(MAPS_LIB) $(MAPS_LDLIBS) -lm -o $@

.PHONY: fuzz-image
fuzz-image: $(IMAGE_FUZZ) $(MAPS_IMAGES)
	@mkdir -p $(BUILD)/fuzz-corpus/image $(BUILD)/fuzz-crashes
	cp $(MAPS_IMAGES) $(BUILD)/fuzz-corpus/image/
	$(IMAGE_FUZZ) -artifact_prefix=$(BUILD)/fuzz-crashes/image- -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
		-print_final_stats=1 $(BUILD)/fuzz-corpus/image

$(eval $(call SWEEP_FUZZ_SMOKE,$(IMAGE_FUZZ),$(MAPS_IMAGES),image $(IMAGE_FUZZ_SMOKE_RUNS) 65536 "$(BUILD)/fuzz-crashes" $(MAPS_IMAGES)))

# --- fuzzing the SQLite map loader --------------------------------------------
# tests/fuzz/fuzz_map.c with clang's libFuzzer, ASan and UBSan: a sample map
# edited by a script of SQL changes (cells, columns, rows, the header, the
# schema), written out and loaded as sweepd loads a map, then its image read
# back, its world built and players walked. The loader, the map row's checks
# and the core are compiled into the harness (with coverage, and the core's
# own checks, SWEEP_CHECKS); the rest of maps/ comes from the gcc build. The
# base maps are the build's sample maps, beside the harness; seeds in
# tests/fuzz/corpus/map/. Inputs of any length up to 512 bytes from the
# start (-len_control=0): a script of a few edits finds little. New inputs
# go to $(BUILD)/fuzz-corpus/map, a crashing input to $(BUILD)/fuzz-crashes/.
#   make fuzz-map FUZZ_SECONDS=N     fuzz for N seconds (default 60)
#   make test                        includes a bounded smoke run
MAP_FUZZ := $(BUILD)/tests/fuzz/fuzz_map
MAP_FUZZ_SRC := $(wildcard maps/loader*.c) maps/map_values.c
MAP_CORPUS := tests/fuzz/corpus/map
MAP_FUZZ_SMOKE_RUNS ?= 1000
$(MAP_FUZZ): tests/fuzz/fuzz_map.c tests/fuzz/level_invariants.h tests/fuzz/level_walk.h $(MAP_FUZZ_SRC) maps/loader_impl.h \
		$(CORE_SRC) $(wildcard core/*.h) $(MAPS_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -DSWEEP_CHECKS=1 tests/fuzz/fuzz_map.c $(MAP_FUZZ_SRC) $(CORE_SRC) \
		$(MAPS_LIB) $(MAPS_LDLIBS) -lm -o $@

.PHONY: fuzz-map
fuzz-map: $(MAP_FUZZ) $(MAPS_SAMPLES)
	@mkdir -p $(BUILD)/fuzz-corpus/map $(BUILD)/fuzz-crashes
	$(MAP_FUZZ) -artifact_prefix=$(BUILD)/fuzz-crashes/map- \
		-max_total_time=$(FUZZ_SECONDS) -max_len=512 -len_control=0 -print_final_stats=1 \
		$(BUILD)/fuzz-corpus/map $(MAP_CORPUS)

$(eval $(call SWEEP_FUZZ_SMOKE,$(MAP_FUZZ),$(MAPS_SAMPLES) $(wildcard $(MAP_CORPUS)/*),map $(MAP_FUZZ_SMOKE_RUNS) 1024 "$(BUILD)/fuzz-crashes" "$(MAP_CORPUS)"))

# Tests that need the built arena or the programs (make test also brings
# the sample maps up to date).
test: $(MAPS_SAMPLES)
$(BUILD)/tests/maps/test_arena: | $(BUILD)/maps/arena.db
$(BUILD)/tests/maps/test_volumes_map: | $(BUILD)/maps/pads.db $(BUILD)/maps/pool.db
$(BUILD)/tests/maps/test_import: | $(BIN)/sweep-import
$(BUILD)/tests/maps/test_corpus_volumes: | $(BIN)/sweep-import
$(BUILD)/tests/maps/test_writer: | $(BIN)/sweep-mapgen

# Benchmark: load time of generated maps (tests/bench/run-bench.sh).
BENCHES += $(BUILD)/tests/bench/bench_maps_load
$(BUILD)/tests/bench/bench_maps_load: $(BUILD)/tests/bench/bench_maps_load.o $(MAPS_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(LINK) $^ $(MAPS_LDLIBS) $(SWEEP_LDLIBS) -o $@

# make run, until a server fragment replaces it: walkers on the sample arena,
# narrated (see sweep-walk --demo).
RUN_DEPS := $(BIN)/sweep-walk $(BUILD)/maps/arena.db
RUN_CMD = $(BIN)/sweep-walk --map $(BUILD)/maps/arena.db --walkers 8 --steps 1200 --demo
$(BUILD)/tests/maps/test_walk_map: | $(BIN)/sweep-walk $(BUILD)/maps/arena.db
# test_plot also draws the arena with sweep-walk --svg.
$(BUILD)/tests/maps/test_plot: | $(BIN)/sweep-walk $(BUILD)/maps/arena.db

# make install also puts the sample maps where packaged servers find them.
install: install-maps
.PHONY: install-maps
install-maps: $(MAPS_SAMPLES)
	install -d $(DESTDIR)$(PREFIX)/share/sweep/maps
	install -m 644 $(MAPS_SAMPLES) $(DESTDIR)$(PREFIX)/share/sweep/maps/
$(BUILD)/tests/maps/test_level_image: | $(BUILD)/maps/arena.db
# The level check's tests also run sweep-import on the arena.
$(BUILD)/tests/maps/test_level_check: | $(BIN)/sweep-import $(BUILD)/maps/arena.db
$(BUILD)/tests/maps/test_walk_falls: | $(BIN)/sweep-walk
