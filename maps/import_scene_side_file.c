/*
 * import_scene_side_file.c - the --movers side file (import.h gives its
 * format): movers made of named nodes or meshes, with their keys and
 * rules, for files without animations; and the mover rules, spelled the
 * same in the side file and in a node's extras.
 *
 * The side file's axis-and-angle keys are turned into quaternions here,
 * once, so that the server and the clients only ever lerp and nlerp what
 * the map stores.
 */
#include "maps/import_scene_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/parse.h"
#include "core/world.h"

/* Words on one side-file line (so names on one 'mesh' line). */
#define SIDE_MAX_WORDS 256
/* How far from unit length a quaternion written in the side file may be:
 * four-digit rounding passes, a typo does not. */
#define SIDE_QUAT_SLACK 1e-2
/* Degrees short of a half turn that still count as one: the rounding of
 * a half turn taken through sines and cosines. */
#define SIDE_TURN_SLACK 1e-6
#define PI 3.14159265358979323846

/* --- rules (shared by the side file and node extras) ---------------------- */

/* The value of rule `what` ('m'ode, 't'rigger, 'b'locked) spelled s, or -1. */
static int rule_value(char what, const char *s)
{
    for (int i = 0;; i++) {
        const char *n = what == 'm'   ? sweep_mover_mode_name((sweep_mover_mode)i)
                        : what == 't' ? sweep_mover_trigger_name((sweep_mover_trigger)i)
                                      : sweep_mover_blocked_name((sweep_mover_blocked)i);
        if (!n)
            return -1;
        if (strcmp(n, s) == 0)
            return i;
    }
}

/* "once, loop or pingpong": the spellings of rule `what`, for messages. */
const char *sweep__scene_rule_spellings(char what)
{
    return what == 'm' ? "once, loop or pingpong" : what == 't' ? "always, volume, touch or command"
                                                                : "stop, reverse or crush";
}

void sweep__scene_rules_default(rules *r)
{
    memset(r, 0, sizeof *r);
    r->mode = SWEEP_MOVER_PINGPONG;
    r->trigger = SWEEP_TRIGGER_ALWAYS;
    r->blocked = SWEEP_BLOCKED_STOP;
}

/* Sets rule `what` to the value spelled s; 0 if s spells none. */
int sweep__scene_rules_set(rules *r, char what, const char *s)
{
    int v = rule_value(what, s);
    if (v < 0)
        return 0;
    if (what == 'm')
        r->mode = (sweep_mover_mode)v, r->set |= RULE_MODE;
    else if (what == 't')
        r->trigger = (sweep_mover_trigger)v, r->set |= RULE_TRIGGER;
    else
        r->blocked = (sweep_mover_blocked)v, r->set |= RULE_BLOCKED;
    return 1;
}

/* Copies the rules r gives (all of them when all is set) onto mover m. */
void sweep__scene_rules_apply(const rules *r, int all, sweep_level_mover *m)
{
    if (all || (r->set & RULE_MODE))
        m->mode = r->mode;
    if (all || (r->set & RULE_TRIGGER))
        m->trigger = r->trigger;
    if (all || (r->set & RULE_BLOCKED))
        m->blocked = r->blocked;
    if (all || (r->set & RULE_WAIT))
        m->wait_start = r->wait_start, m->wait_end = r->wait_end;
    if (all || (r->set & RULE_VOLUME))
        m->volume_min = r->volume_min, m->volume_max = r->volume_max;
}

int sweep__scene_box_ok(sweep_vec3 lo, sweep_vec3 hi)
{
    return lo.x < hi.x && lo.y < hi.y && lo.z < hi.z;
}

/* --- the side file -------------------------------------------------------- */

/*
 * Splits line into words in place: blanks separate them, "double quotes"
 * keep blanks inside one, '#' outside quotes ends the line. Returns the
 * count, -1 for an unterminated quote, -2 for more than max words.
 */
