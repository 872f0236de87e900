#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_swin_pcaf.sh: persistent coarrays with a real OpenCoarrays program
# (storage-win/examples/pcaf_listing1.f90, in the style of the paper's
# Listing 1), run on 4 images with libmpi-storagewin preloaded:
#   - PCAF unset or false: output identical to plain OpenCoarrays, no files;
#   - PCAF_ENABLED=true: one file per coarray and image under PCAF_PATH,
#     same results as plain OpenCoarrays, and a second run restores them;
#   - PCAF_SHAREDFILE, PCAF_PREFIX, PCAF_UNLINK, PCAF_SYNCFREQ;
#   - a bad PCAF value or an unusable PCAF_PATH fails with a clear message.
# Skipped (77) without the caf compiler wrapper (libcoarrays-mpich-dev).
set -u

: "${MPI_RUN:?run through make check}"
: "${abs_top_builddir:?run through make check}"
: "${abs_top_srcdir:?run through make check}"
CAF=${CAF:-caf}
if ! command -v "$CAF" >/dev/null 2>&1; then
    echo "SKIP: no '$CAF' (install libcoarrays-mpich-dev)"
    exit 77
fi
lib=$abs_top_builddir/storage-win/.libs/libmpi-storagewin.so
if [ ! -f "$lib" ]; then
    echo "ERROR: $lib not built"
    exit 99
fi
preload=$lib
# A sanitizer build of the library needs its runtime loaded first.
if ldd "$lib" 2>/dev/null | grep -q libasan; then
    preload="$(${CC:-gcc} -print-file-name=libasan.so) $lib"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
    export ASAN_OPTIONS
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/swin-pcaf.XXXXXX") || exit 99
trap '[ -n "${SWIN_KEEP:-}" ] || rm -rf "$tmp"' EXIT
prog=$tmp/pcaf_listing1
(cd "$tmp" && "$CAF" -o "$prog" "$abs_top_srcdir/storage-win/examples/pcaf_listing1.f90") ||
    { echo "ERROR: cannot build the example with $CAF"; exit 99; }
mkdir "$tmp/cwd"
cd "$tmp/cwd" || exit 99

fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# run NAME [VAR=value ...]: 4 images, sorted image lines in NAME.out.
run() {
    name=$1
    shift
    env "$@" "$MPI_RUN" -n 4 -t 90 env LD_PRELOAD="$preload" "$prog" \
        >"$tmp/$name.raw" 2>"$tmp/$name.err"
    st=$?
    grep '^image ' "$tmp/$name.raw" | sort >"$tmp/$name.out"
    return $st
}

# Baseline: plain OpenCoarrays, nothing preloaded, twice: on Debian's
# MPICH 4.0.2 some remote gets of plain OpenCoarrays are wrong and vary from
# run to run (see README, "Known problems"), so values are compared with
# plain only when plain itself is correct and reproducible; otherwise only
# the structure of the output is (two wrong runs may agree by chance and a
# third still differ).
for i in 1 2; do
    "$MPI_RUN" -n 4 -t 90 "$prog" >"$tmp/plain$i.raw" 2>"$tmp/plain$i.err" ||
        { cat "$tmp/plain$i.err"; echo "ERROR: the example fails without the library"; exit 99; }
    grep '^image ' "$tmp/plain$i.raw" | sort >"$tmp/plain$i.out"
done
cp "$tmp/plain1.out" "$tmp/plain.out"
[ "$(grep -c 'fresh coarrays' "$tmp/plain.out")" -eq 4 ] || fail "plain run output: $(cat "$tmp/plain.out")"
plain_stable=0
cmp -s "$tmp/plain1.out" "$tmp/plain2.out" &&
    [ "$(grep -c 'values OK' "$tmp/plain.out")" -eq 4 ] && plain_stable=1
[ "$plain_stable" -eq 1 ] || echo "note: plain OpenCoarrays gives wrong or varying values here; comparing the run structure only"

