#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# tools/check-structure.py: it must catch a long file, an include circle and
# a circle of references in a small made-up tree, accept a generated long
# file there, and pass on this tree.
top=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
check=$top/tools/check-structure.py
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

mkdir -p "$tmp/a/src" "$tmp/b/src" "$tmp/c/src"
long() { i=0; while [ $i -lt "$1" ]; do echo "int x$i;"; i=$((i + 1)); done; }
long 801 >"$tmp/a/src/a_long.c"
{ echo "/* Written by gen.py; edit the generator, not this file. */"; long 900; } >"$tmp/a/src/a_gen.c"
long 800 >"$tmp/a/src/a_ok.c"
# b: b_one.h and b_two.h include each other
printf '#include "b_two.h"\n' >"$tmp/b/src/b_one.h"
printf '#include "b_one.h"\n' >"$tmp/b/src/b_two.h"
# c: c_base.c calls up into c_top.c, which calls c_base.c (through a macro
# of c.h); c_leaf.c only calls down
printf 'void c_top_run(void);\nvoid c_base_log(void);\n#define C_LOG() c_base_log()\n' >"$tmp/c/src/c.h"
printf '#include "c.h"\nvoid c_base_log(void) { c_top_run(); }\n' >"$tmp/c/src/c_base.c"
printf '#include "c.h"\nint c_top_n;\nvoid c_top_run(void) { C_LOG(); }\n' >"$tmp/c/src/c_top.c"
printf '#include "c.h"\nstatic void c_top_run2(void) { C_LOG(); }\n' >"$tmp/c/src/c_leaf.c"
# d: d_one.c names d_two.c's function; d_two.c has a static function, a
# parameter and a local of the names d_one.c defines: no circle
mkdir -p "$tmp/d/src"
printf 'int d_count;\nvoid d_size(void) {}\nvoid d_two_run(void);\nvoid d_one(void) { d_two_run(); }\n' >"$tmp/d/src/d_one.c"
printf 'static int d_size(void) { return 1; }\nvoid d_two_run(void) { int d_count = d_size(); (void)d_count; }\nint d_two_f(int d_one) { return d_one; }\n' >"$tmp/d/src/d_two.c"

out=$(python3 "$check" --no-exceptions "$tmp"); rc=$?
echo "$out"
expect() {
    if ! printf '%s\n' "$out" | grep -q -- "$1"; then
        echo "FAIL: no line matching: $1"; fail=1
    fi
}
reject() {
    if printf '%s\n' "$out" | grep -q -- "$1"; then
        echo "FAIL: unexpected line matching: $1"; fail=1
    fi
}
[ $rc -eq 1 ] || { echo "FAIL: status $rc on the made-up tree, expected 1"; fail=1; }
expect '^check-structure: a/src/a_long.c: 801 lines (limit 800)$'
reject 'a_gen.c'
reject 'a_ok.c'
expect '^check-structure: b: circle among 2 files: b/src/b_one.h -> b/src/b_two.h (#include); b/src/b_two.h -> b/src/b_one.h (#include)$'
expect '^check-structure: c: circle among 2 files: c/src/c_base.c -> c/src/c_top.c (c_top_run); c/src/c_top.c -> c/src/c_base.c (c_base_log)$'
reject 'c_leaf'
reject '^check-structure: d:'

# Breaking the circle of c (the base calls back through a pointer) and
# shortening a_long.c make the made-up tree pass.
printf '#include "c.h"\nvoid (*c_base_hook)(void);\nvoid c_base_log(void) { c_base_hook(); }\n' >"$tmp/c/src/c_base.c"
printf '#include "b_one.h"\n' >"$tmp/b/src/b_two.h"
printf '\n' >"$tmp/b/src/b_one.h"
long 10 >"$tmp/a/src/a_long.c"
out=$(python3 "$check" --no-exceptions "$tmp"); rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "FAIL: status $rc on the repaired made-up tree"; fail=1; }

out=$(python3 "$check" "$top"); rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "FAIL: status $rc on this tree"; fail=1; }
exit $fail
