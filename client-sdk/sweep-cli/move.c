/*
 * move.c - `sweep move`: one player moved, either locally against a map
 * with the same core and movement rules the server runs (--map without
 * --connect; movers stand at the start of their paths, since nothing
 * ticks them), or through a server (--connect): it spawns the player at a
 * spawn point of the map (or, for a session of the server role, at
 * --position), sends the moves (each a wish: --velocity across the
 * ground, --jump) and prints each result as text or JSON lines: where the
 * player went, the rules the server applied (and by how much the move
 * asked too much), and what the movers did to the player when they did
 * something.
 * With both --map and --connect it also checks the server's map hash and
 * predicts every move locally, printing whether the server agreed bit for
 * bit; on a map with movers it watches the world every tick and predicts
 * among the movers as they will be at the tick the server applies each
 * move (sweep_client_estimate_tick, predict.h).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "client-sdk/sweep-cli/cli.h"
#include "server/world/entity_motion.h"

/* The map's movers at tick_rate (0 = the map's). */
static int build_movers(const options *o, local_map *m, double tick_rate)
{
    sweep_client_error e;
    if (sweep_predict_build_movers(&m->lv, tick_rate, &m->movers, &e) != SWEEP_CLIENT_OK)
        return sweep__cli_report_msg(o, e.status, "cannot build the map's movers: %s", e.message);
    return 0;
}

/* The buttons of the next move: --hold-jump presses jump always, --jump
 * when the player stands (grounded: as far as the caller knows); --crouch
 * holds crouch. */
static uint32_t buttons_for(const options *o, int grounded)
{
    return (o->hold_jump || (o->jump && grounded) ? SWEEP_WISH_JUMP : 0u) | (o->crouch ? SWEEP_WISH_CROUCH : 0u);
}

/* The wish of every move. */
static sweep_wish wish_for(const options *o, int grounded)
{
    sweep_wish w = {.velocity = o->velocity, .buttons = buttons_for(o, grounded)};
    return w;
}

/* The end of a player taken out unasked, as a server tells it (Despawned)
 * and as a local run ends at a kill: the line, then the named error. */
static int report_despawned(const options *o, uint32_t entity, int killed, uint32_t by)
{
    const char *field = killed ? "killed_by" : "crushed_by";
    char msg[128];
    snprintf(msg, sizeof msg, "entity %" PRIu32 " was %s %" PRIu32, entity,
             killed ? "killed by volume" : "crushed by mover", by);
    if (o->json)
        printf("{\"despawned\":%" PRIu32 ",\"%s\":%" PRIu32 "}\n", entity, field, by);
    else
        printf("despawned entity=%" PRIu32 " %s=%" PRIu32 "\n", entity, field, by);
    return sweep__cli_report_named(o, killed ? "Killed" : "Crushed", msg, 0, 0);
}

/* Moves locally with the core and the map's rules, exactly as the server
 * would walk a player before its first tick (movers at the start of their
 * paths). The rules shown are the core's (Speed, Jump, Limit): the time
 * budget and the claimed position are the server's business. */
