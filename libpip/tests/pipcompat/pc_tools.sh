#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# pc_tools.sh MODE TOPBUILDDIR: PiP 2.4.1's tools as PiP's own scripts use
# them (its test.sh, its pip-check and pipcc documentation), in PiP mode
# MODE (process or thread):
# - pipcc's default output passes `pip-check -b` (pipfc's too), is
#   unpie-ed (pip-unpie -c) and dlmopen()-able by a PiP-built helper;
#   <pip/pip_clone.h> gives pip_clone_flags();
# - a plain `cc` PIE fails pip-check with exit 1 ("not a PiP program");
# - pip-exec refuses what pip-check refuses (a static PIE) with exit 2;
# - `pip-mode -p/-L/-G/-C/-T printpipmode` prints PiP's names;
# - a task's _exit (a shell's exit) ends only that task in both modes;
# - thread mode refuses more tasks than namespaces unless
#   PIP_SHARE_NAMESPACES=1; process mode is not affected.
# Exit 0 if all pass, 77 if no C compiler.
mode=$1
top=$2
if [ -z "$mode" ] || [ -z "$top" ]; then
    echo "usage: $0 process|thread TOPBUILDDIR" >&2
    exit 99
fi
t=$top/libpip/tests
pipcc=$t/pipcc
pipfc=$t/pipfc
check=$top/libpip/pip-check
pe=$top/libpip/pip-exec
pmode=$top/libpip/pip-mode
ppm=$top/libpip/printpipmode
unpie=$top/libpip/pip-unpie
for f in "$pipcc" "$check" "$pe" "$pmode" "$ppm" "$unpie"; do
    [ -x "$f" ] || { echo "SETUP: $f not built"; exit 99; }
done
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
PIP_MODE=$mode
export PIP_MODE
unset PIP_SHARE_NAMESPACES PIP_NAMESPACES
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pc_tools.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() {
    echo "FAIL ($mode mode): $*"
    fails=$((fails + 1))
}
ok() {
    echo "PASS ($mode mode): $*"
}
# run WANT CMD...: stdout to $tmp/out, stderr to $tmp/err; the status must
# be WANT.
run() {
    want=$1
    shift
    "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$*: exit $got, want $want: $(head -c 300 "$tmp/err")"
        return 1
    fi
    return 0
}

# pipcc's default output: a PiP program (root and task), unpie-ed.
cat >"$tmp/h.c" <<'C'
#include <pip/pip.h>
#include <stdio.h>
int main(void)
{
    int pipid, n = 1;
    if (pip_init(&pipid, &n, NULL, 0) != 0)
        return 1;
    printf("hello from %s\n", pipid == PIP_PIPID_ROOT ? "root" : "task");
    return pipid == PIP_PIPID_ROOT ? pip_fin() : 0;
}
C
if run 0 "$pipcc" --silent -o "$tmp/h" "$tmp/h.c"; then
    run 0 "$check" -b "$tmp/h" && ok "pipcc output passes pip-check -b"
    run 0 "$unpie" -c "$tmp/h" && ok "pipcc output is unpie-ed"
    run 0 "$tmp/h" && grep -q '^hello from root$' "$tmp/out" &&
        ok "pipcc output runs standalone"
    # A PiP-built helper that loads programs into new namespaces.
    cat >"$tmp/ns.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++)
        if (dlmopen(LM_ID_NEWLM, argv[i], RTLD_LAZY | RTLD_LOCAL) != NULL)
            n++;
        else
            fprintf(stderr, "%s\n", dlerror());
    printf("%d\n", n);
    return 0;
}
C
    if run 0 "$pipcc" --silent -o "$tmp/ns" "$tmp/ns.c"; then
        run 0 "$tmp/ns" "$tmp/h" "$tmp/h" &&
            [ "$(cat "$tmp/out")" = 2 ] &&
            ok "a PiP-built helper dlmopen()s pipcc's output" ||
            fail "dlmopen of pipcc's output: $(cat "$tmp/out") $(head -c 200 "$tmp/err")"
    fi
fi
if command -v "${FC:-gfortran}" >/dev/null 2>&1 && [ -x "$pipfc" ]; then
    printf 'program h\n  print *, 1\nend program h\n' >"$tmp/f.f90"
    if run 0 "$pipfc" --silent -o "$tmp/f" "$tmp/f.f90"; then
        run 0 "$check" -b "$tmp/f" && ok "pipfc output passes pip-check -b"
    fi
fi

