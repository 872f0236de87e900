#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Every bad SWIN_* and PCAF_* value, and a bad PVAS_LOG: MPI_Win_allocate fails on every rank
# with MPI_ERR_ARG, and exactly one line on stderr names the variable, the
# value and the class; with the default (fatal) handler the job ends
# (non-zero status) with that one line.
prog=${abs_top_builddir:-.}/storage-win/tests/swin_env
[ -n "$MPI_RUN" ] || { echo "MPI_RUN not set" >&2; exit 99; }
[ -x "$prog" ] || { echo "missing $prog" >&2; exit 99; }
for v in $(env | sed -n 's/^\(\(SWIN\|PCAF\)_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/swin-env.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
# bad KIND VAR=VALUE...: KIND storage or plain (PCAF_ENABLED=true added)
bad() {
    kind=$1
    shift
    name=$(echo "$1" | cut -d= -f1)
    val=$(echo "$1" | cut -d= -f2-)
    set -- "$@"
    [ "$kind" = plain ] && set -- PCAF_ENABLED=true PCAF_PATH="$tmp" "$@"
    args="$kind"
    [ "$kind" = storage ] && args="storage $tmp/w.dat"
    env "$@" "$MPI_RUN" -n 2 -t 60 "$prog" $args return >"$tmp/r.out" 2>"$tmp/r.err"
    st=$?
    n=$(grep -c "$name='$val'.*MPI_ERR_ARG" "$tmp/r.err")
    all=$(grep -c '^storage-win:' "$tmp/r.err")
    if [ $st -ne 0 ] || ! grep -q 'allocate: MPI_ERR_ARG' "$tmp/r.out" ||
        [ "$n" -ne 1 ] || [ "$all" -ne 1 ]; then
        echo "FAIL $name='$val' (status $st, $n matching lines, $all in all):"
        cat "$tmp/r.out" "$tmp/r.err" | head -6; fails=$((fails + 1))
        return
    fi
    # the default handler: the job ends, one line
    env "$@" "$MPI_RUN" -n 2 -t 60 "$prog" $args >"$tmp/f.out" 2>"$tmp/f.err"
    st=$?
    n=$(grep -c "$name='$val'.*MPI_ERR_ARG" "$tmp/f.err")
    all=$(grep -c '^storage-win:' "$tmp/f.err")
    if [ $st -eq 0 ] || [ $st -eq 124 ] || [ "$n" -ne 1 ] || [ "$all" -ne 1 ]; then
        echo "FAIL fatal $name='$val' (status $st, $n matching lines, $all in all):"
        head -6 "$tmp/f.err"; fails=$((fails + 1))
    else
        echo "ok $(grep '^storage-win:' "$tmp/r.err")"
    fi
}
bad storage SWIN_TRACK=always
bad storage SWIN_SYNC_INTERVAL_MS=10ms
bad storage SWIN_MADVISE=hugepage
bad storage SWIN_LOG_LEVEL=debug
bad storage PVAS_LOG=swin:loud
bad plain PCAF_ENABLED=maybe
bad plain PCAF_SHAREDFILE=sometimes
bad plain PCAF_UNLINK=2
bad plain PCAF_UNLINK=yes
bad plain PCAF_SYNCFREQ=-5
bad plain PCAF_SEGSIZE=4097
bad plain PCAF_STRIPESIZE=0
bad plain PCAF_STRIPECOUNT=x
bad plain PCAF_PREFIX=a/b
# a good setting allocates
env SWIN_TRACK=msync "$MPI_RUN" -n 2 -t 60 "$prog" storage "$tmp/ok.dat" return >"$tmp/ok.out" 2>&1
grep -q 'allocate: MPI_SUCCESS' "$tmp/ok.out" && echo "ok SWIN_TRACK=msync allocates" ||
    { echo "FAIL: a good setting failed:"; cat "$tmp/ok.out"; fails=$((fails + 1)); }
exit $fails
