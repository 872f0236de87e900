#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_netmod_genpass.sh: the generated src/nm_pass.c is what
# tools/gen-pass.py writes from the installed MPICH's mpi_proto.h and
# mpio.h, formatted with the tree's .clang-format: nobody edited it by hand
# and the generator still matches it.
set -u
sdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
command -v clang-format >/dev/null 2>&1 || { echo "SKIP: clang-format not found"; exit 77; }
inc=$(pkg-config --variable=includedir mpich 2>/dev/null)
[ -n "$inc" ] && [ -r "$inc/mpi_proto.h" ] && [ -r "$inc/mpio.h" ] ||
    { echo "SKIP: MPICH's mpi_proto.h and mpio.h not found (pkg-config mpich)"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
target=$sdir/mpich-netmod/src/nm_pass.c
python3 "$sdir/mpich-netmod/tools/gen-pass.py" "$inc/mpi_proto.h" "$inc/mpio.h" \
    >"$tmp/raw.c" || { echo "FAIL: gen-pass.py failed"; exit 1; }
clang-format --style=file --assume-filename="$target" <"$tmp/raw.c" \
    >"$tmp/nm_pass.c" || { echo "FAIL: clang-format failed"; exit 1; }
if cmp -s "$tmp/nm_pass.c" "$target"; then
    echo "ok: gen-pass.py reproduces nm_pass.c ($(wc -l <"$target") lines) from $inc"
else
    echo "FAIL: gen-pass.py's output differs from mpich-netmod/src/nm_pass.c:"
    diff -u "$target" "$tmp/nm_pass.c" | head -n 40
    exit 1
fi
