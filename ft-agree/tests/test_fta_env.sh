#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_fta_env.sh: every bad FTA_* value, and a bad PVAS_LOG, ends the job
# in MPI_Init with status 2 and exactly one line on stderr naming the
# variable, the value and the MPI error class (never a silent default,
# never a hang).
b=${abs_top_builddir:-.}/ft-agree/tests
run=${MPI_RUN:-${abs_top_builddir:-.}/test/mpi-run}
command -v mpiexec >/dev/null 2>&1 || { echo "SKIP: no mpiexec"; exit 77; }
[ -x "$b/fta_mpi_detect" ] || { echo "ERROR: helpers not built"; exit 99; }
for v in $(env | sed -n 's/^\(FTA_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fta-env.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { # PATTERN VAR=VALUE...
    pat=$1
    shift
    name=$(echo "$1" | cut -d= -f1)
    env "$@" "$run" -n 2 -t 60 "$b/fta_mpi_detect" "$tmp" 1 >"$tmp/$name.out" 2>"$tmp/$name.err"
    st=$?
    n=$(grep -c "$pat.*MPI_ERR_ARG" "$tmp/$name.err")
    all=$(grep -c '^ft-agree' "$tmp/$name.err")
    if [ "$st" -ne 2 ] || [ "$n" -ne 1 ] || [ "$all" -ne 1 ]; then
        echo "FAIL: $*: status $st, $n matching lines, $all in all:"
        head -5 "$tmp/$name.err"; fails=$((fails + 1))
    else
        echo "ok $*: $(grep '^ft-agree' "$tmp/$name.err")"
    fi
}
bad "FTA_ARITY='1'" FTA_ARITY=1
bad "FTA_FAST_MAX='many'" FTA_FAST_MAX=many
bad "FTA_FAULT_SEND='-1'" FTA_FAULT_SEND=-1
bad "FTA_FD_PERIOD_MS='0'" FTA_FD_PERIOD_MS=0
bad "FTA_FD_TIMEOUT_MS='2s'" FTA_FD_TIMEOUT_MS=2s
bad "FTA_FD_TIMEOUT_MS='100' must exceed FTA_FD_PERIOD_MS='100'" FTA_FD_TIMEOUT_MS=100 FTA_FD_PERIOD_MS=100
bad "FTA_FD_ADDR='localhost'" FTA_FD_ADDR=localhost
bad "FTA_LOG='yes'" FTA_LOG=yes
bad "FTA_LOG=' 1' must be 0 or 1" "FTA_LOG= 1"
bad "FTA_FD_PROC='2' must be 0 or 1" FTA_FD_PROC=2
bad "FTA_FD_PROC='true'" FTA_FD_PROC=true
bad "FTA_FD_TRANSPORT='ib'" FTA_FD_TRANSPORT=ib
bad "FTA_FD_OBSERVERS='0'" FTA_FD_OBSERVERS=0
bad "PVAS_LOG='ftagree:loud'" PVAS_LOG=ftagree:loud
# The fabric transport demanded, no such provider: one line, status 2.
if [ -x "$b/fta_fi_probe" ]; then
    FI_PROVIDER=no-such-provider FTA_FD_TRANSPORT=fabric "$run" -n 2 -t 60 "$b/fta_mpi_detect" "$tmp" 1 >"$tmp/fi.out" 2>"$tmp/fi.err"
    st=$?
    n=$(grep -c "^ft-agree: failure detector: no libfabric provider.*no-such-provider.*MPI_ERR_OTHER" "$tmp/fi.err")
    all=$(grep -c '^ft-agree' "$tmp/fi.err")
    if [ "$st" -ne 2 ] || [ "$n" -ne 1 ] || [ "$all" -ne 1 ]; then
        echo "FAIL: FTA_FD_TRANSPORT=fabric FI_PROVIDER=no-such-provider: status $st, $n matching lines, $all in all:"
        head -5 "$tmp/fi.err"; fails=$((fails + 1))
    else
        echo "ok FTA_FD_TRANSPORT=fabric FI_PROVIDER=no-such-provider: $(grep '^ft-agree' "$tmp/fi.err")"
    fi
fi
exit $fails
