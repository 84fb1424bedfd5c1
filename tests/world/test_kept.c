/*
 * test_kept.c - the answers an entity keeps for resent moves
 * (server/world/kept.h): a result read back is the result kept, every byte
 * the world and the wire encoder read, rare fields or not, with any number
 * of contacts; the ring keeps exactly the newest results, at most
 * SWEEP__KEPT_RESULTS, as many as fit, never fewer than SWEEP__KEPT_LEAST,
 * all SWEEP__KEPT_RESULTS of answers with at most one contact, 30 with
 * two and 24 with three (the figures the docs give).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/encode.h"
#include "server/world/kept.h"

static uint64_t next(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A finite double of any size and sign, often zero. */
static double number(uint64_t *x)
{
    uint64_t r = next(x);
    if (r % 4 == 0)
        return 0.0;
    return ((double)(int64_t)(r >> 11) / 4096.0) * ((r & 1) ? 1e-6 : 1.0);
}

static sweep_vec3 vec(uint64_t *x)
{
    return sweep_v3(number(x), number(x), number(x));
}

static uint32_t small(uint64_t *x)
{
    return next(x) % 3 == 0 ? 0 : (uint32_t)next(x);
}

/* A result as the world makes one: cleared, then its fields set; rare
 * fields only when `rare`, and then some of them. */
static void make_result(sweep_msg_move_result *r, uint64_t *x, uint32_t sequence, uint32_t contacts, int rare)
{
    memset(r, 0, sizeof *r);
    r->entity = (uint32_t)next(x) | 1;
    r->sequence = sequence;
    r->server_tick = next(x);
    r->position = vec(x);
    r->velocity = vec(x);
    r->grounded = next(x) & 1;
    r->ground_normal = r->grounded ? vec(x) : sweep_v3(0, 0, 0);
    r->ground_material = small(x);
    r->contact_count = contacts;
    for (uint32_t i = 0; i < contacts; i++) {
        sweep_contact *c = &r->contacts[i];
        c->point = vec(x);
        c->normal = vec(x);
        c->triangle = (uint32_t)next(x);
        c->material = small(x);
        c->mover = small(x);
        c->body = small(x);
    }
    r->corrected = next(x) % 5 == 0;
    r->correction = r->corrected ? number(x) : 0.0;
    r->rules = small(x);
    r->speed_excess = number(x);
    r->time_excess = number(x);
    r->applied_dt = number(x);
    r->crouched = next(x) % 7 == 0;
    r->stance_blocked = next(x) % 11 == 0;
    if (!rare)
        return;
    /* Each rare field alone must be enough to keep the tail whole. */
    switch (next(x) % 12) {
    case 0: r->ground_mover = 1 + (uint32_t)(next(x) % 9); break;
    case 1: r->pushed_by = 3; r->pushed = true; break;
    case 2: r->carried = true; break;
    case 3: r->has_start_position = true; r->start_position = vec(x); break;
    case 4: r->start_position.y = -0.0; break; /* bits without the flag */
    case 5: r->launched_by = 2; r->teleported_by = 4; break;
    case 6: r->hurt_by = 1; r->damage = number(x) + 1.0; break;
    case 7: r->damage = -0.0; break;
    case 8: r->killed_by = 5; r->left = 6; break;
    case 9: r->entered = 7; r->teleport_blocked = true; break;
    case 10: r->liquid = 1; r->liquid_type = 2; r->liquid_level = 3; r->ladder = 0; break;
    default: r->entered_liquid = 8; r->left_liquid = 9; r->ladder = 10; break;
    }
}

/* Every byte the world and the encoder read: the struct but the contacts
 * past contact_count. */
static void assert_same_result(const sweep_msg_move_result *a, const sweep_msg_move_result *b)
{
    const size_t head = offsetof(sweep_msg_move_result, contacts);
    const size_t tail = head + sizeof a->contacts;
    if (memcmp(a, b, head) != 0)
        fail_msg("sequence %u: the fields before the contacts differ", a->sequence);
    if (a->contact_count != b->contact_count ||
        memcmp(a->contacts, b->contacts, a->contact_count * sizeof a->contacts[0]) != 0)
        fail_msg("sequence %u: the contacts differ", a->sequence);
    if (memcmp((const uint8_t *)a + tail, (const uint8_t *)b + tail, sizeof *a - tail) != 0)
        fail_msg("sequence %u: the fields after the contacts differ", a->sequence);
}

/* The datagram the answer of r is. */
static size_t wire(const sweep_msg_move_result *r, uint8_t *buf, size_t cap, const uint8_t **out)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_MOVE_RESULT;
    m.sequence = 7;
    m.as.move_result = *r;
    size_t len = 0;
    assert_int_equal(sweep_encode(&m, 0, buf, cap, out, &len), SWEEP_PROTO_OK);
    return len;
}

