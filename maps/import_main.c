/*
 * import_main.c - sweep-import: a 3D scene file (OBJ, glTF, FBX, ... via
 * libassimp) to a sweep map.
 *
 * The scene is converted by import_scene*.c (with its movers: animated
 * nodes marked by name or glTF extras, and those of a --movers file),
 * spawn points from a text file are added, the physics and movement rules
 * of a --rules file (read before the scene, so a bad one costs nothing)
 * replace the defaults, and the map is written by
 * writer.c, which loads it back before
 * publishing it under the output name: a file assimp cannot read, a scene
 * with nothing to import or any other failure leaves no output file.
 * A Quake 3 level (.bsp, or a .pk3's member) goes through import_bsp.c
 * instead of assimp, with Quake 3's rules as the defaults --rules replaces.
 * --sides and the material options say which scene meshes become
 * two-sided (import.h); a Quake 3 level has its own rule, since brushes
 * are solids and patches surfaces, so they are only warned about there.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/version.h"
#include "core/move.h"
#include "maps/content_hash.h"
#include "maps/import.h"
#include "maps/import_bsp.h"
#include "maps/level.h"
#include "maps/level_check.h"
#include "maps/loader.h"
#include "core/parse.h"
#include "maps/text_input.h"
#include "maps/writer.h"

static const char usage[] =
    "usage: sweep-import INPUT -o OUTPUT.db [options]\n"
    "       sweep-import --check MAP.db [--quiet]\n"
    "\n"
    "Converts a 3D scene (Wavefront OBJ, glTF 2.0 .gltf/.glb, FBX, COLLADA and\n"
    "the other formats libassimp reads) into a sweep map. Every triangle of\n"
    "every mesh becomes map geometry (a node's triangles on one plane, of one\n"
    "material and sharing edges merged into fewer that cover the same: a\n"
    "floor subdivided into a grid comes in as a few; --no-merge-faces keeps\n"
    "them as they are), each source material a map material (by name), and\n"
    "empty nodes named spawn* become spawn points. The files a scene names\n"
    "(a glTF's buffers, an OBJ's .mtl) are read only when they are regular\n"
    "files in the scene's folder or below it (links resolved); a scene\n"
    "naming any other is refused.\n"
    "\n"
    "Triangles are one-sided: a player collides with the face their winding\n"
    "points to (counter-clockwise seen from the front) and passes through from\n"
    "behind. A floor must face up and a wall into the room. Under a mirroring\n"
    "node (a negative scale) the winding is turned over, as glTF says, so that\n"
    "faces keep their fronts. A render mesh is often an open sheet (a floor\n"
    "plane, a terrain, a wall drawn from one side), through which a player would\n"
    "rise from below or walk out from behind, so by default (--sides auto) each\n"
    "mesh is checked after welding vertices at the same position: a closed mesh\n"
    "(every edge shared by exactly two of its triangles, running it in opposite\n"
    "directions: a watertight, consistently wound shell, whose inside no player\n"
    "reaches) stays one-sided, and an open one is made two-sided, each triangle\n"
    "getting a reversed twin, with a warning naming it and its boundary edges. A\n"
    "node's meshes are checked together (a file splits an object into one mesh\n"
    "per material); movers' meshes follow the same rules.\n"
    "`sweep-walk --map OUT --demo` on a map imported with --sides one shows\n"
    "walkers falling through a floor that faces down.\n"
    "\n"
    "  -o OUTPUT.db        the map to write; replaced only when the new one is complete\n"
    "  --up y|z            the file's up axis (default y, as glTF and most OBJ exports);\n"
    "                      y-up scenes are turned z up: (x, y, z) -> (x, -z, y)\n"
    "  --scale S           multiply coordinates by S (file units to map units, default 1)\n"
    "  --exclude NAME      leave out the node (with its children) or mesh named NAME;\n"
    "                      repeat for more names\n"
    "  --spawns FILE       spawn points, one 'x y z' line each (# comments allowed),\n"
    "                      in map coordinates (after --up and --scale)\n"
    "  --spawn-prefix P    empty nodes whose name starts with P (any case) become spawn\n"
    "                      points at their origin, the player's centre (default 'spawn';\n"
    "                      '' turns this off)\n"
    "  --movers FILE       movers (doors, lifts) made of named nodes or meshes, with their\n"
    "                      keys and rules, for files without animations (format below)\n"
    "  --mover-prefix P    nodes whose name starts with P (any case) are movers (default\n"
    "                      'mover_'; '' turns this off)\n"
    "  --volume-prefix P   nodes whose name starts with P (any case) are volumes (default\n"
    "                      'sweep_volume_'; '' turns this off)\n"
    "  --sides auto|one|two  auto (default): open meshes two-sided, closed ones\n"
    "                      one-sided; one: every triangle as wound (open meshes still\n"
    "                      warned about); two: every triangle with its reversed twin\n"
    "  --two-sided-material NAME   triangles of material NAME always get a twin,\n"
    "                      whatever --sides and their mesh say (glass, fences);\n"
    "                      repeat for more names\n"
    "  --one-sided-material NAME   triangles of material NAME never do, even in an\n"
    "                      open mesh (ground nobody reaches from below); repeatable\n"
    "  --rules FILE        the map's physics and movement rules, in map units (format\n"
    "                      below; default: the rules for metres)\n"
    "  --name NAME         the map's name (default: the input's file name)\n"
    "  --progress          show progress on stderr (default: only when stderr is a terminal)\n"
    "  --bsp MEMBER        a .pk3 INPUT's Quake 3 level to import (maps/NAME.bsp)\n"
    "  --list              list a .pk3 INPUT's Quake 3 levels, one a line, and stop\n"
    "  --keep-hidden-faces keep a Quake 3 level's brush faces that no one can touch\n"
    "  --no-merge-faces    keep every triangle as cut: a Quake 3 level's brush faces\n"
    "                      piece by piece, a scene's triangles as the file has them;\n"
    "                      by default pieces on one plane, facing one way, of one\n"
    "                      shader or material and sharing an edge are first merged\n"
    "                      into larger convex polygons (fewer triangles, the same\n"
    "                      surface); in a scene, those of one node (a subdivided\n"
    "                      floor or wall)\n"
    "  --patch-tolerance U how far (map units) a Quake 3 level's curved patches may be\n"
    "                      cut from their true surface (default 4; 0: the old fixed grid);\n"
    "                      a level's patches make at most 524288 triangles\n"
    "  --check             check the map INPUT (a sweep map) and write nothing: what\n"
    "                      a level check finds (below), one line each; exit status 0\n"
    "                      when it finds nothing, 1 when it finds something\n"
    "  --strict            an import that warns or whose level check finds something\n"
    "                      fails (exit status 1) and writes nothing\n"
    "  --no-check          no level check at import (it reads every triangle for each\n"
    "                      spawn point and mover pose: seconds on a level of a million)\n"
    "  --quiet             print nothing but errors, warnings and findings\n"
    "  --help              this text\n"
    "  --version           the release of sweep this tool belongs to\n"
    "\n"
    "Without --rules the map gets the default rules, for metres: z up, gravity\n"
    "9.81, player radii 0.4 0.4 0.9, step 0.35, walkable slope 45 degrees, 60\n"
    "ticks/s, walk 5 m/s, jump 5 m/s, speed limit 60 m/s. A scene in other units\n"
    "wants --scale to metres, or a --rules file in its units.\n"
    "\n"
    "Quake 3 levels (IBSP 46): INPUT.bsp, or INPUT.pk3 with --bsp maps/NAME.bsp\n"
    "(a .pk3 holding one level needs none). The collision hull is imported, not\n"
    "the render mesh: player-solid brushes as shells, curved patches as\n"
    "two-sided meshes; info_player_deathmatch/start become spawns (the player\n"
    "box's centre), func_door, func_button, func_plat, func_bobbing, func_train\n"
    "and func_rotating movers, func_static static geometry, trigger_push (aimed at\n"
    "its target as Quake 3 aims it, under the level's gravity), trigger_teleport (to\n"
    "its misc_teleporter_dest, lifted onto the floor if sunk into it; not a\n"
    "spectators' one, spawnflags 1), trigger_hurt\n"
    "(a dmg of 200 or more: kill; not one that starts off, spawnflags 1) and\n"
    "trigger_multiple (one that opens no door: a trigger named after its target)\n"
    "volumes, one per brush grown by the player box; world brushes of lava,\n"
    "slime or water contents liquid volumes (the brush itself; lava hurts 30 and\n"
    "slime 10 a second at each depth level), and each SURF_LADDER side of a world\n"
    "brush that faces across up a ladder volume (the brush grown by the player box\n"
    "and 1, cut at that side: a ladder is climbed from its face, not from\n"
    "behind). The map's units are\n"
    "'in' and its default rules Quake 3's: gravity 800 (or the worldspawn's),\n"
    "step 18, walkable slope acos(0.7), radii 15 15 28, walk 320, jump 270,\n"
    "air control 320 as Quake 3 adds it (air_move 1: the wish only adds speed\n"
    "along itself, so a pad's flight loses nothing the player does not steer\n"
    "away), crouching to radii 15 15 20 at 80, swim 160 at 640, drag 1, sinking\n"
    "60, the water jump 350, climbing 160 at 3200; --rules replaces them.\n"
    "Brushes are\n"
    "solids: their shells (less what lies in\n"
    "another brush) face out, one-sided; patches are surfaces, two-sided. --up,\n"
    "--scale, --exclude, --movers, the prefixes, --sides and the material options\n"
    "are for scenes and do not apply (see maps/import_bsp.h).\n"
    "\n"
    "Movers from the scene (glTF animations). A node named mover_NAME, or whose\n"
    "glTF extras hold \"sweep_mover\", becomes the mover NAME (the node's name\n"
    "without the prefix), with its subtree as its mesh and its animation channel\n"
    "(position and rotation keys, merged on one time line from time 0) as its\n"
    "path. Optional rules in the extras:\n"
    "  \"extras\": {\"sweep_mover\": {\"name\": \"lift\", \"mode\": \"pingpong\",\n"
    "      \"trigger\": \"volume\", \"blocked\": \"reverse\", \"wait_start\": 1,\n"
    "      \"wait_end\": 2, \"volume\": [x0, y0, z0, x1, y1, z1]}}\n"
    "mode once|loop|pingpong (default pingpong), trigger always|volume|touch|\n"
    "command (default always), blocked stop|reverse|crush (default stop), waits in\n"
    "seconds (default 0), volume a box in map coordinates. An animated node that\n"
    "is not a mover stays static geometry at its rest pose (with a warning). A\n"
    "map needs static geometry: a scene whose every triangle goes to movers is\n"
    "refused, naming them.\n"
    "\n"
    "Volumes from the scene (jump pads, teleporters, hurting and killing places,\n"
    "triggers: they act on a walking player's centre). A node named\n"
    "sweep_volume_KIND[_NAME] (KIND push, teleport, hurt, kill or trigger; liquid\n"
    "and ladder volumes come from Quake 3 levels), or whose glTF extras hold\n"
    "\"sweep_volume\", becomes a volume named after the rest of its name; its\n"
    "meshes are the volume's shell, not geometry, and must form one closed convex\n"
    "shell with its faces outward (a box, a wedge, any convex solid; an open,\n"
    "concave or inside-out mesh is refused, saying where). The\n"
    "shell bounds the player's centre: it is not grown by the player's radii.\n"
    "What the kind needs comes from the extras, in map units and axes (after --up\n"
    "and --scale):\n"
    "  \"extras\": {\"sweep_volume\": {\"kind\": \"push\", \"velocity\": [0, 3, 12]}}\n"
    "kind (over the name's), name, velocity (push: the launch velocity, required),\n"
    "destination (teleport: the new centre, required), facing (a unit vector,\n"
    "default [1, 0, 0]), exit_speed (default 0), keep_velocity (true or false,\n"
    "default false), damage (hurt: per second, required). A launch velocity and an\n"
    "exit speed must keep to the map's speed limit (60 under the default rules,\n"
    "or the speed_limit of --rules). A volume node inside a mover, or one that is\n"
    "also a mover, is refused.\n"
    "\n"
    "The --movers file: one statement a line, '#' comments, \"quoted\" names; all\n"
    "coordinates in map units and axes (after --up and --scale), as in --spawns:\n"
    "  mover NAME [RULE...]     start a mover; RULEs may also be lines of their own:\n"
    "    mode M | trigger T | blocked B | wait START END | volume X0 Y0 Z0 X1 Y1 Z1\n"
    "  mesh NAME [NAME...]      nodes (with their subtrees) or meshes forming it,\n"
    "                           taken out of the static geometry\n"
    "  pivot X Y Z              its local origin (default 0 0 0)\n"
    "  key T X Y Z QX QY QZ QW  at T seconds the pivot is at X Y Z, turned by the\n"
    "                           unit quaternion (QX QY QZ QW)\n"
    "  key T X Y Z axis AX AY AZ deg D   ... turned D degrees about the axis\n"
    "Keys start at 0 s and increase; a turn between two keys must be under 180\n"
    "degrees (the mover takes the shorter way between two keys; a key turning\n"
    "half a turn or more from the one before is refused: add keys in between).\n"
    "A block without mesh and key lines sets the rules of the scene's mover NAME.\n"
    "Example, a door swinging on a hinge at (4, 0, 0):\n"
    "  mover door trigger touch blocked reverse wait 0 3\n"
    "  mesh DoorPanel\n"
    "  pivot 4 0 0\n"
    "  key 0 4 0 0 axis 0 0 1 deg 0\n"
    "  key 1 4 0 0 axis 0 0 1 deg 90\n"
    "\n"
    "The level check, run on every imported level (its findings are warnings)\n"
    "and by --check, prints one line a finding: its kind, where, and what is wrong:\n"
    "  spawn-inside    a spawn point where a player (the map's radii) overlaps the\n"
    "                  level or a mover, or stands inside a mover or a solid\n"
    "  spawn-floating  a spawn point with no floor below it, or more than a\n"
    "                  player's height above the floor\n"
    "  inside-out      a closed shell wound inside-out (negative volume): players\n"
    "                  walk into it from outside (one sealed inside a solid, a\n"
    "                  hollow in brushwork, is only counted: nobody reaches it)\n"
    "  open-mesh       a nearly closed mesh with edges of one triangle that touch\n"
    "                  nothing else and lead into no other solid: a hole in\n"
    "                  something meant to be solid (edges of one triangle\n"
    "                  elsewhere, as at a level's sky, are counted)\n"
    "  mover-crosses   a mover whose path takes it through the level's geometry\n"
    "  teleport-blocked  a teleporter whose destination has no room for a player,\n"
    "                  lies inside a solid or a mover, or inside a teleporter\n"
    "The importer also warns of what it does not turn into anything (\"skipped:\n"
    "3 x target_speaker, 1 x shooter_rocket\"), of spawn nodes without a position\n"
    "of their own (an OBJ object) and of spawn-named nodes holding meshes.\n"
    "\n" SWEEP_MAP_RULES_HELP;

static int vfail(int code, const char *fmt, va_list ap)
{
    fputs("sweep-import: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    return code;
}

/* The import failed: exit status 1. */
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(1, fmt, ap);
    va_end(ap);
    return rc;
}

