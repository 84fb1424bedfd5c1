/*
 * test_encode_fast.c - the encoder writes a MoveResult and the root
 * Message table in one go (encode.c, move_result_table and message_table)
 * instead of field by field through the builder. Here the field-by-field
 * way is written again with the builder's public calls, as the encoder
 * did it, and both must give the same bytes, or the same error, for
 * random messages: every optional field present or not, -0.0 (written:
 * not the default's bits), contacts, batches (tables start at every
 * alignment there) and buffers too small at every point.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/builder.h"
#include "protocol/format.h"
#include "samples.h"

/* Field ids of sweep.fbs (the reference must not borrow the encoder's). */
enum { M_SEQUENCE, M_SERVER_TICK, M_BODY_TYPE, M_BODY, M_KEY };
enum {
    R_ENTITY, R_SEQUENCE, R_SERVER_TICK, R_POSITION, R_VELOCITY, R_GROUNDED, R_GROUND_NORMAL,
    R_GROUND_MATERIAL, R_CONTACTS, R_CORRECTED, R_CORRECTION, R_GROUND_MOVER, R_PUSHED_BY, R_CARRIED,
    R_PUSHED, R_START_POSITION, R_RULES, R_SPEED_EXCESS, R_TIME_EXCESS, R_APPLIED_DT, R_LAUNCHED_BY,
    R_TELEPORTED_BY, R_TELEPORT_BLOCKED, R_HURT_BY, R_DAMAGE, R_KILLED_BY, R_ENTERED, R_LEFT, R_CROUCHED,
    R_STANCE_BLOCKED, R_MEDIUM
};

static uint64_t bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static void f64_if(sweep_builder *b, unsigned id, double v)
{
    if (bits(v))
        sweep_builder_add_f64(b, id, v);
}

static void u32_if(sweep_builder *b, unsigned id, uint32_t v)
{
    if (v)
        sweep_builder_add_u32(b, id, v);
}

static void u8_if(sweep_builder *b, unsigned id, uint8_t v)
{
    if (v)
        sweep_builder_add_u8(b, id, v);
}

static sweep_ref ref_result(sweep_builder *b, const sweep_msg_move_result *r)
{
    sweep_ref c = 0;
    if (r->contact_count) {
        sweep_builder_vector_start(b, 56, r->contact_count, 8);
        for (uint32_t i = r->contact_count; i-- > 0;) {
            uint8_t *p = sweep_builder_push(b, 56);
            if (p) {
                sweep__wrvec3(p, r->contacts[i].point);
                sweep__wrvec3(p + 24, r->contacts[i].normal);
                sweep__wr32(p + 48, r->contacts[i].triangle);
                sweep__wr32(p + 52, r->contacts[i].material);
            }
        }
        c = sweep_builder_vector_end(b, r->contact_count);
    }
    sweep_builder_table_start(b);
    sweep_builder_add_vec3(b, R_POSITION, r->position);
    sweep_builder_add_vec3(b, R_VELOCITY, r->velocity);
    if (r->grounded || bits(r->ground_normal.x) || bits(r->ground_normal.y) || bits(r->ground_normal.z))
        sweep_builder_add_vec3(b, R_GROUND_NORMAL, r->ground_normal);
    if (r->has_start_position)
        sweep_builder_add_vec3(b, R_START_POSITION, r->start_position);
    if (r->server_tick)
        sweep_builder_add_u64(b, R_SERVER_TICK, r->server_tick);
    f64_if(b, R_CORRECTION, r->correction);
    f64_if(b, R_SPEED_EXCESS, r->speed_excess);
    f64_if(b, R_TIME_EXCESS, r->time_excess);
    f64_if(b, R_APPLIED_DT, r->applied_dt);
    f64_if(b, R_DAMAGE, r->damage);
    u32_if(b, R_ENTITY, r->entity);
    u32_if(b, R_SEQUENCE, r->sequence);
    u32_if(b, R_GROUND_MATERIAL, r->ground_material);
    if (c)
        sweep_builder_add_ref(b, R_CONTACTS, c);
    u32_if(b, R_GROUND_MOVER, r->ground_mover);
    u32_if(b, R_PUSHED_BY, r->pushed_by);
    u32_if(b, R_RULES, r->rules);
    u32_if(b, R_LAUNCHED_BY, r->launched_by);
    u32_if(b, R_TELEPORTED_BY, r->teleported_by);
    u32_if(b, R_HURT_BY, r->hurt_by);
    u32_if(b, R_KILLED_BY, r->killed_by);
    u32_if(b, R_ENTERED, r->entered);
    u32_if(b, R_LEFT, r->left);
    if (r->liquid || r->entered_liquid || r->left_liquid || r->ladder || r->liquid_type || r->liquid_level) {
        /* The Medium struct, field by field as flatc lays it out. */
        uint8_t *p = sweep_builder_add_struct(b, R_MEDIUM, 20, 4);
        if (p) {
            const uint32_t u[4] = {r->liquid, r->entered_liquid, r->left_liquid, r->ladder};
            for (int k = 0; k < 16; k++)
                p[k] = (uint8_t)(u[k / 4] >> (8 * (k % 4)));
            p[16] = (uint8_t)r->liquid_type, p[17] = (uint8_t)r->liquid_level, p[18] = p[19] = 0;
        }
    }
    u8_if(b, R_GROUNDED, r->grounded);
    u8_if(b, R_CORRECTED, r->corrected);
    u8_if(b, R_CARRIED, r->carried);
    u8_if(b, R_PUSHED, r->pushed);
    u8_if(b, R_TELEPORT_BLOCKED, r->teleport_blocked);
    u8_if(b, R_CROUCHED, r->crouched);
    u8_if(b, R_STANCE_BLOCKED, r->stance_blocked);
    return sweep_builder_table_end(b);
}

