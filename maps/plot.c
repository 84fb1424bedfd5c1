/*
 * plot.c - the SVG picture of plot.h: a level seen along one axis, paths,
 * marks and mover paths, written as text with stdio.
 *
 * Invariants:
 *   - Everything added is projected at once to the picture's plane
 *     (h to the right, v up, in world units) and thinned there, with
 *     distances fixed at creation from the level's size: the written
 *     picture shows at least the level's box in its 1200 px, so a distance
 *     under a pixel of that box stays under a pixel on paper.
 *   - A path's points are its lines one after the other; a point with h NaN
 *     separates two lines.
 *   - Coordinates are written in tenths of a pixel (finer than any screen
 *     shows), as integers turned into decimals by hand: exact relative
 *     steps, no locale, no "-0.0".
 *   - The level is read only by sweep_plot_write; the plot keeps its box.
 *
 * Size: a triangle costs about 20 bytes of path data, once per distinct
 * shape on the picture (walls seen edge-on collapse to one), and triangles
 * smaller than a pixel become pixels of a coverage mask written as runs, so
 * a level of millions of triangles is bounded by the picture's area.
 */
#include "maps/plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/quat.h"

/* Long side of the level's box on the picture, and the rest of the page. */
#define PLOT_SIDE 1200.0
#define PLOT_MARGIN 24.0
#define PLOT_HEADER 56.0
#define PLOT_LEGEND 260.0
#define PLOT_LEGEND_LINE 18.0
#define PLOT_LEGEND_TRACKS 40 /* names shown; the rest are counted */
/* Thinning distance, in pixels of the level's box; and how far a point
 * left out of a straight stretch may be from the line drawn instead. */
#define PLOT_THIN_PX 0.75
#define PLOT_STRAIGHT_PX 0.25
/* Marks of a kind and label closer than this share one symbol (a symbol
 * is about 8 px across). */
#define PLOT_MARK_CELL_PX 6.0
/* Coordinates further out than this from the picture are pinned to it, so
 * tenths of a pixel fit in 32 bits; such points are clipped anyway. */
#define PLOT_FAR_PX 100000.0
#define PLOT_PI 3.14159265358979323846

/* Styles of the level's triangles; movers' meshes have one of their own. */
enum { STYLE_BACK, STYLE_FACING, STYLE_EDGE, STYLE_STATIC_COUNT, STYLE_MOVER = STYLE_STATIC_COUNT };

static const char *const style_class[STYLE_STATIC_COUNT] = {"lb", "lf", "lw"};

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#393b79", "#ad494a"};
#define PALETTE_SIZE (sizeof palette / sizeof palette[0])

typedef struct pt {
    double h, v;
} pt;

/* A track or a mover's path. */
typedef struct path {
    pt *pts;
    size_t count, cap;
    size_t kept; /* points in pts, breaks not counted */
    pt tail;     /* the last point added, drawn even when thinned away */
    int has_tail, tail_kept, broken;
    /* Directions from pts[count - 2] that keep every point since it
     * within the straight tolerance: angles lo..hi around `dir`. */
    double dir, lo, hi;
    int straight;
    char name[64];
} path;

/* Fixed-size keys in insertion order, with an index by hash: the labels,
 * the cells marks occupy, the triangles already drawn. */
typedef struct keyset {
    size_t ksize;
    unsigned char *keys;
    size_t count, cap;
    uint32_t *slots; /* index + 1; 0 is empty */
    size_t nslots;
} keyset;

typedef struct mark {
    double h, v;
    uint32_t label; /* index + 1 in labels; 0 is none */
} mark;

typedef struct mark_cell {
    int32_t cx, cy;
    uint32_t label;
    uint32_t kind;
} mark_cell;

typedef struct bounds {
    double h0, v0, h1, v1;
    int set;
} bounds;

struct sweep_plot {
    const sweep_level *lv;
    char axis;
    double thin;  /* world units */
    double tol;   /* world units: PLOT_STRAIGHT_PX */
    double cell;  /* world units */
    bounds level; /* the level's box on the plane */
    bounds data;  /* everything added */
    path *tracks;
    size_t track_count, track_cap;
    path *movers; /* one per lv->movers */
    uint32_t mover_count;
    mark *marks[SWEEP_PLOT_MARK_COUNT];
    size_t mark_count[SWEEP_PLOT_MARK_COUNT], mark_cap[SWEEP_PLOT_MARK_COUNT];
    uint64_t marks_added[SWEEP_PLOT_MARK_COUNT];
    keyset labels; /* char[64] */
    keyset cells;  /* mark_cell */
    int nomem;     /* something added was lost: the write says so */
};

/* --- small pieces ------------------------------------------------------- */

static void project(char axis, sweep_vec3 p, double *h, double *v)
{
    switch (axis) {
    case 'x': *h = p.y, *v = p.z; break;
    case 'y': *h = p.x, *v = p.z; break;
    default: *h = p.x, *v = p.y; break;
    }
}

/* From the picture towards the eye: right x up. */
static sweep_vec3 toward_viewer(char axis)
{
    return axis == 'x' ? sweep_v3(1, 0, 0) : axis == 'y' ? sweep_v3(0, -1, 0) : sweep_v3(0, 0, 1);
}

static void bounds_add(bounds *b, double h, double v)
{
    if (!b->set) {
        b->h0 = b->h1 = h, b->v0 = b->v1 = v, b->set = 1;
        return;
    }
    b->h0 = h < b->h0 ? h : b->h0;
    b->h1 = h > b->h1 ? h : b->h1;
    b->v0 = v < b->v0 ? v : b->v0;
    b->v1 = v > b->v1 ? v : b->v1;
}

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need)
        ncap *= 2;
    void *n = realloc(*arr, ncap * size);
    if (!n)
        return -1;
    *arr = n;
    *cap = ncap;
    return 0;
}

