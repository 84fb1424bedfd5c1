/*
 * config.c - movement rules: defaults, range checks, and a deterministic
 * cosine so slope limits written in degrees mean the same everywhere.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/move.h"
#include "core/move_impl.h"
#include "core/bytes.h"

/* Every double rounded once, to a double: the x87 unit's 80-bit registers
 * (-m32 on x86, -mfpmath=387, an i386 compiler's default) round twice and
 * give other bits than every other build. The Makefile refuses the flags;
 * this refuses the compiler however it was asked. ISO/IEC TS 18661-3's
 * methods 16 and 32 leave float and double to their own types, as 0 does
 * (16 widens nothing, 32 only _Float16; GCC says 16 for a CPU with
 * AVX512-FP16, under -march=native); 64 and above widen float, as 1
 * does. */
#if defined(__FLT_EVAL_METHOD__) && __FLT_EVAL_METHOD__ != 0 && __FLT_EVAL_METHOD__ != -1 && \
    __FLT_EVAL_METHOD__ != 16 && __FLT_EVAL_METHOD__ != 32
#error "sweep's core needs each double operation rounded to double (FLT_EVAL_METHOD 0): on x86 build with SSE2 math (-mfpmath=sse -msse2), never the x87 unit"
#endif

void sweep_config_default(sweep_config *cfg)
{
    if (!cfg)
        return; /* no status to return: nothing to fill */
    cfg->gravity = sweep_v3(0.0, 0.0, -9.81);
    cfg->walkable_normal_up = 0.70710678118654752440; /* cos 45 degrees */
    cfg->step_height = 0.35;
    cfg->skin = 1e-3;
    cfg->max_iterations = 8;
    cfg->min_radius = 0.01;
    cfg->max_radius = 100.0;
    cfg->max_anisotropy = 32.0;
    cfg->max_speed = 1000.0;
    cfg->max_dt = 1.0;
    cfg->max_coordinate = 1e7;
}

/* The last config that passed on this thread. A server checks the same
 * rules on every move (sweep_act twice a step: its own check and its
 * move's), and the same bits in every field pass again, so a match skips
 * the range tests. The padding after max_iterations is left out of the
 * comparison: its bytes mean nothing and may differ between copies. */
static _Thread_local struct {
    sweep_config cfg;
    int valid;
} last_ok;

/* Compared in 16-byte pieces (bytes.h): the doubles before
 * max_iterations and those from min_radius on, then max_iterations. */
_Static_assert(offsetof(sweep_config, max_iterations) % 16 == 0 &&
                   (sizeof(sweep_config) - offsetof(sweep_config, min_radius)) % 16 == 0,
               "sweep_config's doubles no longer fall in 16-byte pieces: same_fields with them");

static int same_fields(const sweep_config *a, const sweep_config *b)
{
    const size_t head = offsetof(sweep_config, max_iterations), tail = offsetof(sweep_config, min_radius);
    return sweep__same_bits(a, b, head) &&
           sweep__same_bits((const char *)a + tail, (const char *)b + tail, sizeof *a - tail) &&
           a->max_iterations == b->max_iterations;
}

static sweep_status check_ranges(const sweep_config *c)
{
    if (!sweep_v3_isfinite(c->gravity))
        return SWEEP_E_CONFIG;
    if (!(c->walkable_normal_up > 0.0 && c->walkable_normal_up <= 1.0))
        return SWEEP_E_CONFIG;
    if (!(c->step_height >= 0.0 && c->step_height <= 1e6))
        return SWEEP_E_CONFIG;
    if (!(c->skin > 0.0 && c->skin <= 0.1))
        return SWEEP_E_CONFIG;
    if (c->max_iterations < 1 || c->max_iterations > 64)
        return SWEEP_E_CONFIG;
    if (!(c->min_radius > 0.0 && c->max_radius >= c->min_radius && c->max_radius <= 1e6))
        return SWEEP_E_CONFIG;
    if (!(c->max_anisotropy >= 1.0 && c->max_anisotropy <= 1e3))
        return SWEEP_E_CONFIG;
    if (!(c->max_speed > 0.0 && c->max_speed <= 1e9))
        return SWEEP_E_CONFIG;
    if (!(c->max_dt > 0.0 && c->max_dt <= 1e3))
        return SWEEP_E_CONFIG;
    if (!(c->max_coordinate > 0.0 && c->max_coordinate <= 1e12))
        return SWEEP_E_CONFIG;
    return SWEEP_OK;
}