/* sweep_encode of a MoveResult or MoveResultBatch, the old way. */
static sweep_proto_error ref_encode(const sweep_message *m, unsigned flags, uint8_t *buf, size_t cap,
                                    const uint8_t **out, size_t *len)
{
    sweep_builder b;
    sweep_builder_init(&b, buf, cap);
    sweep_ref body;
    if (m->kind == SWEEP_MSG_MOVE_RESULT) {
        body = ref_result(&b, &m->as.move_result);
    } else {
        uint32_t n = m->as.move_result_batch.count;
        uint8_t *refs = sweep_builder_scratch(&b, 4 * (size_t)n);
        if (refs == NULL)
            return sweep_builder_finish(&b, 0, SWEEP_WIRE_IDENTIFIER, flags != 0, out, len);
        for (uint32_t i = n; i-- > 0;)
            sweep__wr32(refs + 4 * (size_t)i, ref_result(&b, &m->as.move_result_batch.results[i]));
        sweep_ref v = sweep_builder_ref_vector(&b, refs, n);
        sweep_builder_scratch_release(&b);
        sweep_builder_table_start(&b);
        sweep_builder_add_ref(&b, 0, v);
        body = sweep_builder_table_end(&b);
    }
    sweep_builder_table_start(&b);
    if (m->server_tick)
        sweep_builder_add_u64(&b, M_SERVER_TICK, m->server_tick);
    if (m->key)
        sweep_builder_add_u64(&b, M_KEY, m->key);
    sweep_builder_add_ref(&b, M_BODY, body);
    u32_if(&b, M_SEQUENCE, m->sequence);
    sweep_builder_add_u8(&b, M_BODY_TYPE, (uint8_t)m->kind);
    sweep_ref root = sweep_builder_table_end(&b);
    return sweep_builder_finish(&b, root, SWEEP_WIRE_IDENTIFIER, flags != 0, out, len);
}

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint32_t next(void)
{
    /* xorshift64* (Vigna 2016), a fixed seed so a failure repeats. */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545f4914f6cdd1dull) >> 32);
}

