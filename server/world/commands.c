/*
 * commands.c - EntityCommands: a session of the server role (a game
 * server) acting on any entity of its world, whoever owns it: Teleport,
 * SetVelocity, AddImpulse, SetRadii, Despawn, SetHitShapes, many in one
 * message.
 *
 * The commands are applied in order, each on what the ones before left,
 * and each is independent: a refused one (an unknown entity, a bad number,
 * no room) changes nothing and does not stop the others. Each has its
 * result, in order, in one EntityCommandsResult: code None when applied,
 * else the code an Error would carry and why; the entity's position,
 * velocity and radii after it while it exists. Only the message's size is
 * refused whole (BatchTooLarge above the owner's max_batch, as a
 * MoveBatch). What a command leaves of an entity is entity_motion.h's
 * sweep__entity_commanded, which the core depth of a replay runs on the
 * logged results too. The rules of each:
 *
 *   Teleport     a finite target (BadNumber) within the coordinate limit
 *                (BadPosition), checked as a Spawn's place (place.c). A
 *                target that overlaps something is pushed out: the places
 *                above it along up, a quarter of the entity's height
 *                apart, PUSH_OUT_TRIES of them, are tried in order and the
 *                first free one is taken (flag PushedOut); none free, it
 *                is refused with NoRoom naming what is at the target. No
 *                collision on the way: a placement, not a motion. Its
 *                claims are not flagged for the grace period (its client
 *                could not foresee it), and its next MoveResult has
 *                start_position, as after a mover.
 *   SetVelocity  a finite velocity (BadNumber) no faster than the map's
 *                max_speed (refused with BadVelocity, never clamped).
 *   AddImpulse   a finite impulse added to the velocity, the sum no
 *                faster than max_speed (BadVelocity). Neither velocity
 *                moves the entity now: its next move runs it through
 *                collide-and-slide, so no impulse carries an entity
 *                through a wall.
 *   SetRadii     radii the map allows (sweep_config_radii_ok, BadRadii),
 *                around the same centre, or, grounded, with its lowest
 *                point where it was (the centre moves along up by the
 *                change of its half-height, so standing up from a crouch
 *                works on a floor); refused with NoRoom where the new
 *                shape overlaps something (growing under a low ceiling).
 *                The radii are its standing shape: a crouched entity
 *                (core/stance.h) stands in them.
 *   Despawn      as its owner's Despawn; an owner that is not the
 *                commanding session is told with an unasked Despawned
 *                (sequence 0), as a crushed entity's owner is.
 *   SetHitShapes what a Query meets of it from the next tick's frame on
 *                (the history keeps shapes per frame): at most
 *                SWEEP_HIT_SHAPES_MAX (NotAllowed), each of a known kind
 *                (NotAllowed), finite (BadNumber), radii above zero
 *                (BadRadii), every point within HIT_SHAPE_REACH of its
 *                largest radius from its position (BadPosition: a shape
 *                away from its body is a mistake). None: its ellipsoid
 *                again. Its motion does not change, nor its claims' flags.
 *   another op   NotAllowed.
 * Velocity, impulse and radii commands unflag claims as a Teleport does.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stance.h"
#include "server/world/alloc.h"
#include "server/world/entity_motion.h"
#include "server/world/world_impl.h"

/* Places above an occupied Teleport target tried before NoRoom, and how
 * far apart, as a fraction of the entity's half-height: ten quarters, a
 * little more than its height, so that an entity of its size standing
 * at the target is cleared (its top is exactly one height up). */
#define PUSH_OUT_TRIES 10
#define PUSH_OUT_STEP 0.25

/* How far from its position an entity's hit shapes may reach, in its
 * largest radii: an arm's length, and half of what the history allows
 * (core/history.h), so that an entity that shrinks to half its size keeps
 * its shapes in the frames. */
#define HIT_SHAPE_REACH 2.0

/* One command's result being filled, and the room for its message. */
typedef struct command {
    sweep__world *w;
    const sweep__request *rq;
    sweep_msg_entity_command_result *out;
    char *text;
} command;

static void refuse(command *c, sweep_wire_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void refuse(command *c, sweep_wire_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->text, SWEEP__COMMAND_TEXT, fmt, ap);
    va_end(ap);
    c->out->code = code;
    c->out->message = sweep_str_of(c->text);
}

/* Applied: what the entity keeps, its shell moved, its claims unflagged. */
static void applied(command *c, sweep__entity *e, uint32_t op, sweep_vec3 position, sweep_vec3 velocity,
                    sweep_vec3 radii)
{
    sweep__entity_commanded(&e->st, op, position, velocity, radii, sweep__config_up(&c->w->level.config));
    sweep__world_place_entity(c->w, e);
    sweep__entity_unflag(c->w, e);
}