static uint64_t hash_bytes(const void *key, size_t n)
{
    const unsigned char *k = key;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ k[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

static int keyset_rehash(keyset *s, size_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < s->count; i++) {
        size_t j = hash_bytes(s->keys + i * s->ksize, s->ksize) & (nslots - 1);
        while (slots[j])
            j = (j + 1) & (nslots - 1);
        slots[j] = (uint32_t)(i + 1);
    }
    free(s->slots);
    s->slots = slots;
    s->nslots = nslots;
    return 0;
}

/* 1 when key is new, 0 when it was there, -1 without memory; its index in
 * insertion order goes to *index (may be NULL). */
static int keyset_add(keyset *s, const void *key, uint32_t *index)
{
    if ((s->count + 1) * 2 > s->nslots && keyset_rehash(s, s->nslots ? s->nslots * 2 : 64) != 0)
        return -1;
    size_t j = hash_bytes(key, s->ksize) & (s->nslots - 1);
    for (; s->slots[j]; j = (j + 1) & (s->nslots - 1)) {
        uint32_t i = s->slots[j] - 1;
        if (memcmp(s->keys + (size_t)i * s->ksize, key, s->ksize) == 0) {
            if (index)
                *index = i;
            return 0;
        }
    }
    if (s->count >= UINT32_MAX - 1 || grow((void **)&s->keys, &s->cap, s->count + 1, s->ksize) != 0)
        return -1;
    memcpy(s->keys + s->count * s->ksize, key, s->ksize);
    s->slots[j] = (uint32_t)(s->count + 1);
    if (index)
        *index = (uint32_t)s->count;
    s->count++;
    return 1;
}

static void keyset_free(keyset *s)
{
    free(s->keys);
    free(s->slots);
    memset(s, 0, sizeof *s);
}

static int path_push(path *t, double h, double v)
{
    if (grow((void **)&t->pts, &t->cap, t->count + 1, sizeof *t->pts) != 0)
        return -1;
    t->pts[t->count++] = (pt){h, v};
    t->kept += !isnan(h);
    return 0;
}

/* Ends the current line: its last point is kept, whatever the thinning. */
static int path_break(path *t)
{
    if (t->has_tail && !t->tail_kept) {
        if (path_push(t, t->tail.h, t->tail.v) != 0)
            return -1;
        t->tail_kept = 1;
    }
    t->broken = 1;
    return 0;
}

/* An angle in (-pi, pi]. */
static double wrap(double a)
{
    while (a > PLOT_PI)
        a -= 2.0 * PLOT_PI;
    while (a <= -PLOT_PI)
        a += 2.0 * PLOT_PI;
    return a;
}

/* The directions from `from` to within tol of `to`. */
static void sleeve_start(path *t, pt from, pt to, double tol)
{
    double dh = to.h - from.h, dv = to.v - from.v, d = sqrt(dh * dh + dv * dv);
    t->dir = atan2(dv, dh);
    t->hi = d > tol ? asin(tol / d) : PLOT_PI;
    t->lo = -t->hi;
    t->straight = 1;
}

/*
 * Adds a point, thinned twice: a point closer than `thin` to the last one
 * kept is left out, and a point that carries on a straight stretch
 * replaces the stretch's end instead of adding one. A stretch stays
 * straight while the direction from its start to its end is within `tol`
 * (seen from the start) of every point it swallowed, so no point left out
 * lies further than tol from what is drawn.
 */
static int path_add(path *t, double h, double v, double thin, double tol)
{
    int keep;
    if (!t->has_tail || t->broken) {
        if (t->count > 0 && !isnan(t->pts[t->count - 1].h) && path_push(t, NAN, NAN) != 0)
            return -1;
        t->straight = 0;
        keep = 1;
    } else {
        pt last = t->pts[t->count - 1];
        double dh = h - last.h, dv = v - last.v;
        keep = dh * dh + dv * dv >= thin * thin;
    }
    if (keep && t->straight) {
        pt a = t->pts[t->count - 2], last = t->pts[t->count - 1];
        double dh = h - a.h, dv = v - a.v, d = sqrt(dh * dh + dv * dv);
        double lh = last.h - a.h, lv = last.v - a.v;
        double rel = wrap(atan2(dv, dh) - t->dir);
        if (d * d >= lh * lh + lv * lv && rel >= t->lo && rel <= t->hi) {
            double half = d > tol ? asin(tol / d) : PLOT_PI;
            t->lo = fmax(t->lo, rel - half);
            t->hi = fmin(t->hi, rel + half);
            t->pts[t->count - 1] = (pt){h, v};
            t->tail = (pt){h, v};
            t->tail_kept = 1;
            return 0;
        }
    }
    if (keep) {
        if (path_push(t, h, v) != 0)
            return -1;
        if (t->count >= 2 && !isnan(t->pts[t->count - 2].h))
            sleeve_start(t, t->pts[t->count - 2], (pt){h, v}, tol);
        else
            t->straight = 0;
    }
    t->tail = (pt){h, v};
    t->has_tail = 1;
    t->tail_kept = keep;
    t->broken = 0;
    return 0;
}

/* --- building ----------------------------------------------------------- */

sweep_plot *sweep_plot_create(const sweep_level *lv, char axis)
{
    if (axis != 'x' && axis != 'y' && axis != 'z')
        return NULL;
    sweep_plot *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->lv = lv;
    p->axis = axis;
    p->labels.ksize = 64;
    p->cells.ksize = sizeof(mark_cell);
    double h, v;
    if (lv) {
        for (uint32_t i = 0; i < lv->vertex_count; i++) {
            project(axis, lv->vertices[i], &h, &v);
            bounds_add(&p->level, h, v);
        }
        for (uint32_t i = 0; i < lv->spawn_count; i++) {
            project(axis, lv->spawns[i], &h, &v);
            bounds_add(&p->level, h, v);
        }
        /* A mover's mesh wherever its keyframes put it. */
        for (uint32_t m = 0; m < lv->mover_count; m++) {
            const sweep_level_mover *mv = &lv->movers[m];
            for (uint32_t k = 0; k < mv->key_count; k++)
                for (uint32_t i = 0; i < mv->vertex_count; i++) {
                    const sweep_mover_pose *pose = &mv->keys[k].pose;
                    project(axis, sweep_v3_add(sweep_quat_rotate(pose->rotation, mv->vertices[i]), pose->position),
                            &h, &v);
                    bounds_add(&p->level, h, v);
                }
        }
        if (lv->mover_count) {
            p->movers = calloc(lv->mover_count, sizeof *p->movers);
            if (!p->movers) {
                free(p);
                return NULL;
            }
            p->mover_count = lv->mover_count;
            for (uint32_t m = 0; m < lv->mover_count; m++)
                snprintf(p->movers[m].name, sizeof p->movers[m].name, "%s", lv->movers[m].name);
        }
    }
    double ext = 0.0;
    if (p->level.set) {
        double w = p->level.h1 - p->level.h0, t = p->level.v1 - p->level.v0;
        ext = w > t ? w : t;
    }
    /* Without a level there is no scale to go by: a thousandth of a unit
     * is below a pixel of any picture of a few units or more. */
    p->thin = ext > 0.0 && isfinite(ext) ? ext / PLOT_SIDE * PLOT_THIN_PX : 1e-3;
    p->tol = p->thin / PLOT_THIN_PX * PLOT_STRAIGHT_PX;
    p->cell = p->thin / PLOT_THIN_PX * PLOT_MARK_CELL_PX;
    return p;
}

int sweep_plot_track(sweep_plot *p, const char *name)
{
    if (p->track_count >= 0x7fffffff ||
        grow((void **)&p->tracks, &p->track_cap, p->track_count + 1, sizeof *p->tracks) != 0) {
        p->nomem = 1;
        return -1;
    }
    path *t = &p->tracks[p->track_count];
    memset(t, 0, sizeof *t);
    if (name)
        snprintf(t->name, sizeof t->name, "%s", name);
    else
        snprintf(t->name, sizeof t->name, "track %zu", p->track_count);
    return (int)p->track_count++;
}

static int add_to(sweep_plot *p, path *t, sweep_vec3 at)
{
    if (!sweep_v3_isfinite(at))
        return -1;
    double h, v;
    project(p->axis, at, &h, &v);
    bounds_add(&p->data, h, v);
    if (path_add(t, h, v, p->thin, p->tol) != 0) {
        p->nomem = 1;
        return -1;
    }
    return 0;
}

int sweep_plot_point(sweep_plot *p, int track, sweep_vec3 at)
{
    if (track < 0 || (size_t)track >= p->track_count)
        return -1;
    return add_to(p, &p->tracks[track], at);
}

void sweep_plot_break(sweep_plot *p, int track)
{
    if (track >= 0 && (size_t)track < p->track_count && path_break(&p->tracks[track]) != 0)
        p->nomem = 1;
}

int sweep_plot_mover_point(sweep_plot *p, uint32_t index, sweep_vec3 at)
{
    if (index >= p->mover_count)
        return -1;
    return add_to(p, &p->movers[index], at);
}

/* The cell a coordinate falls in, pinned to 32 bits (far cells are off
 * the picture, where sharing one does not matter). */
static int32_t cell_of(double x, double cell)
{
    double c = floor(x / cell);
    return c < -2e9 ? -2000000000 : c > 2e9 ? 2000000000 : (int32_t)c;
}

int sweep_plot_mark(sweep_plot *p, sweep_plot_mark_kind kind, sweep_vec3 at, const char *label)
{
    if ((unsigned)kind >= SWEEP_PLOT_MARK_COUNT || !sweep_v3_isfinite(at))
        return -1;
    double h, v;
    project(p->axis, at, &h, &v);
    bounds_add(&p->data, h, v);
    p->marks_added[kind]++;
    uint32_t li = 0;
    if (label && *label) {
        char key[64] = {0};
        snprintf(key, sizeof key, "%s", label);
        int r = keyset_add(&p->labels, key, &li);
        if (r < 0)
            goto nomem;
        li++;
    }
    mark_cell c;
    memset(&c, 0, sizeof c); /* padding is hashed */
    c.cx = cell_of(h, p->cell);
    c.cy = cell_of(v, p->cell);
    c.label = li;
    c.kind = (uint32_t)kind;
    int r = keyset_add(&p->cells, &c, NULL);
    if (r < 0)
        goto nomem;
    if (r == 0)
        return 0;
    if (grow((void **)&p->marks[kind], &p->mark_cap[kind], p->mark_count[kind] + 1, sizeof(mark)) != 0)
        goto nomem;
    p->marks[kind][p->mark_count[kind]++] = (mark){h, v, li};
    return 0;
nomem:
    p->nomem = 1;
    return -1;
}

size_t sweep_plot_points_kept(const sweep_plot *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->track_count; i++)
        n += p->tracks[i].kept;
    for (uint32_t i = 0; i < p->mover_count; i++)
        n += p->movers[i].kept;
    return n;
}