int sweep__cli_move_local(const options *o, local_map *m, sweep_vec3 start, sweep_vec3 radii)
{
    if (m->lv.mover_count && build_movers(o, m, 0) != 0)
        return 1;
    sweep__cli_print_spawned(o, 0, start, radii, o->has_position ? 0 : o->spawn ? o->spawn : 1, 0);
    sweep_predict_state s = sweep_predict_state_at(start);
    for (uint32_t i = 0; i < o->count; i++) {
        sweep_act_result ar;
        sweep_wish w = wish_for(o, s.grounded);
        sweep_client_error ce;
        if (sweep_predict_run(m->world, m->movers, &m->lv.config, &m->lv.rules, radii, &s, &w, o->dt, &ar, &ce) !=
            SWEEP_CLIENT_OK) {
            /* Named as the server would name it (ce.code), so local and
             * remote runs read alike. */
            sweep_client_error e = {.status = ce.code ? SWEEP_CLIENT_E_SERVER : ce.status, .code = ce.code,
                                    .sequence = i + 1};
            snprintf(e.message, sizeof e.message, "move %u refused by the core: %.200s", i + 1, ce.message);
            return sweep__cli_report(o, &e);
        }
        /* Where the player is after the volumes acted (a teleporter, a
         * pad), as the server answers: the actor's state, not the last
         * step's sweep. */
        const sweep_move_result r = ar.move;
        shown_result sr = {
            .index = i + 1, .sequence = i + 1, .position = s.position, .velocity = s.velocity,
            .ground_normal = r.ground_normal, .grounded = s.grounded,
            .ground_material = r.ground_material, .contact_count = r.contact_count, .contacts = r.contacts,
            .ground_mover = sweep_predict_mover_id(&m->lv, r.ground_mover), .rules = ar.rules,
            .buttons = w.buttons, .speed_excess = ar.speed_excess, .applied_dt = o->dt,
            .crouched = s.stance == SWEEP_STANCE_CROUCH, .stance_blocked = ar.stance_blocked != 0,
        };
        sweep_msg_move_result vr;
        sweep__entity_volumes(&m->lv, &ar.volumes, &vr);
        sweep__cli_show_volumes(&sr, &vr);
        sweep__cli_print_result(o, &sr);
        /* A kill volume ends the player, as the server despawns it. */
        if (ar.volumes.events & SWEEP_VOLUME_EV_KILLED)
            return report_despawned(o, 0, 1, vr.killed_by);
    }
    return 0;
}

/* A remote run: the player, its prediction and what is left to do. */
typedef struct run {
    const options *o;
    sweep_client *c;
    local_map *m;
    uint32_t entity;
    sweep_predictor *pred; /* when predicting */
    int predicting, watching;
    int mismatches, reruns_matched;
    int failed; /* an error was reported */
    int last_grounded; /* the last answer's, for --jump without a prediction */
    /* The buttons of the moves sent lately, by sequence % 64, to print with their answers. */
    uint32_t sent_seq[64], sent_buttons[64];
} run;

/* Whether the next move starts on the ground, as well as the client knows. */
static int grounded_now(const run *rn)
{
    return rn->predicting ? sweep_predictor_current(rn->pred).grounded : rn->last_grounded;
}

/* Makes move `seq`: its wish (jumping as the options say), predicted when
 * predicting (at the tick the server will apply it, among the movers as
 * they will be then), with the prediction as its claimed position. */
static sweep_client_move_req next_move(run *rn, uint32_t seq)
{
    const options *o = rn->o;
    sweep_wish w = wish_for(o, grounded_now(rn));
    sweep_client_move_req m = {.entity = rn->entity, .velocity = w.velocity, .dt = o->dt, .buttons = w.buttons,
                               .mode = o->mode};
    if (rn->predicting && sweep_predictor_step_at(rn->pred, seq, &w, o->dt, sweep_client_estimate_tick(rn->c), NULL,
                                                  NULL) == SWEEP_CLIENT_OK) {
        m.has_claimed_position = 1;
        m.claimed_position = sweep_predictor_current(rn->pred).position;
    }
    rn->sent_seq[seq % 64] = seq;
    rn->sent_buttons[seq % 64] = w.buttons;
    return m;
}

/* Prints one server result, reconciling it with the prediction if any. */
static void show_remote(run *rn, const sweep_msg_move_result *r, uint32_t index)
{
    const char *predicted = NULL, *rerun = NULL;
    if (rn->predicting) {
        sweep_predict_ack a;
        sweep_predictor_ack(rn->pred, r, &a, NULL);
        predicted = a.mismatch ? "mismatch" : "match";
        if (a.rerun)
            rerun = a.rerun_match ? "match" : "mismatch";
        rn->mismatches += a.mismatch;
        rn->reruns_matched += a.mismatch && a.rerun && a.rerun_match;
    }
    rn->last_grounded = r->grounded;
    shown_result sr = {
        .index = index, .sequence = r->sequence, .server_tick = r->server_tick, .position = r->position,
        .velocity = r->velocity, .ground_normal = r->ground_normal, .grounded = r->grounded,
        .ground_material = r->ground_material, .contact_count = r->contact_count, .contacts = r->contacts,
        .predicted = predicted, .rerun = rerun, .ground_mover = r->ground_mover, .pushed_by = r->pushed_by,
        .carried = r->carried, .pushed = r->pushed, .has_start = r->has_start_position, .start = r->start_position,
        .rules = r->rules, .speed_excess = r->speed_excess, .time_excess = r->time_excess,
        .applied_dt = r->applied_dt, .corrected = r->corrected, .correction = r->correction,
        .buttons = rn->sent_seq[r->sequence % 64] == r->sequence ? rn->sent_buttons[r->sequence % 64] : 0,
        .crouched = r->crouched, .stance_blocked = r->stance_blocked,
    };
    sweep__cli_show_volumes(&sr, r);
    sweep__cli_print_result(rn->o, &sr);
}

