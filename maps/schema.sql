-- schema.sql - the sweep map format, version 4 (PRAGMA user_version = 4).
--
-- A sweep map is one SQLite database holding one level: its movement rules,
-- its materials, its static geometry as an indexed triangle list, where
-- players may spawn, and its movers (doors, lifts, platforms). Maps live
-- in the repository as SQL text (this schema followed by INSERTs, see
-- arena.sql) and are built into .db files by make; tools (sweep-mapgen,
-- sweep-import) write the same tables through the SQLite C API. The loader
-- (maps/loader.c) opens a map read-only and re-checks every rule written
-- here, because a map file is external input: the CHECK constraints below
-- help authors catch mistakes when the .db is built, they are not what
-- keeps the server safe.
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
-- Version 1 had every table below except the four mover tables and the
-- movement-rule columns of map (walk_speed to correction_threshold); the
-- loader still reads a version 1 map, as a level without movers under the
-- default rules (the DEFAULT of each of those columns). Version 2 adds the
-- mover tables and those columns, and changes nothing else. Version 3 adds
-- the two volume tables and the query rules of a map (history_ms,
-- rewind_cap_ms): a version 1 or 2 map loads without volumes and with
-- those columns' DEFAULTs, and nothing else changes. Version 4 adds the
-- crouch columns of map (crouch_radius_x to crouch_speed), the 'liquid'
-- and 'ladder' volumes (their columns liquid and normal_x .. normal_z)
-- and the swimming and climbing rules of the map row (swim_speed to
-- climb_accel, and air_move). Those columns are optional: a map of any version without
-- them loads with their DEFAULTs (no crouching; swimming and climbing in
-- metres), so a version 4 map made by a tool that knows some version 4
-- columns but not others still loads.
--
-- Movers (core/mover.h tells what they do on each tick)
--   * A mover is a closed triangle mesh in its own local frame
--     (mover_vertices, mover_triangles, same front-face rule as above),
--     moved along a path of keyframes (mover_keyframes). Its pose puts the
--     mesh in the world: rotate by the unit quaternion, then translate,
--     world = rotate(q, local) + position. Put the local origin where the
--     mover turns (a door's hinge) and the keyframes say where that point is.
--   * Keyframe times are seconds from the start of the path: the first is
--     0, each later one strictly greater, the last at most 86400. Between
--     two keyframes the position is interpolated linearly and the rotation
--     by normalised lerp; the core never evaluates an angle. Rotations are
--     stored as unit quaternions (x, y, z vector part, w scalar part,
--     |q|^2 within 1e-6 of 1) computed once when the map is authored or
--     imported: a turn by angle a about the unit axis u is
--     (u sin(a/2), cos(a/2)). A turn of 180 degrees or more between two
--     keyframes needs a keyframe in between.
--   * A 'loop' path is closed: its last keyframe has exactly the position
--     of the first and the same rotation (q or -q).
--   * Time on the server is a whole number of ticks (map.tick_rate): a path
--     of T seconds lasts ceil(T * tick_rate) ticks, waits are rounded to
--     whole ticks.
--   * Mover vertex, triangle and keyframe ids run 0, 1, 2, ... per mover
--     without gaps. Mover triangles are numbered after the static ones:
--     movers in id order, each one's triangles in id order, so triangle
--     (mover m, id i) is the core's triangle number
--       (static triangles kept) + (triangles of the movers before m) + i.
--     A degenerate mover triangle keeps its number but never collides; a
--     mover needs at least one triangle that is not degenerate.
--   * Static and mover triangles together stay within the core's limit of
--     2^30; one mover has at most 65536 triangles and 4096 keyframes.
--
-- Volumes (version 3; core/volume.h tells what they do)
--   * A volume is a convex region of body centres: its box (min .. max),
--     cut by the half-spaces of its rows in volume_planes (nx x + ny y +
--     nz z <= d inside). A body is in it when its ellipsoid's centre is, so
--     a tool that makes a volume from a solid grows the solid by the
--     player's radii first. After each step of a walking body's move the
--     volumes it ended in act on it, in id order:
--       'push'      a jump pad: the body's velocity becomes (velocity_x,
--                   velocity_y, velocity_z), stored as a velocity so that
--                   no move computes an angle or a square root for it;
--       'teleport'  the body's centre goes to destination, if it fits
--                   there, facing the unit vector facing; its velocity is
--                   kept (keep_velocity 1) or becomes facing * exit_speed;
--       'hurt'      damage per second (a named event for the game: name);
--       'kill'      the move ends and the server removes the body, giving
--                   name as the reason;
--       'trigger'   the game hears of a body entering and leaving it, by
--                   name;
--       'liquid'    water, slime or lava (liquid): the region is the
--                   liquid itself, NOT grown by the radii; a body whose
--                   centre is in it swims, and damage (>= 0, per second at
--                   each of the three depth levels) hurts it;
--       'ladder'    a body whose centre is in it climbs; normal_x ..
--                   normal_z is the unit vector out of the climbed face
--                   (a wish against it climbs). Grown like the others.
--     Columns a kind does not read are NULL.
--   * At most 4096 volumes, 32 planes each; volumes are numbered on the
--     wire by id.

