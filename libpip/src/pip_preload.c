/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_preload.c: PIP_NS_PRELOAD, libraries loaded into every new namespace
 * before its first task program, as LD_PRELOAD does for a process.
 *
 * glibc gives every object of a dlmopen namespace the searchlist of the
 * namespace's first object as its global scope, looked at before the
 * object's own dependencies.  A library loaded first (with its
 * dependencies) thus comes before the program and its libraries in every
 * lookup of the namespace: its definitions win, and its own references to
 * the same names reach the next definition only through its dependencies
 * (dlsym RTLD_NEXT, or PMPI_-style second names), exactly as when the
 * library is preloaded into a process.  Nothing of the program is patched:
 * lazy and immediate binding (BIND_NOW, RELRO) alike bind to it.
 *
 * Also where libpip finds pip_taskstart.so, which a private-image task's
 * loader preloads (pip_image.c, pip_taskstart.c).
 */
#include "pip_internal.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Load the PIP_NS_PRELOAD libraries (separated by ':' or blanks) into a new
 * namespace.  *lmidp: LM_ID_NEWLM when the variable is unset or empty, else
 * the new namespace.  0, or -1 with *errp the loader's message (the
 * libraries loaded so far stay: a namespace cannot be given back).
 */
int pip_ns_preload(long *lmidp, const char **errp)
{
    const char *v = getenv("PIP_NS_PRELOAD");
    *lmidp = (long)LM_ID_NEWLM;
    *errp = NULL;
    if (v == NULL || *v == '\0')
        return 0;
    char *list = strdup(v);
    if (list == NULL) {
        *errp = "PIP_NS_PRELOAD: out of memory";
        return -1;
    }
    int rc = 0;
    char *save = NULL;
    for (char *lib = strtok_r(list, ": \t", &save); lib != NULL;
         lib = strtok_r(NULL, ": \t", &save)) {
        (void)dlerror();
        void *h = dlmopen((Lmid_t)*lmidp, lib, RTLD_LAZY | RTLD_LOCAL);
        if (h == NULL) {
            *errp = dlerror();
            rc = -1;
            break;
        }
        Lmid_t id;
        if (*lmidp == (long)LM_ID_NEWLM && dlinfo(h, RTLD_DI_LMID, &id) == 0)
            *lmidp = (long)id;
        pip_dbg("PIP_NS_PRELOAD: %s in namespace %ld", lib, *lmidp);
    }
    free(list);
    return rc;
}

static char pip_ts_path[PATH_MAX];
static pthread_once_t pip_ts_once = PTHREAD_ONCE_INIT;

static void pip_ts_find(void)
{
    Dl_info di;
    const char *slash;
    if (dladdr((void *)pip_ts_find, &di) != 0 && di.dli_fname != NULL &&
        (slash = strrchr(di.dli_fname, '/')) != NULL &&
        snprintf(pip_ts_path, sizeof(pip_ts_path), "%.*s/pip_taskstart.so",
                 (int)(slash - di.dli_fname),
                 di.dli_fname) < (int)sizeof(pip_ts_path) &&
        access(pip_ts_path, R_OK) == 0)
        return;
    if (snprintf(pip_ts_path, sizeof(pip_ts_path), "%s/pip_taskstart.so",
                 PIP_PKGLIBDIR) < (int)sizeof(pip_ts_path) &&
        access(pip_ts_path, R_OK) == 0)
        return;
    pip_dbg("pip_taskstart.so not found next to libpip nor in %s: tasks "
            "start with their signals unblocked",
            PIP_PKGLIBDIR);
    pip_ts_path[0] = '\0';
}

/* pip_taskstart.so (next to libpip.so: the build tree or an install; else
 * in the package's library directory), or NULL. */
const char *pip_taskstart_path(void)
{
    (void)pthread_once(&pip_ts_once, pip_ts_find);
    return pip_ts_path[0] != '\0' ? pip_ts_path : NULL;
}
