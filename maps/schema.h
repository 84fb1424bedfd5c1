/*
 * schema.h - the text of maps/schema.sql, compiled into the maps library
 * so that tools create maps with exactly the documented schema.
 *
 * The definition, maps/schema_sql.c, is generated from schema.sql by make
 * (see maps.mk) and kept in the tree; the SQL file stays the one place the
 * format is written down, and a test checks that the two agree.
 */
#ifndef SWEEP_MAPS_SCHEMA_H
#define SWEEP_MAPS_SCHEMA_H

#ifdef __cplusplus
extern "C" {
#endif

/* Every statement of schema.sql, run once on an empty database. */
extern const char sweep_map_schema_sql[];

#ifdef __cplusplus
}
#endif

#endif
