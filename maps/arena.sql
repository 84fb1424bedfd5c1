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
-- Materials: 1 concrete (floor, pit), 2 brick (walls, corridor, wedge, thin
-- wall), 3 stone (stairs), 4 metal (ramps and their platforms), 5 plaster
-- (ceilings).

INSERT INTO map (id, name, units, gravity_x, gravity_y, gravity_z, tick_rate, radius_x, radius_y, radius_z,
                 walkable_slope_deg, step_height)
VALUES (1, 'arena', 'm', 0.0, 0.0, -9.81, 60.0, 0.4, 0.4, 0.9, 45.0, 0.35);

INSERT INTO materials (id, name, friction, flags) VALUES
    (1, 'concrete', 1.0, 0),
    (2, 'brick', 0.8, 0),
    (3, 'stone', 0.9, 0),
    (4, 'metal', 0.5, 0),
    (5, 'plaster', 0.8, 0);

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

INSERT INTO face (name, material, n, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz)
SELECT b.name, b.material, 4,
    CASE WHEN f.c0 & 1 THEN b.x1 ELSE b.x0 END, CASE WHEN f.c0 & 2 THEN b.y1 ELSE b.y0 END,
    CASE WHEN f.c0 & 4 THEN b.z1 ELSE b.z0 END,
    CASE WHEN f.c1 & 1 THEN b.x1 ELSE b.x0 END, CASE WHEN f.c1 & 2 THEN b.y1 ELSE b.y0 END,
    CASE WHEN f.c1 & 4 THEN b.z1 ELSE b.z0 END,
    CASE WHEN f.c2 & 1 THEN b.x1 ELSE b.x0 END, CASE WHEN f.c2 & 2 THEN b.y1 ELSE b.y0 END,
    CASE WHEN f.c2 & 4 THEN b.z1 ELSE b.z0 END,
    CASE WHEN f.c3 & 1 THEN b.x1 ELSE b.x0 END, CASE WHEN f.c3 & 2 THEN b.y1 ELSE b.y0 END,
    CASE WHEN f.c3 & 4 THEN b.z1 ELSE b.z0 END
FROM box AS b JOIN box_face AS f
WHERE f.f <> 1 OR b.bottom
ORDER BY b.rowid, f.f;

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

DROP TABLE temp.face_base;
DROP TABLE temp.face;
DROP TABLE temp.box_face;
DROP TABLE temp.box;
