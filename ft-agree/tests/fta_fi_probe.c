/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_fi_probe.c: whether libfabric offers a provider for the failure
 * detector (FI_EP_RDM with FI_MSG, the hints of src/fta_fd.c).
 *
 *   fta_fi_probe [PROVIDER]
 *
 * Prints the providers found (the one named, or all) and exits 0, or
 * prints why not and exits 1.
 */
#include <stdio.h>
#include <string.h>
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

int main(int argc, char **argv)
{
    struct fi_info *h = fi_allocinfo(), *info = NULL;
    if (!h)
        return 1;
    h->ep_attr->type = FI_EP_RDM;
    h->caps = FI_MSG;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->domain_attr->mr_mode = 0;
    if (argc > 1)
        h->fabric_attr->prov_name = strdup(argv[1]);
    int rc = fi_getinfo(FI_VERSION(1, 5), NULL, NULL, 0, h, &info);
    fi_freeinfo(h);
    if (rc) {
        printf("no provider%s%s with FI_EP_RDM and FI_MSG: %s\n",
               argc > 1 ? " " : "", argc > 1 ? argv[1] : "", fi_strerror(-rc));
        return 1;
    }
    const char *last = "";
    for (struct fi_info *i = info; i; i = i->next) {
        if (strcmp(last, i->fabric_attr->prov_name) != 0)
            printf("%s\n", i->fabric_attr->prov_name);
        last = i->fabric_attr->prov_name;
    }
    fi_freeinfo(info);
    return 0;
}
