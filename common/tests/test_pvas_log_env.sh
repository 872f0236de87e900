#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_pvas_log_env.sh: PVAS_LOG and a deprecated alias (PIP_DEBUG) as a
# user meets them, through pip-exec and a program that does not exist
# (libpip then logs one reason): same line either way, in the one format
# "<component>[<pid>]: <message>"; a component named in PVAS_LOG beats its
# alias; a bad PVAS_LOG fails pip_init: pip-exec runs nothing and exits
# non-zero with one line naming the variable.
set -u
bdir=${abs_top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
pipexec=${PIP_EXEC:-$bdir/libpip/pip-exec}
[ -x "$pipexec" ] || { echo "SKIP: $pipexec not built"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
nothere=$tmp/no-such-program

# run NAME VAR=VALUE...: pip-exec's stderr in $tmp/NAME
run() {
    name=$1; shift
    env -u PVAS_LOG -u PIP_DEBUG "$@" timeout 60 "$pipexec" "$nothere" \
        >/dev/null 2>"$tmp/$name"
}
lines() { grep -c "$1" "$tmp/$2"; }
check() {
    if eval "$2"; then echo "ok $1"; else
        echo "FAIL: $1"; sed 's/^/    /' "$tmp/$3"; fails=$((fails + 1)); fi
}
fmt='^pip\[[0-9][0-9]*\]: .*no-such-program: No such file or directory$'

run quiet
check "nothing set: no log line" '[ "$(lines "^pip\[" quiet)" -eq 0 ]' quiet
run alias PIP_DEBUG=1
check "PIP_DEBUG=1: one line in the format" '[ "$(lines "$fmt" alias)" -eq 1 ]' alias
run new PVAS_LOG=pip:debug
check "PVAS_LOG=pip:debug: the same line" '[ "$(lines "$fmt" new)" -eq 1 ]' new
sed 's/^pip\[[0-9]*\]/pip[N]/' "$tmp/alias" >"$tmp/alias.n"
sed 's/^pip\[[0-9]*\]/pip[N]/' "$tmp/new" >"$tmp/new.n"
check "alias and PVAS_LOG print the same" 'cmp -s "$tmp/alias.n" "$tmp/new.n"' new
run all PVAS_LOG=all:error
check "PVAS_LOG=all:error: reasons shown" '[ "$(lines "$fmt" all)" -eq 1 ]' all
run named PVAS_LOG=all:debug,pip:off PIP_DEBUG=1
check "pip:off beats PIP_DEBUG=1 and all:" '[ "$(lines "^pip\[" named)" -eq 0 ]' named
run other PVAS_LOG=earth:debug
check "another component's level: pip stays off" '[ "$(lines "^pip\[" other)" -eq 0 ]' other
# a task program that prints (libpip's own test program, built with it)
demo=$bdir/libpip/tests/realprog/rp_stdio
if [ -x "$demo" ]; then
    env -u PIP_DEBUG PVAS_LOG=pip:loud timeout 60 "$pipexec" -n 2 "$demo" x \
        >"$tmp/bad.out" 2>"$tmp/bad"
    st=$?
    check "bad PVAS_LOG: status 2, nothing run, one line naming it" \
        '[ "$st" -eq 2 ] && [ ! -s "$tmp/bad.out" ] &&
         [ "$(lines "PVAS_LOG='"'"'pip:loud'"'"': unknown level '"'"'loud'"'"'" bad)" -eq 1 ] &&
         [ "$(wc -l <"$tmp/bad")" -eq 1 ]' bad
else
    echo "FAIL: $demo not built"; fails=$((fails + 1))
fi
run badalias PVAS_LOG=pip:loud PIP_DEBUG=1
check "bad PVAS_LOG: the alias still counts" '[ "$(lines "$fmt" badalias)" -eq 1 ]' badalias
[ "$fails" -eq 0 ]
