/*
 * test_world_memory.c - where a world keeps its large arrays
 * (sweep__world_alloc, core/world.c): on Linux, an array of 1 MiB or more
 * (the triangles, the 4-wide tree, the prepared triangles of a large
 * world) starts on a 2 MiB boundary and is marked for transparent huge
 * pages, so that a move's reads all over it do not each walk the page
 * tables. The results do not depend on it (the walk hashes of
 * test_determinism and the goldens are the same either way); these tests
 * hold the layout itself.
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

#ifdef __linux__
/* This machine's transparent huge page mode: "[always]", "[madvise]"
 * (only mappings that ask are eligible) or "[never]" (none is, whatever
 * the process asks); "[never]" too where the file cannot be read. */
static const char *thp_mode(void)
{
    static const char *modes[] = {"[always]", "[madvise]", "[never]"};
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char line[128] = {0};
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = 0;
        fclose(f);
    }
    for (int i = 0; i < 2; i++)
        if (strstr(line, modes[i]))
            return modes[i];
    return modes[2];
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
#endif

/* 20,000 triangles: the triangles (80 bytes each) and the prepared
 * triangles (192) are over 1 MiB; the float boxes and planes are not. */
static void large_arrays_start_on_huge_pages(void **state)
{
    (void)state;
    sweep_world *w = generated_world(20000);
    assert_true(w->tri_count >= 14000);
    assert_true((size_t)w->tri_count * sizeof *w->tris >= HUGE_PAGE / 2);
    assert_true((size_t)w->tri_count * sizeof *w->prep >= HUGE_PAGE / 2);
#ifdef __linux__
    assert_int_equal((uintptr_t)w->tris % HUGE_PAGE, 0);
    assert_int_equal((uintptr_t)w->prep % HUGE_PAGE, 0);
    /* The world's count of its memory takes in the whole huge pages. */
    sweep_world_info info;
    sweep_world_get_info(w, &info);
    size_t n = w->tri_count, tris = n * sizeof *w->tris, prep = n * sizeof *w->prep;
    assert_true(info.bytes >= (tris + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE +
                                   (prep + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE +
                                   n * (sizeof *w->boxes + sizeof *w->planes));
    if (strcmp(thp_mode(), "[never]") == 0) {
        print_message("transparent huge pages are off on this machine: the hint is not checked\n");
    } else {
        /* The hint was given: the kernel may back the array with huge
         * pages. (Whether it did depends on its free memory.) */
        assert_int_equal(thp_eligible(w->prep), 1);
        assert_int_equal(thp_eligible(w->tris), 1);
    }
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
#ifdef __linux__
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
 * process makes thousands of worlds): under 1 MiB an array is plain
 * memory, which asks for no huge pages. */
static void small_worlds_take_what_they_need(void **state)
{
    (void)state;
    sweep_world *w = generated_world(1000);
    assert_true((size_t)w->tri_count * sizeof *w->prep < HUGE_PAGE / 2);
    assert_non_null(w->prep);
#ifdef __linux__
    if (strcmp(thp_mode(), "[madvise]") == 0)
        assert_int_equal(thp_eligible(w->prep), 0);
    else
        print_message("transparent huge pages are %s here, not [madvise]: who asked is not seen\n", thp_mode());
#endif
    sweep_world_destroy(w);
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
