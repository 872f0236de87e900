#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_fta_sim_seeded.sh: the exhaustive simulator can fail.  fta-sim-seeded
# is fta-sim built on a core with seeded bugs (FTA_SEEDED_BUG in
# src/fta_core.c), one chosen by FTA_SEEDED_VARIANT:
#   1: a member does not wait for its last child's UP (a root may decide
#      without a live child's contribution): wrong in every run;
#   2: a root decides from its aggregate even when an UP carries an
#      earlier ballot's decision: wrong only when a root dies while its
#      decision travels (1 schedule of 21 with one crash, oldest-first).
#   3: (the failure detector's rules, fta-sim detect) a process that
#      receives a failure notice does not forward it: wrong only when the
#      observer that declared a failure crashes while it forwards the
#      notice (2 crashes; with 2 observers the other observer declares
#      it too, so the bug is masked: 0 violations);
#   4: an observer never adopts past a dead observed rank: the ring stays
#      open (no survivor observes the dead rank's successor).
# On the same schedule spaces the real protocol must show 0 violations
# (status 0) and each seeded variant at least one where it is wrong
# (status 1, the violating schedule printed).
set -u
b=${abs_top_builddir:-.}/ft-agree
real=$b/fta-sim
seeded=$b/tests/fta-sim-seeded
[ -x "$real" ] && [ -x "$seeded" ] || { echo "ERROR: fta-sim or fta-sim-seeded not built"; exit 99; }
fails=0
# variant:arguments of fta-sim explore (with + for spaces):expected
# (bug: violations required; ok: none allowed, the bug needs a failure)
for c in 1:-P+3:bug 1:-P+4:bug 1:-P+3+-c+1:bug 1:-P+3+-c+1+-a:bug 1:-P+4+-c+1+-f:bug \
    2:-P+3:ok 2:-P+3+-c+1:bug 2:-P+3+-c+1+-a:bug 2:-P+3+-c+2:bug 2:-P+4+-c+1+-f:bug; do
    v=${c%%:*} rest=${c#*:}
    args=$(echo "${rest%:*}" | tr + ' ') want=${rest##*:}
    # shellcheck disable=SC2086
    out_r=$("$real" explore $args 2>/dev/null); st_r=$?
    # shellcheck disable=SC2086
    out_s=$(FTA_SEEDED_VARIANT=$v "$seeded" explore $args 2>/dev/null); st_s=$?
    line_r=$(echo "$out_r" | grep 'violations$')
    line_s=$(echo "$out_s" | grep 'violations$')
    if [ $st_r -eq 0 ] && echo "$line_r" | grep -q ', 0 violations$'; then
        echo "ok   real        explore $args: $line_r"
    else
        echo "FAIL real        explore $args: status $st_r: $out_r"; fails=$((fails + 1))
    fi
    if [ $want = bug ]; then
        if [ $st_s -eq 1 ] && echo "$line_s" | grep -Eq ', [1-9][0-9]* violations$'; then
            echo "ok   seeded #$v   explore $args: $line_s"
            echo "$out_s" | sed -n '2p' | cut -c1-200 | sed 's/^/       first: /'
        else
            echo "FAIL seeded #$v   explore $args: the seeded bug went unnoticed (status $st_s): $line_s"
            fails=$((fails + 1))
        fi
    elif [ $st_s -eq 0 ] && echo "$line_s" | grep -q ', 0 violations$'; then
        echo "ok   seeded #$v   explore $args: $line_s (no failure, bug not reached)"
    else
        echo "FAIL seeded #$v   explore $args: status $st_s: $line_s"; fails=$((fails + 1))
    fi
done
# The detector's rules: every reachable state (fta-sim detect).
for c in 3:-P+4+-c+1:ok 3:-P+4+-c+2:bug 3:-P+5+-c+1:ok 4:-P+4+-c+1:bug \
    4:-P+4+-c+2:bug 4:-P+5+-c+1:bug 3:-P+4+-c+2+-k+2:ok; do
    v=${c%%:*} rest=${c#*:}
    args=$(echo "${rest%:*}" | tr + ' ') want=${rest##*:}
    # shellcheck disable=SC2086
    out_r=$("$real" detect $args 2>&1); st_r=$?
    # shellcheck disable=SC2086
    out_s=$(FTA_SEEDED_VARIANT=$v "$seeded" detect $args 2>&1); st_s=$?
    line_r=$(echo "$out_r" | grep 'violations$')
    line_s=$(echo "$out_s" | grep 'violations$')
    if [ $st_r -eq 0 ] && echo "$line_r" | grep -q ', 0 violations$'; then
        echo "ok   real        detect $args: $line_r"
    else
        echo "FAIL real        detect $args: status $st_r: $out_r"; fails=$((fails + 1))
    fi
    if [ $want = bug ]; then
        if [ $st_s -eq 1 ] && echo "$line_s" | grep -Eq ', [1-9][0-9]* violations$'; then
            echo "ok   seeded #$v   detect $args: $line_s"
            echo "$out_s" | sed -n '2p' | cut -c1-200 | sed 's/^/       first: /'
        else
            echo "FAIL seeded #$v   detect $args: the seeded bug went unnoticed (status $st_s): $line_s"
            fails=$((fails + 1))
        fi
    elif [ $st_s -eq 0 ] && echo "$line_s" | grep -q ', 0 violations$'; then
        echo "ok   seeded #$v   detect $args: $line_s (bug not reached)"
    else
        echo "FAIL seeded #$v   detect $args: status $st_s: $line_s"; fails=$((fails + 1))
    fi
done
[ $fails -eq 0 ]