size_t sweep_plot_marks_kept(const sweep_plot *p)
{
    size_t n = 0;
    for (int k = 0; k < SWEEP_PLOT_MARK_COUNT; k++)
        n += p->mark_count[k];
    return n;
}

void sweep_plot_destroy(sweep_plot *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->track_count; i++)
        free(p->tracks[i].pts);
    for (uint32_t i = 0; i < p->mover_count; i++)
        free(p->movers[i].pts);
    free(p->tracks);
    free(p->movers);
    for (int k = 0; k < SWEEP_PLOT_MARK_COUNT; k++)
        free(p->marks[k]);
    keyset_free(&p->labels);
    keyset_free(&p->cells);
    free(p);
}

/* --- writing ------------------------------------------------------------ */

/* Where the plane lands on the page. */
typedef struct frame {
    double h0, v1; /* the plane's left and top */
    double s;      /* pixels per world unit */
    double ox, oy; /* the level box's top left corner on the page */
    double pw, ph; /* its size on the page */
} frame;

static double page_x(const frame *f, double h)
{
    double x = f->ox + (h - f->h0) * f->s;
    return x < -PLOT_FAR_PX ? -PLOT_FAR_PX : x > PLOT_FAR_PX ? PLOT_FAR_PX : x;
}

static double page_y(const frame *f, double v)
{
    double y = f->oy + (f->v1 - v) * f->s;
    return y < -PLOT_FAR_PX ? -PLOT_FAR_PX : y > PLOT_FAR_PX ? PLOT_FAR_PX : y;
}

