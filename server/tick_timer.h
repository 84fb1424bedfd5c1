/*
 * tick_timer.h - a one-shot timer armed for an instant of the monotonic
 * clock in nanoseconds (uv_hrtime's), on which the world clock
 * (world_clock.c) runs its ticks.
 *
 * libuv's timers count whole milliseconds of the loop's cached time, and
 * its loop sleeps in whole milliseconds: a tick armed with one ran up to
 * 2 ms after it came due. That matters to a game server that sends its
 * batch a fixed time after each tick (client-sdk/README.md, "A batch a
 * tick, in step with the server's"): a request that arrives while a tick
 * is due runs the tick and its pushes first, so a tick that comes late
 * lands on the batch. On
 * Linux the timer is a timerfd on CLOCK_MONOTONIC, armed for the absolute
 * instant and watched by the loop, which wakes within the kernel's timer
 * slack (50 µs by default) of it. Where a timerfd cannot be made, it is
 * libuv's timer, rounded up to the millisecond as before.
 */
#ifndef SWEEP_SERVER_TICK_TIMER_H
#define SWEEP_SERVER_TICK_TIMER_H

#include <stdint.h>
#include <uv.h>

typedef struct sweep__tick_timer sweep__tick_timer;
typedef void (*sweep__tick_timer_cb)(sweep__tick_timer *t);

struct sweep__tick_timer {
    union {
        uv_handle_t handle;
        uv_poll_t poll;   /* fd >= 0 */
        uv_timer_t timer; /* fd < 0 */
    } h;
    int fd;               /* the timerfd, or -1 */
    int polling;          /* the poll handle is started */
    sweep__tick_timer_cb cb;
    void (*closed)(sweep__tick_timer *t);
    void *data;           /* the owner's */
};

/* Makes t on loop, a timerfd's or libuv's; close it with
 * sweep__tick_timer_close. */
void sweep__tick_timer_init(uv_loop_t *loop, sweep__tick_timer *t, void *data);

/* Calls cb once, at due_ns (now if that has passed), replacing any arming
 * before. */
void sweep__tick_timer_arm(sweep__tick_timer *t, uint64_t due_ns, sweep__tick_timer_cb cb);

/* Disarms t: cb is not called until it is armed again. */
void sweep__tick_timer_stop(sweep__tick_timer *t);

/* Disarms t and hands it back to libuv; closed (or NULL) is called once
 * libuv is done with it, after which its memory may go. */
void sweep__tick_timer_close(sweep__tick_timer *t, void (*closed)(sweep__tick_timer *t));

#endif