PRAGMA application_id = 1398230352; -- 0x53574D50 "SWMP"
PRAGMA user_version = 4;

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
    step_height REAL NOT NULL CHECK (step_height >= 0),

    -- Movement rules (version 2; core/motion.h). A player sends a wish, a
    -- velocity across the ground and a jump button, and the server turns
    -- it into motion with these, in map units and seconds like everything
    -- else: a level in centimetres wants walk_speed 500, not 5. Each
    -- DEFAULT is the core's value for metres (sweep_rules_default), so a
    -- map written as SQL text may leave them out; the ranges are the core's.
    --
    -- Fastest horizontal speed a player may wish for, units/s, in (0, 1e6];
    -- a faster wish is clamped to it (and the answer says so).
    walk_speed REAL NOT NULL DEFAULT 5.0 CHECK (walk_speed > 0 AND walk_speed <= 1e6),
    -- How fast the horizontal velocity turns towards the wish on walkable
    -- ground, units/s^2, in (0, 1e9].
    ground_accel REAL NOT NULL DEFAULT 50.0 CHECK (ground_accel > 0 AND ground_accel <= 1e9),
    -- The same in the air (air control), units/s^2, in [0, 1e9]; 0 = none.
    air_accel REAL NOT NULL DEFAULT 10.0 CHECK (air_accel >= 0 AND air_accel <= 1e9),
    -- Speed along up a jump starts with, units/s, in [0, 1e6]; 0 = no
    -- jumping. 5 m/s under 9.81 m/s^2 rises about 1.3 m.
    jump_speed REAL NOT NULL DEFAULT 5.0 CHECK (jump_speed >= 0 AND jump_speed <= 1e6),
    -- Longest step of one move, s, in [0.001, 1]: a longer move is split
    -- into equal steps no longer than this, so the outcome depends on how
    -- long a move is, not on how a client chops its time. 1/30 s.
    max_step REAL NOT NULL DEFAULT (1.0 / 30) CHECK (max_step >= 0.001 AND max_step <= 1),
    -- No velocity is longer than this, units/s, in [walk_speed, 1e7] and at
    -- least jump_speed: terminal velocity for a falling player, and also
    -- the largest speed any move may ask for (raw moves of trusted roles
    -- too), which replaces the fixed 1000 units/s of earlier versions. It
    -- is in map units: a level in inches needs about 2400 where one in
    -- metres needs 60, or its falling players are refused.
    speed_limit REAL NOT NULL DEFAULT 60.0 CHECK (speed_limit <= 1e7),
    -- A position claimed by a client farther than this from the server's
    -- is flagged as corrected, units, finite and >= 0 (0: any difference).
    correction_threshold REAL NOT NULL DEFAULT 0.25 CHECK (correction_threshold >= 0),

    -- Query rules (version 3; server/world/queries.c). How far back, in
    -- milliseconds, the server keeps every entity's and mover's pose for
    -- lag-compensated queries, 1 to 60000 (sweepd --history-ms overrides
    -- it), and how far back of the newest tick a player may ask, 1 to
    -- 60000 (--rewind-cap-ms overrides it; the server role may ask anything
    -- kept). Not part of the content hash: they change no motion.
    history_ms REAL NOT NULL DEFAULT 1000 CHECK (history_ms BETWEEN 1 AND 60000),
    rewind_cap_ms REAL NOT NULL DEFAULT 250 CHECK (rewind_cap_ms BETWEEN 1 AND 60000),

    -- Crouching (version 4, optional columns; core/stance.h). A player
    -- holding the crouch button takes the crouch shape, its feet where
    -- they were, and stands up again only where the standing shape fits.
    -- The crouch ellipsoid's semi-axes, units, within the core limits as
    -- the radius columns are; and the fastest wish while crouched,
    -- units/s, in (0, walk_speed]. All four 0 (the DEFAULT): no crouching,
    -- and a crouch button is ignored (and named Buttons).
    crouch_radius_x REAL NOT NULL DEFAULT 0 CHECK (crouch_radius_x >= 0),
    crouch_radius_y REAL NOT NULL DEFAULT 0 CHECK (crouch_radius_y >= 0),
    crouch_radius_z REAL NOT NULL DEFAULT 0 CHECK (crouch_radius_z >= 0),
    crouch_speed REAL NOT NULL DEFAULT 0 CHECK (crouch_speed >= 0 AND crouch_speed <= walk_speed),
    -- Swimming and climbing rules (version 4, optional; core/motion.h),
    -- read only by a map with liquid or ladder volumes. DEFAULTs are the
    -- core's for metres: Quake 3's water rules scaled by its walk speed.
    -- Fastest swimming (the wish in three dimensions), units/s, [0, 1e6].
    swim_speed REAL NOT NULL DEFAULT 2.5 CHECK (swim_speed >= 0 AND swim_speed <= 1e6),
    -- How fast a swimmer's velocity turns towards the wish, units/s^2.
    swim_accel REAL NOT NULL DEFAULT 10.0 CHECK (swim_accel >= 0 AND swim_accel <= 1e9),
    -- Fraction of its speed a swimmer loses per second at each depth level.
    swim_drag REAL NOT NULL DEFAULT 1.0 CHECK (swim_drag >= 0 AND swim_drag <= 1e3),
    -- Speed a swimmer with no wish sinks at, units/s; negative floats up.
    swim_sink REAL NOT NULL DEFAULT 0.9375 CHECK (abs(swim_sink) <= 1e6),
    -- Speed along up of a jump with the head out of the liquid, units/s.
    swim_jump REAL NOT NULL DEFAULT 6.5 CHECK (swim_jump >= 0 AND swim_jump <= 1e6),
    -- Fastest climbing on a ladder, units/s, and how fast it turns, units/s^2.
    climb_speed REAL NOT NULL DEFAULT 2.5 CHECK (climb_speed >= 0 AND climb_speed <= 1e6),
    climb_accel REAL NOT NULL DEFAULT 50.0 CHECK (climb_accel >= 0 AND climb_accel <= 1e9),
    -- What air_accel does (version 4, optional; core/motion.h): 0 (the
    -- DEFAULT) turns the horizontal velocity towards the wish, as on the
    -- ground, so a body in the air that wishes nothing slows down; 1 is
    -- Quake 3's air move: the wish only adds speed along itself, up to its
    -- own speed, and nothing is taken away (a jump pad's flight keeps its
    -- speed). Part of the content hash only when 1.
    air_move REAL NOT NULL DEFAULT 0 CHECK (air_move IN (0, 1)),
    CHECK (speed_limit >= walk_speed AND speed_limit >= jump_speed)
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

