/*
 * replay_main.c - sweep-replay: re-runs a session log against its map and
 * checks every answer bit for bit (client-sdk/replay.h does the work), at
 * the full depth (the server's whole request path) or, with --core, the
 * core's motion alone.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/version.h"
#include "client-sdk/replay.h"
#include "client-sdk/replay_impl.h"
#include "client-sdk/replay_plot.h"

static void usage(FILE *out)
{
    fputs("usage: sweep-replay LOG [--core] [--strict] [--map FILE] [--json] [--svg OUT.svg [--axis x|y|z]]\n"
          "       sweep-replay LOG --reanswer OUT [--map FILE]\n"
          "\n"
          "Re-runs a session log that sweepd --record wrote: loads the map (by default the\n"
          "path the log recorded; its content hash must match), replays every request and\n"
          "tick through sweepd's own world code, and compares every message the server\n"
          "sent and every state hash, bit for bit (the full depth). A rotated log is\n"
          "followed from its first segment (LOG) through the next ones in the same\n"
          "directory.\n"
          "\n"
          "With --core (the core depth) only the core's motion is re-run: each recorded\n"
          "move with the exact input the server gave the core, the movers ticked in\n"
          "step, and what the core computes compared bit for bit (position, velocity,\n"
          "ground, contacts, ground mover, start position after a mover, the core's\n"
          "rules, the stance) with the log's MOVE record of the move (format version 2), or with\n"
          "the recorded MoveResult (version 1 logs, which have none). Spawn places, time\n"
          "budgets, corrections, Errors, message bytes and state hashes are the full\n"
          "depth's to check; logs recorded with --players-block on need it.\n"
          "\n"
          "  --core        the core depth (default: the full depth)\n"
          "  --map FILE    the map to replay on (default: the path in the log, or,\n"
          "                where that is gone, <stem>.db beside the log or in a\n"
          "                directory of $SWEEP_MAPS, colon-separated; a stem that\n"
          "                names a directory is not looked for)\n"
          "  --strict      a log that is not whole (a torn last frame, no END: the\n"
          "                server was killed) fails with exit status 1 even where\n"
          "                every recorded bit matched; for tests of a game's own\n"
          "  --json        one JSON object instead of text\n"
          "  --svg FILE    also draw the level with every entity's path, corrections,\n"
          "                rule reports, crushes, mover paths and the queries' shots\n"
          "                with their hits and their targets where they were then\n"
          "                (the full depth)\n"
          "  --axis A      the axis the picture looks along (default z: from above)\n"
          "  --reanswer OUT  write a copy of LOG (one whole segment) to OUT (which may\n"
          "                be LOG) whose answers (OUT records) and state hashes are what\n"
          "                this build sends and computes, every request, tick and id\n"
          "                kept: for golden logs whose answers a change alters on\n"
          "                purpose. Refused, nothing written, where the replay differs\n"
          "                otherwise (how many messages, their kinds or sessions, the\n"
          "                MOVE or RESULTS records of a newer log) or the copy would\n"
          "                not replay bit for bit\n"
          "  --help        this text\n"
          "  --version     the release of sweep this tool belongs to\n"
          "\n"
          "Prints the first divergence (tick, session, entity, field, both values) or a\n"
          "one-line summary with moves per second, each naming the depth that ran. Exit\n"
          "status: 0 when every bit matched, 1 on a divergence (or, with --strict, a log\n"
          "that is not whole), 2 when the log or map cannot be used (or the core depth\n"
          "cannot re-run it). With --reanswer: 0 when the copy was written, 1 when the\n"
          "log differs in more than its answers and hashes, 2 when it cannot be used.\n",
          out);
}

static void json_str(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const char *map = NULL, *svg = NULL, *reanswer = NULL;
    char axis = 'z';
    int json = 0, strict = 0;
    unsigned flags = 0;
    static const struct option longs[] = {{"map", required_argument, 0, 'm'}, {"json", no_argument, 0, 'j'},
                                          {"svg", required_argument, 0, 's'}, {"axis", required_argument, 0, 'a'},
                                          {"core", no_argument, 0, 'c'},      {"help", no_argument, 0, 'h'},
                                          {"version", no_argument, 0, 'V'}, {"strict", no_argument, 0, 'S'},
                                          {"reanswer", required_argument, 0, 'R'}, {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (c) {
        case 'm': map = optarg; break;
        case 'c': flags |= SWEEP_REPLAY_CORE; break;
        case 'S': strict = 1; break;
        case 'R': reanswer = optarg; break;
        case 'j': json = 1; break;
        case 's': svg = optarg; break;
        case 'a':
            if (strlen(optarg) != 1 || !strchr("xyz", optarg[0])) {
                fprintf(stderr, "sweep-replay: --axis: '%s' is not x, y or z\n", optarg);
                return 2;
            }
            axis = optarg[0];
            break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("sweep-replay %s\n", SWEEP_VERSION); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "sweep-replay: give exactly one LOG (see --help)\n");
        return 2;
    }
    const char *log = argv[optind];
    if (reanswer) {
        if (flags || svg || json || strict) {
            fprintf(stderr, "sweep-replay: --reanswer takes only --map (the full depth re-answers)\n");
            return 2;
        }
        char why[4400];
        sweep__reanswer_counts n;
        if (sweep__replay_reanswer(log, map, reanswer, &n, why, sizeof why) != 0) {
            fprintf(stderr, "sweep-replay: %s\n", why);
            return n.diverged ? 1 : 2;
        }
        printf("re-answered %s into %s: %" PRIu64 " OUT and %" PRIu64 " HASH records rewritten (%" PRIu64
               " -> %" PRIu64 " bytes); the copy replays bit for bit\n",
               log, reanswer, n.outs, n.hashes, n.bytes_before, n.bytes_after);
        return 0;
    }
    const char *depth = flags & SWEEP_REPLAY_CORE ? "core" : "full";
    char err[1400];
    sweep_replay *r = sweep_replay_open_flags(log, map, flags, err, sizeof err);
    if (!r) {
        if (json) {
            printf("{\"ok\":false,\"depth\":\"%s\",\"error\":", depth);
            json_str(err);
            printf("}\n");
        } else {
            fprintf(stderr, "sweep-replay: %s\n", err);
        }
        return 2;
    }
    sweep_replay_plot *plot = NULL;
    if (svg) {
        plot = sweep_replay_plot_start(r, axis);
        if (!plot) {
            fprintf(stderr, "sweep-replay: out of memory\n");
            sweep_replay_close(r);
            return 2;
        }
    }
    double t0 = now_s();
    int rc = plot ? sweep_replay_plot_run(plot) : sweep_replay_run(r);
    double seconds = now_s() - t0;
    const sweep_replay_stats *st = sweep_replay_stats_of(r);
    const sweep_replay_divergence *d = sweep_replay_divergence_of(r);
    int status = rc == 0 ? 0 : d ? 1 : 2;
    /* --strict: every bit matched, but not every bit the server meant to
     * write is there. */
    const char *not_whole = st->truncated ? "the log ends in a torn frame (the server was killed)"
                            : !st->ended  ? "the log has no END (the recording was cut short)"
                                          : NULL;
    int strict_failed = strict && rc == 0 && not_whole;
    if (strict_failed)
        status = 1;
    if (plot) {
        /* The picture shows what happened up to where the replay stopped. */
        if (sweep_replay_plot_write(plot, svg, log, err, sizeof err) != 0) {
            fprintf(stderr, "sweep-replay: %s\n", err);
            status = 2;
        }
        sweep_replay_plot_free(plot);
    }
    double mps = seconds > 0.0 ? (double)st->moves / seconds : 0.0;
    if (json) {
        printf("{\"ok\":%s,\"depth\":\"%s\",\"log\":", status == 0 ? "true" : "false", depth);
        json_str(log);
        printf(",\"ticks\":%" PRIu64 ",\"sessions\":%" PRIu64 ",\"requests\":%" PRIu64 ",\"moves\":%" PRIu64
               ",\"messages\":%" PRIu64 ",\"hashes\":%" PRIu64 ",\"segments\":%u,\"bytes\":%" PRIu64
               ",\"truncated\":%s,\"ended\":%s,\"seconds\":%.6f,\"moves_per_s\":%.0f",
               st->ticks, st->sessions, st->requests, st->moves, st->outputs, st->hashes, st->segments, st->bytes,
               st->truncated ? "true" : "false", st->ended ? "true" : "false", seconds, mps);
        if (flags & SWEEP_REPLAY_CORE)
            printf(",\"refused\":%" PRIu64, st->refused);
        if (d) {
            printf(",\"divergence\":{\"tick\":%" PRIu64 ",\"session\":%" PRIu64 ",\"entity\":%u,\"offset\":%" PRIu64
                   ",\"file\":",
                   d->tick, d->session, d->entity, d->offset);
            json_str(d->file);
            printf(",\"field\":");
            json_str(d->field);
            printf(",\"recorded\":");
            json_str(d->recorded);
            printf(",\"replayed\":");
            json_str(d->replayed);
            printf("}");
        } else if (rc != 0) {
            printf(",\"error\":");
            json_str(sweep_replay_error(r));
        } else if (strict_failed) {
            printf(",\"error\":");
            json_str(not_whole);
        }
        printf("}\n");
    } else if (d) {
        printf("%s (%s depth)\n", d->text, depth);
    } else if (rc != 0) {
        fprintf(stderr, "sweep-replay: %s (%s depth)\n", sweep_replay_error(r), depth);
    } else if (strict_failed) {
        printf("replay not whole (%s depth, --strict): %s: %s; every recorded bit up to there matched\n", depth, log,
               not_whole);
    } else {
        char what[160];
        if (flags & SWEEP_REPLAY_CORE)
            snprintf(what, sizeof what, "their results equal bit for bit to what the core computes, %" PRIu64
                     " refused moves skipped", st->refused);
        else
            snprintf(what, sizeof what, "%" PRIu64 " messages and %" PRIu64 " state hashes equal bit for bit",
                     st->outputs, st->hashes);
        printf("replay ok (%s depth): %s: %" PRIu64 " ticks, %" PRIu64 " sessions, %" PRIu64 " moves, %s (%u "
               "segment%s); %.0f moves/s%s\n",
               depth, log, st->ticks, st->sessions, st->moves, what, st->segments, st->segments == 1 ? "" : "s", mps,
               st->truncated ? "; the log ends in a torn frame (the server was killed): replayed to its last whole "
                               "frame"
               : st->ended ? ""
                           : "; the log has no END (the recording was cut short)");
    }
    sweep_replay_close(r);
    return status;
}
