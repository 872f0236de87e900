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
 */
#include "pip_internal.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

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
