/*
 * config.c - movement rules: defaults, range checks, and a deterministic
 * cosine so slope limits written in degrees mean the same everywhere.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/move.h"

void sweep_config_default(sweep_config *cfg)
{
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

#if defined(__SSE2__) && (defined(__x86_64__) || defined(_M_X64))
/* The layout same_fields reads in 16-byte pieces: three before
 * max_iterations, three from min_radius to the end. */
_Static_assert(offsetof(sweep_config, max_iterations) == 48 && offsetof(sweep_config, min_radius) == 56 &&
                   sizeof(sweep_config) == 104,
               "sweep_config's layout changed: same_fields' pieces with it");

/* Compared in SSE2 pieces, without memcmp's two calls: those were most of
 * the 50 instructions a check cost, twice a step of sweep_act. */
static int same_fields(const sweep_config *a, const sweep_config *b)
{
    const __m128i *pa = (const __m128i *)a, *pb = (const __m128i *)b;
#define SWEEP__PIECE(k) _mm_cmpeq_epi32(_mm_loadu_si128(&pa[k]), _mm_loadu_si128(&pb[k]))
    /* Pieces 0-2 and, past the padding, the 16-byte pieces from byte 56. */
    const __m128i *qa = (const __m128i *)((const char *)a + 56), *qb = (const __m128i *)((const char *)b + 56);
#define SWEEP__TAIL(k) _mm_cmpeq_epi32(_mm_loadu_si128(&qa[k]), _mm_loadu_si128(&qb[k]))
    __m128i e = _mm_and_si128(_mm_and_si128(SWEEP__PIECE(0), SWEEP__PIECE(1)),
                              _mm_and_si128(SWEEP__PIECE(2), SWEEP__TAIL(0)));
    e = _mm_and_si128(e, _mm_and_si128(SWEEP__TAIL(1), SWEEP__TAIL(2)));
#undef SWEEP__PIECE
#undef SWEEP__TAIL
    return _mm_movemask_epi8(e) == 0xffff && a->max_iterations == b->max_iterations;
}
#else
static int same_fields(const sweep_config *a, const sweep_config *b)
{
    const size_t head = offsetof(sweep_config, max_iterations) + sizeof a->max_iterations;
    const size_t tail = offsetof(sweep_config, min_radius);
    return memcmp(a, b, head) == 0 && memcmp((const char *)a + tail, (const char *)b + tail, sizeof *a - tail) == 0;
}
#endif

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

int sweep_config_radii_ok(const sweep_config *cfg, sweep_vec3 r)
{
    double rmin = r.x < r.y ? (r.x < r.z ? r.x : r.z) : (r.y < r.z ? r.y : r.z);
    double rmax = r.x > r.y ? (r.x > r.z ? r.x : r.z) : (r.y > r.z ? r.y : r.z);
    return rmin >= cfg->min_radius && rmax <= cfg->max_radius && rmax <= rmin * cfg->max_anisotropy;
}

int sweep_config_contains(const sweep_config *cfg, sweep_vec3 p)
{
    return sweep__config_contains_inline(cfg, p);
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
    if (x > 45.0) {
        double y = (90.0 - x) * (3.14159265358979323846 / 180.0), y2 = y * y, s = 1.0;
        for (int k = 11; k >= 1; k--)
            s = 1.0 - s * y2 / (double)((2 * k) * (2 * k + 1));
        return sign * y * s;
    }
    return sign * cos_small(x * (3.14159265358979323846 / 180.0));
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