# same_as_plain NAME: NAME.out matches plain (fully when plain is stable).
same_as_plain() {
    if [ "$plain_stable" -eq 1 ]; then
        cmp -s "$tmp/plain.out" "$tmp/$1.out"
    else
        sed 's/, values .*//' "$tmp/plain.out" >"$tmp/plain.shape"
        sed 's/, values .*//' "$tmp/$1.out" >"$tmp/$1.shape"
        cmp -s "$tmp/plain.shape" "$tmp/$1.shape"
    fi
}

# Unset and false: untouched behaviour (no storage window is made: the
# library logs every one it makes at SWIN_LOG_LEVEL=2).
run unset -u PCAF_ENABLED SWIN_LOG_LEVEL=2 || fail "PCAF unset: exit status $st"
if ! same_as_plain unset; then
    # Plain can be irreproducible even when two runs agreed: one more try.
    echo "note: PCAF unset differed from plain once; running again"
    run unset -u PCAF_ENABLED SWIN_LOG_LEVEL=2 || fail "PCAF unset: exit status $st"
    same_as_plain unset || fail "PCAF unset: output differs from plain OpenCoarrays"
fi
! grep -q '^swin\[' "$tmp/unset.err" || fail "PCAF unset made storage windows: $(grep '^swin\[' "$tmp/unset.err" | head -2)"
run false PCAF_ENABLED=false PCAF_PATH="$tmp/never" SWIN_LOG_LEVEL=2 || fail "PCAF false: exit status $st"
if ! same_as_plain false; then
    echo "note: PCAF_ENABLED=false differed from plain once; running again"
    run false PCAF_ENABLED=false PCAF_PATH="$tmp/never" SWIN_LOG_LEVEL=2 || fail "PCAF false: exit status $st"
    same_as_plain false || fail "PCAF_ENABLED=false: output differs from plain OpenCoarrays"
fi
! grep -q '^swin\[' "$tmp/false.err" || fail "PCAF_ENABLED=false made storage windows"
[ -z "$(ls -A "$tmp/cwd")" ] || fail "files appeared without PCAF: $(ls "$tmp/cwd")"
[ ! -e "$tmp/never" ] || fail "PCAF_ENABLED=false created PCAF_PATH"

# Enabled: files per image and coarray, same results, restored next run.
mkdir "$tmp/pc"
run pc1 PCAF_ENABLED=true PCAF_PATH="$tmp/pc" SWIN_LOG_LEVEL=2 || fail "PCAF run 1: exit status $st"
[ "$(grep -c '^swin\[[^]]*\]: storage window' "$tmp/pc1.err")" -eq 16 ] ||
    fail "PCAF run 1: expected 16 storage windows in the log, got $(grep -c '^swin\[[^]]*\]: storage window' "$tmp/pc1.err")"
# The program checks its coarrays against values worked out by hand.  (Plain
# OpenCoarrays on Debian's MPICH 4.0.2 gets some of them wrong: MPI_Get on
# MPI_Win_allocate windows smaller than a page ignores the displacement; see
# storage-win/README.md.  That is why plain is compared only with "unset".)
[ "$(grep -c 'run 1 done, values OK' "$tmp/pc1.out")" -eq 4 ] ||
    fail "PCAF run 1: wrong coarray values: $(cat "$tmp/pc1.out")"
echo "plain OpenCoarrays: $(grep -c 'values OK' "$tmp/plain.out")/4 images with correct values (informational)"
n=$(ls "$tmp/pc" | grep -c '^OpenCoarrays_[1-4]_[0-9]*$')
[ "$n" -eq 16 ] || fail "PCAF run 1: expected 16 coarray files (4 images x 4 coarrays), found $n: $(ls "$tmp/pc")"
run pc2 PCAF_ENABLED=true PCAF_PATH="$tmp/pc" || fail "PCAF run 2: exit status $st"
[ "$(grep -c 'restored after run 1, checksum OK' "$tmp/pc2.out")" -eq 4 ] ||
    fail "PCAF run 2 did not restore run 1: $(cat "$tmp/pc2.out")"
[ "$(grep -c 'run 2 done, values OK' "$tmp/pc2.out")" -eq 4 ] || fail "PCAF run 2: wrong values"