static int split_words(char *line, char **w, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (*p == '\0' || *p == '#')
            return n;
        if (n == max)
            return -2;
        if (*p == '"') {
            char *end = strchr(p + 1, '"');
            if (!end)
                return -1;
            *end = '\0';
            w[n++] = p + 1;
            p = end + 1;
            if (*p && !strchr(" \t\r\n#", *p))
                return -1;
            continue;
        }
        w[n++] = p;
        while (*p && !strchr(" \t\r\n", *p))
            p++;
        if (*p)
            *p++ = '\0';
    }
}

/* Word w read as a number in [lo, hi] for `what`; 0 after an error. */
static int side_number(importer *im, unsigned line, const char *w, double lo, double hi, const char *what,
                       double *out)
{
    if (sweep_parse_double(w, lo, hi, out))
        return 1;
    return sweep__scene_side_fail(im, line, "%s: '%s' is not a number in [%g, %g]", what, w, lo, hi);
}

/* Three words as a point in map coordinates. */
static int side_point(importer *im, unsigned line, char **w, const char *what, sweep_vec3 *out)
{
    double l = im->lv->config.max_coordinate, v[3];
    for (int k = 0; k < 3; k++)
        if (!side_number(im, line, w[k], -l, l, what, &v[k]))
            return 0;
    *out = sweep_v3(v[0], v[1], v[2]);
    return 1;
}

/* RULEs in words w[i..n) of line `line`. */
static int side_rules(importer *im, unsigned line, char **w, int i, int n, rules *r)
{
    while (i < n) {
        const char *k = w[i];
        if (strcmp(k, "mode") == 0 || strcmp(k, "trigger") == 0 || strcmp(k, "blocked") == 0) {
            if (i + 1 >= n)
                return sweep__scene_side_fail(im, line, "'%s' wants one of %s", k, sweep__scene_rule_spellings(k[0]));
            if (!sweep__scene_rules_set(r, k[0], w[i + 1]))
                return sweep__scene_side_fail(im, line, "unknown %s '%s' (%s)", k, w[i + 1],
                                              sweep__scene_rule_spellings(k[0]));
            i += 2;
        } else if (strcmp(k, "wait") == 0) {
            if (i + 2 >= n)
                return sweep__scene_side_fail(im, line, "'wait' wants two numbers of seconds: START END");
            if (!side_number(im, line, w[i + 1], 0.0, SWEEP_MOVER_MAX_SECONDS, "wait START", &r->wait_start) ||
                !side_number(im, line, w[i + 2], 0.0, SWEEP_MOVER_MAX_SECONDS, "wait END", &r->wait_end))
                return 0;
            r->set |= RULE_WAIT;
            i += 3;
        } else if (strcmp(k, "volume") == 0) {
            if (i + 6 >= n)
                return sweep__scene_side_fail(im, line, "'volume' wants six numbers: X0 Y0 Z0 X1 Y1 Z1");
            if (!side_point(im, line, &w[i + 1], "volume", &r->volume_min) ||
                !side_point(im, line, &w[i + 4], "volume", &r->volume_max))
                return 0;
            if (!sweep__scene_box_ok(r->volume_min, r->volume_max))
                return sweep__scene_side_fail(im, line, "the volume box needs X0 < X1, Y0 < Y1 and Z0 < Z1");
            r->set |= RULE_VOLUME;
            i += 7;
        } else {
            return sweep__scene_side_fail(im, line,
                                          "unknown word '%s' (a rule is mode, trigger, blocked, wait or volume)", k);
        }
    }
    return 1;
}

