/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pvas_env.h: on/off environment variables, read the same way by every
 * component (ENVIRONMENT.md, "On/off variables").
 *
 *   unset or empty  the variable's default
 *   "0"             off
 *   "1"             on
 *   anything else   refused: the caller prints its usual one line naming
 *                   the variable (pvas_env_bool_expected() says what was
 *                   expected) and fails as for its other bad variables
 *
 * PVAS_ENV_TRUE_FALSE also takes "true" and "false" (any case): the
 * spelling of the variables that follow OpenCoarrays' conventions
 * (PCAF_*).  No other words ("yes", "on", "2", " 1") are taken, so that a
 * value means the same to every component.
 *
 * Header only (static inline): the libraries, the shim, the tests and the
 * examples use it without linking anything more.
 */
#ifndef PVAS_ENV_H
#define PVAS_ENV_H

#include <errno.h>
#include <stdlib.h>
#include <strings.h>

#define PVAS_ENV_TRUE_FALSE 1

/* Parse S (not NULL); 0 and *on set, or -EINVAL (and *on untouched). */
static inline int pvas_bool_parse(const char *s, int flags, int *on)
{
    if (s[0] == '0' && s[1] == '\0') {
        *on = 0;
        return 0;
    }
    if (s[0] == '1' && s[1] == '\0') {
        *on = 1;
        return 0;
    }
    if (flags & PVAS_ENV_TRUE_FALSE) {
        if (strcasecmp(s, "false") == 0) {
            *on = 0;
            return 0;
        }
        if (strcasecmp(s, "true") == 0) {
            *on = 1;
            return 0;
        }
    }
    return -EINVAL;
}

/* Read NAME: 0 with *on set (DFLT when unset or empty), or -EINVAL with
 * *on = DFLT (for callers that must go on and are checked elsewhere). */
static inline int pvas_env_bool(const char *name, int dflt, int flags, int *on)
{
    const char *s = getenv(name);
    *on = dflt;
    if (s == NULL || *s == '\0')
        return 0;
    return pvas_bool_parse(s, flags, on);
}

/* The value NAME is on: 1, or 0 when unset, empty, "0" or refused (for
 * readers whose caller has already refused bad values). */
static inline int pvas_env_on(const char *name, int flags)
{
    int on;
    return pvas_env_bool(name, 0, flags, &on) == 0 && on;
}

/* What a refusal line says was expected. */
static inline const char *pvas_env_bool_expected(int flags)
{
    return flags & PVAS_ENV_TRUE_FALSE ? "0, 1, true or false" : "0 or 1";
}

#endif
