#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_exports.sh: every installed library of the tree exports exactly its
# public API.  For each library of lib_LTLIBRARIES (test/installed-libs,
# written by make), the dynamic symbols it defines (nm -D --defined-only)
# must equal the list next to its makefile fragment, <dir>/<lib>.exports;
# and each listed name must be an MPI name it interposes (MPI_, PMPI_,
# MPIX_), appear in the component's installed headers (<dir>/include), or
# say on its line, after '#', why it is exported without being declared
# there.  A library with no list fails: a new library needs one.
set -u
bdir=${abs_top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
sdir=${abs_top_srcdir:-$bdir}
libs=$bdir/test/installed-libs
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm not found"; exit 77; }
[ -r "$libs" ] || { echo "ERROR: $libs missing (make writes it)"; exit 99; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0
for la in $(cat "$libs"); do
    dir=${la%/*}
    name=${la##*/}
    name=${name%.la}
    so=$bdir/$dir/.libs/$name.so
    list=$sdir/$dir/$name.exports
    if [ ! -r "$list" ]; then
        echo "FAIL $name: no list of its public API ($dir/$name.exports)"
        fails=$((fails + 1)); continue
    fi
    [ -r "$so" ] || { echo "ERROR: $so not built"; exit 99; }
    n=$((n + 1))
    # (AddressSanitizer adds an __odr_asan.NAME symbol per exported global.)
    nm -D --defined-only "$so" | awk '{ sub(/@.*/, "", $3) }
        $3 !~ /^__odr_asan\./ { print $3 }' | sort -u >"$tmp/got"
    sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$list" | sort -u >"$tmp/want"
    extra=$(comm -23 "$tmp/got" "$tmp/want" | tr '\n' ' ')
    missing=$(comm -13 "$tmp/got" "$tmp/want" | tr '\n' ' ')
    if [ -n "$extra" ] || [ -n "$missing" ]; then
        echo "FAIL $name: exported but not in the list: ${extra:-none}; listed but not exported: ${missing:-none}"
        fails=$((fails + 1))
    else
        echo "ok   $name: $(wc -l <"$tmp/got") symbols, as listed"
    fi
    # Each listed name is public: MPI, declared in include/, or explained.
    undeclared=
    while read -r sym; do
        case $sym in MPI_* | PMPI_* | MPIX_*) continue ;; esac
        if grep -q "^[[:space:]]*$sym[[:space:]]*#." "$list"; then continue; fi
        if [ -d "$sdir/$dir/include" ] &&
            grep -rqw -- "$sym" "$sdir/$dir/include"; then continue; fi
        undeclared="$undeclared $sym"
    done <"$tmp/want"
    if [ -n "$undeclared" ]; then
        echo "FAIL $name: listed, not declared in $dir/include and no reason given:$undeclared"
        fails=$((fails + 1))
    fi
done
[ "$n" -gt 0 ] || { echo "SKIP: no library built"; exit 77; }
[ "$fails" -eq 0 ]
