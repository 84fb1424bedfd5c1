/*
 * sweepd_main.c - the sweepd program: parse the command line, create the
 * server (server/server.h), run it until SIGTERM/SIGINT, exit 0 after a
 * clean shutdown. Option errors are plain text (a usage error, exit 2);
 * from there on every line is logfmt. Everything else lives in the library so tests can embed it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/server.h"
#include "server/world/log.h"

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
        /* Past the options, the server speaks logfmt from its first line:
         * a map that does not load or an address in use is one more event. */
        char quoted[sizeof err + 64];
        sweep__log(SWEEP_LOG_ERROR, "start_failed", "error=%s",
                   sweep__log_quote(err, strlen(err), quoted, sizeof quoted));
        return 1;
    }
    rc = sweep_server_run(s);
    sweep_server_destroy(s);
    return rc;
}