static int32_t tenths(double px)
{
    return (int32_t)lround(px * 10.0);
}

/* A coordinate in tenths of a pixel as a short decimal; a space before it
 * when it follows another number and has no sign to separate them. */
static void put_num(FILE *out, int32_t n, int after_number)
{
    if (n < 0)
        putc('-', out);
    else if (after_number)
        putc(' ', out);
    uint32_t a = n < 0 ? (uint32_t)(-(int64_t)n) : (uint32_t)n;
    if (a % 10 == 0)
        fprintf(out, "%u", a / 10);
    else
        fprintf(out, "%u.%u", a / 10, a % 10);
}

static void put_px(FILE *out, double px)
{
    put_num(out, tenths(px), 0);
}

/* Text for XML: markup characters escaped, control characters and bytes
 * that are not UTF-8 replaced with '?', so any title makes a valid file. */
static void put_text(FILE *out, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        unsigned char c = *u;
        switch (c) {
        case '&': fputs("&amp;", out); u++; continue;
        case '<': fputs("&lt;", out); u++; continue;
        case '>': fputs("&gt;", out); u++; continue;
        case '"': fputs("&quot;", out); u++; continue;
        case '\'': fputs("&apos;", out); u++; continue;
        default: break;
        }
        if (c < 0x80) {
            putc(c < 0x20 && c != '\t' ? '?' : c, out);
            u++;
            continue;
        }
        /* Length of the sequence and the range of its second byte. */
        int n = 0;
        unsigned char lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf)
            n = 2;
        else if (c >= 0xe0 && c <= 0xef)
            n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
        else if (c >= 0xf0 && c <= 0xf4)
            n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
        int ok = n > 0 && u[1] >= lo && u[1] <= hi;
        for (int i = 2; ok && i < n; i++)
            ok = u[i] >= 0x80 && u[i] <= 0xbf;
        /* U+FFFE and U+FFFF are not characters in XML either. */
        if (ok && n == 3 && c == 0xef && u[1] == 0xbf && u[2] >= 0xbe)
            ok = 0;
        if (!ok) {
            putc('?', out);
            u++;
            continue;
        }
        fwrite(u, 1, (size_t)n, out);
        u += n;
    }
}

static void put_title(FILE *out, const char *text)
{
    fputs("<title>", out);
    put_text(out, text);
    fputs("</title>", out);
}

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* The part of the plane to show: the level's box and what was added, but
 * no more than half the level's size beyond it; never thinner than a sixth
 * of its long side, so a side view of a flat level keeps some height. */
static frame frame_of(const sweep_plot *p)
{
    bounds b = p->level;
    if (b.set && p->data.set) {
        double w = b.h1 - b.h0, t = b.v1 - b.v0;
        double pad = (w > t ? w : t) * 0.5;
        const bounds *l = &p->level, *d = &p->data;
        bounds_add(&b, clamp(d->h0, l->h0 - pad, l->h1 + pad), clamp(d->v0, l->v0 - pad, l->v1 + pad));
        bounds_add(&b, clamp(d->h1, l->h0 - pad, l->h1 + pad), clamp(d->v1, l->v0 - pad, l->v1 + pad));
    } else if (!b.set) {
        b = p->data;
    }
    if (!b.set)
        b = (bounds){-1, -1, 1, 1, 1};
    double w = b.h1 - b.h0, t = b.v1 - b.v0;
    double ext = w > t ? w : t;
    if (!(ext > 0.0) || !isfinite(ext)) {
        ext = 2.0;
        w = t = 0.0;
    }
    double hc = 0.5 * (b.h0 + b.h1), vc = 0.5 * (b.v0 + b.v1);
    w = w < ext / 6.0 ? ext / 6.0 : w;
    t = t < ext / 6.0 ? ext / 6.0 : t;
    frame f;
    f.s = PLOT_SIDE / ext;
    f.h0 = hc - 0.5 * w;
    f.v1 = vc + 0.5 * t;
    f.ox = PLOT_MARGIN;
    f.oy = PLOT_HEADER;
    f.pw = w * f.s;
    f.ph = t * f.s;
    return f;
}

