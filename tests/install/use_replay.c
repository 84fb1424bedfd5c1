/*
 * use_replay.c - a game's test replaying a session log through the
 * installed replay library (ISO C11, -pedantic-errors -Werror), built with
 * nothing but what the installed `pkg-config sweep-replay` says.
 *
 * usage: use_replay LOG MAP.db
 * Replays LOG on MAP at the full depth (every message and state hash
 * compared bit for bit) and prints one line of counts, which
 * test_install.sh compares with what the build's sweep-replay says of the
 * same log; exit status 1 with the divergence or the error otherwise.
 */
#include <inttypes.h>
#include <stdio.h>

#include <sweep/replay.h>

int main(int argc, char **argv)
{
    char err[512];
    sweep_replay *r;
    const sweep_replay_stats *st;
    int rc;

    if (argc != 3) {
        fprintf(stderr, "usage: use_replay LOG MAP.db\n");
        return 2;
    }
    r = sweep_replay_open(argv[1], argv[2], err, sizeof err);
    if (r == NULL) {
        fprintf(stderr, "use_replay: %s\n", err);
        return 1;
    }
    while ((rc = sweep_replay_step(r)) == 1)
        ;
    if (rc < 0) {
        const sweep_replay_divergence *d = sweep_replay_divergence_of(r);
        fprintf(stderr, "use_replay: %s\n", d != NULL ? d->text : sweep_replay_error(r));
        sweep_replay_close(r);
        return 1;
    }
    st = sweep_replay_stats_of(r);
    printf("ticks=%" PRIu64 " sessions=%" PRIu64 " requests=%" PRIu64 " moves=%" PRIu64 " messages=%" PRIu64
           " hashes=%" PRIu64 "\n",
           st->ticks, st->sessions, st->requests, st->moves, st->outputs, st->hashes);
    sweep_replay_close(r);
    return 0;
}
