#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# fta-fd-kill.sh: the failure detector over one transport, heartbeats only
# (FTA_FD_PROC=0, so that the transport's heartbeats find the dead):
#
#   fta-fd-kill.sh udp | fabric PROVIDER
#
# run by the test entries test_fta_fd_udp.sh and test_fta_fd_fabric_*.sh
# (one per libfabric provider).  Checked: the detector runs over the
# transport asked for (its "up:" line); a killed rank is declared dead by
# every survivor (3 ranks); two ranks killed inside an agreement (4 ranks)
# leave the survivors agreeing, shrinking and reducing right; a rank
# stopped for half the timeout is not declared dead.  A provider this
# machine does not offer skips the entry (status 77, the reason).
# FTA_FD_KILL_NP_MAX (make check-long: 6) adds the 5- and 6-rank cases.
set -u
tr=${1:-}
prov=${2:-}
b=${abs_top_builddir:-.}/ft-agree/tests
s=${abs_top_srcdir:-.}/ft-agree/tests
run=${MPI_RUN:-${abs_top_builddir:-.}/test/mpi-run}
npmax=${FTA_FD_KILL_NP_MAX:-4}
case $tr in
udp) want=udp; unset FI_PROVIDER ;;
fabric)
    [ -n "$prov" ] || { echo "ERROR: fabric needs a provider name"; exit 99; }
    [ -x "$b/fta_fi_probe" ] || { echo "SKIP: this build has no libfabric transport"; exit 77; }
    "$b/fta_fi_probe" "$prov" >/dev/null 2>&1 ||
        { echo "SKIP: libfabric provider '$prov' not offered here ($("$b/fta_fi_probe" "$prov" 2>&1 | head -1))"; exit 77; }
    FI_PROVIDER=$prov
    export FI_PROVIDER
    want="fabric:"
    ;;
*) echo "usage: fta-fd-kill.sh udp | fabric PROVIDER"; exit 99 ;;
esac
command -v mpiexec >/dev/null 2>&1 || { echo "SKIP: no mpiexec"; exit 77; }
[ -x "$b/fta_mpi_scen" ] && [ -x "$b/fta_mpi_detect" ] || { echo "ERROR: helpers not built"; exit 99; }
MPIEXEC=$s/fta-mpiexec
MPI_RUN_NP_MAX=$npmax
FTA_FD_TRANSPORT=$tr
FTA_FD_PROC=0
FTA_FD_PERIOD_MS=${FTA_FD_PERIOD_MS:-100}
FTA_FD_TIMEOUT_MS=${FTA_FD_TIMEOUT_MS:-2000}
PVAS_LOG=ftagree:info
export MPIEXEC MPI_RUN_NP_MAX FTA_FD_TRANSPORT FTA_FD_PROC FTA_FD_PERIOD_MS FTA_FD_TIMEOUT_MS PVAS_LOG
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fta-fd.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
name="$tr${prov:+ $prov}"

# the transport in use, from every rank's "up:" line
used() { # OUTFILE NP
    n=$(grep -c "detector over $want${prov:+[^ ]*$prov}" "$1")
    [ "$n" -eq "$2" ]
}

mkdir -p "$tmp/det"
"$run" -n 3 -t 120 "$b/fta_mpi_detect" kill "$tmp/det" >"$tmp/det.out" 2>&1
if ! used "$tmp/det.out" 3; then
    echo "FAIL: $name: not every rank ran the detector over $want$prov:"; grep 'up:\|ft-agree' "$tmp/det.out" | head -5
    fails=$((fails + 1))
elif grep -q '^OK rank 0' "$tmp/det/rank.0" 2>/dev/null && grep -q '^OK rank 2' "$tmp/det/rank.2" 2>/dev/null; then
    echo "PASS: $name: killed rank 1 declared dead by ranks 0 and 2 ($(grep -o 'declared dead' "$tmp/det.out" | wc -l) declaration(s) by an observer)"
else
    echo "FAIL: $name: detection run"; cat "$tmp"/det/rank.* "$tmp/det.out" | head -30; fails=$((fails + 1))
fi

kill_case() { # NP MODE VICTIMS
    np=$1 mode=$2 v=$3
    d=$tmp/k$np-$mode-$(echo "$v" | tr ',' _)
    mkdir -p "$d"
    "$run" -n "$np" -t 180 "$b/fta_mpi_scen" "$mode" "$d" "$v" >"$d.out" 2>&1
    st=$?
    want_ok=$((np - $(echo "$v" | tr ',' '\n' | grep -c .)))
    ok=$(cat "$d"/rank.* 2>/dev/null | grep -c '^OK')
    if [ "$st" -eq 124 ]; then
        echo "FAIL: $name: np=$np $mode victims=$v: timed out"; fails=$((fails + 1))
    elif grep -q '^FAIL' "$d"/rank.* 2>/dev/null || [ "$ok" -ne "$want_ok" ]; then
        echo "FAIL: $name: np=$np $mode victims=$v: $ok of $want_ok survivors OK"
        cat "$d"/rank.* "$d.out" 2>/dev/null | grep -v stalled | head -30; fails=$((fails + 1))
    else
        echo "PASS: $name: np=$np $mode victims=$v: $ok survivors agreed, shrank, reduced"
    fi
}
kill_case 4 during 1,2
if [ "$npmax" -ge 6 ]; then
    kill_case 4 before 3
    kill_case 5 during 0,3
    kill_case 6 after 0,1
fi

mkdir -p "$tmp/stop"
# A stop of a fifth of the timeout: a busy machine can delay the stopped
# rank's first heartbeat after SIGCONT by a second or more, and the case
# checks that a live rank is not declared dead, not how close to the
# timeout that holds.
stop_ms=$((FTA_FD_TIMEOUT_MS / 5))
"$run" -n 3 -t 120 "$b/fta_mpi_detect" stop "$tmp/stop" "$stop_ms" >"$tmp/stop.out" 2>&1
if [ "$(cat "$tmp"/stop/rank.* 2>/dev/null | grep -c '^OK')" -eq 3 ]; then
    echo "PASS: $name: rank stopped for $stop_ms ms (timeout $FTA_FD_TIMEOUT_MS ms) not declared dead"
else
    echo "FAIL: $name: stopped rank"; cat "$tmp"/stop/rank.* "$tmp/stop.out" | head -30; fails=$((fails + 1))
fi
[ "$fails" -eq 0 ]
