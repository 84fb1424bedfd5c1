/*
 * run.c - a run of `sweep-bots`: the schedule of the bots' next moves, the
 * moves and answers of the load mode and of the player modes, and the loop
 * that waits for them. All that a move costs is in this one file, so that
 * nothing on its path is a call into another.
 *
 * N bot connections (TCP or UDP) each spawn one player and move it. All
 * bots run in this one thread over libsweep, their sockets in one epoll(7)
 * set and their next moves in a heap ordered by time, so that a turn of
 * the loop costs what is ready and what is due, not the number of bots:
 * at thousands of bots and 60 Hz the load generator must stay cheaper
 * than the server it measures. A wake reads each ready socket once (all
 * it holds, libsweep's recvmmsg) and sends every move due within
 * SEND_SLACK_NS, so the wakes a second stay a few thousand however many
 * bots there are; latencies run from the send to the kernel's arrival
 * time of the answer, not to when the loop came round to read it (over UDP with --loss, --jitter-ms or
 * --reorder their datagrams go through in-process relays on a thread of
 * their own, netem.h).
 *
 * --mode load (the default) is the benchmark: each bot walks a small
 * square, sending moves one by one or in batches, either at a fixed rate
 * (--rate) or as fast as the server answers with a fixed number of
 * requests in flight (--rate 0); the time from sending a request to its
 * result is measured and reported as throughput and latency percentiles
 * (or one BENCH line with --bench-line NAME). UDP may lose datagrams: a
 * request unanswered for a second is counted as lost and its window slot
 * reused, so one loss does not stall a bot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "client-sdk/bots/bots.h"

/* Sends due this close after a wake go in it: a bot's move leaves up to
 * this early rather than costing a wake of its own (a game's frame is
 * 16,667 us; the latency is measured from when it really left). The price
 * is burstier traffic: at 500 players the moves of a pass queue behind
 * each other in the server, about 20 us more at the median than with no
 * slack, for about a third less of the bots' CPU per move. */
#define SEND_SLACK_NS 250000u

/* --- helpers ---------------------------------------------------------------------- */

static uint64_t ns_of(double seconds)
{
    return (uint64_t)(seconds * 1e9);
}

static sweep_vec3 along(sweep_vec3 v, sweep_vec3 up, double *height)
{
    double h = sweep_v3_dot(v, up);
    if (height)
        *height = h;
    return sweep_v3_madd(v, up, -h);
}

/* Length across the ground (the part of v not along up). */
static double across_len(sweep_vec3 v, sweep_vec3 up)
{
    return sweep_v3_len(along(v, up, NULL));
}

/* The walking pattern: a square, one side per `side` moves, starting
 * towards +x and turning clockwise (from the arena's spawn points, onto
 * open floor). Returns a unit direction across the ground. */
static sweep_vec3 square_dir(uint64_t step, uint64_t side)
{
    static const double dir[4][2] = {{1, 0}, {0, -1}, {-1, 0}, {0, 1}};
    const double *d = dir[(step / (side ? side : 1)) % 4];
    return (sweep_vec3){d[0], d[1], 0};
}

static void record(totals *t, uint64_t ns)
{
    if (!t->measuring)
        return;
    if (t->nlat == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 65536;
        uint64_t *n = realloc(t->lat_ns, cap * sizeof *n);
        if (n == NULL)
            return; /* keep running; the sample is lost, not the run */
        t->lat_ns = n;
        t->cap = cap;
    }
    t->lat_ns[t->nlat++] = ns;
}

/* --- the schedule ---------------------------------------------------------------------- */

/* Every bot, in a binary min-heap by when it next has something to do: the
 * loop takes the bots whose time has come off the top and never looks at
 * the others. The keys live in the heap itself, not in the (large) bots,
 * so that a sift touches a few cache lines rather than a bot each. */

static void sched_place(schedule *s, uint32_t at, sched_entry e)
{
    s->heap[at] = e;
    s->pos[e.bot] = at;
}

