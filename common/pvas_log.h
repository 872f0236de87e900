/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pvas_log.h: the one logging facility of the tree (internal, linked into
 * each component library as a convenience library; every symbol hidden).
 *
 * PVAS_LOG=component:level[,component:level...] chooses what each component
 * prints on stderr.  Components: pip, ulp, deleg, mpideleg, ftagree, earth,
 * swin, and all.  Levels: off (0), error (1), info (2), debug (3).  The old
 * switches (PIP_DEBUG, ULP_DEBUG, DLG_DEBUG, MPIDELEG_DEBUG, FTA_LOG,
 * EARTH_LOG, SWIN_LOG_LEVEL) are deprecated aliases: a component named in
 * PVAS_LOG takes that level, otherwise its old variable's, otherwise the
 * level of all:, otherwise off.  A bad PVAS_LOG fails each library's
 * initialisation (pvas_log_env_refuse), as its own bad variables do.
 *
 * A line is "<component>[<pid>]: <message>" or, once the component knows
 * its MPI rank, "<component>[<pid> rank <r>]: <message>", written with one
 * write(2) so that lines of different ranks and threads never interleave.
 */
#ifndef PVAS_LOG_H
#define PVAS_LOG_H

#include <stdarg.h>
#include <stddef.h>

#define PVAS_LOG_API __attribute__((visibility("hidden")))

enum pvas_log_comp {
    PVAS_LOG_PIP,
    PVAS_LOG_ULP,
    PVAS_LOG_DELEG,
    PVAS_LOG_MPIDELEG,
    PVAS_LOG_FTAGREE,
    PVAS_LOG_EARTH,
    PVAS_LOG_SWIN,
    PVAS_LOG_NCOMP
};

enum pvas_log_level {
    PVAS_LOG_ALWAYS = 0, /* printed whatever the settings (refusals) */
    PVAS_LOG_ERROR = 1,
    PVAS_LOG_INFO = 2,
    PVAS_LOG_DEBUG = 3
};

/* Longest line written (the rest of a longer message is cut). */
#define PVAS_LOG_LINE_MAX 1024

/* The level a component prints up to (0: nothing but PVAS_LOG_ALWAYS). */
PVAS_LOG_API int pvas_log_level(int comp);

/* Whether a message of this level of this component is printed. */
static inline int pvas_log_on(int comp, int level)
{
    return level <= pvas_log_level(comp);
}

PVAS_LOG_API void pvas_log(int comp, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
PVAS_LOG_API void pvas_vlog(int comp, int level, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* The MPI rank shown in this library's lines (negative: none). */
PVAS_LOG_API void pvas_log_set_rank(int rank);

/* Wait (at most 2 s) until the reader of a stderr pipe (an MPI launcher)
 * has taken what was written: call it before an abort, so that the line
 * that says why reaches the user. */
PVAS_LOG_API void pvas_log_drain(void);

/* The component's name in PVAS_LOG and in its lines ("pip", ...). */
PVAS_LOG_API const char *pvas_log_name(int comp);

/*
 * Parse a PVAS_LOG value: levels[c] gets the level given for component c or
 * -1, *all the level of all: or -1.  Returns 0, or -EINVAL with a one-line
 * reason in err.
 */
PVAS_LOG_API int pvas_log_parse(const char *spec, int levels[PVAS_LOG_NCOMP],
                                int *all, char *err, size_t errlen);

/* The level an old variable's value asks for, -1 when it has no say. */
PVAS_LOG_API int pvas_log_alias(int comp, const char *value);

/* The old variable of a component ("PIP_DEBUG", ...). */
PVAS_LOG_API const char *pvas_log_alias_name(int comp);

/* The one-line complaint about a bad PVAS_LOG, or NULL when it is good. */
PVAS_LOG_API const char *pvas_log_env_error(void);

/*
 * For a library's initialisation, which a bad PVAS_LOG fails as a bad value
 * of the library's own variables does: NULL when PVAS_LOG is good or unset;
 * otherwise its one-line complaint, also printed on stderr, once per
 * library copy.  Callers that print the reason themselves use
 * pvas_log_env_error().
 */
PVAS_LOG_API const char *pvas_log_env_refuse(void);

/* Forget what was read from the environment (tests). */
PVAS_LOG_API void pvas_log_reset(void);

/*
 * Build the line a message becomes (with its newline) in buf; returns its
 * length.  buf must hold PVAS_LOG_LINE_MAX bytes.
 */
PVAS_LOG_API size_t pvas_log_format(char *buf, int comp, const char *fmt,
                                    va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif /* PVAS_LOG_H */
