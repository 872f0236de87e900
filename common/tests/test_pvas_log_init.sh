#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_pvas_log_init.sh: a bad PVAS_LOG fails the initialisation of libulp
# (ulp_init) and libdeleg (dlg_delegatee_create) with -EINVAL, every time,
# and each library says why in one stderr line naming PVAS_LOG, once; a
# good PVAS_LOG lets both succeed, silently.
set -u
bdir=${abs_top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
prog=$bdir/common/tests/pvas_log_init
[ -x "$prog" ] || { echo "SETUP: $prog not built"; exit 99; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
check() {
    if eval "$2"; then echo "ok $1"; else
        echo "FAIL: $1"; sed 's/^/    /' "$tmp/$3.out" "$tmp/$3.err"
        fails=$((fails + 1)); fi
}
run() { # NAME PVAS_LOG-VALUE
    env -u ULP_DEBUG -u DLG_DEBUG PVAS_LOG="$2" timeout 60 "$prog" \
        >"$tmp/$1.out" 2>"$tmp/$1.err"
    echo $? >"$tmp/$1.st"
}
einval=-22
run good all:off
check "PVAS_LOG=all:off: both succeed, nothing on stderr" \
    '[ "$(cat "$tmp/good.st")" -eq 0 ] &&
     grep -qx "ulp_init 0 0" "$tmp/good.out" &&
     grep -qx "dlg_delegatee_create 0 0" "$tmp/good.out" &&
     [ ! -s "$tmp/good.err" ]' good
run bad all:loud
check "PVAS_LOG=all:loud: -EINVAL from both, twice" \
    '[ "$(cat "$tmp/bad.st")" -eq 0 ] &&
     grep -qx "ulp_init $einval $einval" "$tmp/bad.out" &&
     grep -qx "dlg_delegatee_create $einval $einval" "$tmp/bad.out"' bad
check "PVAS_LOG=all:loud: one line per library, naming it" \
    '[ "$(wc -l <"$tmp/bad.err")" -eq 2 ] &&
     [ "$(grep -c "^PVAS_LOG='"'"'all:loud'"'"': unknown level '"'"'loud'"'"'" "$tmp/bad.err")" -eq 2 ]' bad
[ "$fails" -eq 0 ]