# Sync points: sync all / sync images make every coarray durable (logged at
# SWIN_LOG_LEVEL=3); PCAF_SYNCFREQ far longer than the run leaves exactly
# one rate-limited sync per coarray plus the final one at free.
mkdir "$tmp/pcf"
run pcf0 PCAF_ENABLED=true PCAF_PATH="$tmp/pcf" SWIN_LOG_LEVEL=3 || fail "sync log run: exit status $st"
n0=$(grep -c "^swin\[[^]]*\]: durable sync of " "$tmp/pcf0.err")
rm -f "$tmp/pcf"/*
run pcf1 PCAF_ENABLED=true PCAF_PATH="$tmp/pcf" PCAF_SYNCFREQ=36000000 SWIN_LOG_LEVEL=3 ||
    fail "PCAF_SYNCFREQ run: exit status $st"
n1=$(grep -c "^swin\[[^]]*\]: durable sync of " "$tmp/pcf1.err")
echo "durable syncs: $n0 without a rate limit, $n1 with PCAF_SYNCFREQ=36000000 (16 coarrays)"
[ "$n1" -eq 32 ] || fail "PCAF_SYNCFREQ: expected 32 durable syncs (16 coarrays x (first sync point + free)), got $n1"
[ "$n0" -gt "$n1" ] || fail "sync points: expected more than $n1 durable syncs without a rate limit, got $n0"

# One shared file per image, own prefix, rate-limited syncs.
mkdir "$tmp/pcs"
for i in 1 2; do
    run "pcs$i" PCAF_ENABLED=true PCAF_PATH="$tmp/pcs" PCAF_SHAREDFILE=true \
        PCAF_PREFIX=ckpt_ PCAF_SYNCFREQ=500 PCAF_SEGSIZE=8192 \
        PCAF_STRIPESIZE=1048576 PCAF_STRIPECOUNT=4 || fail "shared file run $i: exit status $st"
done
[ "$(ls "$tmp/pcs" | tr '\n' ' ')" = "ckpt_1 ckpt_2 ckpt_3 ckpt_4 " ] ||
    fail "PCAF_SHAREDFILE: expected ckpt_1..ckpt_4, found $(ls "$tmp/pcs")"
[ "$(grep -c 'restored after run 1, checksum OK' "$tmp/pcs2.out")" -eq 4 ] ||
    fail "PCAF_SHAREDFILE run 2 did not restore run 1: $(cat "$tmp/pcs2.out")"

# Unlink: out-of-core use leaves nothing behind.
mkdir "$tmp/pcu"
run pcu PCAF_ENABLED=true PCAF_PATH="$tmp/pcu" PCAF_UNLINK=true || fail "PCAF_UNLINK: exit status $st"
[ "$(grep -c 'run 1 done, values OK' "$tmp/pcu.out")" -eq 4 ] || fail "PCAF_UNLINK: wrong values"
[ -z "$(ls -A "$tmp/pcu")" ] || fail "PCAF_UNLINK left files: $(ls "$tmp/pcu")"

# Bad input: a clear message and a failing run, never a hang.
if run bad PCAF_ENABLED=yes-please; then fail "PCAF_ENABLED=yes-please was accepted"; fi
grep -q "PCAF_ENABLED='yes-please'" "$tmp/bad.err" || fail "no message naming PCAF_ENABLED: $(head -3 "$tmp/bad.err")"
if run badpath PCAF_ENABLED=true PCAF_PATH="$tmp/no/such/dir"; then fail "a missing PCAF_PATH was accepted"; fi
grep -q "cannot open '$tmp/no/such/dir/OpenCoarrays_[1-4]_0'" "$tmp/badpath.err" ||
    fail "no message naming the path: $(head -3 "$tmp/badpath.err")"
if run badseg PCAF_ENABLED=true PCAF_PATH="$tmp/pc" PCAF_SEGSIZE=1000; then fail "PCAF_SEGSIZE=1000 was accepted"; fi
grep -q "PCAF_SEGSIZE" "$tmp/badseg.err" || fail "no message naming PCAF_SEGSIZE"

if [ "$fails" -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "PASS: persistent coarrays"
exit 0
