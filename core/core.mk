# core/ - the deterministic geometry and movement library (libsweep-core.a).
# Pure C, libc and libm's sqrt only; no I/O (but for a broken invariant's
# report in a checked build: core/check.h). Also the pure helpers every
# layer shares: SHA-256 (tokens, cookies, map content hashes), the walkers
# that benchmarks and tests drive through levels, and strict parsing of
# numbers written as text. Always compiled with the
# determinism flags of the top Makefile.

CORE_SRC := $(wildcard core/*.c)
CORE_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(CORE_SRC))
CORE_LIB := $(LIB)/libsweep-core.a

LIBRARIES += $(CORE_LIB)
# Installed: the core headers the client SDK's headers include (a game
# predicts with the core, and may ask its own view the queries the server
# answers; the top Makefile's install says where they go).
INSTALL_HEADERS += core/vec3.h core/status.h core/world.h core/move.h core/quat.h core/mover.h core/crowd.h \
	core/motion.h core/history.h core/query.h core/version.h

$(CORE_LIB): $(CORE_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
