-- schema.sql - the sweep map format, version 1 (PRAGMA user_version = 1).
--
-- A sweep map is one SQLite database holding one level: its movement rules,
-- its materials, its static geometry as an indexed triangle list, and where
-- players may spawn. Maps live in the repository as SQL text (this schema
-- followed by INSERTs, see arena.sql) and are built into .db files by make;
-- tools (sweep-mapgen, sweep-import) write the same tables through the
-- SQLite C API. The loader (maps/loader.c) opens a map read-only and
-- re-checks every rule written here, because a map file is external input:
-- the CHECK constraints below help authors catch mistakes when the .db is
-- built, they are not what keeps the server safe.
--
-- Conventions
--   * Geometry is in map units (see map.units; usually metres). Any up axis
--     works: "up" is minus the gravity vector. Maps written by sweep's tools
--     are z up, gravity (0, 0, -9.81).
--   * The front of triangle (a, b, c) is the side that cross(b - a, c - a)
--     points to; players collide with front faces only, so a solid wall is
--     a closed shell with its faces pointing out.
--   * Vertex ids run 0, 1, 2, ... without gaps: a triangle's a, b, c are
--     vertex ids, and so indices into the loaded vertex array.
--   * Triangles are loaded in increasing id order (ids may have gaps). The
--     position in that order is the triangle index the core uses to break
--     ties and reports in contacts. Degenerate triangles (zero area, or
--     needles) are dropped by the loader with a counted warning, and the
--     index counts only the triangles kept.
--   * Material id 0 is reserved: the core reports 0 for "no ground".
--   * Numbers are IEEE-754 doubles; NaN and infinities are refused (SQLite
--     cannot even store a NaN: it turns into NULL).
--
-- Versioning: user_version names the layout of these tables. A loader
-- refuses a map whose version it does not know; a change that an old
-- loader would misread bumps the version. application_id marks the file as
-- a sweep map (0x53574D50, "SWMP"), so an unrelated SQLite database is
-- told apart from a sweep map of another version.
--
-- Later: movers (doors, lifts) come in their own issue. They will get their
-- own tables (a mover, its triangles in its local frame, its keyframes as
-- positions and quaternions computed at import) added by a new schema
-- version; nothing in version 1 refers to them, and the tables below do not
-- change for them.

PRAGMA application_id = 1398230352; -- 0x53574D50 "SWMP"
PRAGMA user_version = 1;

-- map: exactly one row with the level's name and movement rules.
CREATE TABLE map (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    -- Shown in logs and tools; 1 to 63 bytes of UTF-8.
    name TEXT NOT NULL CHECK (length(CAST(name AS BLOB)) BETWEEN 1 AND 63),
    -- Informative name of the length unit ('m', 'cm', 'ft', ...); 1 to 15
    -- bytes. The server does not convert: every number below is in it.
    units TEXT NOT NULL DEFAULT 'm' CHECK (length(CAST(units AS BLOB)) BETWEEN 1 AND 15),
    -- Gravity, units/s^2. Its direction defines "up"; (0,0,0) means no
    -- gravity and no ground logic. Length at most 1000.
    gravity_x REAL NOT NULL,
    gravity_y REAL NOT NULL,
    gravity_z REAL NOT NULL,
    -- Server ticks per second (movers advance once per tick), 1 to 1000.
    tick_rate REAL NOT NULL CHECK (tick_rate BETWEEN 1 AND 1000),
    -- Default player ellipsoid semi-axes along x, y, z, units, when a
    -- spawn request gives none. Within the core limits (0.01 .. 100,
    -- largest / smallest at most 32).
    radius_x REAL NOT NULL CHECK (radius_x > 0),
    radius_y REAL NOT NULL CHECK (radius_y > 0),
    radius_z REAL NOT NULL CHECK (radius_z > 0),
    -- Steepest walkable slope, degrees from horizontal, in [0, 90). The
    -- loader turns it into the core's walkable_normal_up with the core's
    -- deterministic cosine, so every machine gets the same bits.
    walkable_slope_deg REAL NOT NULL CHECK (walkable_slope_deg >= 0 AND walkable_slope_deg < 90),
    -- Highest step climbed (and snapped down), units, 0 = none.
    step_height REAL NOT NULL CHECK (step_height >= 0)
);

-- materials: what a surface is made of. Reported with every contact.
CREATE TABLE materials (
    id INTEGER PRIMARY KEY CHECK (id BETWEEN 1 AND 4294967295),
    -- 1 to 63 bytes, unique: importers map source material names to ids.
    name TEXT NOT NULL UNIQUE CHECK (length(CAST(name AS BLOB)) BETWEEN 1 AND 63),
    -- Friction coefficient for game logic, >= 0 (1 = ordinary ground).
    friction REAL NOT NULL DEFAULT 1.0 CHECK (friction >= 0),
    -- Game-defined bits (32); sweep stores them and passes them on.
    flags INTEGER NOT NULL DEFAULT 0 CHECK (flags BETWEEN 0 AND 4294967295)
);

-- vertices: positions, map units, |coordinate| <= 1e7 (the core's
-- coordinate limit). ids 0 .. count-1, no gaps.
CREATE TABLE vertices (
    id INTEGER PRIMARY KEY CHECK (id >= 0),
    x REAL NOT NULL CHECK (typeof(x) = 'real' AND abs(x) <= 1e7),
    y REAL NOT NULL CHECK (typeof(y) = 'real' AND abs(y) <= 1e7),
    z REAL NOT NULL CHECK (typeof(z) = 'real' AND abs(z) <= 1e7)
);

-- triangles: three vertex ids, counter-clockwise seen from the front, and
-- the material of the surface. A map has at least one triangle.
CREATE TABLE triangles (
    id INTEGER PRIMARY KEY CHECK (id >= 0),
    a INTEGER NOT NULL REFERENCES vertices (id),
    b INTEGER NOT NULL REFERENCES vertices (id),
    c INTEGER NOT NULL REFERENCES vertices (id),
    material INTEGER NOT NULL REFERENCES materials (id)
);

-- spawns: where players may appear (ellipsoid centres, map units), used in
-- id order. A map may have none (the server then needs positions given).
CREATE TABLE spawns (
    id INTEGER PRIMARY KEY,
    x REAL NOT NULL CHECK (typeof(x) = 'real' AND abs(x) <= 1e7),
    y REAL NOT NULL CHECK (typeof(y) = 'real' AND abs(y) <= 1e7),
    z REAL NOT NULL CHECK (typeof(z) = 'real' AND abs(z) <= 1e7)
);