static void sched_up(schedule *s, uint32_t at)
{
    sched_entry e = s->heap[at];
    while (at > 0) {
        uint32_t parent = (at - 1) / 2;
        if (s->heap[parent].due <= e.due)
            break;
        sched_place(s, at, s->heap[parent]);
        at = parent;
    }
    sched_place(s, at, e);
}

static void sched_down(schedule *s, uint32_t at)
{
    sched_entry e = s->heap[at];
    for (;;) {
        uint32_t child = 2 * at + 1;
        if (child >= s->n)
            break;
        if (child + 1 < s->n && s->heap[child + 1].due < s->heap[child].due)
            child++;
        if (s->heap[child].due >= e.due)
            break;
        sched_place(s, at, s->heap[child]);
        at = child;
    }
    sched_place(s, at, e);
}

/* Adds bot i, due at `due`. */
static void sched_add(schedule *s, uint32_t i, uint64_t due)
{
    sched_place(s, s->n++, (sched_entry){due, i});
    sched_up(s, s->n - 1);
}

/* When bot i is due. */
static uint64_t sched_due(const schedule *s, uint32_t i)
{
    return s->heap[s->pos[i]].due;
}

/* Moves bot i to `due`. */
static void sched_set(schedule *s, uint32_t i, uint64_t due)
{
    uint32_t at = s->pos[i];
    uint64_t old = s->heap[at].due;
    s->heap[at].due = due;
    if (due < old)
        sched_up(s, at);
    else if (due > old)
        sched_down(s, at);
}

/* The bot due first (the schedule is never empty while the loop runs). */
static const sched_entry *sched_top(const schedule *s)
{
    return &s->heap[0];
}

/* --- load mode ------------------------------------------------------------------------ */

/* Sends the bot's next request (one move or one batch). */
static int send_load(const options *o, bot *b, totals *t)
{
    sweep_client_move_req reqs[256];
    uint32_t seqs[256];
    uint32_t n = o->batch;
    sweep_client_error e;
    for (uint32_t i = 0; i < n; i++)
        reqs[i] = (sweep_client_move_req){.entity = b->entity,
                                          .velocity = sweep_v3_scale(square_dir(b->step + i, 30), o->speed),
                                          .dt = o->dt};
    /* The clock read at this send, not the wake's: a pass sends many
     * moves, and a late one must not be charged the pass before it. */
    uint64_t sent_ns = sweep_client_now_ns();
    sweep_client_status s = n == 1 ? sweep_client_send_move(b->c, &reqs[0], &seqs[0], &e)
                                   : sweep_client_send_batch(b->c, reqs, n, seqs, &e);
    if (s != SWEEP_CLIENT_OK) {
        fprintf(stderr, "sweep-bots: send failed: %s: %s\n", sweep_client_error_name(&e), e.message);
        return -1;
    }
    b->step += n;
    b->fl[b->nfl++] = (inflight){seqs[0], seqs[n - 1], n, sent_ns};
    if (t->measuring)
        t->sent += n;
    return 0;
}

/* Takes one result or error off the bot's in-flight list. */
static void settle(bot *b, totals *t, uint32_t seq, uint64_t when, int is_result)
{
    for (uint32_t i = 0; i < b->nfl; i++) {
        inflight *f = &b->fl[i];
        if (seq < f->first || seq > f->last)
            continue;
        if (is_result) {
            record(t, when > f->t_ns ? when - f->t_ns : 0);
            if (t->measuring)
                t->results++;
        }
        if (--f->remaining == 0)
            b->fl[i] = b->fl[--b->nfl];
        return;
    }
}

/* When a load bot next has something to do: its next send while its window
 * has room (at once with --rate 0); with the window full, an answer makes
 * room (and reschedules it) or else its oldest request is given up as lost
 * a second after it went. */
