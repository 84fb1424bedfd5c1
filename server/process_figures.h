/*
 * process_figures.h - internal: what the operating system says of the
 * sweepd process, for the metrics endpoint's process_* series (the names
 * every Prometheus client library exports, so a fleet's dashboards work on
 * sweepd unchanged).
 *
 * Read on each scrape from /proc/self (Linux), getrusage and getrlimit:
 * a few small files, cheap next to a scrape's interval.
 */
#ifndef SWEEP_SERVER_PROCESS_FIGURES_H
#define SWEEP_SERVER_PROCESS_FIGURES_H

#include <stdint.h>

typedef struct sweep__process_figures {
    double cpu_seconds;        /* user and system time, all threads */
    uint64_t resident_bytes;   /* resident set size */
    uint64_t virtual_bytes;    /* address space size */
    uint64_t open_fds;         /* descriptors open now */
    uint64_t max_fds;          /* the soft limit on them (RLIMIT_NOFILE) */
    double start_time_seconds; /* when the process started, in seconds since the Unix epoch */
    /* Which of the above could be read (a figure not read is not exported). */
    unsigned have_memory : 1, have_fds : 1, have_max_fds : 1, have_start : 1;
} sweep__process_figures;

/* Fills *f with what can be read now; cpu_seconds is always there. */
void sweep__process_figures_read(sweep__process_figures *f);

#endif
