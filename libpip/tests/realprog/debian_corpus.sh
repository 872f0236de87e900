#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# debian_corpus.sh WORKDIR: real programs from Debian sources, built as
# users build PiP tasks (-fPIE -pie -rdynamic, nothing else changed), run
# alone and as 1, 8 and 64 PiP tasks in both modes (rp_compare.sh): GNU
# hello (C, gnulib: getopt_long, close_stdout), figlet (C: getopt, fonts
# read with stdio) and lzip (C++: operator new, exceptions' typeinfo).
# Sources come from `apt-get source` (deb-src and network needed: without
# them the script skips, status 77) and are kept in WORKDIR.  Needs
# PIP_EXEC.  Run by `make check-long`.
work=${1:?usage: debian_corpus.sh WORKDIR}
: "${PIP_EXEC:?PIP_EXEC not set}"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work" || exit 99
cd "$work" || exit 99
for tool in apt-get tar make cc c++; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "SKIP: $tool is missing"
        exit 77
    fi
done
fetch() { # PACKAGE DIR-GLOB
    set -- "$1" $2
    [ -d "$2" ] && return 0
    orig() { ls "$1"_*.orig.tar.?z "$1"_*.orig.tar.bz2 2>/dev/null | head -1; }
    if [ -z "$(orig "$1")" ] &&
        ! apt-get source --download-only "$1" >"$1.fetch.log" 2>&1; then
        echo "SKIP: apt-get source $1 failed (deb-src or network missing):"
        tail -2 "$1.fetch.log"
        exit 77
    fi
    tar xf "$(orig "$1")" || exit 99
}
fetch hello 'hello-*/'
fetch figlet 'figlet-*/'
fetch lzip 'lzip-*/'
pie_c="-O2 -fPIE"
pie_l="-pie -rdynamic"
build() { # DIR PROGRAM COMMAND...
    d=$1
    p=$2
    shift 2
    [ -x "$d/$p" ] && return 0
    echo "building $d/$p"
    if ! (cd "$d" && "$@") >"$d.build.log" 2>&1; then
        echo "FAIL: cannot build $d/$p (see $work/$d.build.log)"
        exit 1
    fi
}
h=$(ls -d hello-*/ | head -1)
f=$(ls -d figlet-*/ | head -1)
z=$(ls -d lzip-*/ | head -1)
h=${h%/}
f=${f%/}
z=${z%/}
build "$h" hello sh -c "./configure CFLAGS='$pie_c' LDFLAGS='$pie_l' && make"
build "$f" figlet make figlet CFLAGS="$pie_c" LDFLAGS="$pie_l"
build "$z" lzip sh -c "./configure CXXFLAGS='$pie_c' LDFLAGS='$pie_l' && make"
printf 'PiP tasks share one address space.\n' >data.txt
rm -f data.txt.lz
"$z/lzip" -k -9 data.txt || exit 99
fails=0
run() {
    "$here/rp_compare.sh" "$@" || fails=$((fails + 1))
}
run hello "$h/hello"
run hello-t "$h/hello" -t
run hello-g "$h/hello" --greeting=tasks
run figlet "$f/figlet" -d "$f/fonts" -w 60 pip tasks
run lzip-list "$z/lzip" -l data.txt.lz
run lzip-decompress "$z/lzip" -cd data.txt.lz
[ $fails -eq 0 ] && echo "debian_corpus: all programs pass" && exit 0
echo "debian_corpus: $fails program(s) failed"
exit 1