static uint64_t load_due(const bot *b, uint64_t interval, uint32_t window)
{
    if (b->nfl < window)
        return interval ? b->next_send : 0;
    uint64_t oldest = UINT64_MAX;
    for (uint32_t k = 0; k < b->nfl; k++)
        if (b->fl[k].t_ns < oldest)
            oldest = b->fl[k].t_ns;
    uint64_t expire = oldest + 1000000000u + 1;
    return interval && b->next_send > expire ? b->next_send : expire;
}

/* Gives up the load bot's requests unanswered for a second and sends what is
 * due by `horizon` (now and SEND_SLACK_NS after); *due gets when it next
 * has something to do, always after the horizon. */
static int pace_load(const options *o, bot *b, totals *t, uint64_t horizon, uint64_t interval, uint32_t window,
                     uint64_t *due)
{
    /* A request unanswered for a second is lost (UDP): free its slot. By
     * the horizon, not now: else a full window due to expire within the
     * slack would be taken up again and again in the same pass. */
    for (uint32_t k = 0; k < b->nfl;) {
        if (horizon > b->fl[k].t_ns + 1000000000u) {
            if (t->measuring)
                t->lost += b->fl[k].remaining;
            b->fl[k] = b->fl[--b->nfl];
        } else {
            k++;
        }
    }
    if (interval) {
        while (b->next_send <= horizon && b->nfl < window) {
            if (send_load(o, b, t) < 0)
                return -1;
            b->next_send += interval;
        }
    } else {
        while (b->nfl < window)
            if (send_load(o, b, t) < 0)
                return -1;
    }
    *due = load_due(b, interval, window);
    return 0;
}

/* --- player modes --------------------------------------------------------------------- */

/* Sends one player move of the bot's mode asking dt seconds. */
static int send_player(const options *o, const map_info *mi, bot *b, totals *t, double dt)
{
    const sweep_rules *rules = &mi->lv.rules;
    double ws = rules->walk_speed;
    uint64_t side = (uint64_t)(o->rate + 0.5);
    sweep_vec3 dir = square_dir(b->step, side);
    sweep_client_move_req m = {.entity = b->entity, .velocity = sweep_v3_scale(dir, ws), .dt = dt};
    switch (b->mode) {
    case MODE_SPEED:
        m.velocity = sweep_v3_scale(dir, ws * SPEED_FACTOR);
        break;
    case MODE_FLY:
        m.mode = SWEEP_WIRE_MODE_FLY;
        m.velocity = sweep_v3_madd(sweep_v3_scale(dir, ws), mi->up, ws);
        break;
    case MODE_NOCLIP:
        m.mode = SWEEP_WIRE_MODE_NOCLIP;
        m.velocity = sweep_v3(ws, 0, 0);
        break;
    case MODE_JUMP:
        m.buttons = SWEEP_WISH_JUMP;
        m.velocity = sweep_v3_madd(m.velocity, mi->up, rules->jump_speed > 0 ? rules->jump_speed : ws);
        break;
    case MODE_TELEPORT:
        m.has_claimed_position = 1;
        m.claimed_position = sweep_v3_add(b->last_pos, sweep_v3(TELEPORT_CLAIM, 0, 0));
        break;
    default:
        break;
    }
    uint32_t seq = sweep_client_next_sequence(b->c);
    if (b->predicting) {
        /* An honest player jumps when it stands, about once a second; the
         * prediction says when it stands and where it will be. */
        sweep_predict_state now = sweep_predictor_current(b->pred);
        b->grounded_run = now.grounded ? b->grounded_run + 1 : 0;
        if (b->mode == MODE_HONEST && rules->jump_speed > 0 && b->grounded_run >= 6 && b->step >= b->last_jump + side) {
            m.buttons = SWEEP_WISH_JUMP;
            b->last_jump = b->step;
        }
        sweep_wish w = {.velocity = m.velocity, .buttons = m.buttons};
        if (sweep_predictor_step(b->pred, seq, &w, dt, NULL, NULL) == SWEEP_CLIENT_OK) {
            m.has_claimed_position = 1;
            m.claimed_position = sweep_predictor_current(b->pred).position;
        }
    }
    sweep_client_error e;
    uint32_t sent;
    if (sweep_client_send_move(b->c, &m, &sent, &e) != SWEEP_CLIENT_OK) {
        fprintf(stderr, "sweep-bots: bot %u (%s): send failed: %s: %s\n", b->index, sweep__bots_mode_names[b->mode],
                sweep_client_error_name(&e), e.message);
        return -1;
    }
    b->asked_seq[sent % ASKED_RING] = sent;
    b->asked_dt[sent % ASKED_RING] = dt;
    b->step++;
    t->m[b->mode].sent++;
    return 0;
}