/* Handles an event that is not the answer being waited for: a WorldState
 * moves the predictor's movers, the crushing of our player ends the run.
 * Returns 0, or 1 after reporting an error. */
static int other_event(run *rn, const sweep_client_event *ev)
{
    const options *o = rn->o;
    if (ev->kind == SWEEP_CLIENT_EV_WORLD_STATE && rn->predicting && rn->watching) {
        sweep_client_error e;
        if (sweep_predictor_world_state(rn->pred, &ev->as.world_state, &e) != SWEEP_CLIENT_OK)
            return sweep__cli_report_msg(o, SWEEP_CLIENT_E_PROTOCOL, "%s", e.message);
    } else if (ev->kind == SWEEP_CLIENT_EV_DESPAWNED && ev->as.despawned.entity == rn->entity) {
        /* Taken out unasked: a mover crushed it, or a kill volume took it. */
        const sweep_msg_despawned *d = &ev->as.despawned;
        int killed = d->killed_by != 0;
        return report_despawned(o, d->entity, killed, killed ? d->killed_by : d->crushed_by);
    } else if (ev->kind == SWEEP_CLIENT_EV_ERROR) {
        return sweep__cli_report(o, &ev->as.error);
    } else if (ev->kind == SWEEP_CLIENT_EV_BYE) {
        return sweep__cli_report(o, &ev->as.error);
    }
    return 0;
}

/* Handles everything already received, without waiting: the newest poses
 * before the next prediction. */
static int drain(run *rn)
{
    sweep_client_event ev;
    sweep_client_error e;
    sweep_client_status s;
    while ((s = sweep_client_poll(rn->c, 0, &ev, &e)) == SWEEP_CLIENT_OK)
        if (other_event(rn, &ev) != 0)
            return 1;
    return s == SWEEP_CLIENT_E_TIMEOUT ? 0 : sweep__cli_report(rn->o, &e);
}

/* After a blocking move's answer r: the WorldStates that came before it
 * (ticks up to its own) are applied before the answer is reconciled, later
 * ones after, as if they had been read in order. */
static int settle_single(run *rn, const sweep_msg_move_result *r, uint32_t index)
{
    sweep_client_event ev;
    sweep_client_error e;
    sweep_client_status s;
    int shown = 0;
    while ((s = sweep_client_poll(rn->c, 0, &ev, &e)) == SWEEP_CLIENT_OK) {
        /* Anything else came after the answer: a Despawned of the player
         * by the kill volume this very move ended in, an Error, a Bye. */
        if (!shown && (ev.kind != SWEEP_CLIENT_EV_WORLD_STATE || ev.as.world_state.tick > r->server_tick)) {
            show_remote(rn, r, index);
            shown = 1;
        }
        if (other_event(rn, &ev) != 0)
            return 1;
    }
    if (!shown)
        show_remote(rn, r, index);
    return s == SWEEP_CLIENT_E_TIMEOUT ? 0 : sweep__cli_report(rn->o, &e);
}