/* The command line is wrong: exit status 2, as every sweep tool. */
static int usage_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(2, fmt, ap);
    va_end(ap);
    return rc;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void convert_progress(void *ctx, uint32_t done, uint32_t total)
{
    (void)ctx;
    fprintf(stderr, "\rsweep-import: converting mesh %u of %u", done, total);
    if (done == total)
        fputc('\n', stderr);
    fflush(stderr);
}

/* --list: the .bsp members of a .pk3, one a line. */
static int list_levels(const char *pk3)
{
    char **names, err[1024];
    uint32_t count;
    if (!sweep_bsp_list(pk3, &names, &count, err, sizeof err))
        return fail("%s", err);
    for (uint32_t i = 0; i < count; i++)
        puts(names[i]);
    sweep_bsp_list_free(names, count);
    return 0;
}

/* Warnings given, for --strict. */
static unsigned warnings;

static void scene_warning(void *ctx, const char *msg)
{
    fprintf(stderr, "sweep-import: %s: warning: %s\n", (const char *)ctx, msg);
    warnings++;
}

static void bsp_warning(void *ctx, const char *msg)
{
    fprintf(stderr, "sweep-import: %s: warning: %s\n", (const char *)ctx, msg);
    warnings++;
}

/* A warning of the import as a whole (an option that matched nothing). */
static void warnf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("sweep-import: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    warnings++;
}