/* Sends what is due for a player bot by `horizon` (now, or a little
 * after: see SEND_SLACK_NS); *wake is lowered to when it wants to send
 * next. */
static int pace_player(const options *o, const map_info *mi, bot *b, totals *t, uint64_t now, uint64_t horizon,
                       uint64_t *wake)
{
    uint64_t interval = (uint64_t)(1e9 / o->rate);
    double period = 1.0 / o->rate;
    if (b->mode == MODE_BURST) {
        /* Held back for a while, then all at once. */
        while (b->next_send <= horizon) {
            b->burst_owed += period;
            b->next_send += interval;
        }
        if (horizon >= b->burst_at) {
            uint32_t n = (uint32_t)(b->burst_owed / period + 0.5);
            for (uint32_t i = 0; i < n; i++)
                if (send_player(o, mi, b, t, period) != 0)
                    return -1;
            b->burst_owed = 0;
            b->burst_at += ns_of(BURST_PERIOD);
        }
        if (b->burst_at < *wake)
            *wake = b->burst_at;
        return 0;
    }
    uint64_t every = b->mode == MODE_FLOOD ? (uint64_t)(interval / FLOOD_FACTOR) : interval;
    double dt = b->mode == MODE_DILATE ? period * DILATE_FACTOR : period;
    /* After a stall (this process starved of CPU) the moves catch up,
     * asking the time that passed, but no more than half the time bank:
     * as a game drops the frames of a hitch, an honest client never asks
     * the server for time it cannot have. */
    uint64_t catch_up = (uint64_t)(0.5 * b->time_bank * 1e9);
    if (catch_up < interval)
        catch_up = interval;
    if (now > b->next_send + catch_up) {
        /* The moves of the time dropped are never sent: counted, so that a
         * report of few moves says why (stalled_s). */
        t->m[b->mode].stalled += (double)(now - catch_up - b->next_send) / 1e9;
        b->next_send = now - catch_up;
    }
    while (b->next_send <= horizon) {
        if (send_player(o, mi, b, t, dt) != 0)
            return -1;
        b->next_send += every;
    }
    if (b->next_send < *wake)
        *wake = b->next_send;
    return 0;
}

