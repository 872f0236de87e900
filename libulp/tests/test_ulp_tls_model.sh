#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_ulp_tls_model.sh: libpip's and libulp's __thread data is reached
# through TLS descriptors (x86-64), never through __tls_get_addr.  With the
# copy method a user-level process runs on a carrier thread showing its own
# thread descriptor, and glibc's __tls_get_addr may recompute a static
# block's address from that descriptor while another thread is loading a
# namespace: the carrier's dtv then points into another thread's block
# (seen as a crash at a task's exit).  A general-dynamic relocation
# (R_X86_64_DTPMOD64) in either library brings that path back.
: "${abs_top_builddir:?}"
if ! command -v readelf >/dev/null 2>&1; then
    echo "SKIP: readelf not found"
    exit 77
fi
fails=0
for lib in libpip/.libs/libpip.so libulp/.libs/libulp.so; do
    f=$abs_top_builddir/$lib
    if [ ! -f "$f" ]; then
        echo "SETUP: $f not built" >&2
        exit 99
    fi
    relocs=$(readelf -rW "$f")
    gd=$(printf '%s\n' "$relocs" | grep -c 'R_X86_64_DTPMOD64')
    desc=$(printf '%s\n' "$relocs" | grep -c 'R_X86_64_TLSDESC')
    if [ "$gd" -ne 0 ]; then
        echo "FAIL: $lib: $gd general-dynamic TLS relocations (want TLS descriptors only)"
        fails=$((fails + 1))
    elif [ "$desc" -eq 0 ]; then
        echo "FAIL: $lib: no TLS descriptor relocation (its __thread data is gone?)"
        fails=$((fails + 1))
    else
        echo "PASS: $lib: $desc TLS descriptor relocations, no general-dynamic one"
    fi
done
[ $fails -eq 0 ]
