/*
 * test_tick_timer.c - the world clock's timer (server/tick_timer.h) on a
 * loop of its own: it calls back once for an instant, never before it;
 * an instant already past is called back at the loop's next turn; a
 * re-arming replaces the one before; a stopped timer stays quiet; closing
 * hands the memory back through its callback. Nothing here asserts how
 * soon after its instant a callback runs (a loaded machine may be late),
 * only that it is not early and that it comes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <uv.h>

#include "server/tick_timer.h"

typedef struct fired {
    int count, closed;
    uint64_t at, due;
} fired;

static void on_fire(sweep__tick_timer *t)
{
    fired *f = t->data;
    f->count++;
    f->at = uv_hrtime();
}

static void on_closed(sweep__tick_timer *t)
{
    fired *f = t->data;
    f->closed++;
}

/* Turns the loop until f has fired `want` times or ms milliseconds have
 * passed (generous: a loaded machine may run a callback late), then lets
 * the guard's close run. */
static void on_guard(uv_timer_t *g)
{
    uv_close((uv_handle_t *)g, NULL);
}

static void run_until(uv_loop_t *loop, const fired *f, int want, uint64_t ms)
{
    uv_timer_t guard;
    uv_timer_init(loop, &guard);
    uv_timer_start(&guard, on_guard, ms, 0);
    while (f->count < want && !uv_is_closing((uv_handle_t *)&guard))
        uv_run(loop, UV_RUN_ONCE);
    if (!uv_is_closing((uv_handle_t *)&guard))
        uv_close((uv_handle_t *)&guard, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
}

/* Each test's loop, its timer and what the timer did. */
typedef struct fixture {
    uv_loop_t loop;
    fired f;
    sweep__tick_timer t;
} fixture;

static int setup(void **state)
{
    fixture *x = calloc(1, sizeof *x);
    if (!x || uv_loop_init(&x->loop) != 0)
        return -1;
    sweep__tick_timer_init(&x->loop, &x->t, &x->f);
    *state = x;
    return 0;
}

/* Ends the loop: each test closes its timer itself, with the callback it checks. */
static int teardown(void **state)
{
    fixture *x = *state;
    uv_run(&x->loop, UV_RUN_DEFAULT);
    int rc = uv_loop_close(&x->loop);
    free(x);
    return rc == 0 ? 0 : -1;
}

static void fires_once_never_early(void **state)
{
    fixture *x = *state;
    fired *f = &x->f;
    for (int i = 0; i < 5; i++) {
        f->due = uv_hrtime() + 3000000u + (uint64_t)i * 777777u;
        int before = f->count;
        sweep__tick_timer_arm(&x->t, f->due, on_fire);
        run_until(&x->loop, f, before + 1, 5000);
        assert_int_equal(f->count, before + 1);
        assert_true(f->at >= f->due);
    }
    sweep__tick_timer_close(&x->t, on_closed);
    uv_run(&x->loop, UV_RUN_DEFAULT);
    assert_int_equal(f->closed, 1);
}

static void past_now_rearm_and_stop(void **state)
{
    fixture *x = *state;
    fired *f = &x->f;
    sweep__tick_timer *t = &x->t;
    /* An instant long past (and 0, which a timerfd would take as "off"). */
    sweep__tick_timer_arm(t, 1, on_fire);
    run_until(&x->loop, f, 1, 5000);
    assert_int_equal(f->count, 1);
    sweep__tick_timer_arm(t, 0, on_fire);
    run_until(&x->loop, f, 2, 5000);
    assert_int_equal(f->count, 2);
    /* Re-armed for later before it came: one callback, at the later. */
    sweep__tick_timer_arm(t, uv_hrtime() + 2000000u, on_fire);
    f->due = uv_hrtime() + 12000000u;
    sweep__tick_timer_arm(t, f->due, on_fire);
    run_until(&x->loop, f, 3, 5000);
    assert_int_equal(f->count, 3);
    assert_true(f->at >= f->due);
    run_until(&x->loop, f, 4, 30); /* and no second one */
    assert_int_equal(f->count, 3);
    /* Stopped: quiet. */
    sweep__tick_timer_arm(t, uv_hrtime() + 2000000u, on_fire);
    sweep__tick_timer_stop(t);
    run_until(&x->loop, f, 4, 30);
    assert_int_equal(f->count, 3);
    sweep__tick_timer_close(t, NULL);
    uv_run(&x->loop, UV_RUN_DEFAULT);
    assert_int_equal(f->closed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(fires_once_never_early, setup, teardown),
        cmocka_unit_test_setup_teardown(past_now_rearm_and_stop, setup, teardown),
    };
    return cmocka_run_group_tests_name("tick timer", tests, NULL, NULL);
}