/* Accounts one answer of a player bot. */
static void take_result(const options *o, const map_info *mi, bot *b, totals *t, const sweep_msg_move_result *r,
                        uint64_t now)
{
    (void)o;
    mode_totals *mt = &t->m[b->mode];
    mt->answered++;
    if (r->corrected) {
        mt->corrections++;
        if (r->correction > mt->max_correction)
            mt->max_correction = r->correction;
    }
    if (r->rules) {
        mt->rule_moves++;
        for (unsigned i = 0; i < 32; i++)
            if (r->rules & (1u << i))
                mt->rules[i]++;
    }
    if (b->predicting) {
        sweep_predict_ack a;
        sweep_predictor_ack(b->pred, r, &a, NULL);
        mt->mismatches += a.found && a.mismatch;
        /* An answer that gives up earlier moves (none of them answered) may
         * follow a move the server never got: all its copies were lost on
         * the way, or dropped by a socket buffer that overflowed on a
         * loaded machine. The server then started this move from elsewhere
         * than predicted; the difference is the network's, not a desync. */
        mt->mismatches_after_loss += a.found && a.mismatch && a.dropped > 0;
    }
    double asked = b->asked_seq[r->sequence % ASKED_RING] == r->sequence ? b->asked_dt[r->sequence % ASKED_RING] : 0;
    const sweep_client_welcome *w = sweep_client_get_welcome(b->c);
    double granted = w->has_roles ? r->applied_dt : asked; /* an older server grants what is asked */
    if (t->measuring) {
        mt->dt_asked += asked;
        mt->dt_granted += granted;
    }
    mt->cut += granted < asked;
    double height;
    along(sweep_v3_sub(r->position, b->origin), mi->up, &height);
    if (height > mt->max_height)
        mt->max_height = height;
    double reach = across_len(sweep_v3_sub(r->position, b->origin), mi->up);
    if (reach > mt->reach)
        mt->reach = reach;
    if (r->sequence <= b->last_seq)
        return; /* an older answer that came late: the path has moved on */
    /* The fastest 0.25 s is measured on the server's clock, the tick the
     * move was applied at: answers received together (this process or the
     * network held them up) were not walked together. A server without a
     * tick rate leaves the receiving time. */
    if (w->tick_rate > 0)
        now = (uint64_t)((double)r->server_tick * 1e9 / w->tick_rate + 0.5);
    if (t->measuring)
        mt->distance += across_len(sweep_v3_sub(r->position, b->last_pos), mi->up);
    b->last_seq = r->sequence;
    b->last_pos = r->position;
    /* The fastest 0.25 s: from the oldest answer kept within the window. */
    uint32_t k = b->track_n % TRACK_RING;
    b->track_t[k] = now;
    b->track_p[k] = r->position;
    b->track_n++;
    uint32_t kept = b->track_n < TRACK_RING ? b->track_n : TRACK_RING;
    for (uint32_t i = kept; i-- > 1;) {
        uint32_t j = (b->track_n - 1 - i) % TRACK_RING;
        if (now - b->track_t[j] <= PEAK_WINDOW_NS) {
            double d = across_len(sweep_v3_sub(r->position, b->track_p[j]), mi->up);
            if (t->measuring && d > mt->peak)
                mt->peak = d;
            break;
        }
    }
}

/* --- the run ---------------------------------------------------------------------------- */