/* A triangle as drawn: three corners in tenths of a pixel, the first
 * the least, in the order they turn, and its style. */
typedef struct tri_key {
    int32_t c[6];
    int32_t style;
} tri_key;

typedef struct level_writer {
    FILE *out;
    const frame *f;
    keyset seen;
    uint8_t *cover; /* a bit per style for each pixel: triangles under a pixel */
    size_t cover_w, cover_h;
    int open;       /* a <path> element is open */
    int32_t pen[2]; /* where its last subpath started */
    int nomem;
} level_writer;

/* One triangle of `style`: skipped when off the picture or drawn before,
 * a pixel of the mask when smaller than one, else a subpath. */
static void level_triangle(level_writer *w, const char *cls, int style, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c,
                           char axis)
{
    const frame *f = w->f;
    sweep_vec3 q[3] = {a, b, c};
    double x[3], y[3];
    for (int i = 0; i < 3; i++) {
        double h, v;
        project(axis, q[i], &h, &v);
        x[i] = page_x(f, h);
        y[i] = page_y(f, v);
    }
    double x0 = fmin(x[0], fmin(x[1], x[2])), x1 = fmax(x[0], fmax(x[1], x[2]));
    double y0 = fmin(y[0], fmin(y[1], y[2])), y1 = fmax(y[0], fmax(y[1], y[2]));
    if (x1 < f->ox || y1 < f->oy || x0 > f->ox + f->pw || y0 > f->oy + f->ph)
        return;
    if (x1 - x0 < 1.0 && y1 - y0 < 1.0) {
        if (!w->cover) {
            w->cover_w = (size_t)ceil(f->pw) + 1;
            w->cover_h = (size_t)ceil(f->ph) + 1;
            w->cover = calloc(w->cover_w * w->cover_h, 1);
            if (!w->cover) {
                w->nomem = 1;
                return;
            }
        }
        double cx = (x[0] + x[1] + x[2]) / 3.0 - f->ox, cy = (y[0] + y[1] + y[2]) / 3.0 - f->oy;
        if (cx >= 0 && cy >= 0 && (size_t)cx < w->cover_w && (size_t)cy < w->cover_h)
            w->cover[(size_t)cy * w->cover_w + (size_t)cx] |= (uint8_t)(1u << style);
        return;
    }
    int32_t k[3][2];
    for (int i = 0; i < 3; i++)
        k[i][0] = tenths(x[i]), k[i][1] = tenths(y[i]);
    /* One turning sense for all, so that the nonzero rule fills their union. */
    int64_t area = (int64_t)(k[1][0] - k[0][0]) * (k[2][1] - k[0][1]) -
                   (int64_t)(k[2][0] - k[0][0]) * (k[1][1] - k[0][1]);
    if (area < 0) {
        int32_t t0 = k[1][0], t1 = k[1][1];
        k[1][0] = k[2][0], k[1][1] = k[2][1];
        k[2][0] = t0, k[2][1] = t1;
    }
    int first = 0;
    for (int i = 1; i < 3; i++)
        if (k[i][0] < k[first][0] || (k[i][0] == k[first][0] && k[i][1] < k[first][1]))
            first = i;
    tri_key key;
    memset(&key, 0, sizeof key);
    for (int i = 0; i < 3; i++) {
        key.c[2 * i] = k[(first + i) % 3][0];
        key.c[2 * i + 1] = k[(first + i) % 3][1];
    }
    key.style = style;
    int r = keyset_add(&w->seen, &key, NULL);
    if (r < 0)
        w->nomem = 1;
    if (r <= 0)
        return;
    FILE *out = w->out;
    /* Each triangle starts from the last one's first corner (where "z"
     * leaves the pen), and a relative move's further pairs are relative
     * lines: about 20 bytes a triangle. */
    int after_number;
    if (!w->open) {
        fprintf(out, "<path class=\"%s\" d=\"M", cls);
        put_num(out, key.c[0], 0);
        put_num(out, key.c[1], 1);
        putc('l', out);
        after_number = 0;
        w->open = 1;
    } else {
        putc('m', out);
        put_num(out, key.c[0] - w->pen[0], 0);
        put_num(out, key.c[1] - w->pen[1], 1);
        after_number = 1;
    }
    w->pen[0] = key.c[0], w->pen[1] = key.c[1];
    put_num(out, key.c[2] - key.c[0], after_number);
    put_num(out, key.c[3] - key.c[1], 1);
    put_num(out, key.c[4] - key.c[2], 1);
    put_num(out, key.c[5] - key.c[3], 1);
    putc('z', out);
}

static void level_close(level_writer *w)
{
    if (w->open)
        fputs("\"/>\n", w->out);
    w->open = 0;
}

static int style_of(sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, sweep_vec3 eye)
{
    sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a));
    double len = sqrt(sweep_v3_dot(n, n));
    if (!(len > 0.0))
        return STYLE_EDGE;
    double d = sweep_v3_dot(n, eye) / len;
    return d > 0.2 ? STYLE_FACING : d < -0.2 ? STYLE_BACK : STYLE_EDGE;
}

/* The pixels of `style` that triangles smaller than a pixel fell in, as
 * runs along rows, filled in the style's outline colour (a pixel full of
 * outlines looks like that). */