/* Where a level check's findings go: stdout for --check, warnings at
 * import. */
typedef struct check_out {
    const char *label;
    int as_warnings;
} check_out;

static void print_finding(void *ctx, const sweep_check_finding *f)
{
    const check_out *o = ctx;
    fprintf(o->as_warnings ? stderr : stdout, "sweep-import: %s: %s%s at (%g, %g, %g): %s\n", o->label,
            o->as_warnings ? "warning: " : "", sweep_check_kind_name(f->kind), f->at.x, f->at.y, f->at.z, f->text);
}

/* Runs the level check on lv, printing its findings; the summary line too
 * unless quiet. The number of findings, or -1 (with a message) when the
 * check could not run. */
static long check_level(const sweep_level *lv, const char *label, int as_warnings, int quiet)
{
    char err[1024];
    check_out o = {label, as_warnings};
    sweep_check_summary sum;
    if (sweep_level_check(lv, print_finding, &o, &sum, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "sweep-import: %s: %s\n", label, err);
        return -1;
    }
    if (!quiet) {
        char kinds[256] = "";
        size_t n = 0;
        for (int k = 0; k < SWEEP_CHECK_KIND_COUNT; k++)
            if (sum.by_kind[k] && n < sizeof kinds)
                n += (size_t)snprintf(kinds + n, sizeof kinds - n, "%s%u %s", n ? ", " : " (", sum.by_kind[k],
                                      sweep_check_kind_name((sweep_check_kind)k));
        if (n && n < sizeof kinds)
            snprintf(kinds + n, sizeof kinds - n, ")");
        char open[160] = "";
        if (sum.one_sided_edges)
            snprintf(open, sizeof open, ", the first at (%g, %g, %g)", sum.one_sided_at.x, sum.one_sided_at.y,
                     sum.one_sided_at.z);
        char pockets[96] = "";
        if (sum.pockets)
            snprintf(pockets, sizeof pockets, ", %u of them pocket%s sealed inside solids", sum.pockets,
                     sum.pockets == 1 ? "" : "s");
        printf("sweep-import: checked %s: %u triangles, %u spawns, %u movers: %u finding%s%s; %u meshes (%u closed "
               "shells%s), %u edges of one triangle (open surfaces: floors, a sky)%s\n",
               label, lv->triangle_count, lv->spawn_count, lv->mover_count, sum.findings,
               sum.findings == 1 ? "" : "s", kinds, sum.meshes, sum.shells, pockets, sum.one_sided_edges, open);
    }
    return sum.findings;
}