static void teleport(command *c, sweep__entity *e, sweep_vec3 target)
{
    const sweep__world *w = c->w;
    const sweep_config *cfg = &w->level.config;
    if (!sweep_v3_isfinite(target)) {
        refuse(c, SWEEP_WIRE_BAD_NUMBER, "Teleport target holds a NaN or infinite number");
        return;
    }
    if (!sweep_config_contains(cfg, target)) {
        refuse(c, SWEEP_WIRE_BAD_POSITION, "Teleport target (%g, %g, %g) is beyond the world limit %g", target.x,
               target.y, target.z, cfg->max_coordinate);
        return;
    }
    sweep_vec3 r = e->st.m.radii, up = sweep__config_up(cfg);
    double step = PUSH_OUT_STEP * sweep_half_height(r, up);
    char what[160] = "", other[160];
    sweep_status st = SWEEP_OK;
    sweep_vec3 q = target;
    int o = sweep__world_overlaps(w, e, q, r, what, sizeof what, &st);
    uint32_t flags = 0;
    for (int k = 1; o == 1 && k <= PUSH_OUT_TRIES; k++) {
        q = sweep_v3_madd(target, up, step * k);
        if (!sweep_config_contains(cfg, q))
            break;
        o = sweep__world_overlaps(w, e, q, r, other, sizeof other, &st);
        flags = SWEEP_WIRE_COMMAND_PUSHED_OUT;
    }
    if (o < 0) {
        refuse(c, sweep_wire_code_from_status(st), "Teleport: %s", sweep_status_message(st));
        return;
    }
    if (o) {
        refuse(c, SWEEP_WIRE_NO_ROOM, "(%g, %g, %g) overlaps %s, and no place up to %g above it is free", target.x,
               target.y, target.z, what, step * PUSH_OUT_TRIES);
        return;
    }
    applied(c, e, SWEEP_WIRE_OP_TELEPORT, q, e->st.m.actor.velocity, r);
    c->out->flags = flags;
}

/* SetVelocity (v) and AddImpulse (v added): the velocity it leaves. */
static void set_velocity(command *c, sweep__entity *e, uint32_t op, sweep_vec3 v)
{
    const sweep_config *cfg = &c->w->level.config;
    const char *name = op == SWEEP_WIRE_OP_SET_VELOCITY ? "SetVelocity" : "AddImpulse";
    if (!sweep_v3_isfinite(v)) {
        refuse(c, SWEEP_WIRE_BAD_NUMBER, "%s holds a NaN or infinite number", name);
        return;
    }
    sweep_vec3 nv = op == SWEEP_WIRE_OP_SET_VELOCITY ? v : sweep_v3_add(e->st.m.actor.velocity, v);
    double speed = sweep_v3_len(nv);
    if (!(speed <= cfg->max_speed)) {
        refuse(c, SWEEP_WIRE_BAD_VELOCITY, "%s: speed %g would be above the world's max_speed %g", name, speed,
               cfg->max_speed);
        return;
    }
    applied(c, e, op, e->st.m.actor.position, nv, e->st.m.radii);
}

static void set_radii(command *c, sweep__entity *e, sweep_vec3 r)
{
    const sweep__world *w = c->w;
    const sweep_config *cfg = &w->level.config;
    if (!sweep_v3_isfinite(r)) {
        refuse(c, SWEEP_WIRE_BAD_NUMBER, "SetRadii holds a NaN or infinite number");
        return;
    }
    if (!sweep_config_radii_ok(cfg, r)) {
        refuse(c, SWEEP_WIRE_BAD_RADII, "radii (%g, %g, %g) outside [%g, %g] or more anisotropic than %g", r.x, r.y,
               r.z, cfg->min_radius, cfg->max_radius, cfg->max_anisotropy);
        return;
    }
    sweep_vec3 q = e->st.m.actor.position;
    if (e->st.m.actor.grounded) {
        sweep_vec3 up = sweep__config_up(cfg);
        q = sweep_v3_madd(q, up, sweep_half_height(r, up) - sweep_half_height(e->st.m.radii, up));
    }
    if (!sweep_config_contains(cfg, q)) {
        refuse(c, SWEEP_WIRE_BAD_POSITION, "SetRadii would put the centre beyond the world limit %g",
               cfg->max_coordinate);
        return;
    }
    char what[160] = "";
    sweep_status st = SWEEP_OK;
    int o = sweep__world_overlaps(w, e, q, r, what, sizeof what, &st);
    if (o < 0) {
        refuse(c, sweep_wire_code_from_status(st), "SetRadii: %s", sweep_status_message(st));
        return;
    }
    if (o) {
        refuse(c, SWEEP_WIRE_NO_ROOM, "radii (%g, %g, %g) at (%g, %g, %g) overlap %s", r.x, r.y, r.z, q.x, q.y, q.z,
               what);
        return;
    }
    applied(c, e, SWEEP_WIRE_OP_SET_RADII, q, e->st.m.actor.velocity, r);
}

