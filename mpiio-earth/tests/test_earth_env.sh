#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# earth_enable=auto (the default): on one node with no contention model and
# no EARTH tuning, collective calls go to ROMIO; EARTH_ENABLE=enable, a
# tuning variable or hint, striping_factor > 1 or the contention model make
# EARTH carry them.  Every bad EARTH_* value (and PVAS_LOG) fails MPI_File_open on every
# rank with its MPI error class and exactly one line on stderr naming the
# variable, the value and the class.
prog=${abs_top_builddir:-.}/mpiio-earth/tests/earth_env
[ -n "$MPI_RUN" ] || { echo "MPI_RUN not set" >&2; exit 99; }
[ -x "$prog" ] || { echo "missing $prog" >&2; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/earth-env.XXXXXX") || exit 99
shm=/earth-env-$$
trap 'rm -rf "$tmp"; rm -f /dev/shm$shm' EXIT
for v in $(env | sed -n 's/^\(EARTH_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
status=0
# run NAME ENV... -- HINTS...: output of rank 0 in $tmp/NAME.out/.err
run() {
    name=$1
    shift
    envs=
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs="$envs $1"; shift; done
    [ "$1" = -- ] && shift
    env $envs "$MPI_RUN" -n 2 -t 60 "$prog" "$tmp/$name.dat" "$@" \
        >"$tmp/$name.out" 2>"$tmp/$name.err"
}
expect() { # NAME PATTERN ENV... -- HINTS
    name=$1 pat=$2
    shift 2
    run "$name" "$@"
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q "$pat" "$tmp/$name.out"; then
        echo "FAIL $name (status $rc): want '$pat', got:"
        cat "$tmp/$name.out"; tail -3 "$tmp/$name.err"; status=1
    else
        echo "ok $name: $(cat "$tmp/$name.out")"
    fi
}
expect auto 'earth_enable=auto coll=0 fallbacks=1 write=0' X=1
expect forced 'earth_enable=enable coll=1 fallbacks=0 write=0' EARTH_ENABLE=enable
expect disabled 'earth_enable=disable coll=0 fallbacks=1' EARTH_DISABLE=1
expect tuned_env 'earth_enable=auto coll=1 fallbacks=0 write=0' EARTH_REQ=4
expect tuned_hint 'earth_enable=auto coll=1 fallbacks=0 write=0' X=1 -- earth_steps=3
expect striped 'earth_enable=auto coll=1 fallbacks=0 write=0' X=1 -- striping_factor=4
expect model 'earth_enable=auto coll=1 fallbacks=0 write=0' EARTH_FSEMU=1 EARTH_FSEMU_SHM=$shm

# bad VAR=VALUE CLASS: open fails with CLASS; one stderr line names both
bad() {
    var=${1%%=*} val=${1#*=} cls=$2
    name=bad_$var
    run "$name" "$1"
    rc=$?
    lines=$(grep -c "$var.*'$val'.*$cls" "$tmp/$name.err")
    others=$(grep -c "^mpiio-earth:" "$tmp/$name.err")
    if [ $rc -ne 0 ] || ! grep -q "open: $cls" "$tmp/$name.out" ||
        [ "$lines" -ne 1 ] || [ "$others" -ne 1 ]; then
        echo "FAIL $name (status $rc, $lines matching lines, $others in all):"
        cat "$tmp/$name.out" "$tmp/$name.err" | head -5; status=1
    else
        echo "ok $name: $(grep "^mpiio-earth:" "$tmp/$name.err")"
    fi
}
bad EARTH_ENABLE=maybe MPI_ERR_INFO_VALUE
bad EARTH_DISABLE=yes MPI_ERR_INFO_VALUE
bad EARTH_REQ=abc MPI_ERR_INFO_VALUE
bad EARTH_STEPS=0 MPI_ERR_INFO_VALUE
bad EARTH_AGGR_LAYOUT=diagonal MPI_ERR_INFO_VALUE
bad EARTH_FD_STRIPES=-3 MPI_ERR_INFO_VALUE
bad EARTH_ASYNC=2 MPI_ERR_ARG
bad EARTH_ASYNC=01 MPI_ERR_ARG
bad EARTH_LOG=loud MPI_ERR_ARG
bad PVAS_LOG=earth:loud MPI_ERR_ARG
bad EARTH_BOARD_SIZE=0 MPI_ERR_ARG
bad EARTH_FSEMU=on MPI_ERR_ARG
bad EARTH_FSEMU=+1 MPI_ERR_ARG
bad EARTH_FSEMU_SERVERS=100 MPI_ERR_ARG
bad EARTH_FSEMU_STRIPE=1M MPI_ERR_ARG
bad EARTH_FSEMU_LATENCY_US=-1 MPI_ERR_ARG
bad EARTH_FSEMU_BW_MBPS=0 MPI_ERR_ARG
bad EARTH_FSEMU_K=x MPI_ERR_ARG
bad EARTH_FSEMU_ALPHA=nan MPI_ERR_ARG
bad EARTH_FSEMU_SHM=noslash MPI_ERR_ARG
exit $status
