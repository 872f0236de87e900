#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_pip_realprog.sh: small ordinary programs (libpip/tests/realprog/,
# built as users build them: cc -fPIE -pie -rdynamic) that use the libc
# state real programs use, each run alone and as 1, 8 and 64 PiP tasks in
# both modes: the outputs must be the same (rp_compare.sh).
: "${abs_top_srcdir:?}" "${abs_top_builddir:?}" "${PIP_EXEC:?}"
src=$abs_top_srcdir/libpip/tests/realprog
bin=$abs_top_builddir/libpip/tests/realprog
fails=0
run() {
    name=$1
    shift
    if [ ! -x "$bin/$name" ]; then
        echo "SETUP: $bin/$name not built" >&2
        exit 99
    fi
    "$src/rp_compare.sh" "$name" "$bin/$name" "$@" || fails=$((fails + 1))
}
run rp_thrtls
run rp_getopt -v --name=x op1
run rp_stdio x
run rp_alarm
[ $fails -eq 0 ]
