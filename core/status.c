/*
 * status.c - names and messages for sweep_status.
 */
#include "core/status.h"

static const char *const names[SWEEP_STATUS_COUNT] = {
    [SWEEP_OK] = "OK",
    [SWEEP_E_NONFINITE] = "NONFINITE",
    [SWEEP_E_RADII] = "RADII",
    [SWEEP_E_VELOCITY] = "VELOCITY",
    [SWEEP_E_DT] = "DT",
    [SWEEP_E_POSITION] = "POSITION",
    [SWEEP_E_CONFIG] = "CONFIG",
    [SWEEP_E_GEOMETRY] = "GEOMETRY",
    [SWEEP_E_NOMEM] = "NOMEM",
    [SWEEP_E_ARG] = "ARG",
    [SWEEP_E_TIME] = "TIME",
};

static const char *const messages[SWEEP_STATUS_COUNT] = {
    [SWEEP_OK] = "success",
    [SWEEP_E_NONFINITE] = "input contains NaN or infinity",
    [SWEEP_E_RADII] = "ellipsoid radii out of the allowed range",
    [SWEEP_E_VELOCITY] = "velocity exceeds the maximum speed",
    [SWEEP_E_DT] = "time step must be positive and at most the maximum time step",
    [SWEEP_E_POSITION] = "position lies beyond the world coordinate limit",
    [SWEEP_E_CONFIG] = "movement configuration value out of range",
    [SWEEP_E_GEOMETRY] = "invalid world geometry",
    [SWEEP_E_NOMEM] = "out of memory",
    [SWEEP_E_ARG] = "invalid argument",
    [SWEEP_E_TIME] = "time outside the kept history",
};

const char *sweep_status_name(sweep_status s)
{
    if ((unsigned)s >= SWEEP_STATUS_COUNT)
        return "UNKNOWN";
    return names[s];
}

const char *sweep_status_message(sweep_status s)
{
    if ((unsigned)s >= SWEEP_STATUS_COUNT)
        return "unknown status";
    return messages[s];
}