-- movers: one row per door, lift or platform (version 2). Movers are built,
-- numbered and advanced in increasing id order.
CREATE TABLE movers (
    -- 1 to 4294967295: names the mover on the wire and in logs.
    id INTEGER PRIMARY KEY CHECK (id BETWEEN 1 AND 4294967295),
    -- 1 to 63 bytes, unique: COMMAND triggers and tools find movers by name.
    name TEXT NOT NULL UNIQUE CHECK (length(CAST(name AS BLOB)) BETWEEN 1 AND 63),
    -- What happens at the end of the path: 'once' stays there for good;
    -- 'loop' carries on from the start (the path must be closed);
    -- 'pingpong' runs back to the start and goes again.
    mode TEXT NOT NULL CHECK (mode IN ('once', 'loop', 'pingpong')),
    -- What sets it going: 'always' (every tick); 'volume' (a player's
    -- centre inside the box below); 'touch' (a player's last move stood on
    -- it or touched it); 'command' (the game asks the server, by name).
    -- Unless 'always', a 'pingpong' or 'loop' mover stops at the start
    -- after each run until it is triggered again, and a 'pingpong' one
    -- triggered on its way back turns round (a door closing on someone).
    trigger TEXT NOT NULL CHECK (trigger IN ('always', 'volume', 'touch', 'command')),
    -- When a player in its way cannot be pushed clear: 'stop' (it stays
    -- put this tick), 'reverse' (and turns round), 'crush' (it carries on
    -- and the server takes the player out).
    blocked TEXT NOT NULL CHECK (blocked IN ('stop', 'reverse', 'crush')),
    -- Seconds it waits at the start before running again ('pingpong') and
    -- at the end before going on, in [0, 86400].
    wait_start REAL NOT NULL DEFAULT 0 CHECK (wait_start BETWEEN 0 AND 86400),
    wait_end REAL NOT NULL DEFAULT 0 CHECK (wait_end BETWEEN 0 AND 86400),
    -- The world box of a 'volume' trigger, map units, min below max on
    -- each axis; NULL for every other trigger.
    volume_min_x REAL,
    volume_min_y REAL,
    volume_min_z REAL,
    volume_max_x REAL,
    volume_max_y REAL,
    volume_max_z REAL,
    CHECK ((trigger = 'volume') = (volume_min_x IS NOT NULL AND volume_min_y IS NOT NULL AND
                                   volume_min_z IS NOT NULL AND volume_max_x IS NOT NULL AND
                                   volume_max_y IS NOT NULL AND volume_max_z IS NOT NULL)),
    CHECK (volume_min_x IS NULL AND volume_min_y IS NULL AND volume_min_z IS NULL AND
           volume_max_x IS NULL AND volume_max_y IS NULL AND volume_max_z IS NULL OR
           volume_min_x < volume_max_x AND volume_min_y < volume_max_y AND volume_min_z < volume_max_z)
);

