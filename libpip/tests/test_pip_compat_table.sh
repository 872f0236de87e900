#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_pip_compat_table.sh: libpip/README.md's compatibility table is
# complete.  Every name of PiP 2.4.1's pip.h (pip241-names.txt) has a table
# row whose verdict is "same", "differs" or "not supported" (or that says
# "defined" / "accepted" with the reason), and every public name of
# libpip's own pip.h (its #defines, functions and types) appears in the
# README.
src=${abs_top_srcdir:-.}
readme=$src/libpip/README.md
names=$src/libpip/tests/pip241-names.txt
header=$src/libpip/include/pip/pip.h
for f in "$readme" "$names" "$header"; do
    [ -r "$f" ] || { echo "SETUP: $f missing"; exit 99; }
done
bad=0
n=0
# The rows of the table: lines starting with '|', header rows excluded.
rows=$(grep '^| `' "$readme")
for name in $(grep -v '^#' "$names"); do
    n=$((n + 1))
    row=$(printf '%s\n' "$rows" | grep -F "\`$name\`" | head -n 1)
    if [ -z "$row" ]; then
        echo "FAIL: no table row for PiP 2.4.1's $name"
        bad=1
        continue
    fi
    verdict=$(printf '%s\n' "$row" | awk -F'|' '{print $3}')
    case $verdict in
    *same* | *differs* | *"not supported"* | *defined* | *accepted* | *"not read"*) ;;
    *)
        echo "FAIL: the row of $name gives no verdict: $row"
        bad=1
        ;;
    esac
done
# libpip's own names: every #define (but the include guard and helpers
# whose names end in '_' or '_N'), every function and type.
own=$(
    {
        grep -oE '^#[[:space:]]*define[[:space:]]+[A-Za-z_][A-Za-z_0-9]*' "$header" |
            awk '{print $NF}'
        grep -oE '\bpip_[a-z_0-9]+[[:space:]]*\(' "$header" | tr -d ' (\t'
        grep -oE '\bpip_[a-z_0-9]+_t\b' "$header"
    } | sort -u | grep -vE '_$|_[0-9]+$|^PIP_PIP_H$|^PIP_CAT|^PIP_NARGS'
)
m=0
for name in $own; do
    m=$((m + 1))
    grep -qF "\`$name\`" "$readme" || {
        echo "FAIL: libpip's pip.h has $name; the README's table does not"
        bad=1
    }
done
[ $n -ge 100 ] || { echo "FAIL: only $n PiP names read"; bad=1; }
[ $bad -eq 0 ] || exit 1
echo "all $n names of PiP 2.4.1's pip.h and all $m of libpip's pip.h are in the table"
