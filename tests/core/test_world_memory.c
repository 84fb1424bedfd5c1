/*
 * test_world_memory.c - where a world keeps its large arrays
 * (sweep__world_alloc, core/world.c): on Linux, an array of 1 MiB or more
 * (the triangles, the 4-wide tree, the prepared triangles of a large
 * world) is mapped on its own, starts on a 2 MiB boundary and is marked
 * for transparent huge pages, so that loading a map faults in a huge page
 * where it faulted in 512 small ones; a smaller one is plain heap memory,
 * and no heap memory is ever marked. The results do not depend on any of it (the
 * walk hashes of test_determinism and the goldens are the same either
 * way); these tests hold the layout itself.
 *
 * Whether a mapping may get huge pages is read from /proc/self/smaps
 * (THPeligible). That says something only where the kernel would give
 * them to a mapping that asks (the machine's mode "madvise", 2 MiB huge
 * pages, not switched off for this process); elsewhere the tests say so
 * and check the rest.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/world.h"
#include "core/world_impl.h"
#include "maps/levelgen.h"

#if SWEEP__WORLD_MAPPED
#include <sys/prctl.h>
#endif

#define HUGE_PAGE ((uintptr_t)2 << 20)

static sweep_world *generated_world(uint32_t triangles)
{
    sweep_levelgen_params gp = {.seed = 7, .target_triangles = triangles, .spawn_count = 4, .mover_count = 0};
    sweep_level lv;
    sweep_level_init(&lv);
    assert_int_equal(sweep_levelgen(&gp, &lv), SWEEP_OK);
    sweep_world_desc d = sweep_level_world_desc(&lv);
    sweep_world *w = NULL;
    assert_int_equal(sweep_world_create(&d, &w), SWEEP_OK);
    sweep_level_free(&lv);
    assert_int_equal(sweep_world_prepare_radii(w, sweep_v3(0.4, 0.4, 0.9)), SWEEP_OK);
    return w;
}

#if SWEEP__WORLD_MAPPED
/* The first line of a sysfs file, or "" where it cannot be read. */
static void first_line(const char *path, char *line, size_t cap)
{
    FILE *f = fopen(path, "r");
    line[0] = 0;
    if (f) {
        if (!fgets(line, (int)cap, f))
            line[0] = 0;
        fclose(f);
    }
}

/* Does THPeligible tell who asked for huge pages here? Only when the
 * kernel gives them to the mappings that ask and to no other: the mode
 * "[madvise]", 2 MiB huge pages (a per-size switch, where there is one,
 * not "[never]"), and huge pages not switched off for this process. NULL
 * if so, else why not. */
static const char *eligibility_unseen(void)
{
    char line[256];
    first_line("/sys/kernel/mm/transparent_hugepage/enabled", line, sizeof line);
    if (!strstr(line, "[madvise]"))
        return "the machine's huge page mode is not [madvise]";
    first_line("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", line, sizeof line);
    if (strtoull(line, NULL, 10) != HUGE_PAGE)
        return "the machine's huge pages are not 2 MiB";
    first_line("/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled", line, sizeof line);
    if (strstr(line, "[never]"))
        return "2 MiB huge pages are switched off";
    if (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) != 0)
        return "huge pages are switched off for this process";
    return NULL;
}

/* The THPeligible line of the mapping of this process that holds p: 1 or
 * 0, or -1 when /proc/self/smaps has no such mapping or line. */
static int thp_eligible(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    int in = 0, answer = -1;
    uintptr_t at = (uintptr_t)p;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = at >= lo && at < hi;
            continue;
        }
        int v;
        if (in && sscanf(line, "THPeligible: %d", &v) == 1) {
            answer = v;
            break;
        }
    }
    fclose(f);
    return answer;
}

/* Is p's mapping marked for huge pages (1) or not (0)? -1, with the reason
 * told, where this machine does not show it. */
