/*
 * test_realtime.c - sweepd --realtime PRIO against the real binary: its
 * event-loop threads run at SCHED_FIFO priority PRIO and every other
 * thread (a recording's writer, even one a real-time loop started for a
 * world opened at run time) at normal priority; and a priority the
 * process may not have stops the start, named, before anything listens.
 * Without --realtime a recording's writer keeps the policy sweepd was
 * started with: at SCHED_IDLE, without the right to change it, sweepd
 * still records. Threads' policies are read from /proc/PID/task/TID/stat (proc(5):
 * rt_priority and policy are its 40th and 41st fields).
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <pthread.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "tests/sweepd_fixture.h"
#include "tests/test_skip.h"

#define PRIO 5

/* Whether this process may run a thread at a real-time priority (root, or
 * CAP_SYS_NICE, or an RLIMIT_RTPRIO): tried on this thread, and undone. */
static int may_realtime(void)
{
    struct sched_param p = {.sched_priority = 1}, normal = {.sched_priority = 0};
    if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) != 0)
        return 0;
    pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
    return 1;
}

/* The policy and real-time priority of thread tid of process pid. */
static void policy_of(pid_t pid, const char *tid, int *policy, int *prio)
{
    char path[320], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/task/%s/stat", (int)pid, tid);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* Fields after the name, which ends at the last ')': the 3rd is the
     * first of them, so the 40th and 41st are its 38th and 39th. */
    char *at = strrchr(buf, ')');
    assert_non_null(at);
    at += 2;
    for (int k = 3; k < 40; k++) {
        at = strchr(at, ' ');
        assert_non_null(at);
        at++;
    }
    assert_int_equal(sscanf(at, "%d %d", prio, policy), 2);
}

/* How many threads of pid run at SCHED_FIFO PRIO, at normal priority, and
 * at anything else. */
static void count_policies(pid_t pid, int *fifo, int *normal, int *other)
{
    char tasks[64];
    snprintf(tasks, sizeof tasks, "/proc/%d/task", (int)pid);
    DIR *d = opendir(tasks);
    assert_non_null(d);
    *fifo = *normal = *other = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        int policy, prio;
        policy_of(pid, e->d_name, &policy, &prio);
        if (policy == SCHED_FIFO && prio == PRIO)
            ++*fifo;
        else if (policy == SCHED_OTHER && prio == 0)
            ++*normal;
        else
            ++*other;
    }
    closedir(d);
}

