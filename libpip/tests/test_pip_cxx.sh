#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_pip_cxx.sh: a C++ program (iostream, exceptions, RTTI, static
# constructors) built the ordinary way, `g++ -fPIE -pie -rdynamic`, so that
# it carries copy relocations of libstdc++ objects (std::cout, typeinfo),
# runs as 1, 8 and 64 PiP tasks in both modes with the output of a lone run.
# Skips when there is no C++ compiler.
: "${abs_top_srcdir:?}" "${PIP_EXEC:?}"
cxx=${CXX:-g++}
if ! command -v "$cxx" >/dev/null 2>&1; then
    echo "SKIP: no C++ compiler ($cxx)"
    exit 77
fi
dir=$abs_top_srcdir/libpip/tests/realprog
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
if ! "$cxx" -fPIE -pie -rdynamic -o "$tmp/rp_cxx" "$dir/rp_cxx.cc"; then
    echo "SKIP: $cxx cannot build a C++ PIE"
    exit 77
fi
# The case this is about: copy relocations into the executable.
if command -v readelf >/dev/null 2>&1 &&
    ! readelf -r "$tmp/rp_cxx" | grep -q 'R_X86_64_COPY.*_ZSt4cout'; then
    echo "note: this build has no copy relocation of std::cout"
fi
"$dir/rp_compare.sh" rp_cxx "$tmp/rp_cxx" one two
