#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_man.sh: the man pages are roff that man renders, and `make install`
# puts them where man finds them.  Each page `make install` installs
# (test/man-pages, written by make) renders with `man -l` without a warning
# and with its NAME section; then `make install-man DESTDIR=...` installs
# them and, with MANPATH at the installed tree, `man -w NAME` finds each
# page there and `man pip-exec`, `man pip_spawn`, `man libulp`, `man deleg`
# render (those of the components that are built).  Without lowdown no
# page is built: skip.
set -u
bdir=${abs_top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
list=$bdir/test/man-pages
[ -r "$list" ] || { echo "ERROR: $list missing (make writes it)"; exit 99; }
[ -s "$list" ] || { echo "SKIP: no man pages built (configure found no lowdown)"; exit 77; }
command -v man >/dev/null 2>&1 || { echo "SKIP: man not found"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
n=0
for p in $(cat "$list"); do
    n=$((n + 1))
    page=$bdir/$p
    base=${p##*/}
    name=${base%.*}
    if ! MANWIDTH=80 man --warnings -l "$page" >"$tmp/out" 2>"$tmp/err"; then
        fail "man -l $p: exit status $?"; continue
    fi
    [ -s "$tmp/err" ] && { fail "man -l $p: $(head -n 1 "$tmp/err")"; continue; }
    grep -q '^NAME' "$tmp/out" && grep -Eq "^ +$name +- " "$tmp/out" ||
        { fail "man -l $p: no NAME section '$name - ...'"; continue; }
done
echo "ok: man -l renders $n pages (failures: $fails)"

make=${MAKE:-make}
dest=$tmp/dest
if ! (cd "$bdir" && $make install-man DESTDIR="$dest") >"$tmp/install" 2>&1; then
    cat "$tmp/install"; fail "make install-man DESTDIR=$dest"; exit 1
fi
inst=$(find "$dest" -path '*/man1/*' -o -path '*/man3/*' -o -path '*/man7/*' | head -n 1)
[ -n "$inst" ] || { fail "make install-man installed no page"; exit 1; }
MANPATH=$(dirname "$(dirname "$inst")")
export MANPATH
for p in $(cat "$list"); do
    base=${p##*/}
    name=${base%.*} sec=${base##*.}
    where=$(man -w "$sec" "$name" 2>/dev/null)
    case $where in
    "$MANPATH/man$sec/$base"*) ;;
    *) fail "man -w $sec $name: '$where', not under $MANPATH" ;;
    esac
done
for name in pip-exec pip_spawn libulp deleg; do
    grep -q "/$name\.[0-9]\$" "$list" || { echo "(no $name: its component is not built)"; continue; }
    if MANWIDTH=80 man "$name" 2>/dev/null | grep -Eq "^ +$name +- "; then
        echo "ok: man $name"
    else
        fail "man $name does not show the installed page"
    fi
done
[ "$fails" -eq 0 ]
