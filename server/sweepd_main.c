/*
 * sweepd_main.c - the sweepd program: parse the command line, create the
 * server (server/server.h), run it until SIGTERM/SIGINT, exit 0 after a
 * clean shutdown. Everything else lives in the library so tests can embed it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "server/server.h"

int main(int argc, char **argv)
{
    sweep_server_options opt;
    char err[1024];
    sweep_server_options_default(&opt);
    int rc = sweep_server_options_parse(&opt, argc, argv, stdout, err, sizeof err);
    if (rc == SWEEP_OPTIONS_EXIT)
        return 0;
    if (rc != SWEEP_OPTIONS_OK || sweep_server_options_check(&opt, err, sizeof err) != SWEEP_OPTIONS_OK) {
        fprintf(stderr, "sweepd: %s\n", err);
        return 2;
    }
    sweep_server *s = sweep_server_create(&opt, err, sizeof err);
    if (!s) {
        fprintf(stderr, "sweepd: %s\n", err);
        return 1;
    }
    rc = sweep_server_run(s);
    sweep_server_destroy(s);
    return rc;
}