-- mover_vertices: a mover's mesh positions in its local frame, map units,
-- |coordinate| <= 1e7. ids 0 .. count-1 per mover, no gaps.
CREATE TABLE mover_vertices (
    -- The mover (movers.id) the vertex belongs to.
    mover INTEGER NOT NULL REFERENCES movers (id),
    id INTEGER NOT NULL CHECK (id >= 0),
    x REAL NOT NULL CHECK (typeof(x) = 'real' AND abs(x) <= 1e7),
    y REAL NOT NULL CHECK (typeof(y) = 'real' AND abs(y) <= 1e7),
    z REAL NOT NULL CHECK (typeof(z) = 'real' AND abs(z) <= 1e7),
    PRIMARY KEY (mover, id)
) WITHOUT ROWID;

-- mover_triangles: a mover's mesh, three vertex ids of the same mover,
-- counter-clockwise seen from the front (a closed shell, faces out), and
-- the material. ids 0 .. count-1 per mover, no gaps: they number the
-- triangles (see Movers above).
CREATE TABLE mover_triangles (
    -- The mover (movers.id) the triangle belongs to.
    mover INTEGER NOT NULL REFERENCES movers (id),
    id INTEGER NOT NULL CHECK (id >= 0),
    -- Vertex ids in mover_vertices of the same mover.
    a INTEGER NOT NULL,
    b INTEGER NOT NULL,
    c INTEGER NOT NULL,
    material INTEGER NOT NULL REFERENCES materials (id),
    PRIMARY KEY (mover, id),
    FOREIGN KEY (mover, a) REFERENCES mover_vertices (mover, id),
    FOREIGN KEY (mover, b) REFERENCES mover_vertices (mover, id),
    FOREIGN KEY (mover, c) REFERENCES mover_vertices (mover, id)
) WITHOUT ROWID;