sweep_status sweep_config_check(const sweep_config *c)
{
    if (!c)
        return SWEEP_E_ARG;
    if (last_ok.valid && same_fields(c, &last_ok.cfg))
        return SWEEP_OK;
    sweep_status st = check_ranges(c);
    if (st == SWEEP_OK) {
        last_ok.cfg = *c;
        last_ok.valid = 1;
    }
    return st;
}

int sweep__config_radii_ok(const sweep_config *cfg, sweep_vec3 r)
{
    double rmin = r.x < r.y ? (r.x < r.z ? r.x : r.z) : (r.y < r.z ? r.y : r.z);
    double rmax = r.x > r.y ? (r.x > r.z ? r.x : r.z) : (r.y > r.z ? r.y : r.z);
    return rmin >= cfg->min_radius && rmax <= cfg->max_radius && rmax <= rmin * cfg->max_anisotropy;
}

/* A NULL config has no limits to fit: nothing fits it. */
int sweep_config_radii_ok(const sweep_config *cfg, sweep_vec3 r)
{
    return cfg && sweep__config_radii_ok(cfg, r);
}

int sweep_config_contains(const sweep_config *cfg, sweep_vec3 p)
{
    return cfg && sweep__config_contains_inline(cfg, p);
}

/* Taylor series of cos about 0 in r^2, evaluated by Horner's rule. On
 * [0, pi/2] the first omitted term is below 2e-17, so the result is within
 * rounding of the true value; only + - * / are used. */
static double cos_small(double r)
{
    double r2 = r * r, s = 1.0;
    for (int k = 11; k >= 1; k--)
        s = 1.0 - s * r2 / (double)((2 * k - 1) * (2 * k));
    return s;
}

/* Taylor series of sin about 0, as cos_small's: within rounding of the
 * true value on [0, pi/4], from + - * / only. */
static double sin_small(double r)
{
    double r2 = r * r, s = 1.0;
    for (int k = 11; k >= 1; k--)
        s = 1.0 - s * r2 / (double)((2 * k) * (2 * k + 1));
    return r * s;
}

double sweep_cos_degrees(double degrees)
{
    if (!isfinite(degrees))
        return NAN;
    double x = fmod(fabs(degrees), 360.0); /* exact in IEEE arithmetic */
    if (x > 180.0)
        x = 360.0 - x;
    double sign = 1.0;
    if (x > 90.0) {
        x = 180.0 - x;
        sign = -1.0;
    }
    /* Near 90 degrees use cos x = sin(90 - x) = sin y with y small, so the
     * answer keeps full relative precision; sin by its own series. */
    if (x > 45.0)
        return sign * sin_small((90.0 - x) * (3.14159265358979323846 / 180.0));
    return sign * cos_small(x * (3.14159265358979323846 / 180.0));
}

double sweep_sin_degrees(double degrees)
{
    if (!isfinite(degrees))
        return NAN;
    double sign = degrees < 0.0 ? -1.0 : 1.0;
    double x = fmod(fabs(degrees), 360.0);
    /* Each step below is exact (Sterbenz: x and what it is taken from lie
     * within a factor of two), so only the series rounds. */
    if (x >= 180.0) {
        x -= 180.0;
        sign = -sign;
    }
    if (x > 90.0)
        x = 180.0 - x;
    if (x == 0.0)
        return 0.0; /* +0 at every multiple of 180 degrees, whichever side */
    if (x > 45.0)
        return sign * cos_small((90.0 - x) * (3.14159265358979323846 / 180.0));
    return sign * sin_small(x * (3.14159265358979323846 / 180.0));
}

sweep_vec3 sweep_clamp_speed(sweep_vec3 v, double limit)
{
    double l2 = sweep_v3_len2(v), lim2 = limit * limit;
    if (!(l2 > lim2))
        return v;
    if (isinf(l2) && sweep_v3_isfinite(v)) {
        /* |v|^2 overflowed: bring v near unit length first (any finite
         * vector's largest component divides it without overflow). */
        double m = fmax(fabs(v.x), fmax(fabs(v.y), fabs(v.z)));
        v = sweep_v3_scale(v, 1.0 / m);
        l2 = sweep_v3_len2(v);
    }
    double k = limit / sqrt(l2);
    sweep_vec3 c = sweep_v3_scale(v, k);
    /* Each turn takes one ulp off k, so c shrinks by about one ulp too:
     * one or two turns at most in practice, and k reaches 0 (c = 0,
     * which passes) in the worst case. */
    while (sweep_v3_len2(c) > lim2) {
        k = nextafter(k, 0.0);
        c = sweep_v3_scale(v, k);
    }
    return c;
}
