-- pool.sql - a test level of liquids and a ladder (schema version 4): a
-- pool of water with a slime corner, dug into a deck, and a tower with a
-- ladder up its face, at known coordinates, for tests and demos.
--
-- The rows of a map in the format of maps/schema.sql; make builds it into
-- $(BUILD)/maps/pool.db as it builds arena.sql. Metres, z up, gravity
-- (0, 0, -9.81), radii (0.4, 0.4, 0.9): a player standing on the deck
-- (z = 0) has its centre at z = 0.9. The swimming and climbing rules are
-- the defaults (core/motion.h), written out.
--
--   decks       z = 0: x -20 .. 10 and x 20 .. 40, y -10 .. 10
--   pool        x 10 .. 20, y -10 .. 10, its bottom at z = -2
--   tower       a solid box x 30 .. 36, y -3 .. 3, top at z = 4
--   volume 1    'pool': water, x 10 .. 20, y -10 .. 6, z -2 .. -0.2 (the
--               surface 0.2 below the deck: a swimmer with its head out
--               jumps out onto the deck)
--   volume 2    'slime': slime hurting 10 per second at each depth
--               level, the pool's corner y 6 .. 10
--   volume 3    'ladder': the strip y -0.5 .. 0.5 of the tower's face at
--               x = 30, grown by the radii and 0.05, its normal -x
--   spawns      (5, 0, 0.9005), (25, 0, 0.9005).

INSERT INTO map (id, name, units, gravity_x, gravity_y, gravity_z, tick_rate, radius_x, radius_y, radius_z,
                 walkable_slope_deg, step_height,
                 walk_speed, ground_accel, air_accel, jump_speed, max_step, speed_limit, correction_threshold,
                 swim_speed, swim_accel, swim_drag, swim_sink, swim_jump, climb_speed, climb_accel)
VALUES (1, 'pool', 'm', 0.0, 0.0, -9.81, 60.0, 0.4, 0.4, 0.9, 45.0, 0.35,
        5.0, 50.0, 10.0, 5.0, 1.0 / 30, 60.0, 0.25,
        2.5, 10.0, 1.0, 0.9375, 6.5, 2.5, 50.0);

INSERT INTO materials (id, name, friction, flags) VALUES
    (1, 'tiles', 1.0, 0);

-- Generated: the decks' and the tower's tops, the pool's bottom and four
-- sides facing into it, the tower's four sides facing out.
INSERT INTO vertices (id, x, y, z) VALUES
    (0, -20.0, -10.0, 0.0),
    (1, 10.0, -10.0, 0.0),
    (2, 10.0, 10.0, 0.0),
    (3, -20.0, 10.0, 0.0),
    (4, 10.0, -10.0, -2.0),
    (5, 20.0, -10.0, -2.0),
    (6, 20.0, 10.0, -2.0),
    (7, 10.0, 10.0, -2.0),
    (8, 20.0, -10.0, 0.0),
    (9, 20.0, 10.0, 0.0),
    (10, 40.0, -10.0, 0.0),
    (11, 40.0, 10.0, 0.0),
    (12, 30.0, -3.0, 4.0),
    (13, 36.0, -3.0, 4.0),
    (14, 36.0, 3.0, 4.0),
    (15, 30.0, 3.0, 4.0),
    (16, 30.0, 3.0, 0.0),
    (17, 30.0, -3.0, 0.0),
    (18, 36.0, -3.0, 0.0),
    (19, 36.0, 3.0, 0.0);

INSERT INTO triangles (id, a, b, c, material) VALUES
    (0, 0, 1, 2, 1),
    (1, 0, 2, 3, 1),
    (2, 4, 5, 6, 1),
    (3, 4, 6, 7, 1),
    (4, 4, 7, 2, 1),
    (5, 4, 2, 1, 1),
    (6, 8, 9, 6, 1),
    (7, 8, 6, 5, 1),
    (8, 1, 8, 5, 1),
    (9, 1, 5, 4, 1),
    (10, 7, 6, 9, 1),
    (11, 7, 9, 2, 1),
    (12, 8, 10, 11, 1),
    (13, 8, 11, 9, 1),
    (14, 12, 13, 14, 1),
    (15, 12, 14, 15, 1),
    (16, 12, 15, 16, 1),
    (17, 12, 16, 17, 1),
    (18, 18, 19, 14, 1),
    (19, 18, 14, 13, 1),
    (20, 17, 18, 13, 1),
    (21, 17, 13, 12, 1),
    (22, 15, 14, 19, 1),
    (23, 15, 19, 16, 1);

INSERT INTO spawns (id, x, y, z) VALUES
    (1, 5.0, 0.0, 0.9005),
    (2, 25.0, 0.0, 0.9005);

INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, liquid, damage) VALUES
    (1, 'pool', 'liquid', 10.0, -10.0, -2.0, 20.0, 6.0, -0.2, 'water', 0.0),
    (2, 'slime', 'liquid', 10.0, 6.0, -2.0, 20.0, 10.0, -0.2, 'slime', 10.0);
INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, normal_x, normal_y, normal_z) VALUES
    (3, 'ladder', 'ladder', 29.55, -0.95, -0.95, 30.0, 0.95, 4.95, -1.0, 0.0, 0.0);