-- mover_keyframes: a mover's path, at least 2 keyframes, ids 0 .. count-1
-- per mover in time order, no gaps.
CREATE TABLE mover_keyframes (
    -- The mover (movers.id) the keyframe belongs to.
    mover INTEGER NOT NULL REFERENCES movers (id),
    id INTEGER NOT NULL CHECK (id >= 0),
    -- Seconds from the start of the path: 0 for id 0, then strictly
    -- increasing with id (the loader checks the order), at most 86400.
    time REAL NOT NULL CHECK (typeof(time) = 'real' AND time BETWEEN 0 AND 86400 AND (id > 0 OR time = 0)),
    -- Where the local origin is at that time, world map units.
    x REAL NOT NULL CHECK (typeof(x) = 'real' AND abs(x) <= 1e7),
    y REAL NOT NULL CHECK (typeof(y) = 'real' AND abs(y) <= 1e7),
    z REAL NOT NULL CHECK (typeof(z) = 'real' AND abs(z) <= 1e7),
    -- The rotation at that time, a unit quaternion (qx, qy, qz vector
    -- part, qw scalar part) written as numbers computed when the map is
    -- made; (0, 0, 0, 1) is no rotation.
    qx REAL NOT NULL CHECK (typeof(qx) = 'real'),
    qy REAL NOT NULL CHECK (typeof(qy) = 'real'),
    qz REAL NOT NULL CHECK (typeof(qz) = 'real'),
    qw REAL NOT NULL CHECK (typeof(qw) = 'real'),
    CHECK (abs(qx * qx + qy * qy + qz * qz + qw * qw - 1) <= 1e-6),
    PRIMARY KEY (mover, id)
) WITHOUT ROWID;

-- volumes: one row per jump pad, teleporter, hurting or killing place and
-- trigger (version 3), acting in increasing id order.
CREATE TABLE volumes (
    -- 1 to 4294967295: names the volume on the wire and in logs.
    id INTEGER PRIMARY KEY CHECK (id BETWEEN 1 AND 4294967295),
    -- 1 to 63 bytes: the event a game hears ('lava'), a kill's reason
    -- ('fell into the void'), a trigger's name; several may share one.
    name TEXT NOT NULL CHECK (length(CAST(name AS BLOB)) BETWEEN 1 AND 63),
    kind TEXT NOT NULL CHECK (kind IN ('push', 'teleport', 'hurt', 'kill', 'trigger', 'liquid', 'ladder')),
    -- The box of centres, map units, min at most max on each axis.
    min_x REAL NOT NULL, min_y REAL NOT NULL, min_z REAL NOT NULL,
    max_x REAL NOT NULL, max_y REAL NOT NULL, max_z REAL NOT NULL,
    -- push: the launch velocity, units/s, no faster than map.speed_limit.
    velocity_x REAL, velocity_y REAL, velocity_z REAL,
    -- teleport: the new centre (|coordinate| <= 1e7), the unit vector the
    -- body faces there (|f|^2 within 1e-6 of 1), keep_velocity 0 or 1 and
    -- the speed along facing when the velocity is not kept, units/s, in
    -- [0, map.speed_limit].
    destination_x REAL, destination_y REAL, destination_z REAL,
    facing_x REAL, facing_y REAL, facing_z REAL,
    keep_velocity INTEGER CHECK (keep_velocity IN (0, 1)),
    exit_speed REAL CHECK (exit_speed >= 0),
    -- hurt: damage per second, > 0; liquid: per second at each depth
    -- level, >= 0 (Quake 3's lava 30, slime 10, water 0).
    damage REAL CHECK (damage > 0 OR kind = 'liquid' AND damage = 0),
    -- liquid (version 4): what it holds.
    liquid TEXT CHECK (liquid IN ('water', 'slime', 'lava')),
    -- ladder (version 4): the unit vector out of the climbed face.
    normal_x REAL, normal_y REAL, normal_z REAL,
    CHECK (min_x <= max_x AND min_y <= max_y AND min_z <= max_z)
);

-- volume_planes: the half-spaces that cut a volume's box, ids 0 .. count-1
-- per volume without gaps, at most 32. The normal need not be unit length
-- but is not zero.
CREATE TABLE volume_planes (
    volume INTEGER NOT NULL REFERENCES volumes (id),
    id INTEGER NOT NULL CHECK (id >= 0),
    nx REAL NOT NULL, ny REAL NOT NULL, nz REAL NOT NULL,
    d REAL NOT NULL,
    PRIMARY KEY (volume, id)
) WITHOUT ROWID;
