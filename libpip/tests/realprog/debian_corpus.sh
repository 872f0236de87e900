#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# debian_corpus.sh WORKDIR: real programs from Debian sources, built as
# users build PiP tasks (-fPIE -pie -rdynamic, nothing else changed), run
# alone and as 1, 8 and 64 PiP tasks in both modes (rp_compare.sh): GNU
# hello (C, gnulib: getopt_long, close_stdout), figlet (C: getopt, fonts
# read with stdio) and lzip (C++: operator new, exceptions' typeinfo).
# Sources come from `apt-get source --download-only`: with the system's
# deb-src entries when apt knows the source packages, otherwise (or when
# PIP_CORPUS_PRIVATE_APT=1) with a private apt configuration in
# WORKDIR/apt (the system's deb entries turned into deb-src; the system's
# apt configuration and state are not changed).  Sources and builds are
# kept in WORKDIR, so a re-run only runs the programs.  Exits 77 (skip)
# without apt-get, a C or C++ compiler, or the network.  Needs PIP_EXEC.
work=${1:?usage: debian_corpus.sh WORKDIR}
: "${PIP_EXEC:?PIP_EXEC not set}"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work" || exit 99
cd "$work" || exit 99
work=$(pwd)
for tool in apt-get apt-cache tar xz make cc c++ timeout; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "SKIP: $tool is missing"
        exit 77
    fi
done
pkgs="hello figlet lzip"
orig() { ls "$1"_*.orig.tar.?z "$1"_*.orig.tar.bz2 2>/dev/null | head -1; }
# private_apt: a sources list and package lists of our own in $work/apt,
# used with -o options on every apt call (sets $apt_opts).
private_apt() {
    a=$work/apt
    rm -rf "$a"
    mkdir -p "$a/parts" "$a/lists/partial" "$a/cache/archives/partial" ||
        exit 99
    : >"$a/sources.list"
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        sed 's/^Types:.*/Types: deb-src/' "$f" >"$a/parts/${f##*/}"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" \
            >"$a/parts/${f##*/}"
    done
    apt_opts="-o Dir::Etc::SourceList=$a/sources.list
        -o Dir::Etc::SourceParts=$a/parts -o Dir::State::Lists=$a/lists
        -o Dir::Cache=$a/cache"
    # shellcheck disable=SC2086 # apt_opts is split on purpose
    # apt-get update may exit 0 when a download failed: check its log too.
    if ! timeout -s KILL 300 apt-get $apt_opts update \
        >"$work/apt-update.log" 2>&1 ||
        grep -q '^[EW]: .*[Ff]ail' "$work/apt-update.log"; then
        echo "SKIP: apt-get update (private deb-src lists) failed" \
            "(network missing?): $(grep -m 1 '^[EW]: ' "$work/apt-update.log")"
        exit 77
    fi
}
# system_knows PACKAGE...: the system's apt has source records for each.
system_knows() {
    for p; do
        apt-cache showsrc "$p" 2>/dev/null | grep -q '^Package:' || return 1
    done
}
apt_opts=
need=
for p in $pkgs; do
    [ -n "$(orig "$p")" ] || need="$need $p"
done
if [ -n "$need" ]; then
    # shellcheck disable=SC2086
    if [ "${PIP_CORPUS_PRIVATE_APT:-0}" = 1 ] || ! system_knows $need; then
        echo "fetching$need with a private apt configuration ($work/apt)"
        private_apt
    else
        echo "fetching$need with the system's deb-src entries"
    fi
    for p in $need; do
        # shellcheck disable=SC2086
        if ! timeout -s KILL 300 apt-get $apt_opts source --download-only \
            "$p" >"$p.fetch.log" 2>&1 || [ -z "$(orig "$p")" ]; then
            echo "SKIP: apt-get source $p failed (network missing?):" \
                "$(tail -1 "$p.fetch.log")"
            exit 77
        fi
    done
fi
for p in $pkgs; do
    set -- "$p"-*/
    [ -d "$1" ] || tar xf "$(orig "$p")" || exit 99
done
pie_c="-O2 -fPIE"
pie_l="-pie -rdynamic"
build() { # DIR PROGRAM COMMAND...
    d=$1
    p=$2
    shift 2
    [ -x "$d/$p" ] && return 0
    echo "building $d/$p"
    if ! (cd "$d" && timeout -s KILL 900 "$@") >"$d.build.log" 2>&1; then
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