static int marked(const void *p)
{
    const char *why = eligibility_unseen();
    int e = why ? -1 : thp_eligible(p);
    if (e < 0)
        print_message("who asked for huge pages is not seen here: %s\n", why ? why : "no THPeligible line");
    return e;
}
#endif

/* 20,000 triangles: the triangles (80 bytes each) and the prepared
 * triangles (200) are over 1 MiB; the float boxes and planes are not. */
static void large_arrays_start_on_huge_pages(void **state)
{
    (void)state;
    sweep_world *w = generated_world(20000);
    assert_true(w->tri_count >= 14000);
    assert_true((size_t)w->tri_count * sizeof *w->tris >= HUGE_PAGE / 2);
    assert_true((size_t)w->tri_count * sizeof *w->prep >= HUGE_PAGE / 2);
#if SWEEP__WORLD_MAPPED
    assert_int_equal((uintptr_t)w->tris % HUGE_PAGE, 0);
    assert_int_equal((uintptr_t)w->prep % HUGE_PAGE, 0);
    /* The world's count of its memory takes in the whole huge pages. */
    sweep_world_info info;
    sweep_world_get_info(w, &info);
    size_t n = w->tri_count, tris = n * sizeof *w->tris, prep = n * sizeof *w->prep;
    assert_true(info.bytes >= (tris + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE +
                                   (prep + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE +
                                   n * (sizeof *w->boxes + sizeof *w->planes));
    int e = marked(w->prep);
    if (e >= 0) {
        assert_int_equal(e, 1);
        assert_int_equal(marked(w->tris), 1);
    }
#else
    print_message("no huge pages in this build (not Linux, or AddressSanitizer's)\n");
#endif
    sweep_world_destroy(w);
}

/* Preparing again for other radii replaces the array by one laid out the
 * same way, and the arrays still read as the triangles they hold. */
static void prepared_again_is_laid_out_again(void **state)
{
    (void)state;
    sweep_world *w = generated_world(20000);
    assert_int_equal(sweep_world_prepare_radii(w, sweep_v3(0.5, 0.5, 1.0)), SWEEP_OK);
#if SWEEP__WORLD_MAPPED
    assert_int_equal((uintptr_t)w->prep % HUGE_PAGE, 0);
#endif
    sweep_vec3 inv = sweep__inverse_radii(sweep_v3(0.5, 0.5, 1.0));
    for (uint32_t i = 0; i < w->tri_count; i += 997) {
        sweep__tri_prep p;
        sweep__tri_prepare_espace(&w->tris[i], inv, &p);
        /* Every field's bits; the bytes after `sharp` are padding. */
        assert_memory_equal(&p, &w->prep[i], offsetof(sweep__tri_prep, sharp));
        assert_int_equal(p.sharp, w->prep[i].sharp);
    }
    sweep_world_destroy(w);
}

/* A small world's arrays are not rounded up to 2 MiB each (a test
 * process makes thousands of worlds): under 1 MiB an array is plain heap
 * memory. And the heap is never marked for huge pages, not even where a
 * large world's arrays lay before: each round here makes and frees two
 * large worlds first, as glibc would have served them from the heap. */
static void small_worlds_take_what_they_need(void **state)
{
    (void)state;
    for (int round = 0; round < 3; round++) {
        for (int k = 0; k < 2; k++)
            sweep_world_destroy(generated_world(20000));
        sweep_world *w = generated_world(1000);
        assert_true((size_t)w->tri_count * sizeof *w->prep < HUGE_PAGE / 2);
        assert_non_null(w->prep);
#if SWEEP__WORLD_MAPPED
        int e = marked(w->prep);
        if (e >= 0)
            assert_int_equal(e, 0);
        e = marked(w->tris);
        if (e >= 0)
            assert_int_equal(e, 0);
#endif
        sweep_world_destroy(w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(large_arrays_start_on_huge_pages),
        cmocka_unit_test(prepared_again_is_laid_out_again),
        cmocka_unit_test(small_worlds_take_what_they_need),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
