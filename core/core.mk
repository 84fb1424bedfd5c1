# core/ - the deterministic geometry and movement library (libsweep-core.a).
# Pure C, libc and libm's sqrt only; no I/O. Always compiled with the
# determinism flags of the top Makefile.

CORE_SRC := $(wildcard core/*.c)
CORE_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(CORE_SRC))
CORE_LIB := $(LIB)/libsweep-core.a

LIBRARIES += $(CORE_LIB)
INSTALL_HEADERS += core/vec3.h core/status.h core/world.h core/move.h core/hash.h core/swept_sphere.h core/quat.h core/mover.h core/crowd.h core/motion.h

$(CORE_LIB): $(CORE_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^