static double any_double(void)
{
    switch (next() % 4) {
    case 0:
        return 0.0;
    case 1:
        return -0.0;
    case 2:
        return 1.0 / (1 + next() % 100);
    default:
        return (double)next() - 2e9;
    }
}

static uint32_t any_u32(void)
{
    return next() % 2 ? 0 : next();
}

static sweep_vec3 any_vec3(void)
{
    return sweep_v3(any_double(), any_double(), any_double());
}

static void any_result(sweep_msg_move_result *r)
{
    memset(r, 0, sizeof *r);
    r->entity = any_u32();
    r->sequence = any_u32();
    r->server_tick = next() % 2 ? 0 : ((uint64_t)next() << 32 | next());
    r->position = any_vec3();
    r->velocity = any_vec3();
    r->grounded = next() % 2;
    r->ground_normal = next() % 2 ? sweep_v3(0, 0, 0) : any_vec3();
    r->ground_material = any_u32();
    r->contact_count = next() % 3 ? 0 : next() % (SWEEP_MAX_CONTACTS + 1);
    for (uint32_t i = 0; i < r->contact_count; i++) {
        r->contacts[i].point = any_vec3();
        r->contacts[i].normal = any_vec3();
        r->contacts[i].triangle = next();
        r->contacts[i].material = next();
    }
    r->corrected = next() % 2;
    r->correction = any_double();
    r->ground_mover = any_u32();
    r->pushed_by = any_u32();
    r->carried = next() % 2;
    r->pushed = next() % 2;
    r->has_start_position = next() % 2;
    r->start_position = any_vec3();
    r->rules = any_u32();
    r->speed_excess = any_double();
    r->time_excess = any_double();
    r->applied_dt = any_double();
    r->launched_by = any_u32();
    r->teleported_by = any_u32();
    r->teleport_blocked = next() % 2;
    r->hurt_by = any_u32();
    r->damage = any_double();
    r->killed_by = any_u32();
    r->entered = any_u32();
    r->left = any_u32();
    r->crouched = next() % 2;
    r->stance_blocked = next() % 2;
    /* The Medium: absent about half the time. */
    int medium = next() % 2;
    r->liquid = medium ? any_u32() : 0;
    r->entered_liquid = medium ? any_u32() : 0;
    r->left_liquid = medium ? any_u32() : 0;
    r->ladder = medium ? any_u32() : 0;
    r->liquid_type = medium ? next() % 4 : 0;
    r->liquid_level = medium ? next() % 4 : 0;
}

static uint8_t buf_new[1u << 16], buf_ref[1u << 16];

static void same_bytes(const sweep_message *m, unsigned flags, size_t cap)
{
    const uint8_t *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    sweep_proto_error ea = sweep_encode(m, flags, buf_new, cap, &a, &la);
    sweep_proto_error eb = ref_encode(m, flags, buf_ref, cap, &b, &lb);
    assert_int_equal(ea, eb);
    if (ea == SWEEP_PROTO_OK) {
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, la);
    }
}

static void test_move_results(void **state)
{
    (void)state;
    for (int k = 0; k < 20000; k++) {
        sweep_message m;
        memset(&m, 0, sizeof m);
        m.kind = SWEEP_MSG_MOVE_RESULT;
        m.sequence = any_u32();
        m.server_tick = next() % 2 ? 0 : next();
        m.key = next() % 2 ? 0 : (uint64_t)next() << 32 | next();
        any_result(&m.as.move_result);
        unsigned flags = next() % 2;
        same_bytes(&m, flags, sizeof buf_new);
        /* Too small at a random point, and at every point for some. */
        same_bytes(&m, flags, next() % 400);
        if (k % 100 == 0)
            for (size_t cap = 0; cap < 200; cap++)
                same_bytes(&m, flags, cap);
    }
}

/* Results whose rare fields (movers, volumes, medium: the encoder tests
 * them together first) are all at their default but one, set alone, so
 * that the one test must see each of them. A liquid type or level of 256
 * is no Medium (only their low byte is written), damage of -0.0 is one. */