static void a_result_comes_back_as_it_was_kept(void **state)
{
    (void)state;
    uint64_t x = 1;
    static sweep__kept k;
    static uint8_t b1[8192], b2[8192];
    for (int i = 0; i < 20000; i++) {
        sweep__kept_init(&k);
        sweep_msg_move_result r, back;
        make_result(&r, &x, (uint32_t)i, (uint32_t)(next(&x) % (SWEEP_MAX_CONTACTS + 1)), next(&x) % 3 == 0);
        sweep__kept_put(&k, &r);
        memset(&back, 0xa5, sizeof back); /* whatever the caller's struct held */
        assert_int_equal(sweep__kept_get(&k, (uint32_t)i, &back), 1);
        assert_same_result(&r, &back);
        const uint8_t *w1, *w2;
        size_t n1 = wire(&r, b1, sizeof b1, &w1), n2 = wire(&back, b2, sizeof b2, &w2);
        if (n1 != n2 || memcmp(w1, w2, n1) != 0)
            fail_msg("result %d: another datagram", i);
        /* A sequence not kept: nothing, the struct untouched. */
        sweep_msg_move_result before = back;
        assert_int_equal(sweep__kept_get(&k, (uint32_t)i + 1, &back), 0);
        assert_memory_equal(&back, &before, sizeof back);
    }
}

/* Puts results of the sizes sizes() picks into one ring and checks after
 * each that it keeps exactly the newest, as many as it says, each as it
 * was; returns the fewest it held once it held any. */
static uint32_t walk_the_ring(uint64_t seed, uint32_t (*contacts)(uint64_t *), int (*rare)(uint64_t *), int puts)
{
    uint64_t x = seed;
    static sweep__kept k;
    sweep__kept_init(&k);
    sweep_msg_move_result *all = calloc((size_t)puts, sizeof *all);
    assert_non_null(all);
    uint32_t fewest = SWEEP__KEPT_RESULTS;
    for (int i = 0; i < puts; i++) {
        /* Sequences as a client sends them, from 1, with gaps now and then. */
        uint32_t seq = i == 0 ? 1 : all[i - 1].sequence + 1 + (next(&x) % 8 == 0);
        make_result(&all[i], &x, seq, contacts(&x), rare(&x));
        sweep__kept_put(&k, &all[i]);
        assert_true(k.count >= 1 && k.count <= SWEEP__KEPT_RESULTS);
        uint32_t bytes = 0;
        for (uint32_t j = 0; j < k.count; j++)
            bytes += k.at[(k.first + j) % SWEEP__KEPT_RESULTS].length;
        assert_true(bytes <= SWEEP__KEPT_BYTES);
        if (i + 1 >= (int)SWEEP__KEPT_RESULTS && k.count < fewest)
            fewest = k.count;
        /* The newest k.count are there, as they were; the one before them
         * is not. */
        for (uint32_t j = 0; j < k.count && j <= (uint32_t)i; j++) {
            sweep_msg_move_result back;
            if (!sweep__kept_get(&k, all[i - (int)j].sequence, &back))
                fail_msg("put %d: the result %u back is gone, %u kept", i, j, k.count);
            assert_same_result(&all[i - (int)j], &back);
        }
        if ((int)k.count <= i) {
            sweep_msg_move_result back;
            assert_int_equal(sweep__kept_get(&k, all[i - (int)k.count].sequence, &back), 0);
        }
    }
    free(all);
    return fewest;
}

static uint32_t any_contacts(uint64_t *x)
{
    return (uint32_t)(next(x) % (SWEEP_MAX_CONTACTS + 1));
}
static uint32_t none_or_one_contact(uint64_t *x)
{
    return (uint32_t)(next(x) % 2);
}
static uint32_t two_contacts(uint64_t *x)
{
    (void)x;
    return 2;
}
static uint32_t three_contacts(uint64_t *x)
{
    (void)x;
    return 3;
}
static uint32_t most_contacts(uint64_t *x)
{
    (void)x;
    return SWEEP_MAX_CONTACTS;
}
static int sometimes_rare(uint64_t *x)
{
    return next(x) % 4 == 0;
}
static int never_rare(uint64_t *x)
{
    (void)x;
    return 0;
}
static int always_rare(uint64_t *x)
{
    (void)x;
    return 1;
}

static void the_ring_keeps_the_newest(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        uint32_t fewest = walk_the_ring(seed, any_contacts, sometimes_rare, 3000);
        assert_true(fewest >= SWEEP__KEPT_LEAST);
    }
}

/* A walk's answers (no rare field): all 32 kept with at most one
 * contact, 30 with two, 24 with three. */
static void a_walks_answers_are_kept_by_their_contacts(void **state)
{
    (void)state;
    assert_int_equal(walk_the_ring(5, none_or_one_contact, never_rare, 3000), SWEEP__KEPT_RESULTS);
    assert_int_equal(walk_the_ring(7, two_contacts, never_rare, 3000), 30);
    assert_int_equal(walk_the_ring(8, three_contacts, never_rare, 3000), 24);
}

/* The largest results there are: no fewer than SWEEP__KEPT_LEAST (one
 * more, as results of one size waste nothing at the ring's end). */
static void the_largest_results_keep_the_least(void **state)
{
    (void)state;
    uint32_t fewest = walk_the_ring(6, most_contacts, always_rare, 3000);
    assert_true(fewest >= SWEEP__KEPT_LEAST && fewest <= SWEEP__KEPT_LEAST + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_result_comes_back_as_it_was_kept),
        cmocka_unit_test(the_ring_keeps_the_newest),
        cmocka_unit_test(a_walks_answers_are_kept_by_their_contacts),
        cmocka_unit_test(the_largest_results_keep_the_least),
    };
    return cmocka_run_group_tests_name("kept", tests, NULL, NULL);
}