/* 'key T X Y Z QX QY QZ QW' or 'key T X Y Z axis AX AY AZ deg D'. */
static int side_key(importer *im, unsigned line, char **w, int n, side_mover *sm)
{
    int quat_form = n == 9, axis_form = n == 11 && strcmp(w[5], "axis") == 0 && strcmp(w[9], "deg") == 0;
    if (!quat_form && !axis_form)
        return sweep__scene_side_fail(im, line, "'key' wants T X Y Z QX QY QZ QW, or T X Y Z axis AX AY AZ deg D");
    double t;
    sweep_vec3 p;
    if (!side_number(im, line, w[1], 0.0, SWEEP_MOVER_MAX_SECONDS, "key time", &t) ||
        !side_point(im, line, &w[2], "key position", &p))
        return 0;
    if (sm->key_count == 0 && t != 0.0)
        return sweep__scene_side_fail(im, line, "the first key of mover '%s' must be at time 0, not %g", sm->name, t);
    if (sm->key_count > 0 && !(t > sm->keys[sm->key_count - 1].time))
        return sweep__scene_side_fail(im, line, "key time %g is not after the previous key's %g", t,
                                      sm->keys[sm->key_count - 1].time);
    if (sm->key_count >= SWEEP_MOVER_MAX_KEYFRAMES)
        return sweep__scene_side_fail(im, line, "mover '%s' has more than %u keys", sm->name,
                                      SWEEP_MOVER_MAX_KEYFRAMES);
    sweep_quat q;
    double axis[3] = {0.0, 0.0, 0.0}, deg = 0.0;
    if (quat_form) {
        double c[4];
        for (int k = 0; k < 4; k++)
            if (!side_number(im, line, w[5 + k], -2.0, 2.0, "quaternion", &c[k]))
                return 0;
        q.x = c[0], q.y = c[1], q.z = c[2], q.w = c[3];
        double len = sqrt(sweep_quat_dot(q, q));
        if (!(fabs(len - 1.0) <= SIDE_QUAT_SLACK))
            return sweep__scene_side_fail(
                im, line,
                "the quaternion (%g %g %g %g) has length %g, not 1 (give QX QY QZ QW of a unit "
                "quaternion, or 'axis AX AY AZ deg D')",
                q.x, q.y, q.z, q.w, len);
        q = sweep_quat_normalize(q);
    } else {
        double a[3];
        for (int k = 0; k < 3; k++)
            if (!side_number(im, line, w[6 + k], -1e6, 1e6, "axis", &a[k]))
                return 0;
        if (!side_number(im, line, w[10], -1e6, 1e6, "angle in degrees", &deg))
            return 0;
        double len = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        if (!(len > 1e-12))
            return sweep__scene_side_fail(im, line, "the rotation axis (%g %g %g) has no direction", a[0], a[1], a[2]);
        double s = sweep_sin_degrees(0.5 * deg) / len;
        q.x = a[0] * s, q.y = a[1] * s, q.z = a[2] * s, q.w = sweep_cos_degrees(0.5 * deg);
        q = sweep_quat_normalize(q);
        for (int k = 0; k < 3; k++)
            axis[k] = a[k] / len;
    }
    if (sm->key_count > 0) {
        /* The map keeps only where each key points, and the core's nlerp
         * takes the shorter way between two: half a turn or more would be
         * run the other way, or not at all. About one axis (either way
         * along it) the turn is the difference of the degrees, so that a
         * whole turn is not taken for none; else it is the angle between
         * the quaternions as written. */
        double turn;
        double along = sm->axis[0] * axis[0] + sm->axis[1] * axis[1] + sm->axis[2] * axis[2];
        if (axis_form && sm->axis_form && fabs(along) >= 1.0 - 1e-12)
            turn = fabs(deg - (along > 0.0 ? sm->deg : -sm->deg));
        else
            turn = 2.0 * acos(fmax(-1.0, fmin(1.0, sweep_quat_dot(sm->keys[sm->key_count - 1].pose.rotation, q)))) *
                   (180.0 / PI);
        if (!(turn < 180.0 - SIDE_TURN_SLACK))
            return sweep__scene_side_fail(im, line,
                                          "the mover turns %g degrees from the key on line %u; a turn between two "
                                          "keys must be under 180 degrees (the mover takes the shorter way between "
                                          "two keys): add keys in between",
                                          turn, sm->key_line);
    }
    sm->axis_form = axis_form;
    memcpy(sm->axis, axis, sizeof axis);
    sm->deg = deg;
    if (!sweep__scene_grow((void **)&sm->keys, &sm->key_cap, sm->key_count, sizeof *sm->keys))
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
    sweep_keyframe *k = &sm->keys[sm->key_count++];
    k->time = t;
    k->pose.position = sweep__scene_v3_plus_zero(p);
    k->pose.rotation = sweep__scene_quat_plus_zero(q);
    sm->key_line = line;
    return 1;
}