static void write_cover(level_writer *w, int style, const char *cls)
{
    const frame *f = w->f;
    int open = 0;
    for (size_t row = 0; w->cover && row < w->cover_h; row++) {
        const uint8_t *line = w->cover + row * w->cover_w;
        for (size_t col = 0; col < w->cover_w;) {
            if (!(line[col] & (1u << style))) {
                col++;
                continue;
            }
            size_t run = 1;
            while (col + run < w->cover_w && (line[col + run] & (1u << style)))
                run++;
            if (!open)
                fprintf(w->out, "<path class=\"%sr\" d=\"", cls);
            open = 1;
            fprintf(w->out, "M%.0f %.0fh%zuv1h-%zuz", f->ox + (double)col, f->oy + (double)row, run, run);
            col += run;
        }
    }
    if (open)
        fputs("\"/>\n", w->out);
}

/* The static triangles, a path per style (undersides first, then what
 * faces the eye, then what is seen edge-on, which is mostly walls from
 * above and floors from the side: lines on top), then the movers' meshes
 * where their paths start. */
static int write_level(const sweep_plot *p, FILE *out, const frame *f)
{
    const sweep_level *lv = p->lv;
    if (!lv)
        return 0;
    level_writer w;
    memset(&w, 0, sizeof w);
    w.out = out;
    w.f = f;
    w.seen.ksize = sizeof(tri_key);
    sweep_vec3 eye = toward_viewer(p->axis);
    for (int style = 0; style < STYLE_STATIC_COUNT; style++) {
        for (uint32_t t = 0; t < lv->triangle_count && !w.nomem; t++) {
            const uint32_t *ix = &lv->indices[3 * t];
            sweep_vec3 a = lv->vertices[ix[0]], b = lv->vertices[ix[1]], c = lv->vertices[ix[2]];
            if (style_of(a, b, c, eye) == style)
                level_triangle(&w, style_class[style], style, a, b, c, p->axis);
        }
        level_close(&w);
        write_cover(&w, style, style_class[style]);
    }
    for (uint32_t m = 0; m < lv->mover_count && !w.nomem; m++) {
        const sweep_level_mover *mv = &lv->movers[m];
        sweep_mover_pose pose = {sweep_v3(0, 0, 0), sweep_quat_identity()};
        if (mv->key_count)
            pose = mv->keys[0].pose;
        for (uint32_t t = 0; t < mv->triangle_count && !w.nomem; t++) {
            const uint32_t *ix = &mv->indices[3 * t];
            sweep_vec3 c3[3];
            for (int i = 0; i < 3; i++)
                c3[i] = sweep_v3_add(sweep_quat_rotate(pose.rotation, mv->vertices[ix[i]]), pose.position);
            level_triangle(&w, "lm", STYLE_MOVER, c3[0], c3[1], c3[2], p->axis);
        }
    }
    level_close(&w);
    write_cover(&w, STYLE_MOVER, "lm");
    free(w.cover);
    keyset_free(&w.seen);
    return w.nomem ? -1 : 0;
}

/* A path's lines as path data; a line of one point is a dot (round caps). */
static void write_path_data(FILE *out, const frame *f, const path *t)
{
    int32_t px = 0, py = 0;
    int in_line = 0, drawn = 0;
    size_t n = t->count + (t->has_tail && !t->tail_kept);
    for (size_t i = 0; i < n; i++) {
        pt q = i < t->count ? t->pts[i] : t->tail;
        if (isnan(q.h)) {
            if (in_line && !drawn)
                fputs("l0 0", out);
            in_line = 0;
            continue;
        }
        int32_t x = tenths(page_x(f, q.h)), y = tenths(page_y(f, q.v));
        if (!in_line) {
            putc('M', out);
            put_num(out, x, 0);
            put_num(out, y, 1);
            in_line = 1;
            drawn = 0;
        } else if (x != px || y != py) {
            if (!drawn)
                putc('l', out);
            put_num(out, x - px, drawn);
            put_num(out, y - py, 1);
            drawn = 1;
        }
        px = x, py = y;
    }
    if (in_line && !drawn)
        fputs("l0 0", out);
}

/* The SVG element a mark kind is drawn as. */
static const char *mark_element(int kind)
{
    return kind == SWEEP_PLOT_CORRECTION || kind == SWEEP_PLOT_PAST ? "circle" : kind == SWEEP_PLOT_SPAWN ? "rect" : "path";
}

static void write_mark(FILE *out, int kind, double x, double y, const char *cls_extra)
{
    const char *cls[SWEEP_PLOT_MARK_COUNT] = {"mc", "mr", "ms", "mx", "mf", "mh", "mp2"};
    fprintf(out, "<%s class=\"%s%s\" ", mark_element(kind), cls[kind], cls_extra);
    switch (kind) {
    case SWEEP_PLOT_CORRECTION:
    case SWEEP_PLOT_PAST:
        fputs("cx=\"", out), put_px(out, x), fputs("\" cy=\"", out), put_px(out, y), fputs("\" r=\"3.5\"", out);
        break;
    case SWEEP_PLOT_SPAWN:
        fputs("x=\"", out), put_px(out, x - 3.5), fputs("\" y=\"", out), put_px(out, y - 3.5);
        fputs("\" width=\"7\" height=\"7\"", out);
        break;
    case SWEEP_PLOT_RULE:
        fputs("d=\"M", out), put_px(out, x), putc(' ', out), put_px(out, y - 4.5), fputs("l4 7h-8z\"", out);
        break;
    case SWEEP_PLOT_FELL:
        fputs("d=\"M", out), put_px(out, x), putc(' ', out), put_px(out, y + 5), fputs("l5-9h-10z\"", out);
        break;
    case SWEEP_PLOT_HIT:
        fputs("d=\"M", out), put_px(out, x), putc(' ', out), put_px(out, y - 4.5), fputs("l4.5 4.5l-4.5 4.5l-4.5-4.5z\"", out);
        break;
    default:
        fputs("d=\"M", out), put_px(out, x - 4), putc(' ', out), put_px(out, y - 4), fputs("l8 8m0-8l-8 8\"", out);
        break;
    }
}

