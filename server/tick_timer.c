/*
 * tick_timer.c - the world clock's timer: a timerfd watched by the loop,
 * or libuv's millisecond timer where there is none (tick_timer.h says
 * why).
 */
#define _GNU_SOURCE
#include "server/tick_timer.h"

#include <errno.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/timerfd.h>
#endif

static sweep__tick_timer *of(uv_handle_t *h)
{
    return h->data;
}

#ifdef __linux__
static void on_readable(uv_poll_t *p, int status, int events)
{
    (void)status, (void)events;
    sweep__tick_timer *t = of((uv_handle_t *)p);
    /* The count of expirations is not wanted, only the fd quiet again
     * (the poll stays started: a disarmed timerfd is never readable). A
     * poll error, none known for a timerfd, runs the tick too. */
    uint64_t expirations;
    while (read(t->fd, &expirations, sizeof expirations) < 0 && errno == EINTR)
        ;
    t->cb(t);
}
#endif

static void on_timer(uv_timer_t *h)
{
    sweep__tick_timer *t = of((uv_handle_t *)h);
    t->cb(t);
}

void sweep__tick_timer_init(uv_loop_t *loop, sweep__tick_timer *t, void *data)
{
    t->fd = -1;
    t->polling = 0;
    t->cb = NULL;
    t->closed = NULL;
    t->data = data;
#ifdef __linux__
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd >= 0) {
        if (uv_poll_init(loop, &t->h.poll, fd) == 0) {
            t->fd = fd;
            t->h.handle.data = t;
            return;
        }
        close(fd);
    }
#endif
    /* uv_timer_init only fills the handle in: it has no failure. */
    uv_timer_init(loop, &t->h.timer);
    t->h.handle.data = t;
}

void sweep__tick_timer_arm(sweep__tick_timer *t, uint64_t due_ns, sweep__tick_timer_cb cb)
{
    t->cb = cb;
#ifdef __linux__
    if (t->fd >= 0) {
        /* CLOCK_MONOTONIC is uv_hrtime's clock. An all-zero value would
         * disarm, so an instant at 0 is asked as 1 ns (long past). */
        if (due_ns == 0)
            due_ns = 1;
        struct itimerspec its = {.it_value = {.tv_sec = (time_t)(due_ns / 1000000000u),
                                              .tv_nsec = (long)(due_ns % 1000000000u)}};
        /* Neither call fails for a timerfd of ours and a valid instant. */
        timerfd_settime(t->fd, TFD_TIMER_ABSTIME, &its, NULL);
        if (!t->polling)
            t->polling = uv_poll_start(&t->h.poll, UV_READABLE, on_readable) == 0;
        return;
    }
#endif
    uint64_t now = uv_hrtime();
    uint64_t ms = due_ns > now ? (due_ns - now + 999999u) / 1000000u : 0;
    uv_update_time(t->h.timer.loop);
    uv_timer_start(&t->h.timer, on_timer, ms, 0);
}

void sweep__tick_timer_stop(sweep__tick_timer *t)
{
#ifdef __linux__
    if (t->fd >= 0) {
        struct itimerspec off = {{0, 0}, {0, 0}};
        timerfd_settime(t->fd, 0, &off, NULL);
        if (t->polling)
            uv_poll_stop(&t->h.poll);
        t->polling = 0;
        return;
    }
#endif
    uv_timer_stop(&t->h.timer);
}

static void on_closed(uv_handle_t *h)
{
    sweep__tick_timer *t = of(h);
    /* libuv stopped watching the fd when the close began; it is ours to
     * close once the handle is done. */
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
    if (t->closed)
        t->closed(t);
}

void sweep__tick_timer_close(sweep__tick_timer *t, void (*closed)(sweep__tick_timer *t))
{
    sweep__tick_timer_stop(t);
    t->closed = closed;
    uv_close(&t->h.handle, on_closed);
}
