/*
 * check.h - the core's internal invariants, asserted in checked builds.
 *
 * SWEEP_CORE_CHECK(cond) states something the core's own code makes true:
 * a time of impact in its range, a unit normal, a list within its capacity,
 * a state its machine can reach. Never something about a caller's input,
 * which is refused with an error instead (move.h, mover.h); where a
 * caller's extreme but accepted numbers could bend an invariant (a radius
 * of 1e-300, a triangle of 1e-80), the check says so and holds only in
 * the range where it is exact. The files that keep invariants list them in
 * their opening comment (swept_sphere.c, scene.c, bvh_walk.h, move.c,
 * mover.c, push.c, mover_impl.h, world_impl.h).
 *
 * Checked builds are those with SWEEP_CHECKS set (make DEBUG=1, the
 * sanitizer builds and the fault-injection build; the Makefile defines it).
 * There a false cond prints the file, line, function and expression on
 * stderr and aborts. The core does no I/O, but a broken invariant means
 * the answers from here on are wrong, and a checked build exists for
 * developers and tests, for whom the file and line are the fastest way to
 * the cause; abort also stops a test at the fault, not later at a hash.
 *
 * In a release build (SWEEP_CHECKS unset or 0) the macro expands to an
 * expression that runs nothing: cond sits under sizeof, whose operand C
 * never evaluates (none here is a variable-length array), so nothing of it
 * is computed and the release code is what it was without the checks,
 * instruction for instruction; yet cond is still compiled, so a check
 * cannot rot, and a variable that only checks read still counts as used.
 * stdio and stdlib are not even included then.
 */
#ifndef SWEEP_CORE_CHECK_H
#define SWEEP_CORE_CHECK_H

#include <math.h>

#include "core/compiler.h"
#include "core/vec3.h"

#ifndef SWEEP_CHECKS
#define SWEEP_CHECKS 0
#endif

#if SWEEP_CHECKS
#include <stdio.h>
#include <stdlib.h>

/* Reports a broken invariant and aborts. Static: the core library of a
 * checked build needs no extra object, and each file names itself. */
SWEEP__NORETURN_COLD static void sweep__check_failed(const char *file, int line, const char *func,
                                                                        const char *expr)
{
    fprintf(stderr, "sweep: core invariant broken at %s:%d (%s): %s\n", file, line, func, expr);
    fflush(stderr);
    abort();
}

#define SWEEP_CORE_CHECK(cond) ((cond) ? (void)0 : sweep__check_failed(__FILE__, __LINE__, __func__, #cond))
#else
#define SWEEP_CORE_CHECK(cond) ((void)sizeof((cond) ? 1 : 0))
#endif

/*
 * Unit vectors. A vector divided by its length, when the squared length
 * is a normal double, has a squared length within a few units in the last
 * place of 1 (about 1e-15); this allows a million times that, and any real
 * error (a normal left unnormalised, scaled by the radii twice) is far
 * larger. A squared length outside the normal doubles (a vector shorter
 * than 2^-511 or longer than 2^511, about 1e-154 and 1e154) rounds too
 * coarsely to be held to it: a check of such a vector says so.
 */
#define SWEEP__CHECK_UNIT_TOL 1e-9

static inline int sweep__check_unit(sweep_vec3 v)
{
    return fabs(sweep_v3_len2(v) - 1.0) <= SWEEP__CHECK_UNIT_TOL;
}

/* Is n, a vector of length len divided by len, unit length? Lengths out of
 * the range above are let through (see there). */
static inline int sweep__check_unit_from(sweep_vec3 n, double len)
{
    return sweep__check_unit(n) || !(len >= 0x1p-511 && len <= 0x1p511);
}

#endif