/* The marks of one kind, each with its label to show on hover. */
static void write_marks(const sweep_plot *p, FILE *out, const frame *f, int kind)
{
    for (size_t i = 0; i < p->mark_count[kind]; i++) {
        const mark *m = &p->marks[kind][i];
        write_mark(out, kind, page_x(f, m->h), page_y(f, m->v), "");
        if (m->label) {
            fputs(">", out);
            put_title(out, (const char *)p->labels.keys + (size_t)(m->label - 1) * p->labels.ksize);
            fprintf(out, "</%s>\n", mark_element(kind));
        } else {
            fputs("/>\n", out);
        }
    }
}

static const char *axis_text(char axis)
{
    return axis == 'x' ? "seen from +x: y to the right, z up"
           : axis == 'y' ? "seen from -y: x to the right, z up"
                         : "seen from above (+z): x to the right, y up";
}

static void write_svg(const sweep_plot *p, FILE *out, const char *title, int *nomem)
{
    frame f = frame_of(p);
    size_t shown = p->track_count < PLOT_LEGEND_TRACKS ? p->track_count : PLOT_LEGEND_TRACKS;
    double legend_h = PLOT_HEADER + PLOT_LEGEND_LINE * (double)(shown + (p->track_count > shown) + 10);
    double width = ceil(f.ox + f.pw + PLOT_MARGIN + PLOT_LEGEND);
    double height = ceil(f.oy + f.ph + 40.0);
    height = height < legend_h ? ceil(legend_h) : height;

    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
            width, height, width, height);
    fputs("<style>\n"
          "text{font-family:sans-serif;font-size:12px;fill:#222}\n"
          ".h{font-size:16px;font-weight:bold}\n"
          ".lb{fill:#f3f3ef;stroke:#c4c4bc;stroke-width:.4;stroke-linejoin:round}\n"
          ".lf{fill:#e6e6df;stroke:#a3a399;stroke-width:.5;stroke-linejoin:round}\n"
          ".lw{fill:#d2d2ca;stroke:#77776e;stroke-width:.7;stroke-linejoin:round}\n"
          ".lbr{fill:#c4c4bc}.lfr{fill:#a3a399}.lwr{fill:#77776e}\n"
          ".lm{fill:#d3e3f5;stroke:#5b7fa8;stroke-width:.7;stroke-linejoin:round}\n"
          ".t,.tk{fill:none;stroke-width:1.6;stroke-linejoin:round;stroke-linecap:round}\n"
          ".t{opacity:.85}\n"
          ".mp{fill:none;stroke:#1d4f86;stroke-width:1.5;stroke-dasharray:6 4}\n"
          ".mc,.mc.k{fill:#e0201b;stroke:#fff;stroke-width:.7}\n"
          ".mr,.mr.k{fill:#f39200;stroke:#fff;stroke-width:.7}\n"
          ".ms,.ms.k{fill:#1f9e3a;stroke:#fff;stroke-width:.7}\n"
          ".mx,.mx.k{fill:none;stroke:#000;stroke-width:1.8}\n"
          ".mf,.mf.k{fill:#8e2bb8;stroke:#fff;stroke-width:.7}\n"
          ".mh,.mh.k{fill:#0b6fd1;stroke:#fff;stroke-width:.7}\n"
          ".mp2,.mp2.k{fill:none;stroke:#0b6fd1;stroke-width:1.5}\n"
          ".fr{fill:none;stroke:#888;stroke-width:.8}\n"
          "</style>\n",
          out);
    fprintf(out, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n", width, height);
    if (title) {
        fputs("<text class=\"h\" x=\"24\" y=\"24\">", out);
        put_text(out, title);
        fputs("</text>\n", out);
    }
    fputs("<text x=\"24\" y=\"44\">", out);
    if (p->lv) {
        fputs("level ", out);
        put_text(out, p->lv->name);
        fprintf(out, ", %u triangles; ", p->lv->triangle_count);
    }
    fprintf(out, "%s; %zu points drawn</text>\n", axis_text(p->axis), sweep_plot_points_kept(p));

    /* The level's box, everything drawn inside it clipped to it. */
    fputs("<clipPath id=\"box\"><rect x=\"", out);
    put_px(out, f.ox), fputs("\" y=\"", out), put_px(out, f.oy);
    fputs("\" width=\"", out), put_px(out, f.pw), fputs("\" height=\"", out), put_px(out, f.ph);
    fputs("\"/></clipPath>\n<g clip-path=\"url(#box)\">\n", out);
    if (write_level(p, out, &f) != 0)
        *nomem = 1;
    for (uint32_t m = 0; m < p->mover_count; m++) {
        const path *t = &p->movers[m];
        if (!t->has_tail)
            continue;
        char name[96];
        snprintf(name, sizeof name, "mover %s", t->name);
        if (t->kept == 1) {
            /* It turned or rose in place (a hinge, a lift seen from above):
             * a ring where it stays. */
            fputs("<circle class=\"mp\" cx=\"", out);
            put_px(out, page_x(&f, t->pts[0].h));
            fputs("\" cy=\"", out);
            put_px(out, page_y(&f, t->pts[0].v));
            fputs("\" r=\"5\">", out);
            put_title(out, name);
            fputs("</circle>\n", out);
            continue;
        }
        fputs("<path class=\"mp\" d=\"", out);
        write_path_data(out, &f, t);
        fputs("\">", out);
        put_title(out, name);
        fputs("</path>\n", out);
    }
    /* Rule reports are the commonest marks (a cheat's every move): the
     * tracks go over them, the rarer marks over the tracks. */
    write_marks(p, out, &f, SWEEP_PLOT_RULE);
    for (size_t i = 0; i < p->track_count; i++) {
        const path *t = &p->tracks[i];
        if (!t->has_tail)
            continue;
        /* Each later path a little thinner, in cycles of four: paths that
         * coincide (two walkers on one line) show as nested bands of
         * their colours instead of the last hiding the others. */
        fprintf(out, "<path class=\"t\" stroke=\"%s\" style=\"stroke-width:%.1f\" d=\"", palette[i % PALETTE_SIZE],
                1.5 + 1.0 * (double)((p->track_count - 1 - i) % 4));
        write_path_data(out, &f, t);
        fputs("\">", out);
        put_title(out, t->name);
        fputs("</path>\n", out);
    }
    write_marks(p, out, &f, SWEEP_PLOT_SPAWN);
    write_marks(p, out, &f, SWEEP_PLOT_CORRECTION);
    write_marks(p, out, &f, SWEEP_PLOT_CRUSH);
    write_marks(p, out, &f, SWEEP_PLOT_FELL);
    write_marks(p, out, &f, SWEEP_PLOT_PAST);
    write_marks(p, out, &f, SWEEP_PLOT_HIT);
    fputs("</g>\n<rect class=\"fr\" x=\"", out);
    put_px(out, f.ox), fputs("\" y=\"", out), put_px(out, f.oy);
    fputs("\" width=\"", out), put_px(out, f.pw), fputs("\" height=\"", out), put_px(out, f.ph);
    fputs("\"/>\n", out);

    /* A scale bar of 1, 2 or 5 times a power of ten, about 120 px long. */
    double units = 120.0 / f.s, mag = pow(10.0, floor(log10(units))), r = units / mag;
    double nice = (r >= 5.0 ? 5.0 : r >= 2.0 ? 2.0 : 1.0) * mag, bar = nice * f.s;
    double by = f.oy + f.ph + 20.0;
    fprintf(out, "<path d=\"M%.0f %.0fv6h", f.ox, by - 6.0);
    put_px(out, bar);
    fputs("v-6\" fill=\"none\" stroke=\"#222\"/>\n", out);
    fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">%g units</text>\n", f.ox + bar + 8.0, by + 4.0, nice);

    /* The legend, beside the box. */
    double lx = f.ox + f.pw + PLOT_MARGIN, ly = f.oy + 6.0;
    fputs("<g>\n", out);
    fprintf(out, "<text class=\"h\" x=\"%.0f\" y=\"%.0f\">%zu track%s</text>\n", lx, ly + 4.0, p->track_count,
            p->track_count == 1 ? "" : "s");
    ly += PLOT_LEGEND_LINE + 4.0;
    for (size_t i = 0; i < shown; i++, ly += PLOT_LEGEND_LINE) {
        fprintf(out, "<path class=\"tk\" stroke=\"%s\" d=\"M%.0f %.0fh24\"/><text x=\"%.0f\" y=\"%.0f\">",
                palette[i % PALETTE_SIZE], lx, ly, lx + 32.0, ly + 4.0);
        put_text(out, p->tracks[i].name);
        fputs("</text>\n", out);
    }
    if (p->track_count > shown) {
        fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">and %zu more</text>\n", lx + 32.0, ly + 4.0,
                p->track_count - shown);
        ly += PLOT_LEGEND_LINE;
    }
    ly += 8.0;
    static const char *const kind_name[SWEEP_PLOT_MARK_COUNT] = {"corrections", "rule reports", "spawns",
                                                                 "crushes", "falls out of the level", "shot hits",
                                                                 "targets where they were"};
    /* Only what the picture holds: a walk has no corrections, a replay no
     * falls. */
    for (int k = 0; k < SWEEP_PLOT_MARK_COUNT; k++) {
        if (!p->marks_added[k])
            continue;
        write_mark(out, k, lx + 12.0, ly, " k");
        fprintf(out, "/><text x=\"%.0f\" y=\"%.0f\">%s: %llu</text>\n", lx + 32.0, ly + 4.0, kind_name[k],
                (unsigned long long)p->marks_added[k]);
        ly += PLOT_LEGEND_LINE;
    }
    if (p->mover_count) {
        fprintf(out, "<path class=\"mp k\" d=\"M%.0f %.0fh24\"/><text x=\"%.0f\" y=\"%.0f\">mover paths (%u)</text>\n",
                lx, ly, lx + 32.0, ly + 4.0, p->mover_count);
        ly += PLOT_LEGEND_LINE;
        fprintf(out, "<rect class=\"lm\" x=\"%.0f\" y=\"%.0f\" width=\"24\" height=\"10\"/>"
                     "<text x=\"%.0f\" y=\"%.0f\">movers where they start</text>\n",
                lx, ly - 5.0, lx + 32.0, ly + 4.0);
    }
    fputs("</g>\n</svg>\n", out);
}

int sweep_plot_write(const sweep_plot *p, const char *path, const char *title, char *err, size_t errlen)
{
    if (p->nomem) {
        snprintf(err, errlen, "cannot write %s: memory ran out while drawing", path);
        return -1;
    }
    FILE *out = fopen(path, "w");
    if (!out) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    int nomem = 0;
    write_svg(p, out, title, &nomem);
    int bad = ferror(out);
    int saved = errno;
    if (fclose(out) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    if (bad || nomem) {
        if (nomem)
            snprintf(err, errlen, "cannot write %s: out of memory", path);
        else
            snprintf(err, errlen, "writing %s failed: %s", path, strerror(saved));
        remove(path);
        return -1;
    }
    return 0;
}
