-- arena.sql - the sample arena: one of each thing collide-and-slide must get
-- right, at known coordinates, for tests, `make run` and demos.
--
-- This file holds the rows of a map in the format of maps/schema.sql. make
-- builds it into $(BUILD)/maps/arena.db by running schema.sql and then this
-- file through the sqlite3 shell in one transaction. The geometry is written
-- as solid boxes and single faces in temporary tables (one line per piece,
-- so a change shows as a one-line diff) and expanded into vertices and
-- triangles by the statements at the end.
--
-- Units are metres, z is up, gravity (0, 0, -9.81), 60 ticks/s, player
-- radii (0.4, 0.4, 0.9) (0.8 wide, 1.8 tall), step height 0.35, walkable
-- slope 45 degrees. The floor is z = 0; a player standing on it has its
-- centre at z = 0.9.
--
-- Movement rules (the defaults for metres, written out so that a reader
-- sees them): players walk at up to 5 m/s, reach it at 50 m/s^2 on the
-- ground and 10 m/s^2 in the air, jump at 5 m/s (about 1.3 m high), moves
-- are split into steps of at most 1/30 s, and no velocity, falling or
-- asked for, is above 60 m/s. A claimed position more than 0.25 m off is
-- flagged as corrected.
--
-- Where things are (x, y ranges; "walk +y from (x, y)" is a clear approach
-- that leads straight into the feature):
--
--   floor          z = 0 over x, y in [-20, 20], except the pit.
--   outer walls    4 m high boxes just outside the floor: x in [-21, -20],
--                  x in [20, 21], y in [-21, -20], y in [20, 21].
--   stairs         four flights climbing towards +y, each 2 m wide: 4 steps
--                  of 0.6 m tread from y = -16 to y = -13.6, then a landing
--                  to y = -11.6 at 4 times the rise.
--                    rise 0.15: x in [-16, -14], landing top z = 0.6
--                    rise 0.25: x in [-12, -10], landing top z = 1.0
--                    rise 0.30: x in [-8, -6],   landing top z = 1.2
--                    rise 0.50: x in [-4, -2],   landing top z = 2.0
--                                (above the 0.35 step height: not climbable)
--                  walk +y from (x centre, -18).
--   ramp 25 deg    walkable: x in [2, 5], rises from z = 0 at y = -16 to
--                  z = 1.865 at y = -12 (atan(1.865 / 4) = 25.0 deg), then a
--                  platform to y = -10. Walk +y from (3.5, -18).
--   ramp 55 deg    too steep: x in [8, 11], rises from z = 0 at y = -16 to
--                  z = 2.856 at y = -14 (atan(2.856 / 2) = 55.0 deg), then a
--                  platform to y = -12. Walk +y from (9.5, -18).
--   low ceiling    slab x in [-16, -10], y in [-2, 2], z in [1.2, 1.5]: 1.2 m
--                  of headroom, less than a player; walk +y from (-13, -6)
--                  and stop at y = -2.4.
--   high ceiling   slab x in [-8, -4], y in [-2, 2], z in [2.0, 2.3]: 2.0 m of
--                  headroom; walk +y from (-6, -6) and pass under it.
--   corridors      walls y in [-4, 4], 2.5 m high, at x in [12, 13],
--                  [13.6, 14.6] and [15.8, 16.8]. Between them:
--                    narrow, x in [13, 13.6] (0.6 m, narrower than a player):
--                      walk +y from (13.3, -6), stopped at y = -4.26
--                      touching both walls' corners;
--                    wide, x in [14.6, 15.8] (1.2 m): walk +y from (15.2, -6)
--                      and come out at y > 4.
--   wedge          an internal corner: two 3 m high walls (two-sided) from
--                  the apex (0, 14) to (-3, 8) and to (3, 8), a 53 degree V
--                  open towards -y. Walk +y from (0, 6): the player ends
--                  wedged near y = 13.1 without passing either wall.
--   thin wall      x in [-16, -8], y in [8, 8.05] (5 cm thick), 3 m high;
--                  walk +y from (-12, 6) fast: it must not tunnel through.
--   pit            x in [12, 16], y in [12, 16], floor at z = -3 (walls all
--                  round); walk +y from (14, 10) and fall in.
--   spawns         (0, 0, 1), (4, 0, 1), (0, 4, 1), (4, 4, 1): open floor.
--
-- The east wing, beyond the east wall, holds the movers. It is a room of its
-- own (no doorway into the arena: tools that walk the static level alone,
-- such as sweep-walk, would see an open doorway there), reached by spawning
-- at a given position, e.g. (24, 0, 1).
--
--   wing floor     z = 0 over x in [21, 41], y in [-12, 12]; walls 4 m high
--                  at y in [12, 13], y in [-13, -12] and x in [41, 42] (the
--                  arena's east wall closes the west side).
--   partition      x in [29, 29.2] across the wing, 4 m high, splitting it
--                  into a west hall (x < 29) and an east hall (x > 29.2),
--                  with two doorways 2.5 m high (a lintel above each):
--                    y in [-7, -5.5] for the sliding door,
--                    y in [5, 6.2] for the swinging door.
--   balcony        solid block x in [34.05, 41], y in [-12, -6], top z = 3,
--                  reached only by the lift.
--
-- Movers (mover_* tables; their triangles are numbered after the static
-- ones, in this order):
--   1 sliding door  a 0.1 x 1.5 x 2.5 m panel filling the south doorway,
--                   centred at (29.1, -6.25); slides 1.5 m to -y in 1 s into
--                   the partition (a pocket door), waits 2 s, slides back.
--                   pingpong, trigger volume: a player centre in x [27,
--                   31.2], y [-8, -4.5], z [0, 2.5]; reverse when blocked.
--                   Walk +x from (25, -6.25) and pass.
--   2 swinging door a 0.1 x 1.16 x 2.5 m panel in the north doorway, hinged
--                   on the vertical line x = 29.1, y = 5 (its local origin);
--                   turns 90 degrees about +z clockwise seen from above, so
--                   it swings into the east hall, in 0.9 s (keyframes every
--                   30 degrees), waits 3 s, swings back. pingpong, trigger
--                   touch, stop when blocked. Walk +x from (26, 5.6).
--   3 lift          a 2 x 2 x 0.2 m platform centred at (33, -9), top at
--                   z = 0.2 (one climbable step) going up to z = 3 (the
--                   balcony's top) in 2.8 s; waits 2 s at each end. pingpong,
--                   always, reverse when blocked.
--   4 platform      a 2 x 2 x 0.2 m platform, top at z = 0.3, 0.1 m above the
--                   floor, going round the loop (33, 2) -> (38, 2) ->
--                   (38, 9) -> (33, 9) -> (33, 2) in 12 s, 1 s pause at the
--                   start. loop, always, stop when blocked.
--
-- Materials: 1 concrete (floor, pit), 2 brick (walls, corridor, wedge, thin
-- wall, wing walls), 3 stone (stairs, balcony), 4 metal (ramps and their
-- platforms, lift, platform), 5 plaster (ceilings), 6 wood (doors).

INSERT INTO map (id, name, units, gravity_x, gravity_y, gravity_z, tick_rate, radius_x, radius_y, radius_z,
                 walkable_slope_deg, step_height,
                 walk_speed, ground_accel, air_accel, jump_speed, max_step, speed_limit, correction_threshold)
VALUES (1, 'arena', 'm', 0.0, 0.0, -9.81, 60.0, 0.4, 0.4, 0.9, 45.0, 0.35,
        5.0, 50.0, 10.0, 5.0, 1.0 / 30, 60.0, 0.25);

INSERT INTO materials (id, name, friction, flags) VALUES
    (1, 'concrete', 1.0, 0),
    (2, 'brick', 0.8, 0),
    (3, 'stone', 0.9, 0),
    (4, 'metal', 0.5, 0),
    (5, 'plaster', 0.8, 0),
    (6, 'wood', 0.7, 0);

-- Solid boxes: faces point out; bottom = 0 leaves the bottom face out
-- (boxes standing on the floor).
CREATE TEMP TABLE box (
    name TEXT, material INTEGER,
    x0 REAL, y0 REAL, z0 REAL, x1 REAL, y1 REAL, z1 REAL, bottom INTEGER);

INSERT INTO box VALUES
    ('wall west',  2, -21.0, -21.0, 0.0, -20.0,  21.0, 4.0, 0),
    ('wall east',  2,  20.0, -21.0, 0.0,  21.0,  21.0, 4.0, 0),
    ('wall south', 2, -20.0, -21.0, 0.0,  20.0, -20.0, 4.0, 0),
    ('wall north', 2, -20.0,  20.0, 0.0,  20.0,  21.0, 4.0, 0),

    ('stairs 0.15 step 1', 3, -16.0, -16.0, 0.0, -14.0, -15.4, 0.15, 0),
    ('stairs 0.15 step 2', 3, -16.0, -15.4, 0.0, -14.0, -14.8, 0.30, 0),
    ('stairs 0.15 step 3', 3, -16.0, -14.8, 0.0, -14.0, -14.2, 0.45, 0),
    ('stairs 0.15 step 4', 3, -16.0, -14.2, 0.0, -14.0, -13.6, 0.60, 0),
    ('stairs 0.15 landing', 3, -16.0, -13.6, 0.0, -14.0, -11.6, 0.60, 0),

    ('stairs 0.25 step 1', 3, -12.0, -16.0, 0.0, -10.0, -15.4, 0.25, 0),
    ('stairs 0.25 step 2', 3, -12.0, -15.4, 0.0, -10.0, -14.8, 0.50, 0),
    ('stairs 0.25 step 3', 3, -12.0, -14.8, 0.0, -10.0, -14.2, 0.75, 0),
    ('stairs 0.25 step 4', 3, -12.0, -14.2, 0.0, -10.0, -13.6, 1.00, 0),
    ('stairs 0.25 landing', 3, -12.0, -13.6, 0.0, -10.0, -11.6, 1.00, 0),

    ('stairs 0.30 step 1', 3, -8.0, -16.0, 0.0, -6.0, -15.4, 0.30, 0),
    ('stairs 0.30 step 2', 3, -8.0, -15.4, 0.0, -6.0, -14.8, 0.60, 0),
    ('stairs 0.30 step 3', 3, -8.0, -14.8, 0.0, -6.0, -14.2, 0.90, 0),
    ('stairs 0.30 step 4', 3, -8.0, -14.2, 0.0, -6.0, -13.6, 1.20, 0),
    ('stairs 0.30 landing', 3, -8.0, -13.6, 0.0, -6.0, -11.6, 1.20, 0),

    ('stairs 0.50 step 1', 3, -4.0, -16.0, 0.0, -2.0, -15.4, 0.50, 0),
    ('stairs 0.50 step 2', 3, -4.0, -15.4, 0.0, -2.0, -14.8, 1.00, 0),
    ('stairs 0.50 step 3', 3, -4.0, -14.8, 0.0, -2.0, -14.2, 1.50, 0),
    ('stairs 0.50 step 4', 3, -4.0, -14.2, 0.0, -2.0, -13.6, 2.00, 0),
    ('stairs 0.50 landing', 3, -4.0, -13.6, 0.0, -2.0, -11.6, 2.00, 0),

    ('ramp 25 platform', 4, 2.0, -12.0, 0.0, 5.0, -10.0, 1.865, 0),
    ('ramp 55 platform', 4, 8.0, -14.0, 0.0, 11.0, -12.0, 2.856, 0),

    ('low ceiling',  5, -16.0, -2.0, 1.2, -10.0, 2.0, 1.5, 1),
    ('high ceiling', 5, -8.0, -2.0, 2.0, -4.0, 2.0, 2.3, 1),

    ('corridor wall 1', 2, 12.0, -4.0, 0.0, 13.0, 4.0, 2.5, 0),
    ('corridor wall 2', 2, 13.6, -4.0, 0.0, 14.6, 4.0, 2.5, 0),
    ('corridor wall 3', 2, 15.8, -4.0, 0.0, 16.8, 4.0, 2.5, 0),

    ('thin wall', 2, -16.0, 8.0, 0.0, -8.0, 8.05, 3.0, 0);

-- Single faces: n = 3 (a, b, c) or 4 (a, b, c, d, planar), counter-clockwise
-- seen from the front. Listed after the boxes' faces.
CREATE TEMP TABLE face (
    seq INTEGER PRIMARY KEY, name TEXT, material INTEGER, n INTEGER,
    ax REAL, ay REAL, az REAL, bx REAL, by REAL, bz REAL,
    cx REAL, cy REAL, cz REAL, dx REAL, dy REAL, dz REAL);

-- Corners of a box face, as bit patterns of which coordinate is the high
-- one (bit 0 x, bit 1 y, bit 2 z); f = 1 is the bottom.
CREATE TEMP TABLE box_face (f INTEGER, c0 INTEGER, c1 INTEGER, c2 INTEGER, c3 INTEGER);
INSERT INTO box_face VALUES
    (0, 4, 5, 7, 6), (1, 0, 2, 3, 1), (2, 1, 3, 7, 5),
    (3, 0, 4, 6, 2), (4, 2, 6, 7, 3), (5, 0, 1, 5, 4);

-- Each box face as a quad, in box order then face order.
CREATE TEMP VIEW box_quad AS
SELECT b.rowid AS box_seq, f.f AS f, b.name AS name, b.material AS material,
    CASE WHEN f.c0 & 1 THEN b.x1 ELSE b.x0 END AS ax, CASE WHEN f.c0 & 2 THEN b.y1 ELSE b.y0 END AS ay,
    CASE WHEN f.c0 & 4 THEN b.z1 ELSE b.z0 END AS az,
    CASE WHEN f.c1 & 1 THEN b.x1 ELSE b.x0 END AS bx, CASE WHEN f.c1 & 2 THEN b.y1 ELSE b.y0 END AS by,
    CASE WHEN f.c1 & 4 THEN b.z1 ELSE b.z0 END AS bz,
    CASE WHEN f.c2 & 1 THEN b.x1 ELSE b.x0 END AS cx, CASE WHEN f.c2 & 2 THEN b.y1 ELSE b.y0 END AS cy,
    CASE WHEN f.c2 & 4 THEN b.z1 ELSE b.z0 END AS cz,
    CASE WHEN f.c3 & 1 THEN b.x1 ELSE b.x0 END AS dx, CASE WHEN f.c3 & 2 THEN b.y1 ELSE b.y0 END AS dy,
    CASE WHEN f.c3 & 4 THEN b.z1 ELSE b.z0 END AS dz
FROM box AS b JOIN box_face AS f
WHERE f.f <> 1 OR b.bottom;

INSERT INTO face (name, material, n, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz)
SELECT name, material, 4, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz FROM box_quad ORDER BY box_seq, f;

INSERT INTO face (name, material, n, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz) VALUES
    -- Floor around the pit, facing up.
    ('floor west',  1, 4, -20.0, -20.0, 0.0, 12.0, -20.0, 0.0, 12.0, 20.0, 0.0, -20.0, 20.0, 0.0),
    ('floor east',  1, 4,  16.0, -20.0, 0.0, 20.0, -20.0, 0.0, 20.0, 20.0, 0.0,  16.0, 20.0, 0.0),
    ('floor south', 1, 4,  12.0, -20.0, 0.0, 16.0, -20.0, 0.0, 16.0, 12.0, 0.0,  12.0, 12.0, 0.0),
    ('floor north', 1, 4,  12.0,  16.0, 0.0, 16.0,  16.0, 0.0, 16.0, 20.0, 0.0,  12.0, 20.0, 0.0),
    -- The pit: bottom facing up, walls facing into it.
    ('pit bottom', 1, 4, 12.0, 12.0, -3.0, 16.0, 12.0, -3.0, 16.0, 16.0, -3.0, 12.0, 16.0, -3.0),
    ('pit wall south', 1, 4, 16.0, 12.0, -3.0, 12.0, 12.0, -3.0, 12.0, 12.0, 0.0, 16.0, 12.0, 0.0),
    ('pit wall north', 1, 4, 12.0, 16.0, -3.0, 16.0, 16.0, -3.0, 16.0, 16.0, 0.0, 12.0, 16.0, 0.0),
    ('pit wall west',  1, 4, 12.0, 12.0, -3.0, 12.0, 16.0, -3.0, 12.0, 16.0, 0.0, 12.0, 12.0, 0.0),
    ('pit wall east',  1, 4, 16.0, 16.0, -3.0, 16.0, 12.0, -3.0, 16.0, 12.0, 0.0, 16.0, 16.0, 0.0),
    -- Ramp 25: the slope (facing up and -y) and its two sides.
    ('ramp 25 slope', 4, 4, 2.0, -16.0, 0.0, 5.0, -16.0, 0.0, 5.0, -12.0, 1.865, 2.0, -12.0, 1.865),
    ('ramp 25 side west', 4, 3, 2.0, -16.0, 0.0, 2.0, -12.0, 1.865, 2.0, -12.0, 0.0, NULL, NULL, NULL),
    ('ramp 25 side east', 4, 3, 5.0, -16.0, 0.0, 5.0, -12.0, 0.0, 5.0, -12.0, 1.865, NULL, NULL, NULL),
    -- Ramp 55.
    ('ramp 55 slope', 4, 4, 8.0, -16.0, 0.0, 11.0, -16.0, 0.0, 11.0, -14.0, 2.856, 8.0, -14.0, 2.856),
    ('ramp 55 side west', 4, 3, 8.0, -16.0, 0.0, 8.0, -14.0, 2.856, 8.0, -14.0, 0.0, NULL, NULL, NULL),
    ('ramp 55 side east', 4, 3, 11.0, -16.0, 0.0, 11.0, -14.0, 0.0, 11.0, -14.0, 2.856, NULL, NULL, NULL),
    -- Wedge: each arm once facing into the V and once facing out.
    ('wedge west in',   2, 4, -3.0, 8.0, 0.0, 0.0, 14.0, 0.0, 0.0, 14.0, 3.0, -3.0, 8.0, 3.0),
    ('wedge west out',  2, 4, 0.0, 14.0, 0.0, -3.0, 8.0, 0.0, -3.0, 8.0, 3.0, 0.0, 14.0, 3.0),
    ('wedge east in',   2, 4, 0.0, 14.0, 0.0, 3.0, 8.0, 0.0, 3.0, 8.0, 3.0, 0.0, 14.0, 3.0),
    ('wedge east out',  2, 4, 3.0, 8.0, 0.0, 0.0, 14.0, 0.0, 0.0, 14.0, 3.0, 3.0, 8.0, 3.0);

-- The east wing, after everything above so that the arena's triangles keep
-- their numbers: its boxes, then its floor.
INSERT INTO box VALUES
    ('wing wall north', 2, 21.0, 12.0, 0.0, 42.0, 13.0, 4.0, 0),
    ('wing wall south', 2, 21.0, -13.0, 0.0, 42.0, -12.0, 4.0, 0),
    ('wing wall east',  2, 41.0, -12.0, 0.0, 42.0, 12.0, 4.0, 0),

    ('wing partition south',  2, 29.0, -12.0, 0.0, 29.2, -7.0, 4.0, 0),
    ('wing partition middle', 2, 29.0, -5.5, 0.0, 29.2, 5.0, 4.0, 0),
    ('wing partition north',  2, 29.0, 6.2, 0.0, 29.2, 12.0, 4.0, 0),
    ('wing lintel sliding',   2, 29.0, -7.0, 2.5, 29.2, -5.5, 4.0, 1),
    ('wing lintel swinging',  2, 29.0, 5.0, 2.5, 29.2, 6.2, 4.0, 1),

    ('wing balcony', 3, 34.05, -12.0, 0.0, 41.0, -6.0, 3.0, 0);

INSERT INTO face (name, material, n, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz)
SELECT name, material, 4, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz FROM box_quad
WHERE name LIKE 'wing %' ORDER BY box_seq, f;

INSERT INTO face (name, material, n, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz) VALUES
    ('wing floor', 1, 4, 21.0, -12.0, 0.0, 41.0, -12.0, 0.0, 41.0, 12.0, 0.0, 21.0, 12.0, 0.0);

-- Faces to rows: each face's corners become consecutive vertices; a quad
-- a-b-c-d becomes triangles (a, b, c) and (a, c, d).
CREATE TEMP TABLE face_base AS
SELECT seq, n,
    sum(n) OVER (ORDER BY seq) - n AS vbase,
    sum(n - 2) OVER (ORDER BY seq) - (n - 2) AS tbase
FROM face;

INSERT INTO vertices (id, x, y, z)
SELECT id, x, y, z FROM (
    SELECT vbase AS id, ax AS x, ay AS y, az AS z FROM face JOIN face_base USING (seq)
    UNION ALL SELECT vbase + 1, bx, by, bz FROM face JOIN face_base USING (seq)
    UNION ALL SELECT vbase + 2, cx, cy, cz FROM face JOIN face_base USING (seq)
    UNION ALL SELECT vbase + 3, dx, dy, dz FROM face JOIN face_base USING (seq) WHERE face.n = 4)
ORDER BY id;

INSERT INTO triangles (id, a, b, c, material)
SELECT id, a, b, c, material FROM (
    SELECT tbase AS id, vbase AS a, vbase + 1 AS b, vbase + 2 AS c, material
        FROM face JOIN face_base USING (seq)
    UNION ALL SELECT tbase + 1, vbase, vbase + 2, vbase + 3, material
        FROM face JOIN face_base USING (seq) WHERE face.n = 4)
ORDER BY id;

INSERT INTO spawns (id, x, y, z) VALUES
    (0, 0.0, 0.0, 1.0),
    (1, 4.0, 0.0, 1.0),
    (2, 0.0, 4.0, 1.0),
    (3, 4.0, 4.0, 1.0);

-- Movers (see the list at the top). Each mesh is a closed box in the
-- mover's local frame: corner k (bits as in box_face) is vertex k, face f
-- gives triangles 2f and 2f + 1, all six faces pointing out.
INSERT INTO movers (id, name, mode, trigger, blocked, wait_start, wait_end,
                    volume_min_x, volume_min_y, volume_min_z, volume_max_x, volume_max_y, volume_max_z) VALUES
    (1, 'sliding door', 'pingpong', 'volume', 'reverse', 0.0, 2.0, 27.0, -8.0, 0.0, 31.2, -4.5, 2.5),
    (2, 'swinging door', 'pingpong', 'touch', 'stop', 0.0, 3.0, NULL, NULL, NULL, NULL, NULL, NULL),
    (3, 'lift', 'pingpong', 'always', 'reverse', 2.0, 2.0, NULL, NULL, NULL, NULL, NULL, NULL),
    (4, 'platform', 'loop', 'always', 'stop', 0.0, 1.0, NULL, NULL, NULL, NULL, NULL, NULL);

CREATE TEMP TABLE mover_box (
    mover INTEGER PRIMARY KEY, material INTEGER,
    x0 REAL, y0 REAL, z0 REAL, x1 REAL, y1 REAL, z1 REAL);
INSERT INTO mover_box VALUES
    (1, 6, -0.05, -0.75, 0.0, 0.05, 0.75, 2.5),
    (2, 6, -0.05, 0.02, 0.0, 0.05, 1.18, 2.5),
    (3, 4, -1.0, -1.0, -0.2, 1.0, 1.0, 0.0),
    (4, 4, -1.0, -1.0, -0.2, 1.0, 1.0, 0.0);

CREATE TEMP TABLE corner (k INTEGER PRIMARY KEY);
INSERT INTO corner VALUES (0), (1), (2), (3), (4), (5), (6), (7);

INSERT INTO mover_vertices (mover, id, x, y, z)
SELECT m.mover, c.k,
    CASE WHEN c.k & 1 THEN m.x1 ELSE m.x0 END,
    CASE WHEN c.k & 2 THEN m.y1 ELSE m.y0 END,
    CASE WHEN c.k & 4 THEN m.z1 ELSE m.z0 END
FROM mover_box AS m JOIN corner AS c
ORDER BY m.mover, c.k;

INSERT INTO mover_triangles (mover, id, a, b, c, material)
SELECT mover, id, a, b, c, material FROM (
    SELECT m.mover, 2 * f.f AS id, f.c0 AS a, f.c1 AS b, f.c2 AS c, m.material
        FROM mover_box AS m JOIN box_face AS f
    UNION ALL SELECT m.mover, 2 * f.f + 1, f.c0, f.c2, f.c3, m.material
        FROM mover_box AS m JOIN box_face AS f)
ORDER BY mover, id;

-- Paths. Rotations are quaternions (qx, qy, qz, qw) computed when this file
-- was written: a turn by angle a about +z is (0, 0, sin(a/2), cos(a/2));
-- the swinging door's are for a = 0, -30, -60 and -90 degrees.
INSERT INTO mover_keyframes (mover, id, time, x, y, z, qx, qy, qz, qw) VALUES
    (1, 0, 0.0, 29.1, -6.25, 0.0, 0.0, 0.0, 0.0, 1.0),
    (1, 1, 1.0, 29.1, -7.75, 0.0, 0.0, 0.0, 0.0, 1.0),

    (2, 0, 0.0, 29.1, 5.0, 0.0, 0.0, 0.0, 0.0, 1.0),
    (2, 1, 0.3, 29.1, 5.0, 0.0, 0.0, 0.0, -0.25881904510252074, 0.9659258262890683),
    (2, 2, 0.6, 29.1, 5.0, 0.0, 0.0, 0.0, -0.49999999999999994, 0.8660254037844387),
    (2, 3, 0.9, 29.1, 5.0, 0.0, 0.0, 0.0, -0.7071067811865475, 0.7071067811865476),

    (3, 0, 0.0, 33.0, -9.0, 0.2, 0.0, 0.0, 0.0, 1.0),
    (3, 1, 2.8, 33.0, -9.0, 3.0, 0.0, 0.0, 0.0, 1.0),

    (4, 0, 0.0, 33.0, 2.0, 0.3, 0.0, 0.0, 0.0, 1.0),
    (4, 1, 2.5, 38.0, 2.0, 0.3, 0.0, 0.0, 0.0, 1.0),
    (4, 2, 6.0, 38.0, 9.0, 0.3, 0.0, 0.0, 0.0, 1.0),
    (4, 3, 8.5, 33.0, 9.0, 0.3, 0.0, 0.0, 0.0, 1.0),
    (4, 4, 12.0, 33.0, 2.0, 0.3, 0.0, 0.0, 0.0, 1.0);

DROP TABLE temp.corner;
DROP TABLE temp.mover_box;
DROP TABLE temp.face_base;
DROP VIEW temp.box_quad;
DROP TABLE temp.face;
DROP TABLE temp.box_face;
DROP TABLE temp.box;