/* --check: the map at path, loaded as a server loads it, then checked. */
static int check_map(const char *path, int quiet)
{
    sweep_level lv;
    char err[1024];
    if (sweep_map_load(path, &lv, NULL, err, sizeof err) != SWEEP_OK)
        return fail("%s: %s", path, err);
    long n = check_level(&lv, path, 0, quiet);
    sweep_level_free(&lv);
    return n == 0 ? 0 : 1;
}

/* A Quake 3 level into lv, its rules (Quake 3's, then the --rules file's)
 * into values; *seconds is how long the import itself took. */
static sweep_status import_bsp_level(const char *in, const char *member, int keep_hidden, int no_merge,
                                     double patch_tolerance, const char *rules, sweep_level *lv, sweep_bsp_stats *st, sweep_map_values *values,
                                     double *seconds, char *err, size_t errlen)
{
    sweep_bsp_options bo = {member, bsp_warning, (void *)in, keep_hidden, patch_tolerance, no_merge};
    double t = now_s();
    sweep_status r = sweep_import_bsp(in, &bo, lv, st, err, errlen);
    *seconds = now_s() - t;
    if (r != SWEEP_OK)
        return r;
    sweep_map_values_of(lv, st->walkable_slope_deg, values);
    if (rules && !sweep_map_read_rules(rules, values, err, errlen)) {
        sweep_level_free(lv);
        return SWEEP_E_CONFIG;
    }
    return SWEEP_OK;
}