int sweep__cli_move_remote(const options *o, sweep_client *c, local_map *m, sweep_vec3 start, sweep_vec3 radii)
{
    sweep_client_error e;
    sweep_msg_spawned sp;
    sweep_client_status st;
    /* Only a walk follows the rules the predictor runs. */
    run rn = {.o = o, .c = c, .m = m, .predicting = m->loaded && o->mode == SWEEP_WIRE_MODE_WALK};
    sweep__cli_print_session(o, sweep_client_get_welcome(c));
    if (rn.predicting && m->lv.mover_count && build_movers(o, m, sweep_client_get_welcome(c)->tick_rate) != 0)
        return 1;
    /* A spawn point unless --position: the server's map's, with the map's
     * radii unless --radii (the server decides what a player gets). */
    (void)start;
    sweep_vec3 asked_radii = o->has_radii ? radii : sweep_v3(0, 0, 0);
    if (o->has_position)
        st = sweep_client_spawn(c, o->position, asked_radii, &sp, &e);
    else if (o->spawn == 0 && sweep_client_get_welcome(c)->role == SWEEP_WIRE_ROLE_SERVER)
        /* The server role's point 0 would mean "at the position given". */
        st = sweep_client_spawn_at_point(c, 1, asked_radii, &sp, &e);
    else
        st = sweep_client_spawn_at_point(c, o->spawn, asked_radii, &sp, &e);
    if (st != SWEEP_CLIENT_OK)
        return sweep__cli_report(o, &e);
    rn.entity = sp.entity;
    sweep__cli_print_spawned(o, sp.entity, sp.position, sp.radii, sp.spawn_point, sp.rules);
    if (rn.predicting) {
        if (sweep_predictor_create(m->world, &m->lv.config, &m->lv.rules, sp.position, sp.radii, &rn.pred, &e) !=
            SWEEP_CLIENT_OK)
            return sweep__cli_report(o, &e);
        if (m->movers && sweep_predictor_set_movers(rn.pred, m->movers, &m->lv, &e) != SWEEP_CLIENT_OK) {
            sweep_predictor_destroy(rn.pred);
            return sweep__cli_report(o, &e);
        }
    }
    if (rn.predicting && m->movers) {
        /* Predicting among movers needs their poses of every tick, from now. */
        sweep_msg_world_state now;
        int bad = sweep_client_watch_world(c, 1, &now, &e) != SWEEP_CLIENT_OK;
        if (!bad && sweep_predictor_world_state(rn.pred, &now, &e) != SWEEP_CLIENT_OK) {
            e.status = SWEEP_CLIENT_E_PROTOCOL;
            bad = 1;
        }
        if (bad) {
            sweep_predictor_destroy(rn.pred);
            return sweep__cli_report(o, &e);
        }
        rn.watching = 1;
    }
    int rc = 0;
    uint32_t done = 0;
    uint32_t max_batch = o->batch ? sweep_client_max_batch(c) : 1;
    sweep_client_move_req *reqs = calloc(max_batch, sizeof *reqs);
    uint32_t *seqs = calloc(max_batch, sizeof *seqs);
    if (!reqs || !seqs) {
        rc = sweep__cli_report_msg(o, SWEEP_CLIENT_E_NOMEM, "%s", "out of memory");
        goto out;
    }
    /* A player's time is budgeted by the server's clock: by default its
     * moves go out as the time they ask passes. */
    const sweep_client_welcome *wel = sweep_client_get_welcome(c);
    int pace = !o->has_interval && wel->has_roles && wel->role == SWEEP_WIRE_ROLE_PLAYER;
    if (pace && o->batch && o->dt > 0 && wel->time_bank > 0) {
        /* A batch is sent once its time has passed, and must not ask more
         * than the bank holds: half of it, to leave room for the ticks. */
        double fit = 0.5 * wel->time_bank / o->dt;
        if (fit < max_batch)
            max_batch = fit >= 1 ? (uint32_t)fit : 1;
    }
    uint64_t next_at = sweep_client_now_ns();
    /* After a stall of this process a paced player catches up at most half
     * a time bank, as a game drops a hitch's frames: moves owed beyond that
     * would be cut by the server as a lag switch, and the rest of the bank
     * is for the server's own lateness. */
    uint64_t catch_up = pace && wel->time_bank > 0 ? (uint64_t)(0.5 * wel->time_bank * 1e9) : 0;
    while (done < o->count && rc == 0) {
        uint32_t n = o->count - done < max_batch ? o->count - done : max_batch;
        if (pace) {
            uint64_t now = sweep_client_now_ns();
            if (now > next_at + catch_up)
                next_at = now - catch_up;
        }
        double asked = (o->batch ? n : 1) * o->dt;
        if (pace && o->batch && asked > 0 && asked <= 3600)
            next_at += (uint64_t)(asked * 1e9); /* a batch waits for its time to pass */
        if (o->interval_ms || pace) {
            /* Wait while handling what comes, so the poses stay current. */
            uint64_t until = pace ? next_at : sweep_client_now_ns() + (uint64_t)o->interval_ms * 1000000u;
            for (uint64_t now; rc == 0 && (now = sweep_client_now_ns()) < until;) {
                sweep_client_event ev;
                int ms = (int)((until - now + 999999) / 1000000);
                st = sweep_client_poll(c, ms, &ev, &e);
                if (st == SWEEP_CLIENT_OK)
                    rc = other_event(&rn, &ev);
                else if (st != SWEEP_CLIENT_E_TIMEOUT)
                    rc = sweep__cli_report(o, &e);
            }
            if (rc)
                break;
        }
        if ((rc = drain(&rn)) != 0)
            break;
        if (pace && !o->batch && asked > 0 && asked <= 3600) /* a bad dt is the server's to refuse, not a wait */
            next_at += (uint64_t)(asked * 1e9); /* a single move goes, then its time passes */
        if (!o->batch) {
            /* One move, one blocking call: over UDP it is resent until answered. */
            sweep_client_move_req req = next_move(&rn, sweep_client_next_sequence(c));
            sweep_msg_move_result r;
            if (sweep_client_move_request(c, &req, &r, NULL, &e) != SWEEP_CLIENT_OK) {
                rc = sweep__cli_report(o, &e);
                break;
            }
            done++;
            rc = settle_single(&rn, &r, done);
            continue;
        }
        /* The numbers the batch's moves will carry, for their predictions. */
        sweep_client_batch_sequences(c, n, seqs);
        for (uint32_t i = 0; i < n; i++)
            reqs[i] = next_move(&rn, seqs[i]);
        if (sweep_client_send_batch(c, reqs, n, seqs, &e) != SWEEP_CLIENT_OK) {
            rc = sweep__cli_report(o, &e);
            break;
        }
        /* Collect the n answers, in order with everything else; an Error
         * about one of them ends the run. --timeout is the whole batch's:
         * the WorldStates of --map must not keep a lost answer waiting. */
        uint64_t deadline = sweep_client_now_ns() + (uint64_t)o->timeout_ms * 1000000u;
        for (uint32_t got = 0; got < n && rc == 0;) {
            sweep_client_event ev;
            uint64_t now = sweep_client_now_ns();
            if (now >= deadline) {
                char why[120];
                snprintf(why, sizeof why, "%u of the batch's %u answers within %d ms", got, n, o->timeout_ms);
                rc = sweep__cli_report_msg(o, SWEEP_CLIENT_E_TIMEOUT, "%s", why);
                break;
            }
            sweep_client_status st = sweep_client_poll(c, (int)((deadline - now + 999999) / 1000000), &ev, &e);
            if (st == SWEEP_CLIENT_E_TIMEOUT)
                continue; /* the deadline's, said above */
            if (st != SWEEP_CLIENT_OK) {
                rc = sweep__cli_report(o, &e);
                break;
            }
            if (ev.kind != SWEEP_CLIENT_EV_MOVE_RESULT) {
                rc = other_event(&rn, &ev);
                continue;
            }
            got++;
            show_remote(&rn, &ev.as.move_result, done + got);
        }
        done += n;
    }
    if (rc == 0 && rn.mismatches && !o->json) {
        fprintf(stderr, "sweep: %d prediction(s) differed from the server", rn.mismatches);
        if (rn.reruns_matched)
            fprintf(stderr, "; %d of them re-run from where the server started them (movers, lost moves) agreed",
                    rn.reruns_matched);
        fprintf(stderr, "\n");
    }
out:
    free(reqs);
    free(seqs);
    sweep_predictor_destroy(rn.pred);
    return rc;
}
