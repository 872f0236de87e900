#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_netmod_mpich.sh (MPICH's own pt2pt and coll programs) on two nodes
# emulated by hydra's fork launcher (NM_NODES=2), in the default form (the
# PiP form for each group on one node) and in the process form.  Skips
# without MPIDELEG_MPICH_SRC, as test_netmod_mpich.sh does.
d=${abs_top_srcdir:-.}/mpich-netmod/tests
[ -n "${MPIDELEG_MPICH_SRC:-}" ] && [ -f "$MPIDELEG_MPICH_SRC/test/mpi/util/mtest.c" ] || {
    echo "SKIP: set MPIDELEG_MPICH_SRC to an MPICH source tree (apt-get source mpich)"
    exit 77
}
[ -f "${abs_top_builddir:-.}/libpip/.libs/libpip.so.0" ] || { echo "SKIP: libpip not built"; exit 77; }
rc=0
for form in default process; do
    echo "== two nodes, NM_FORM=$form"
    NM_NODES=2 NM_FORM=$form sh "$d/test_netmod_mpich.sh"
    r=$?
    [ $r -eq 0 ] || rc=1
    echo "== two nodes, NM_FORM=$form: status $r"
done
exit $rc