static uint32_t side_find(const side_file *sf, const char *name)
{
    for (uint32_t i = 0; i < sf->count; i++)
        if (strcmp(sf->movers[i].name, name) == 0)
            return i;
    return SWEEP_NO_MOVER;
}

/* One non-empty line of the side file, split into n words. */
static int side_line(importer *im, unsigned line, char **w, int n, uint32_t *cur)
{
    side_file *sf = &im->side;
    const char *k = w[0];
    if (strcmp(k, "mover") == 0) {
        if (n < 2)
            return sweep__scene_side_fail(im, line, "'mover' wants a NAME");
        size_t len = strlen(w[1]);
        if (len == 0 || len >= SWEEP_LEVEL_NAME_MAX)
            return sweep__scene_side_fail(im, line, "a mover name must be 1 to %d bytes", SWEEP_LEVEL_NAME_MAX - 1);
        uint32_t prev = side_find(sf, w[1]);
        if (prev != SWEEP_NO_MOVER)
            return sweep__scene_side_fail(im, line, "mover '%s' is already defined on line %u", w[1],
                                          sf->movers[prev].line);
        if (!sweep__scene_grow((void **)&sf->movers, &sf->cap, sf->count, sizeof *sf->movers))
            return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
        side_mover *sm = &sf->movers[sf->count];
        memset(sm, 0, sizeof *sm);
        memcpy(sm->name, w[1], len + 1);
        sm->line = line;
        sm->mover = SWEEP_NO_MOVER;
        sweep__scene_rules_default(&sm->r);
        *cur = sf->count++;
        return side_rules(im, line, w, 2, n, &sm->r);
    }
    int rule = strcmp(k, "mode") == 0 || strcmp(k, "trigger") == 0 || strcmp(k, "blocked") == 0 ||
               strcmp(k, "wait") == 0 || strcmp(k, "volume") == 0;
    if (!rule && strcmp(k, "mesh") != 0 && strcmp(k, "pivot") != 0 && strcmp(k, "key") != 0)
        return sweep__scene_side_fail(im, line,
                                      "unknown word '%s' (a line starts with mover, mesh, pivot, key, mode, "
                                      "trigger, blocked, wait or volume)",
                                      k);
    if (*cur == SWEEP_NO_MOVER)
        return sweep__scene_side_fail(im, line, "'%s' before any 'mover NAME' line", k);
    side_mover *sm = &sf->movers[*cur];
    if (rule)
        return side_rules(im, line, w, 0, n, &sm->r);
    if (strcmp(k, "pivot") == 0) {
        if (n != 4)
            return sweep__scene_side_fail(im, line, "'pivot' wants three numbers: X Y Z");
        return side_point(im, line, &w[1], "pivot", &sm->pivot);
    }
    if (strcmp(k, "key") == 0)
        return side_key(im, line, w, n, sm);
    /* mesh NAME... */
    if (n < 2)
        return sweep__scene_side_fail(im, line, "'mesh' wants the names of nodes or meshes of the scene");
    for (int i = 1; i < n; i++) {
        for (uint32_t c = 0; c < sf->claim_count; c++)
            if (strcmp(sf->claims[c].name, w[i]) == 0)
                return sweep__scene_side_fail(im, line, "'%s' is already given to mover '%s' on line %u", w[i],
                                              sf->movers[sf->claims[c].side].name, sf->claims[c].line);
        if (!sweep__scene_grow((void **)&sf->claims, &sf->claim_cap, sf->claim_count, sizeof *sf->claims))
            return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
        claim *c = &sf->claims[sf->claim_count];
        c->name = strdup(w[i]);
        if (!c->name)
            return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
        c->line = line, c->side = *cur, c->used = 0;
        sf->claim_count++;
    }
    if (!sm->mesh_line)
        sm->mesh_line = line;
    return 1;
}