/* Removes it; an owner other than the commanding session hears of it. */
static void despawn(command *c, sweep__entity *e)
{
    sweep__owner *owner = e->owner;
    uint32_t id = e->id;
    const sweep__world_sink *sink = c->rq->sink;
    sweep__owner_despawn(owner, e, sink);
    if (owner == c->rq->owner)
        return; /* its result says so */
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_DESPAWNED;
    m.sequence = 0;
    m.server_tick = c->w->tick;
    m.as.despawned.entity = id;
    sink->message(sink->ctx, owner, &m);
}

static void set_hit_shapes(command *c, sweep__entity *e, const sweep_msg_entity_command *ec)
{
    if (ec->shape_count > SWEEP_HIT_SHAPES_MAX) {
        refuse(c, SWEEP_WIRE_NOT_ALLOWED, "%u hit shapes; an entity may have at most %u", ec->shape_count,
               SWEEP_HIT_SHAPES_MAX);
        return;
    }
    sweep_hit_shape shapes[SWEEP_HIT_SHAPES_MAX];
    for (uint32_t i = 0; i < ec->shape_count; i++) {
        const sweep_wire_hit_shape *h = &ec->shapes[i];
        shapes[i] = (sweep_hit_shape){h->id, h->kind, h->a, h->b, h->radii};
    }
    sweep_vec3 r = e->st.m.radii;
    double reach = HIT_SHAPE_REACH * fmax(r.x, fmax(r.y, r.z));
    uint32_t bad = 0;
    sweep_status st = sweep_hit_shapes_check(shapes, ec->shape_count, reach, &bad);
    if (st != SWEEP_OK) {
        const sweep_hit_shape *s = &shapes[bad < ec->shape_count ? bad : 0];
        if (st == SWEEP_E_ARG && s->kind >= SWEEP_SHAPE_KIND_COUNT)
            refuse(c, SWEEP_WIRE_NOT_ALLOWED, "hit shape %u (id %u): kind %u is not a HitShapeKind (Sphere 0, "
                   "Capsule 1, Ellipsoid 2)", bad, s->id, s->kind);
        else if (st == SWEEP_E_ARG)
            refuse(c, SWEEP_WIRE_BAD_POSITION, "hit shape %u (id %u) reaches farther than %g from the entity's "
                   "position (%g times its largest radius)", bad, s->id, reach, HIT_SHAPE_REACH);
        else
            refuse(c, sweep_wire_code_from_status(st), "hit shape %u (id %u): %s", bad, s->id,
                   sweep_status_message(st));
        return;
    }
    memcpy(e->shapes, shapes, ec->shape_count * sizeof *e->shapes);
    e->shape_count = ec->shape_count;
}

static void apply_one(command *c, const sweep_msg_entity_command *ec)
{
    sweep_msg_entity_command_result *out = c->out;
    memset(out, 0, sizeof *out);
    out->entity = ec->entity;
    out->op = ec->op;
    out->code = SWEEP_WIRE_NONE;
    /* Any entity of the world: the server role acts on every owner's. */
    sweep__entity *e = sweep__entity_table_find(&c->w->entities, ec->entity);
    if (!e) {
        refuse(c, SWEEP_WIRE_UNKNOWN_ENTITY, "no entity %u in this world", ec->entity);
        return;
    }
    switch (ec->op) {
    case SWEEP_WIRE_OP_TELEPORT:
        teleport(c, e, ec->vector);
        break;
    case SWEEP_WIRE_OP_SET_VELOCITY:
    case SWEEP_WIRE_OP_ADD_IMPULSE:
        set_velocity(c, e, ec->op, ec->vector);
        break;
    case SWEEP_WIRE_OP_SET_RADII:
        set_radii(c, e, ec->vector);
        break;
    case SWEEP_WIRE_OP_DESPAWN:
        despawn(c, e);
        return; /* no state after it */
    case SWEEP_WIRE_OP_SET_HIT_SHAPES:
        set_hit_shapes(c, e, ec);
        break;
    default:
        refuse(c, SWEEP_WIRE_NOT_ALLOWED,
               "op %u is not an EntityOp (Teleport 0, SetVelocity 1, AddImpulse 2, SetRadii 3, Despawn 4, "
               "SetHitShapes 5)",
               (unsigned)ec->op);
        break;
    }
    out->has_state = 1;
    out->position = e->st.m.actor.position;
    out->velocity = e->st.m.actor.velocity;
    out->radii = e->st.m.radii;
}