static void test_move_results_one_rare(void **state)
{
    (void)state;
    for (int k = 0; k < 2000; k++) {
        sweep_message m;
        memset(&m, 0, sizeof m);
        m.kind = SWEEP_MSG_MOVE_RESULT;
        m.sequence = any_u32();
        m.server_tick = next() % 2 ? 0 : next();
        m.key = next() % 2 ? 0 : (uint64_t)next() << 32 | next();
        sweep_msg_move_result *r = &m.as.move_result;
        any_result(r);
        r->ground_mover = r->pushed_by = 0;
        r->carried = r->pushed = r->has_start_position = r->teleport_blocked = false;
        r->launched_by = r->teleported_by = r->hurt_by = r->killed_by = r->entered = r->left = 0;
        r->damage = 0.0;
        r->liquid = r->liquid_type = r->liquid_level = r->entered_liquid = r->left_liquid = r->ladder = 0;
        uint32_t v = 1 + next() % 1000;
        switch (k % 22) {
        case 0: break; /* none */
        case 1: r->ground_mover = v; break;
        case 2: r->pushed_by = v; break;
        case 3: r->carried = true; break;
        case 4: r->pushed = true; break;
        case 5: r->has_start_position = true; break;
        case 6: r->teleport_blocked = true; break;
        case 7: r->launched_by = v; break;
        case 8: r->teleported_by = v; break;
        case 9: r->hurt_by = v; break;
        case 10: r->killed_by = v; break;
        case 11: r->entered = v; break;
        case 12: r->left = v; break;
        case 13: r->damage = -0.0; break;
        case 14: r->damage = 1.0 / v; break;
        case 15: r->liquid = v; break;
        case 16: r->liquid_type = 1 + v % 3; break;
        case 17: r->liquid_level = 1 + v % 3; break;
        case 18: r->entered_liquid = v; break;
        case 19: r->left_liquid = v; break;
        case 20: r->ladder = v; break;
        default: r->liquid_type = 256, r->liquid_level = 512; break;
        }
        if (k % 2)
            r->start_position = any_vec3(); /* written only with has_start_position */
        unsigned flags = next() % 2;
        if (r->liquid_type == 256) {
            /* The reference writes a Medium for any nonzero value; the
             * encoder, as always, only for a nonzero low byte: the same
             * bytes as with neither. */
            const uint8_t *a = NULL, *b = NULL;
            size_t la = 0, lb = 0;
            assert_int_equal(sweep_encode(&m, flags, buf_new, sizeof buf_new, &a, &la), SWEEP_PROTO_OK);
            r->liquid_type = r->liquid_level = 0;
            assert_int_equal(ref_encode(&m, flags, buf_ref, sizeof buf_ref, &b, &lb), SWEEP_PROTO_OK);
            assert_int_equal(la, lb);
            assert_memory_equal(a, b, la);
            continue;
        }
        same_bytes(&m, flags, sizeof buf_new);
        same_bytes(&m, flags, next() % 400);
    }
}

static void test_move_result_batches(void **state)
{
    (void)state;
    static sweep_msg_move_result results[64];
    for (int k = 0; k < 1000; k++) {
        sweep_message m;
        memset(&m, 0, sizeof m);
        m.kind = SWEEP_MSG_MOVE_RESULT_BATCH;
        m.sequence = any_u32();
        m.server_tick = next() % 2 ? 0 : next();
        m.key = next() % 2 ? 0 : (uint64_t)next() << 32 | next();
        uint32_t n = 1 + next() % 64;
        for (uint32_t i = 0; i < n; i++)
            any_result(&results[i]);
        m.as.move_result_batch.results = results;
        m.as.move_result_batch.count = n;
        unsigned flags = next() % 2;
        same_bytes(&m, flags, sizeof buf_new);
        same_bytes(&m, flags, next() % (200 * n));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_move_results),
        cmocka_unit_test(test_move_results_one_rare),
        cmocka_unit_test(test_move_result_batches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