/* Reads the side file into im->side and checks each block on its own. */
int sweep__scene_side_read(importer *im, const char *path)
{
    side_file *sf = &im->side;
    sf->path = path;
    FILE *f = fopen(path, "r");
    if (!f)
        return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "%s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned no = 0;
    uint32_t cur = SWEEP_NO_MOVER;
    int ok = 1;
    char **w = malloc(SIDE_MAX_WORDS * sizeof *w);
    if (!w)
        ok = sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
    while (ok && (len = getline(&line, &cap, f)) != -1) {
        no++;
        if (strlen(line) != (size_t)len) {
            ok = sweep__scene_side_fail(im, no, "a NUL byte (this is not a text file)");
            break;
        }
        int n = split_words(line, w, SIDE_MAX_WORDS);
        if (n == -1)
            ok = sweep__scene_side_fail(im, no, "a \"quoted name\" is not closed, or runs into the next word");
        else if (n == -2)
            ok = sweep__scene_side_fail(im, no, "more than %d words on one line", SIDE_MAX_WORDS);
        else if (n > 0)
            ok = side_line(im, no, w, n, &cur);
    }
    if (ok && ferror(f))
        ok = sweep__scene_fail(im, SWEEP_E_GEOMETRY, "%s: read error", path);
    free(w);
    free(line);
    fclose(f);
    for (uint32_t i = 0; ok && i < sf->count; i++) {
        const side_mover *sm = &sf->movers[i];
        if (sm->key_count && !sm->mesh_line)
            ok = sweep__scene_side_fail(im, sm->line,
                                        "mover '%s' has keys but no 'mesh' line naming the nodes or meshes "
                                        "that form it",
                                        sm->name);
        else if (sm->mesh_line && sm->key_count < 2)
            ok = sweep__scene_side_fail(im, sm->line, "mover '%s' needs two 'key' lines or more (it has %u)", sm->name,
                                        sm->key_count);
    }
    return ok;
}

/* Makes a level mover for every side-file block with meshes, in file order. */
int sweep__scene_side_make_movers(importer *im)
{
    side_file *sf = &im->side;
    for (uint32_t i = 0; i < sf->count; i++) {
        side_mover *sm = &sf->movers[i];
        if (!sm->mesh_line)
            continue;
        sweep_level *lv = im->lv;
        uint32_t mi;
        if (!sweep__scene_grow((void **)&im->origins, &im->origin_cap, lv->mover_count, sizeof *im->origins) ||
            sweep_level_add_mover(lv, lv->mover_count + 1, sm->name, &mi) != SWEEP_OK)
            return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
        im->origins[mi].node = NULL;
        im->origins[mi].side = i;
        sweep_level_mover *m = &lv->movers[mi];
        sweep__scene_rules_apply(&sm->r, 1, m);
        for (uint32_t k = 0; k < sm->key_count; k++)
            if (sweep_level_mover_add_keyframe(m, sm->keys[k].time, sm->keys[k].pose.position,
                                               sm->keys[k].pose.rotation) != SWEEP_OK)
                return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
        sm->mover = mi;
        im->stats->movers_from_file++;
    }
    return 1;
}

/* The claim on `name`, or NULL. */
claim *sweep__scene_side_claim(importer *im, const char *name)
{
    for (uint32_t c = 0; c < im->side.claim_count; c++)
        if (strcmp(im->side.claims[c].name, name) == 0)
            return &im->side.claims[c];
    return NULL;
}

void sweep__scene_side_free(side_file *sf)
{
    for (uint32_t i = 0; i < sf->count; i++)
        free(sf->movers[i].keys);
    for (uint32_t c = 0; c < sf->claim_count; c++)
        free(sf->claims[c].name);
    free(sf->movers);
    free(sf->claims);
}
