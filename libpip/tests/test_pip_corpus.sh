#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_pip_corpus.sh: Debian's sqlite3, seq, sort, sed, gzip and dash, and
# the tree's C++, pthread, OpenMP and Fortran programs (realprog/, built
# here the ordinary way when the compiler exists), as 1, 16, 64 and 256
# process-mode tasks (CORPUS_N), each task's output file and exit status
# compared byte for byte with a direct run (realprog/pip_corpus.sh).
# make check-long runs it with CORPUS_N=1024.
: "${abs_top_srcdir:?}" "${PIP_EXEC:?}"
src=$abs_top_srcdir/libpip/tests/realprog
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}
build() { # NAME COMPILER SOURCE FLAGS...
    n=$1 c=$2 s=$3
    shift 3
    if command -v "$c" >/dev/null 2>&1 &&
        "$c" -O2 -fPIE -pie "$@" -o "$tmp/$n" "$src/$s" 2>"$tmp/$n.err"; then
        return 0
    fi
    echo "note: $n not built with $c"
    sed -n '1,3p' "$tmp/$n.err"
}
build rp_cxxf "${CXX:-g++}" rp_cxxf.cc
build rp_pth "$cc" rp_pth.c -pthread
build rp_omp "$cc" rp_omp.c -fopenmp
build rp_ftn "${FC:-gfortran}" rp_ftn.f90
"$src/pip_corpus.sh" "$tmp"
