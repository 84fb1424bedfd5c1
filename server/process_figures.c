/*
 * process_figures.c - the process's CPU, memory, descriptors and start
 * time (see process_figures.h).
 *
 * Sources, as proc(5) describes them: /proc/self/stat field 22 is the
 * start time in clock ticks after boot, and /proc/stat's btime the boot
 * time in seconds since the epoch; /proc/self/statm gives the sizes in
 * pages; /proc/self/fd lists the open descriptors (the directory's own,
 * opened to read it, is not counted).
 */
#include "server/process_figures.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int read_start(double *out)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    /* The command name (field 2) may hold spaces and parentheses: the
     * fields are counted from the last ')'. */
    char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    unsigned long long start = 0;
    int field = 2;
    char *save = NULL;
    for (char *tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
        if (++field == 22) {
            start = strtoull(tok, NULL, 10);
            break;
        }
    if (field != 22)
        return -1;
    f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    unsigned long long btime = 0;
    int found = 0;
    char line[256];
    while (!found && fgets(line, sizeof line, f))
        found = sscanf(line, "btime %llu", &btime) == 1;
    fclose(f);
    long hz = sysconf(_SC_CLK_TCK);
    if (!found || hz <= 0)
        return -1;
    *out = (double)btime + (double)start / (double)hz;
    return 0;
}

static int read_memory(uint64_t *resident, uint64_t *virt)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    unsigned long long size = 0, rss = 0;
    int ok = fscanf(f, "%llu %llu", &size, &rss) == 2;
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    if (!ok || page <= 0)
        return -1;
    *virt = size * (uint64_t)page;
    *resident = rss * (uint64_t)page;
    return 0;
}

static int count_fds(uint64_t *out)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    uint64_t n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    *out = n ? n - 1 : 0; /* the directory's own */
    return 0;
}

void sweep__process_figures_read(sweep__process_figures *f)
{
    memset(f, 0, sizeof *f);
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        f->cpu_seconds = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    f->have_memory = read_memory(&f->resident_bytes, &f->virtual_bytes) == 0;
    f->have_fds = count_fds(&f->open_fds) == 0;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        f->max_fds = (uint64_t)rl.rlim_cur;
        f->have_max_fds = 1;
    }
    f->have_start = read_start(&f->start_time_seconds) == 0;
}