int sweep__bots_run(const options *o, const map_info *mi, bot *bots, schedule *sched, int epfd, totals *t,
                    uint32_t window, sweep_netem *net)
{
    /* The bad network is for the run, not for connecting hundreds of bots
     * one after another. */
    sweep_netem_impair(net, 1);
    int show_progress = o->progress || isatty(2);
    uint64_t start = sweep_client_now_ns();
    uint64_t measure_at = start + (uint64_t)(o->warmup * 1e9);
    uint64_t end = measure_at + (uint64_t)(o->duration * 1e9);
    uint64_t interval = o->rate > 0 ? (uint64_t)(1e9 * o->batch / o->rate) : 0;
    uint64_t next_progress = start + 500000000u, last_results = 0, last_progress = start;
    for (uint32_t i = 0; i < o->clients; i++) {
        bots[i].next_send = start + (interval ? interval * i / o->clients : 0);
        bots[i].burst_at = start + ns_of(BURST_PERIOD / 2) + (interval ? interval * i / o->clients : 0);
        /* A burst bot counts its moves from next_send too, so it starts there. */
        sched_add(sched, i, o->players || interval ? bots[i].next_send : 0);
    }
    struct epoll_event evs[512];
    int have_pwait2 = 1;
    int failed = 0;
    /* Players: after the run, up to 3 s for the last answers (a loaded
     * machine may have left some on their way), less when all came. */
    uint64_t stop_sending = end, stop = o->players ? end + 3000000000u : end;
    for (;;) {
        uint64_t now = sweep_client_now_ns();
        if (!t->measuring && now >= measure_at)
            t->measuring = 1;
        if (t->measuring && now >= end)
            t->measuring = 0;
        if (now >= stop)
            break;
        if (o->players && now >= stop_sending) {
            uint64_t outstanding = 0;
            for (int m = 0; m < MODE_COUNT; m++)
                if (t->m[m].sent > t->m[m].answered + t->m[m].errors - t->m[m].refused_hellos)
                    outstanding += t->m[m].sent - t->m[m].answered - (t->m[m].errors - t->m[m].refused_hellos);
            if (outstanding == 0)
                break;
        }
        /* Send what is due: only the bots at the top of the schedule, and
         * with them those due within SEND_SLACK_NS, so that thousands of
         * bots spread over a period cost a few thousand wakes a second,
         * not one each. */
        uint64_t wake = stop;
        if (now < stop_sending) {
            uint64_t horizon = now + SEND_SLACK_NS;
            while (sched_top(sched)->due <= horizon) {
                uint32_t i = sched_top(sched)->bot;
                uint64_t due = UINT64_MAX;
                if (o->players ? pace_player(o, mi, &bots[i], t, now, horizon, &due)
                              : pace_load(o, &bots[i], t, horizon, interval, window, &due)) {
                    failed = 1;
                    break;
                }
                sched_set(sched, i, due);
            }
            if (sched_top(sched)->due < wake)
                wake = sched_top(sched)->due;
        }
        if (failed)
            return -1;
        /* Until the next send is due, to the nanosecond: a millisecond
         * timeout would spin through the last millisecond before each. */
        uint64_t wait = wake > now ? wake - now : 0;
        if (wait > 100000000u)
            wait = 100000000u;
        struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)wait};
        int nev = -1;
        if (have_pwait2) {
            nev = epoll_pwait2(epfd, evs, (int)(sizeof evs / sizeof evs[0]), &ts, NULL);
            if (nev < 0 && errno == ENOSYS)
                have_pwait2 = 0; /* a kernel before 5.11 */
        }
        if (!have_pwait2) /* whole milliseconds, rounded up: late by less than one rather than spinning */
            nev = epoll_wait(epfd, evs, (int)(sizeof evs / sizeof evs[0]), (int)((wait + 999999) / 1000000));
        if (nev < 0 && errno != EINTR) {
            perror("sweep-bots: epoll_wait");
            return -1;
        }
        for (int k = 0; k < nev; k++) {
            uint32_t i = evs[k].data.u32;
            bot *b = &bots[i];
            mode_totals *mt = &t->m[b->mode];
            sweep_client_event ev;
            sweep_client_error e;
            sweep_client_status s;
            /* One read of the socket (all it holds), then only what that
             * read queued: no second system call to find it empty. */
            for (s = sweep_client_poll(b->c, 0, &ev, &e); s == SWEEP_CLIENT_OK;
                 s = sweep_client_pending(b->c) ? sweep_client_poll(b->c, 0, &ev, &e) : SWEEP_CLIENT_E_TIMEOUT) {
                if (ev.kind == SWEEP_CLIENT_EV_MOVE_RESULT) {
                    if (o->players)
                        take_result(o, mi, b, t, &ev.as.move_result, ev.received_ns);
                    else
                        settle(b, t, ev.as.move_result.sequence, ev.received_ns, 1);
                } else if (ev.kind == SWEEP_CLIENT_EV_WORLD_STATE) {
                    if (t->measuring) {
                        t->world_states++;
                        t->world_movers += ev.as.world_state.count;
                    }
                } else if (ev.kind == SWEEP_CLIENT_EV_DESPAWNED && ev.sequence == 0 &&
                           ev.as.despawned.entity == b->entity) {
                    /* A mover crushed the bot's player: a new one carries on. */
                    t->crushed++;
                    b->crushed_entity = b->entity;
                    if (o->players) {
                        if (sweep__bots_spawn_player(o, mi, b, t) != 0)
                            return -1;
                    } else {
                        sweep_msg_spawned sp;
                        sweep_client_status st = sweep__bots_spawn_load(b, 0, b->spawn, b->radii, &sp, &e);
                        if (st != SWEEP_CLIENT_OK) {
                            fprintf(stderr, "sweep-bots: bot %u: respawn after a crush: %s: %s\n", i,
                                    sweep_client_error_name(&e), e.message);
                            return -1;
                        }
                        b->entity = sp.entity;
                    }
                } else if (ev.kind == SWEEP_CLIENT_EV_ERROR && ev.as.error.code == SWEEP_WIRE_UNKNOWN_ENTITY &&
                           ev.as.error.entity != 0 && ev.as.error.entity == b->crushed_entity) {
                    /* A move that was on its way when the player was crushed. */
                    settle(b, t, ev.as.error.sequence ? ev.as.error.sequence : ev.sequence, ev.received_ns, 0);
                } else if (ev.kind == SWEEP_CLIENT_EV_ERROR) {
                    if (o->players) {
                        count_error(mt, ev.as.error.code);
                        if (b->predicting)
                            sweep_predictor_reject(b->pred, ev.as.error.sequence, NULL, NULL);
                        if (b->mode == MODE_HONEST && mt->errors <= 5)
                            fprintf(stderr, "sweep-bots: honest bot %u: server error %s: %s (sequence %u)\n", i,
                                    sweep_client_error_name(&ev.as.error), ev.as.error.message, ev.as.error.sequence);
                        continue;
                    }
                    if (t->errors++ < 5)
                        fprintf(stderr, "sweep-bots: bot %u: server error %s: %s (sequence %u)\n", i,
                                sweep_client_error_name(&ev.as.error), ev.as.error.message, ev.as.error.sequence);
                    settle(b, t, ev.as.error.sequence ? ev.as.error.sequence : ev.sequence, ev.received_ns, 0);
                } else if (ev.kind == SWEEP_CLIENT_EV_BYE) {
                    fprintf(stderr, "sweep-bots: bot %u: the server said goodbye: %s\n", i, ev.as.error.message);
                    return -1;
                }
            }
            if (s != SWEEP_CLIENT_E_TIMEOUT) {
                fprintf(stderr, "sweep-bots: bot %u: %s: %s\n", i, sweep_client_error_name(&e), e.message);
                return -1;
            }
            if (!o->players) {
                /* Answers made room in a full window: it may send again sooner. */
                uint64_t due = load_due(b, interval, window);
                if (due < sched_due(sched, i))
                    sched_set(sched, i, due);
            }
        }
        if (show_progress && now >= next_progress) {
            double secs = (double)(now - last_progress) / 1e9;
            uint64_t answered = t->results;
            for (int m = 0; m < MODE_COUNT; m++)
                answered += t->m[m].answered;
            fprintf(stderr, "\r[%6.1fs] %s clients=%u moves=%" PRIu64 " rate=%.0f/s errors=%" PRIu64 "   ",
                    (double)(now - start) / 1e9, now < measure_at ? "warmup   " : now < end ? "measuring" : "draining ",
                    o->clients, answered, (double)(answered - last_results) / secs, t->errors);
            last_results = answered;
            last_progress = now;
            next_progress = now + 500000000u;
        }
    }
    if (show_progress)
        fprintf(stderr, "\n");

    sweep_netem_impair(net, 0);
    if (o->players) {
        /* Moves that came due before the end but found the loop only after
         * it (this process stalled across the end) were never sent either. */
        for (uint32_t i = 0; i < o->clients; i++)
            if (bots[i].mode != MODE_BURST && bots[i].next_send < stop_sending)
                t->m[bots[i].mode].stalled += (double)(stop_sending - bots[i].next_send) / 1e9;
    }
    return 0;
}