static void loops_run_at_the_priority_and_the_writers_do_not(void **state)
{
    (void)state;
    if (!may_realtime())
        skip_because("this process may not run threads at a real-time priority (no CAP_SYS_NICE, RLIMIT_RTPRIO 0); "
                     "sweepd's refusal there is the next test's");
    char dir[] = "/tmp/sweep-realtime-XXXXXX", maps[64], logs[64], cmd[2600];
    assert_non_null(mkdtemp(dir));
    snprintf(maps, sizeof maps, "%s/maps", dir);
    snprintf(logs, sizeof logs, "%s/logs", dir);
    fx_server srv;
    fx_paths(&srv);
    snprintf(cmd, sizeof cmd, "mkdir '%s' '%s' && cp '%s' '%s/extra.db'", maps, logs, srv.arena, maps);
    assert_int_equal(system(cmd), 0);
    /* Two loops, the arena's world recorded on the first; a world opened
     * at run time goes to the second, whose loop starts its writer. */
    const char *extra[] = {"--realtime", "5",  "--threads",    "2", "--maps-dir", maps,
                           "--record",   logs, FX_SERVER_ARGS, NULL};
    assert_int_equal(fx_start(&srv, extra), 0);
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.address = srv.tcp;
    o.auth_token = FX_TOKEN;
    sweep_client *gs;
    sweep_client_error e;
    assert_int_equal(sweep_client_connect(&o, &gs, &e), SWEEP_CLIENT_OK);
    sweep_client_world w;
    if (sweep_client_open_world(gs, "extra", "later", &w, &e) != SWEEP_CLIENT_OK)
        fail_msg("OpenWorld: %s: %s", sweep_client_error_name(&e), e.message);
    sweep_client_close(gs);
    /* The ready line comes before the loops run: each takes its priority
     * as it starts, and the run-time world's writer starts with its
     * recording, after its answer; so look until both loops have theirs
     * and both writers are there (four seconds at most: a loaded machine). */
    int fifo = 0, normal = 0, other = 0;
    for (int tries = 0; tries < 80 && (fifo != 2 || normal < 2); tries++) {
        if (tries)
            usleep(50000);
        count_policies(srv.pid, &fifo, &normal, &other);
    }
    assert_int_equal(fx_stop(&srv), 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    /* The two loops at PRIO; the two worlds' writers (and nothing else)
     * normal, the one a real-time loop started included. */
    if (fifo != 2 || normal < 2 || other != 0)
        fail_msg("threads at SCHED_FIFO %d: %d (want 2), normal: %d (want 2 or more), else: %d", PRIO, fifo, normal,
                 other);
}

static void a_priority_it_may_not_have_stops_the_start(void **state)
{
    (void)state;
    fx_server fx;
    fx_paths(&fx);
    char *out = NULL;
    int rc;
    /* Without CAP_SYS_NICE (root keeps its files, not that), or as this
     * process where it has none. */
    if (geteuid() == 0)
        rc = fx_run_program("/usr/bin/setpriv", &out,
                            "--bounding-set=-sys_nice --inh-caps=-sys_nice '%s' --map '%s' --listen 127.0.0.1:0 "
                            "--realtime 7",
                            fx.bin, fx.arena);
    else if (!may_realtime())
        rc = fx_run_program(fx.bin, &out, "--map '%s' --listen 127.0.0.1:0 --realtime 7", fx.arena);
    else
        skip_because("this process may run at a real-time priority without being root (an RLIMIT_RTPRIO): no "
                     "sweepd started from it would be refused");
    const char *want = "--realtime 7: the event loops cannot run at real-time priority: Operation not permitted";
    if (rc != 1 || !out || !strstr(out, want) || strstr(out, "sweepd ready"))
        fail_msg("exit %d, output: %s", rc, out ? out : "(none)");
    free(out);
}

/* sweepd started at SCHED_IDLE by a process without CAP_SYS_NICE (a batch
 * job's, a test machine's background run): its recording's writer starts
 * at the policy it inherits. Asking for SCHED_OTHER there, as a writer
 * started from a real-time loop must, is refused by the kernel, and sweepd
 * did not start. Run until its recording opens and it says it is ready
 * (at most 60 s: at SCHED_IDLE it runs only when nothing else wants the
 * CPUs, which a test run three at a time on two may not leave it for
 * several seconds), then SIGTERM (exit 0). The recording opens before
 * sweepd takes its signals: a SIGTERM sent then, on a loaded machine,
 * killed it (exit 143). */
static void a_recording_starts_at_the_policy_sweepd_inherits(void **state)
{
    (void)state;
    fx_server fx;
    fx_paths(&fx);
    char dir[] = "/tmp/sweep-idle-record-XXXXXX", cmd[3000];
    assert_non_null(mkdtemp(dir));
    const char *drop = geteuid() == 0 ? "/usr/bin/setpriv --bounding-set=-sys_nice --inh-caps=-sys_nice " : "";
    snprintf(cmd, sizeof cmd,
             "chrt -i 0 %s'%s' --map '%s' --listen 127.0.0.1:0 --record '%s' >'%s.out' 2>&1 & p=$!; i=0; "
             "while [ $i -lt 1200 ] && ! { grep -q event=record_open '%s.out' && grep -q 'sweepd ready' '%s.out'; }; "
             "do sleep 0.05; i=$((i + 1)); done; "
             "kill -TERM $p; wait $p; rc=$?; cat '%s.out'; rm -f '%s.out'; exit $rc",
             drop, fx.bin, fx.arena, dir, dir, dir, dir, dir, dir);
    char *out = NULL;
    int rc = fx_run(cmd, &out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    if (rc != 0 || !out || !strstr(out, "sweepd ready") || !strstr(out, "event=record_open"))
        fail_msg("exit %d, output: %s", rc, out ? out : "(none)");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loops_run_at_the_priority_and_the_writers_do_not),
        cmocka_unit_test(a_priority_it_may_not_have_stops_the_start),
        cmocka_unit_test(a_recording_starts_at_the_policy_sweepd_inherits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
