#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_fta_scale.sh (make check-long): the ring detector at 16 and 32 ranks
# (oversubscribed), heartbeats only (FTA_FD_PROC=0): 2 and 3 ranks
# SIGKILLed at the same point (before an agreement, or inside one; the
# victims neighbours in the ring, so observers die with their observed
# ranks and the ring must adopt past them), over the default transport and
# over UDP.  Every survivor must get the failures reported, agree, shrink
# and reduce right (fta_mpi_scen's checks).  Then, unless
# FTA_SCALE_IDLE_S=0, 32 ranks run FTA_SCALE_IDLE_S seconds (default 300)
# without a failure: nobody may be declared dead.
set -u
b=${abs_top_builddir:-.}/ft-agree/tests
s=${abs_top_srcdir:-.}/ft-agree/tests
run=${MPI_RUN:-${abs_top_builddir:-.}/test/mpi-run}
idle=${FTA_SCALE_IDLE_S:-300}
command -v mpiexec >/dev/null 2>&1 || { echo "SKIP: no mpiexec"; exit 77; }
[ -x "$b/fta_mpi_scen" ] && [ -x "$b/fta_mpi_detect" ] || { echo "ERROR: helpers not built"; exit 99; }
MPIEXEC=$s/fta-mpiexec
MPI_RUN_NP_MAX=32
FTA_FD_PROC=0
PVAS_LOG=ftagree:info
export MPIEXEC MPI_RUN_NP_MAX FTA_FD_PROC PVAS_LOG
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fta-scale.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0

kill_case() { # TRANSPORT NP MODE VICTIMS
    tr=$1 np=$2 mode=$3 v=$4
    d=$tmp/$tr-$np-$mode-$(echo "$v" | tr ',' _)
    mkdir -p "$d"
    FTA_FD_TRANSPORT=$tr "$run" -n "$np" -t 600 "$b/fta_mpi_scen" "$mode" "$d" "$v" >"$d.out" 2>&1
    st=$?
    want=$((np - $(echo "$v" | tr ',' '\n' | grep -c .)))
    ok=$(cat "$d"/rank.* 2>/dev/null | grep -c '^OK')
    decl=$(grep -c 'declared dead' "$d.out")
    if [ "$st" -eq 124 ]; then
        echo "FAIL: $tr np=$np $mode victims=$v: timed out"; fails=$((fails + 1))
    elif grep -q '^FAIL' "$d"/rank.* 2>/dev/null || [ "$ok" -ne "$want" ]; then
        echo "FAIL: $tr np=$np $mode victims=$v: $ok of $want survivors OK"
        cat "$d"/rank.* 2>/dev/null | grep -v '^OK' | head -20
        grep -v stalled "$d.out" | tail -20; fails=$((fails + 1))
    else
        echo "PASS: $tr np=$np $mode victims=$v: $ok survivors agreed, shrank, reduced ($decl declaration(s) by observers)"
    fi
}

tr_default=fabric
[ -x "$b/fta_fi_probe" ] && "$b/fta_fi_probe" >/dev/null 2>&1 || tr_default=udp
for tr in $tr_default udp; do
    kill_case $tr 16 before 5,6
    kill_case $tr 16 during 9,10,11
    kill_case $tr 32 before 20,21
    kill_case $tr 32 during 0,1,31
done

if [ "$idle" -gt 0 ]; then
    mkdir -p "$tmp/idle"
    "$run" -n 32 -t $((idle + 300)) "$b/fta_mpi_detect" idle "$tmp/idle" "$idle" >"$tmp/idle.out" 2>&1
    ok=$(cat "$tmp"/idle/rank.* 2>/dev/null | grep -c '^OK')
    if [ "$ok" -eq 32 ]; then
        echo "PASS: 32 ranks, $idle s without failures: nobody declared dead (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    else
        echo "FAIL: 32 ranks idle $idle s: $ok of 32 OK"; cat "$tmp"/idle/rank.* | grep -v '^OK' | head
        grep 'declared\|stalled' "$tmp/idle.out" | head -20; fails=$((fails + 1))
    fi
fi
[ "$fails" -eq 0 ]
