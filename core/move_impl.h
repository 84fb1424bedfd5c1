/*
 * move_impl.h - internal: a move, and the radii rule, for the core's own
 * callers that have already checked the config. Not installed.
 */
#ifndef SWEEP_CORE_MOVE_IMPL_H
#define SWEEP_CORE_MOVE_IMPL_H

#include "core/crowd.h"

/* sweep_move_in without the config check: space, its world, cfg, in and
 * out are not NULL, and cfg passed sweep_config_check on this thread
 * since it last changed. sweep_act checks its config before each step
 * (it reads the config's limits itself); the move's own check again was
 * about 36 instructions a step. The input is checked as sweep_move_in
 * checks it. */
sweep_status sweep__move_in_config_checked(const sweep_space *space, const sweep_config *cfg,
                                           const sweep_move_input *in, sweep_move_result *out);

/* sweep_config_radii_ok for a config known not to be NULL: a move's
 * input check and sweep_act test radii on every step, after their own
 * test of cfg, and the public call's test again would be work a step. */
int sweep__config_radii_ok(const sweep_config *cfg, sweep_vec3 r);

#endif
