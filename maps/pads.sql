-- pads.sql - a test level of volumes (schema version 3): a jump pad that
-- throws a player onto a platform, a teleporter, a hurting pool, a kill
-- strip and a trigger, at known coordinates, for tests and demos.
--
-- The rows of a map in the format of maps/schema.sql; make builds it into
-- $(BUILD)/maps/pads.db as it builds arena.sql. Metres, z up, gravity
-- (0, 0, -9.81), radii (0.4, 0.4, 0.9): a player standing on the floor
-- (z = 0) has its centre at z = 0.9. No air control (air_accel 0), so a
-- flight is ballistic and a test can say where it lands.
--
--   floor       x -30 .. 40, y -10 .. 10, z = 0
--   platform    a solid box x 20 .. 34, y -5 .. 5, top at z = 4
--   volume 1    'pad': push, centres in x -1 .. 1, y -1 .. 1, z 0 .. 1.
--               Its launch velocity is Quake 3's rule for a jump pad
--               aimed at a target: the flight's top is the target, (18,
--               0, 6.9) here, from the pad's centre at standing height (0,
--               0, 0.9): time = sqrt(height / (0.5 g)) with height = 6,
--               horizontal speed = distance / time, vertical = time * g,
--               computed when this file was written (no square root at
--               run time). It lands on the platform near x = 28.2 and
--               slides to a stop before its far edge.
--   volume 2    'teleporter': x -11 .. -9, y -1 .. 1, z 0 .. 1, to (25, 3,
--               4.9005) on the platform, facing +y, leaving at 4 m/s.
--   volume 3    'burn': hurt, 10 per second, x -21 .. -19, y -1 .. 1.
--   volume 4    'gate': a trigger across the floor, x 5 .. 6.
--   volume 5    'fell into the lava': kill, x 36 .. 40 across the floor.
--   spawns      (0, -5, 0.9005), (-5, 0, 0.9005).

INSERT INTO map (id, name, units, gravity_x, gravity_y, gravity_z, tick_rate, radius_x, radius_y, radius_z,
                 walkable_slope_deg, step_height,
                 walk_speed, ground_accel, air_accel, jump_speed, max_step, speed_limit, correction_threshold)
VALUES (1, 'pads', 'm', 0.0, 0.0, -9.81, 60.0, 0.4, 0.4, 0.9, 45.0, 0.35,
        5.0, 50.0, 0.0, 5.0, 1.0 / 30, 60.0, 0.25);

INSERT INTO materials (id, name, friction, flags) VALUES
    (1, 'concrete', 1.0, 0);

-- The floor (0 .. 3) and the platform's corners (4 + k: bit 0 of k is x
-- 34 rather than 20, bit 1 y 5 rather than -5, bit 2 z 4 rather than 0).
INSERT INTO vertices (id, x, y, z) VALUES
    (0, -30.0, -10.0, 0.0), (1, 40.0, -10.0, 0.0), (2, 40.0, 10.0, 0.0), (3, -30.0, 10.0, 0.0),
    (4, 20.0, -5.0, 0.0), (5, 34.0, -5.0, 0.0), (6, 20.0, 5.0, 0.0), (7, 34.0, 5.0, 0.0),
    (8, 20.0, -5.0, 4.0), (9, 34.0, -5.0, 4.0), (10, 20.0, 5.0, 4.0), (11, 34.0, 5.0, 4.0);

INSERT INTO triangles (id, a, b, c, material) VALUES
    (0, 0, 1, 2, 1), (1, 0, 2, 3, 1),
    (2, 8, 9, 11, 1), (3, 8, 11, 10, 1),
    (4, 5, 7, 11, 1), (5, 5, 11, 9, 1),
    (6, 4, 8, 10, 1), (7, 4, 10, 6, 1),
    (8, 6, 10, 11, 1), (9, 6, 11, 7, 1),
    (10, 4, 5, 9, 1), (11, 4, 9, 8, 1);

INSERT INTO spawns (id, x, y, z) VALUES
    (1, 0.0, -5.0, 0.9005),
    (2, -5.0, 0.0, 0.9005);

INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z,
                     velocity_x, velocity_y, velocity_z) VALUES
    (1, 'pad', 'push', -1.0, -1.0, 0.0, 1.0, 1.0, 1.0, 16.274827188022613, 0.0, 10.849884792015075);
INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z,
                     destination_x, destination_y, destination_z, facing_x, facing_y, facing_z,
                     keep_velocity, exit_speed) VALUES
    (2, 'teleporter', 'teleport', -11.0, -1.0, 0.0, -9.0, 1.0, 1.0, 25.0, 3.0, 4.9005, 0.0, 1.0, 0.0, 0, 4.0);
INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, damage) VALUES
    (3, 'burn', 'hurt', -21.0, -1.0, 0.0, -19.0, 1.0, 1.0, 10.0);
INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z) VALUES
    (4, 'gate', 'trigger', 5.0, -10.0, 0.0, 6.0, 10.0, 3.0),
    (5, 'fell into the lava', 'kill', 36.0, -10.0, 0.0, 40.0, 10.0, 3.0);