/* The answer to an EntityCommands of `sequence`: count results at the
 * world's tick. */
static void answer(sweep__world *w, const sweep__request *rq, uint32_t sequence,
                   const sweep_msg_entity_command_result *results, uint32_t count)
{
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_ENTITY_COMMANDS_RESULT;
    out.sequence = sequence;
    out.server_tick = w->tick;
    out.as.entity_commands_result.results = results;
    out.as.entity_commands_result.count = count;
    sweep__answer(rq, &out);
}

/* Over UDP a datagram may arrive twice, and a client resends a request
 * whose answer it lost: the same sequence again from the same owner is
 * answered with the results it had (at the world's tick now), and
 * applies nothing again (an impulse added twice would be a bug of the
 * network's making). The room for them is made before anything applies:
 * 0, or -1 after an Error Internal that the log forgets (sweepd's own
 * failure, which a replay would not meet). */
static int keep_room(const sweep__world *w, const sweep__request *rq, uint32_t sequence)
{
    sweep__owner *o = rq->owner;
    if (o->commands_kept)
        return 0;
    o->commands_kept = sweep__calloc(w->opt.max_batch, sizeof *o->commands_kept);
    o->commands_text = sweep__calloc(w->opt.max_batch, sizeof *o->commands_text);
    if (o->commands_kept && o->commands_text)
        return 0;
    free(o->commands_kept);
    free(o->commands_text);
    o->commands_kept = NULL;
    o->commands_text = NULL;
    if (rq->sink->dropped)
        rq->sink->dropped(rq->sink->ctx);
    sweep__refuse(rq, SWEEP_WIRE_INTERNAL, sequence, 0, "EntityCommands: out of memory for its answer");
    return -1;
}

/* Keeps results[0..count) of `sequence` for a resend (keep_room made room). */
static void keep(sweep__owner *o, uint32_t sequence, const sweep_msg_entity_command_result *results,
                 uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        o->commands_kept[i] = results[i];
        sweep_str t = results[i].message;
        size_t n = t.ptr ? (t.len < SWEEP__COMMAND_TEXT ? t.len : SWEEP__COMMAND_TEXT - 1) : 0;
        memcpy(o->commands_text[i], t.ptr ? t.ptr : "", n);
        o->commands_text[i][n] = 0;
        o->commands_kept[i].message = t.ptr ? (sweep_str){o->commands_text[i], (uint32_t)n} : t;
    }
    o->has_commands = 1;
    o->commands_sequence = sequence;
    o->commands_count = count;
}

void sweep__entity_commands(sweep__world *w, const sweep__request *rq, const sweep_message *m)
{
    const sweep_msg_entity_commands *ec = &m->as.entity_commands;
    sweep__owner *o = rq->owner;
    uint32_t limit = o->max_batch; /* never above the world's, which sized the results */
    if (ec->count > limit) {
        sweep__refuse(rq, SWEEP_WIRE_BATCH_TOO_LARGE, m->sequence, 0,
                      "EntityCommands of %u commands; at most %u are accepted (Welcome.max_batch%s)", ec->count,
                      limit, o->udp ? ", what one datagram holds" : "");
        return;
    }
    if (o->udp && o->has_commands && o->commands_sequence == m->sequence) {
        answer(w, rq, m->sequence, o->commands_kept, o->commands_count);
        return;
    }
    if (o->udp && keep_room(w, rq, m->sequence) != 0)
        return;
    uint32_t refused = 0;
    for (uint32_t i = 0; i < ec->count; i++) {
        command c = {w, rq, &w->command_results[i], w->command_texts[i]};
        apply_one(&c, &ec->commands[i]);
        refused += c.out->code != SWEEP_WIRE_NONE;
    }
    sweep__owner_log(rq->owner, rq->now, SWEEP_LOG_INFO, "entity_commands",
                     "session=%llu world=%u commands=%u refused=%u", (unsigned long long)rq->owner->id, w->index,
                     ec->count, refused);
    if (o->udp)
        keep(o, m->sequence, w->command_results, ec->count);
    answer(w, rq, m->sequence, w->command_results, ec->count);
}