# <pip/pip_clone.h>
cat >"$tmp/cl.c" <<'C'
#define _GNU_SOURCE
#include <pip/pip_clone.h>
#include <stdio.h>
int main(void)
{
    int f = pip_clone_flags(CLONE_FILES | CLONE_THREAD | CLONE_FS | SIGUSR1);
    int good = (f & CLONE_VM) && (f & CLONE_SETTLS) && !(f & CLONE_FILES) &&
               !(f & CLONE_THREAD) && !(f & CLONE_FS) && (f & 0xff) == SIGCHLD;
    printf("%s\n", good ? "ok" : "bad");
    return !good;
}
C
run 0 "$pipcc" --silent -o "$tmp/cl" "$tmp/cl.c" && run 0 "$tmp/cl" &&
    ok "pip/pip_clone.h: pip_clone_flags"

# A plain PIE: not a PiP program for PiP's rules; libpip runs it.
printf '#include <stdio.h>\nint main(void){puts("plain");return 0;}\n' >"$tmp/p.c"
if run 0 "$cc" -fPIE -pie -o "$tmp/plain" "$tmp/p.c"; then
    run 1 "$check" "$tmp/plain" && ok "a plain PIE fails pip-check (exit 1)"
    run 0 "$check" --libpip -t "$tmp/plain" &&
        ok "pip-check --libpip: libpip can run it"
    run 0 "$pe" -n 2 "$tmp/plain" && [ "$(grep -c plain "$tmp/out")" -eq 2 ] &&
        ok "pip-exec runs a plain PIE"
fi
# A static PIE: pip-exec refuses it as pip-check does, exit 2.
if "$cc" -static-pie -o "$tmp/spie" "$tmp/p.c" >/dev/null 2>&1; then
    run 1 "$check" -t "$tmp/spie" && grep -q 'static PIE' "$tmp/out" &&
        ok "pip-check: a static PIE is no task"
    run 2 "$pe" "$tmp/spie" && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        grep -q 'static PIE' "$tmp/err" && ok "pip-exec: a static PIE, exit 2"
else
    echo "note: no -static-pie here: static PIE case not run"
fi

# pip-mode and printpipmode, as PiP's test.sh uses them.
for pair in "-p process:preload" "-P process:preload" "-L process:preload" \
    "-l process:preload" "--process:preload process:preload" \
    "-G process:got" "-g process:got" "-C process:pipclone" \
    "-c process:pipclone" "-T pthread" "-t pthread" "--pthread pthread"; do
    set -- $pair
    if run 0 "$pmode" "$1" "$ppm" && [ "$(cat "$tmp/out")" = "$2" ]; then
        :
    else
        fail "pip-mode $1 printpipmode: '$(cat "$tmp/out")', want '$2'"
    fi
done
ok "pip-mode -p/-L/-G/-C/-T printpipmode print PiP's names"

# A task's _exit ends only that task (a shell's exit is _exit).
sh=/bin/sh
run 3 "$pe" -n 2 "$sh" -c 'echo hi; exit 3' &&
    [ "$(grep -c '^hi$' "$tmp/out")" -eq 2 ] &&
    ok "two shells as tasks: both run, exit 3"
run 0 "$pe" -n 3 "$sh" -c 'echo hi' && [ "$(grep -c '^hi$' "$tmp/out")" -eq 3 ] &&
    ok "three shells as tasks: all run, exit 0"
run 12 "$pe" -n 2 "$sh" -c 'kill -USR2 $$; echo not reached' &&
    ! grep -q 'not reached' "$tmp/out" &&
    [ "$(grep -c 'killed by signal 12' "$tmp/err")" -eq 2 ] &&
    ok "a task's kill -USR2 \$\$ ends that task"

# More tasks than namespaces.
if [ "$mode" = thread ]; then
    run 2 "$pe" -n 16 "$tmp/h" && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        grep -q 'PIP_SHARE_NAMESPACES=1' "$tmp/err" &&
        ok "thread mode refuses 16 tasks (15 namespaces), one line"
    run 0 env PIP_SHARE_NAMESPACES=1 "$pe" -n 16 "$tmp/h" &&
        [ "$(grep -c '^hello from task$' "$tmp/out")" -eq 16 ] &&
        ok "PIP_SHARE_NAMESPACES=1: 16 tasks run"
    run 0 "$pe" -n 15 "$tmp/h" &&
        [ "$(grep -c '^hello from task$' "$tmp/out")" -eq 15 ] &&
        ok "thread mode: 15 tasks, a namespace each"
else
    run 0 "$pe" -n 16 "$tmp/h" &&
        [ "$(grep -c '^hello from task$' "$tmp/out")" -eq 16 ] &&
        ok "process mode: 16 tasks run (not refused)"
fi
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
exit 0
