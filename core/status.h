/*
 * status.h - the error codes every core entry point returns.
 *
 * A call that fails returns one of these and leaves its outputs and the
 * caller's state untouched; no core function asserts on caller data. The
 * names are stable: the protocol's Error message and the tools print them.
 */
#ifndef SWEEP_CORE_STATUS_H
#define SWEEP_CORE_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif
typedef enum sweep_status {
    SWEEP_OK = 0,
    SWEEP_E_NONFINITE,     /* a NaN or infinite number in the input */
    SWEEP_E_RADII,         /* radius not in [min_radius, max_radius] or too anisotropic */
    SWEEP_E_VELOCITY,      /* speed above the configured maximum */
    SWEEP_E_DT,            /* time step not in (0, max_dt] */
    SWEEP_E_POSITION,      /* coordinate beyond the configured world limit */
    SWEEP_E_CONFIG,        /* a config value out of its documented range */
    SWEEP_E_GEOMETRY,      /* world description: bad index, NaN vertex, too many triangles */
    SWEEP_E_NOMEM,         /* allocation failed while building a world */
    SWEEP_E_ARG,           /* NULL pointer or otherwise unusable argument */
    SWEEP_E_TIME,          /* a past time the history does not hold */
    SWEEP_STATUS_COUNT
} sweep_status;

/* Stable upper-case name of a status ("OK", "NONFINITE", ...); "UNKNOWN" if out of range. */
const char *sweep_status_name(sweep_status s);

/* One human sentence describing the status, for logs and error messages. */
const char *sweep_status_message(sweep_status s);

#ifdef __cplusplus
}
#endif

#endif
