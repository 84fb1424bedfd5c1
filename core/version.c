/*
 * version.c - the release the core library was built as (version.h).
 */
#include "core/version.h"

const char *sweep_version(void)
{
    return SWEEP_VERSION;
}
