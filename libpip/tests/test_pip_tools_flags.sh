#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_pip_tools_flags.sh: the PiP 2.4.1 flags of libpip.so, pipcc, pipfc
# and pip-check that the cmocka tests of the tools do not call: each one
# is called and its output or effect checked.  (pip-mode, printpipmode,
# pip-exec, pip-unpie and pips: their test_pip_*.c; pip-gdb:
# test_pip_gdb.sh.)
top=${abs_top_builddir:-.}
src=${abs_top_srcdir:-.}
t=$top/libpip/tests
lib=$top/libpip/.libs/libpip.so
pipcc=$t/pipcc
pipfc=$t/pipfc
check=$top/libpip/pip-check
pe=${PIP_EXEC:-$top/libpip/pip-exec}
for f in "$lib" "$pipcc" "$pipfc" "$check" "$pe"; do
    [ -x "$f" ] || { echo "SETUP: $f not built"; exit 99; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pip_flags.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
unset PIP_CC PIP_FC CC FC
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
# expect STATUS CMD...: run CMD (stdout to $tmp/out, stderr to $tmp/err).
expect() {
    want=$1
    shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" -eq "$want" ] || fail "$*: exit $got, want $want: $(head -c 300 "$tmp/err")"
}
# has [--] PATTERN WHAT; hasnt [--] PATTERN WHAT
has() {
    [ "$1" = -- ] && shift
    grep -q -e "$1" "$tmp/out" || fail "$2: stdout lacks '$1': $(head -c 300 "$tmp/out")"
}
hasnt() {
    [ "$1" = -- ] && shift
    grep -q -e "$1" "$tmp/out" && fail "$2: stdout has '$1'"
}
line() { [ "$(cat "$tmp/out")" = "$1" ] || fail "$2: stdout '$(cat "$tmp/out")', want '$1'"; }

# --- libpip.so --------------------------------------------------------------
expect 0 "$lib" --version; line "2.4.1" "libpip.so --version"
expect 0 "$lib" -vers; line "2.4.1" "libpip.so -vers (one dash, a prefix)"
expect 0 "$lib" --name; has "^libpip (pvas-runtime " "libpip.so --name"
expect 0 "$lib" --license; line "the 2-clause simplified BSD License" "--license"
expect 0 "$lib" --os; has "linux" "libpip.so --os"
expect 0 "$lib" --cc; [ -s "$tmp/out" ] || fail "libpip.so --cc: empty"
expect 0 "$lib" --prefix
[ -d "$(cat "$tmp/out")" ] || fail "libpip.so --prefix: not a directory: $(cat "$tmp/out")"
expect 0 "$lib" --glibc; line "" "libpip.so --glibc"
expect 0 "$lib" --ldlinux
[ -e "$(cat "$tmp/out")" ] || fail "libpip.so --ldlinux: no such file: $(cat "$tmp/out")"
expect 0 "$lib" --commit; has "^[0-9a-f]\{40\}$\|^unknown$" "libpip.so --commit"
expect 0 "$lib" --debug; has "^yes$\|^no$" "libpip.so --debug"
expect 0 "$lib" --version --license
[ "$(wc -l <"$tmp/out")" -eq 2 ] && [ "$(head -n 1 "$tmp/out")" = 2.4.1 ] ||
    fail "libpip.so --version --license: $(cat "$tmp/out")"
for a in "" --all; do
    expect 0 "$lib" $a
    for f in Package Version License "Build OS" "Build CC" "Prefix dir" \
        PiP-glibc ld-linux "Commit Hash" "Debug build"; do
        has "^$f:	" "libpip.so $a"
    done
    has "^Version:	2.4.1$" "libpip.so $a"
done
for a in --usage --help --bogus; do
    expect 1 "$lib" $a
    grep -q -e "--ldlinux" "$tmp/err" || fail "libpip.so $a: no usage on stderr"
done

# --- pipcc ------------------------------------------------------------------
cat >"$tmp/v.c" <<'C'
#include <stdio.h>
int main(void)
{
#if defined(PIPCC) && PIP_VERSION_MAJOR == 2 && PIP_VERSION_MINOR == 4 && \
    PIP_VERSION_SUBMINOR == 1
    puts("v2.4.1");
#else
    puts("no PiP macros");
#endif
    return 0;
}
C
expect 0 "$pipcc" --where; line "$(cd "$t" && pwd)/pipcc" "pipcc --where"
expect 0 "$pipcc" --which; has "^/" "pipcc --which"
expect 0 "$pipcc" --cflags
for w in -DPIPCC -DPIP_VERSION=2.4.1 -DPIP_VERSION_MAJOR=2 -DPIP_VERSION_MINOR=4 \
    -DPIP_VERSION_SUBMINOR=1 -pthread -fPIE "/libpip/include"; do
    has -- "$w" "pipcc --cflags"
done
hasnt -- "-lpip" "pipcc --cflags"
expect 0 "$pipcc" --lflags
for w in "-pie -rdynamic" -lpip -ldl -Wl,-rpath, -Wl,--disable-new-dtags; do
    has -- "$w" "pipcc --lflags"
done
hasnt -- "-DPIPCC" "pipcc --lflags"
expect 0 "$pipcc" --cflags --lflags; has -- "-DPIPCC.*-lpip" "pipcc --cflags --lflags"
expect 0 "$pipcc" --ccopts -c x.c; has -- "-DPIPCC.* -c x.c$" "pipcc --ccopts -c"
hasnt -- "-lpip" "pipcc --ccopts -c"
expect 0 "$pipcc" --ccopts -o x x.c; has -- "-lpip.* -o x x.c$" "pipcc --ccopts (link)"
for r in --piproot -piproot --pip-root -pip-root; do
    expect 0 "$pipcc" $r --lflags
    has -- "-no-pie .*libpiproot.a" "pipcc $r"
    hasnt -- "-rdynamic" "pipcc $r"
done
for r in --piptask -piptask --pip-task -pip-task; do
    expect 0 "$pipcc" $r --lflags; has -- "-pie -rdynamic" "pipcc $r"
done
expect 0 "$pipcc" --piproot --piptask --lflags; has -- "-pie -rdynamic" "pipcc both roles"
hasnt "libpiproot" "pipcc both roles"
for d in --dryrun --dry --show; do
    expect 0 "$pipcc" $d -o "$tmp/never" "$tmp/v.c"; has -- "-DPIPCC" "pipcc $d"
    [ -e "$tmp/never" ] && fail "pipcc $d built something"
done
# As PiP's pipcc: the command on stdout (one line) before it runs, unless
# --silent; a query such as -print-prog-name prints its answer only.
for q in "" --pipbuild --pipinstall; do
    expect 0 "$pipcc" $q -o "$tmp/v" "$tmp/v.c"
    [ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "pipcc $q: stdout '$(cat "$tmp/out")', want one line"
    has -- "-DPIPCC.* -o $tmp/v $tmp/v.c" "pipcc $q"
    expect 0 "$tmp/v"; line "v2.4.1" "program built with pipcc $q"
done
expect 0 "$pipcc" --silent -o "$tmp/v" "$tmp/v.c"
[ -s "$tmp/out" ] && fail "pipcc --silent printed: $(cat "$tmp/out")"
expect 0 "$tmp/v"; line "v2.4.1" "program built with pipcc --silent"
expect 0 "$pipcc" -print-prog-name=ld
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "pipcc -print-prog-name=ld: stdout '$(cat "$tmp/out")'"
hasnt -- "-DPIPCC" "pipcc -print-prog-name"
expect 0 "$pipcc" --nopip -o "$tmp/n" "$tmp/v.c"
has -- "-o $tmp/n $tmp/v.c" "pipcc --nopip"; hasnt -- "-DPIPCC" "pipcc --nopip"
expect 0 "$tmp/n"; line "no PiP macros" "pipcc --nopip"
expect 0 "$pipcc" --nopip --dryrun -o n v.c
has -- "-o n v.c" "pipcc --nopip --dryrun"
hasnt -- "-DPIPCC" "pipcc --nopip --dryrun"
for v in --version -v; do
    expect 0 "$pipcc" $v
    has "^pipcc (Process-in-Process Compiler Wrapper Script) Version:2.4.1$" "pipcc $v"
    has "^Version:	2.4.1$" "pipcc $v (libpip's facts)"
done
for bad in -static -Bstatic --enable-new-dtags; do
    expect 2 "$pipcc" $bad -o "$tmp/x" "$tmp/v.c"
    grep -q "^pipcc: " "$tmp/err" || fail "pipcc $bad: no one-line error"
done
# CC picks the compiler, as in PiP's pipcc; PIP_CC wins over it.
CC=/bin/false expect 0 "$pipcc" --which; line "/bin/false" "CC=/bin/false pipcc --which"
PIP_CC=/bin/true CC=/bin/false expect 0 "$pipcc" --which; line "/bin/true" "PIP_CC over CC"

# --- pipfc ------------------------------------------------------------------
if command -v gfortran >/dev/null 2>&1; then
    printf "program hello\n  print '(a)', 'hello from fortran'\nend program hello\n" >"$tmp/h.f90"
    expect 0 "$pipfc" -o "$tmp/h" "$tmp/h.f90"
    expect 0 "$tmp/h"; line "hello from fortran" "pipfc program standalone"
    for m in process thread; do
        PIP_MODE=$m expect 0 "$pe" -n 2 "$tmp/h"
        [ "$(grep -c '^hello from fortran$' "$tmp/out")" -eq 2 ] ||
            fail "pipfc program as 2 tasks ($m): $(cat "$tmp/out")"
    done
    expect 0 "$pipfc" --which; has "gfortran" "pipfc --which"
    expect 0 "$pipfc" --cflags; has -- "-DPIP_VERSION_MAJOR=2" "pipfc --cflags"
    FC=/bin/false expect 0 "$pipfc" --which; line "/bin/false" "FC=/bin/false pipfc --which"
    printf "program v\n#if PIP_VERSION_MAJOR == 2\n  print '(a)', 'v2'\n#endif\nend program v\n" >"$tmp/v.F90"
    expect 0 "$pipfc" -o "$tmp/fv" "$tmp/v.F90"
    expect 0 "$tmp/fv"; line "v2" "pipfc macros in a .F90"
else
    echo "note: gfortran missing, pipfc not run"
fi

# --- pip-check --------------------------------------------------------------
expect 0 "$pipcc" -o "$tmp/task" "$src/libpip/tests/pipcc_task.c"
expect 0 "$pipcc" --piproot -o "$tmp/root" "$src/libpip/tests/pipcc_root.c"
# Linked with libpip, no __thread data: a root (no reserve asked) and a task.
printf '#include <pip/pip.h>\nint main(void)\n{\n    int id;\n    return pip_get_pipid(&id) == 0 ? 0 : 0;\n}\n' >"$tmp/b.c"
expect 0 "$pipcc" -o "$tmp/both" "$tmp/b.c"
for f in -t --task --piptask; do
    expect 0 "$check" $f "$tmp/task"; has "task: yes" "pip-check $f task"
    expect 1 "$check" $f "$tmp/root"; has "task: no: not position-independent" "pip-check $f root"
done
for f in -r --root --piproot; do
    expect 0 "$check" $f "$tmp/root"; has "root: yes" "pip-check $f root"
done
for f in -b --both --pipboth; do
    expect 1 "$check" $f "$tmp/root"
    has "root: yes" "pip-check $f root"; has "task: no" "pip-check $f root"
    expect 0 "$check" $f --reserve 0 "$tmp/both"
    has "root: yes" "pip-check $f both"; has "task: yes" "pip-check $f both"
done
for f in -v --verbose; do
    expect 0 "$check" $f -t "$tmp/task"; has "info: type ET_DYN" "pip-check $f"
done
for f in --ldlinux --ldso; do
    expect 0 "$check" $f
    [ -e "$(cat "$tmp/out")" ] || fail "pip-check $f: $(cat "$tmp/out")"
done
expect 1 "$check" --usage; grep -q "usage: pip-check" "$tmp/err" || fail "pip-check --usage: no usage on stderr"

# --version and --help on every tool: exit 0, the version or a usage line
# on stdout.
v=$("$lib" --version)
for tool in "$pe" "$check" "$top/libpip/pip-unpie" "$top/libpip/pips" \
    "$top/libpip/pip-mode" "$top/libpip/printpipmode" "$pipcc" "$pipfc" \
    "$t/pip-gdb"; do
    name=${tool##*/}
    expect 0 "$tool" --version
    has "$v" "$name --version"
    case $name in
    pipcc | pipfc) ;; # PiP's pipcc --version: several lines
    *) [ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "$name --version: not one line" ;;
    esac
    case $name in
    pip-mode) ;; # PiP's pip-mode: --help is its usage error (-h helps)
    *)
        expect 0 "$tool" --help
        grep -qi "usage\|$name" "$tmp/out" || fail "$name --help: no usage on stdout"
        ;;
    esac
done

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "every flag answered as PiP 2.4.1's"