int main(int argc, char **argv)
{
    enum { O_UP = 256, O_SCALE, O_EXCLUDE, O_SPAWNS, O_PREFIX, O_MOVERS, O_MOVER_PREFIX, O_NAME, O_PROGRESS,
           O_QUIET, O_HELP, O_VERSION, O_RULES, O_BSP, O_LIST, O_SIDES, O_TWO_SIDED, O_ONE_SIDED, O_KEEP_HIDDEN,
           O_PATCH_TOLERANCE, O_NO_MERGE, O_CHECK, O_STRICT, O_NO_CHECK, O_VOLUME_PREFIX };
    static const struct option longopts[] = {
        {"up", 1, 0, O_UP},         {"scale", 1, 0, O_SCALE},          {"exclude", 1, 0, O_EXCLUDE},
        {"spawns", 1, 0, O_SPAWNS}, {"spawn-prefix", 1, 0, O_PREFIX},  {"name", 1, 0, O_NAME},
        {"movers", 1, 0, O_MOVERS}, {"mover-prefix", 1, 0, O_MOVER_PREFIX},
        {"progress", 0, 0, O_PROGRESS}, {"quiet", 0, 0, O_QUIET},      {"help", 0, 0, O_HELP}, {"version", 0, 0, O_VERSION},
        {"output", 1, 0, 'o'},      {"rules", 1, 0, O_RULES},          {"bsp", 1, 0, O_BSP},
        {"keep-hidden-faces", 0, 0, O_KEEP_HIDDEN}, {"no-merge-faces", 0, 0, O_NO_MERGE},
        {"list", 0, 0, O_LIST},     {"sides", 1, 0, O_SIDES},          {"two-sided-material", 1, 0, O_TWO_SIDED},
        {"one-sided-material", 1, 0, O_ONE_SIDED}, {"patch-tolerance", 1, 0, O_PATCH_TOLERANCE},
        {"check", 0, 0, O_CHECK},   {"strict", 0, 0, O_STRICT},        {"no-check", 0, 0, O_NO_CHECK},
        {"volume-prefix", 1, 0, O_VOLUME_PREFIX},
        {0, 0, 0, 0}};
    sweep_import_options io = {.up_axis_y = 1, .scale = 1.0, .spawn_prefix = "spawn", .mover_prefix = "mover_",
                               .volume_prefix = "sweep_volume_"};
    /* On the stack, so that no early exit leaks it (argv bounds its size). */
    const char *exclude[argc + 1], *two_sided[argc + 1], *one_sided[argc + 1];
    int sides_given = 0;
    double patch_tolerance = 0.0; /* the importer's default */
    const char *out = NULL, *spawns = NULL, *name = NULL, *rules = NULL, *bsp_member = NULL;
    int keep_hidden = 0, no_merge = 0;
    int progress = isatty(2), quiet = 0, list = 0, check = 0, strict = 0, no_check = 0, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
        switch (c) {
        case O_UP:
            if (strcmp(optarg, "y") == 0 || strcmp(optarg, "Y") == 0)
                io.up_axis_y = 1;
            else if (strcmp(optarg, "z") == 0 || strcmp(optarg, "Z") == 0)
                io.up_axis_y = 0;
            else
                return usage_fail("--up wants y or z, got '%s'", optarg);
            break;
        case O_SCALE:
            if (!sweep_parse_double(optarg, 0.0, 1e12, &io.scale) || !(io.scale > 0.0 && io.scale < 1e12))
                return usage_fail("--scale wants a positive number, got '%s'", optarg);
            break;
        case O_EXCLUDE:
            exclude[io.exclude_count++] = optarg;
            break;
        case O_SIDES:
            if (strcmp(optarg, "auto") == 0)
                io.sides = SWEEP_SIDES_AUTO;
            else if (strcmp(optarg, "one") == 0)
                io.sides = SWEEP_SIDES_ONE;
            else if (strcmp(optarg, "two") == 0)
                io.sides = SWEEP_SIDES_TWO;
            else
                return usage_fail("--sides wants auto, one or two, got '%s'", optarg);
            sides_given = 1;
            break;
        case O_TWO_SIDED:
            two_sided[io.two_sided_count++] = optarg;
            break;
        case O_ONE_SIDED:
            one_sided[io.one_sided_count++] = optarg;
            break;
        case O_SPAWNS:
            spawns = optarg;
            break;
        case O_PREFIX:
            io.spawn_prefix = optarg;
            break;
        case O_MOVERS:
            io.movers_path = optarg;
            break;
        case O_MOVER_PREFIX:
            io.mover_prefix = optarg;
            break;
        case O_VOLUME_PREFIX:
            io.volume_prefix = optarg;
            break;
        case O_NAME:
            name = optarg;
            break;
        case O_RULES:
            rules = optarg;
            break;
        case O_BSP:
            bsp_member = optarg;
            break;
        case O_KEEP_HIDDEN:
            keep_hidden = 1;
            break;
        case O_NO_MERGE:
            no_merge = 1;
            break;
        case O_PATCH_TOLERANCE:
            if (!sweep_parse_double(optarg, 0.0, 1e6, &patch_tolerance))
                return usage_fail("--patch-tolerance wants a number of units from 0 to 1e6, got '%s'", optarg);
            if (patch_tolerance == 0.0)
                patch_tolerance = SWEEP_BSP_PATCH_FIXED;
            break;
        case O_LIST:
            list = 1;
            break;
        case O_CHECK:
            check = 1;
            break;
        case O_STRICT:
            strict = 1;
            break;
        case O_NO_CHECK:
            no_check = 1;
            break;
        case O_PROGRESS:
            progress = 1;
            break;
        case O_QUIET:
            quiet = 1;
            progress = 0;
            break;
        case 'o':
            out = optarg;
            break;
        case O_VERSION:
            printf("sweep-import %s\n", SWEEP_VERSION);
            return 0;
        case O_HELP:
            fputs(usage, stdout);
            return 0;
        default:
            return usage_fail("unknown option or missing value in '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return usage_fail("no INPUT file (see --help)");
    if (optind + 1 < argc)
        return usage_fail("one INPUT file only; unexpected '%s'", argv[optind + 1]);
    if (list)
        return list_levels(argv[optind]);
    if (check && out)
        return usage_fail("--check reads a map and writes nothing; -o is for an import");
    if (check)
        return check_map(argv[optind], quiet);
    if (!out || !*out)
        return usage_fail("-o OUTPUT.db is required (see --help)");
    const char *in = argv[optind];
    io.exclude = exclude;
    io.no_merge_faces = no_merge;
    io.two_sided_materials = two_sided;
    io.one_sided_materials = one_sided;
    io.warning = scene_warning;
    io.warning_ctx = (void *)in;
    if (progress)
        io.progress = convert_progress;

    /* The importer leaves sweep_level_init's rules alone (metres, 45
     * degrees): the file is read against those, before the scene. */
    const double default_slope_deg = 45.0;
    sweep_map_values values;
    char err[1024];
    sweep_level lv;
    sweep_level_init(&lv);
    /* A Quake 3 level's file is read against Quake 3's rules (and again
     * after the level, against the level's own gravity and height). */
    const int bsp = bsp_member || sweep_bsp_is_input(in);
    if (bsp && (sides_given || io.two_sided_count || io.one_sided_count))
        fprintf(stderr, "sweep-import: warning: --sides and the material options are for scenes; a Quake 3 level "
                        "keeps its own rule (brushes one-sided, patches two-sided)\n");
    if (!bsp && keep_hidden)
        fprintf(stderr, "sweep-import: warning: --keep-hidden-faces is for Quake 3 levels; a scene's faces are all kept\n");
    double slope_deg = bsp ? sweep_bsp_rules(&lv, 800.0, 0.0) : default_slope_deg;
    sweep_map_values_of(&lv, slope_deg, &values);
    if (rules && !sweep_map_read_rules(rules, &values, err, sizeof err))
        return fail("%s", err);
    io.speed_limit = values.rules.speed_limit;

    double t0 = now_s();
    if (progress)
        fprintf(stderr, "sweep-import: reading %s\n", in);
    sweep_import_stats stats = {0};
    sweep_bsp_stats bstats;
    double bsp_seconds = 0.0;
    if (bsp && import_bsp_level(in, bsp_member, keep_hidden, no_merge, patch_tolerance, rules, &lv, &bstats, &values,
                                &bsp_seconds, err, sizeof err) !=
                   SWEEP_OK)
        return fail("%s", err);
    if (!bsp && sweep_import_scene(in, &io, &lv, &stats, err, sizeof err) != SWEEP_OK)
        return fail("%s: %s", in, err);
    sweep_map_apply_values(&values, &lv);
    /* A Quake 3 level's pads are set below its own speed limit; a --rules
     * limit under one of them is said here, naming the pad and both
     * speeds, not by the loader once the map is written. */
    for (uint32_t i = 0; bsp && i < lv.volume_count; i++) {
        const sweep_volume *v = &lv.volumes[i].v;
        const double limit = lv.rules.speed_limit, speed = sweep_volume_speed(v);
        if (!(speed <= limit))
            return fail("%s: volume %u '%s' (%s): its %s speed %g is above the map's speed limit %g (speed_limit of "
                        "--rules)",
                        in, lv.volumes[i].id, lv.volumes[i].name, sweep_volume_kind_name(v->kind),
                        v->kind == SWEEP_VOLUME_PUSH ? "launch" : "exit", speed, limit);
    }
    for (size_t i = 0; i < io.exclude_count && i < 64; i++)
        if (!(stats.exclude_matched >> i & 1))
            warnf("--exclude '%s' matched no node or mesh", exclude[i]);
    for (size_t i = 0; !bsp && i < io.two_sided_count && i < 64; i++)
        if (!(stats.two_sided_matched >> i & 1))
            warnf("--two-sided-material '%s' matched no material of the imported meshes", two_sided[i]);
    for (size_t i = 0; !bsp && i < io.one_sided_count && i < 64; i++)
        if (!(stats.one_sided_matched >> i & 1))
            warnf("--one-sided-material '%s' matched no material of the imported meshes", one_sided[i]);
    if (stats.animated_static)
        warnf("%u animated node%s no mover, kept at rest (name a node %s* or give it sweep_mover extras to make "
              "it a mover)",
                stats.animated_static, stats.animated_static == 1 ? " is" : "s are",
                io.mover_prefix && *io.mover_prefix ? io.mover_prefix : "mover_");
    if (stats.channels_ignored)
        warnf("%u more animation channel%s of mover nodes ignored (a mover follows the first channel of its node)",
                stats.channels_ignored, stats.channels_ignored == 1 ? "" : "s");

    /* Name: --name, else the input's file name without its extension. */
    const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
    if (!name && bsp) {
        /* the BSP importer named it after the level, not the .pk3 */
    } else if (!name) {
        size_t len = strcspn(base, ".");
        if (len == 0)
            len = strlen(base);
        if (len >= sizeof lv.name)
            len = sizeof lv.name - 1; /* only a label: shortened, not refused */
        memcpy(lv.name, base, len);
        lv.name[len] = '\0';
    } else if (!*name || strlen(name) >= sizeof lv.name) {
        sweep_level_free(&lv);
        return usage_fail("--name must be 1 to %zu bytes", sizeof lv.name - 1);
    } else {
        snprintf(lv.name, sizeof lv.name, "%s", name);
    }
    uint32_t node_spawns = lv.spawn_count;
    if (spawns) {
        sweep_vec3 *pts = NULL;
        uint32_t n = 0;
        int ok = sweep_read_points(spawns, lv.config.max_coordinate, &pts, &n, err, sizeof err);
        for (uint32_t i = 0; ok && i < n; i++)
            if (sweep_level_add_spawn(&lv, pts[i]) != SWEEP_OK)
                ok = 0, snprintf(err, sizeof err, "out of memory");
        free(pts);
        if (!ok) {
            sweep_level_free(&lv);
            return fail("%s", err);
        }
    }

    /* The level check, on the level as it will be written. */
    char label[2048];
    snprintf(label, sizeof label, "%s%s%s", in, bsp_member ? ":" : "", bsp_member ? bsp_member : "");
    long findings = no_check ? 0 : check_level(&lv, label, 1, quiet);
    if (findings < 0) {
        sweep_level_free(&lv);
        return 1;
    }
    if (strict && (findings || warnings)) {
        sweep_level_free(&lv);
        return fail("--strict: %u warning%s and %ld finding%s of the level check; %s was not written", warnings,
                    warnings == 1 ? "" : "s", findings, findings == 1 ? "" : "s", out);
    }

    sweep_map_write_options wo = {bsp ? "in" : "m", values.walkable_slope_deg,
                                  progress ? sweep_map_progress_stderr : NULL, "sweep-import",
                                  sweep_map_write_stop_on_signals()};
    sweep_map_write_result res;
    sweep_status st = sweep_map_write(out, &lv, &wo, &res, err, sizeof err);
    uint32_t spawn_total = lv.spawn_count, volume_total = lv.volume_count;
    sweep_level_free(&lv);
    if (st != SWEEP_OK && *wo.cancel) {
        fprintf(stderr, "sweep-import: interrupted; %s was not written\n", out);
        return 130;
    }
    if (st != SWEEP_OK)
        return fail("%s: %s", out, err);
    if (!quiet && bsp) {
        char hex[2 * SWEEP_SHA256_SIZE + 1];
        sweep_content_hash_hex(&res.hash, hex);
        printf("sweep-import: imported %s%s%s: %u triangles (%u from %u patches, %u degenerate dropped, %u fewer for hidden faces%s, %u fewer for merged faces%s), %u of %u "
               "world brushes solid (%u without volume), %u static models, %u materials, %u spawns, %u movers (%u "
               "triangles), %u volumes (%u jump pads, %u teleporters, %u hurt, %u kill, %u trigger, %u liquid, "
               "%u ladder), %u warnings; import %.1f ms, "
               "%.2f s in all\n",
               in, bsp_member ? ":" : "", bsp_member ? bsp_member : "", res.triangle_count, bstats.patch_triangles,
               bstats.patches, bstats.degenerate_dropped, bstats.hidden_dropped, keep_hidden ? ", kept" : "", bstats.merge_dropped,
               keep_hidden || no_merge ? ", off" : "", bstats.brushes_solid, bstats.brushes, bstats.brushes_empty,
               bstats.static_models, bstats.materials, spawn_total, bstats.movers, bstats.mover_triangles,
               volume_total, bstats.jump_pads, bstats.teleporters, bstats.hurts, bstats.kills, bstats.triggers, bstats.liquids, bstats.ladders, bstats.warnings, bsp_seconds * 1e3, now_s() - t0);
        printf("sweep-import: wrote %s, content hash %s\n", out, hex);
    } else if (!quiet) {
        char hex[2 * SWEEP_SHA256_SIZE + 1];
        sweep_content_hash_hex(&res.hash, hex);
        printf("sweep-import: imported %s: %u meshes (%u excluded), %u materials, %u triangles "
               "(%u degenerate dropped, %u points/lines skipped), %u spawns (%u from nodes), "
               "%u volumes, %u movers (",
               in, stats.meshes, stats.meshes_excluded, stats.materials, res.triangle_count,
               stats.degenerate_dropped, stats.other_faces_skipped, spawn_total, node_spawns, stats.volumes,
               stats.movers);
        if (io.movers_path)
            printf("%u from %s, ", stats.movers_from_file, io.movers_path);
        printf("%u triangles); %u triangles fewer for merged faces%s; ", stats.mover_triangles, stats.merge_dropped,
               no_merge ? " (off)" : "");
        /* The twins are counted in the triangles above. */
        if (io.sides == SWEEP_SIDES_TWO)
            printf("sides two: ");
        else
            printf("sides %s: %u open mesh%s %s, ", io.sides == SWEEP_SIDES_AUTO ? "auto" : "one", stats.meshes_open,
                   stats.meshes_open == 1 ? "" : "es",
                   io.sides == SWEEP_SIDES_AUTO ? "made two-sided" : "kept one-sided");
        printf("%u reversed twin%s; %.2f s\n", stats.twins, stats.twins == 1 ? "" : "s", now_s() - t0);
        printf("sweep-import: wrote %s, content hash %s\n", out, hex);
    }
    return 0;
}
