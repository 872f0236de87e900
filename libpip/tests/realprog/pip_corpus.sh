#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# pip_corpus.sh BINDIR: real programs as process-mode PiP tasks, each task
# with its own output file, compared byte for byte with direct runs.
#
# For each program and each N of CORPUS_N (default "1 16 64 256"), one
# `pip-exec P ARGS(0) : P ARGS(1) : ... : P ARGS(N-1)` (MPMD: task i names
# its own output file) runs in process mode, then the same N commands run
# directly, one after the other.  Every task's file must equal its direct
# run's, byte for byte, and every task's exit status its direct run's
# (pip-exec reports each task that does not exit 0).  The direct runs are
# made once per program (task i's arguments do not depend on N).  `seq` writes to
# standard output: each task prints lines tagged with its number (one
# write, below PIPE_BUF), and each task's lines must be its direct run's.
# Debian's programs: sqlite3, seq, sort, sed, gzip, dash; the tree's, from
# BINDIR (built by the caller when a compiler is there): rp_cxxf (C++),
# rp_pth (pthreads), rp_omp (OpenMP), rp_ftn (Fortran).
# Needs PIP_EXEC.  Exit 0 if all pass, 77 if Debian's programs are missing.
bindir=$1
: "${PIP_EXEC:?PIP_EXEC not set}"
: "${CORPUS_N:=1 16 64 256}"
for p in sqlite3 seq sort sed gzip dash; do
    if ! command -v $p >/dev/null 2>&1; then
        echo "SKIP: $p is not installed (quickstart.sh installs it)"
        exit 77
    fi
done
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
seq 1 5000 | sed 's/$/ x/' >"$tmp/data"
awk 'BEGIN { for (i = 0; i < 3000; i++) print (i * 7919) % 3001 }' \
    >"$tmp/nums" 2>/dev/null || seq 3000 -1 1 >"$tmp/nums"
# (one line: task_args gives one argument per line)
SQL='create table t(a integer, b text); with recursive c(x) as (select 1 union all select x + 1 from c where x < 2000) insert into t select x, printf("r%05d", x * 37 % 2000) from c; select count(*), sum(a), min(b), max(b) from t; select b from t where a % 250 = 0 order by b;'

# argv of task $2 of program $1, its output in directory $3 (one per line)
task_args() {
    o=$3/out.$2
    case $1 in
    sqlite3) printf '%s\n' sqlite3 -cmd ".output $o" :memory: "$SQL" ;;
    seq) printf '%s\n' seq -f "t$2 %g" 1 300 ;;
    sort) printf '%s\n' sort -n -o "$o" "$tmp/nums" ;;
    sed) printf '%s\n' sed -n -e 's/1/one/g' -e "w $o" "$tmp/data" ;;
    dash) printf '%s\n' dash -c "i=0; while [ \$i -lt 300 ]; do echo \"line \$i\"; i=\$((i + 1)); done >$o; exit 3" ;;
    gzipf) printf '%s\n' gzip -k -n -f -S ".$2.gz" "$tmp/g/data" ;;
    *) printf '%s\n' "$bindir/$1" "$o" ;;
    esac
}

progs="sqlite3 seq sort sed gzipf dash"
for p in rp_cxxf rp_pth rp_omp rp_ftn; do
    if [ -x "$bindir/$p" ]; then
        progs="$progs $p"
    else
        echo "note: $p not built (no compiler): not run"
    fi
done
mkdir -p "$tmp/g" && cp "$tmp/data" "$tmp/g/data"

maxn=0
for n in $CORPUS_N; do [ "$n" -gt $maxn ] && maxn=$n; done

# direct run of task $2 of program $1 (once per program: the arguments of
# task i are the same for every N): output in $tmp/d, status in status.$2
direct() {
    p=$1 i=$2
    set --
    while IFS= read -r a; do set -- "$@" "$a"; done <<EOA
$(task_args $p $i "$tmp/d")
EOA
    timeout -s KILL 60 "$@" </dev/null >"$tmp/d/stdout.$i" 2>/dev/null
    echo $? >"$tmp/d/status.$i"
    if [ $p = gzipf ]; then
        mv "$tmp/g/data.$i.gz" "$tmp/d/out.$i"
    elif [ $p = seq ]; then
        cp "$tmp/d/stdout.$i" "$tmp/d/out.$i"
    fi
}

fails=0
for p in $progs; do
    rm -rf "$tmp/d" && mkdir "$tmp/d"
    rm -f "$tmp/g"/data.*.gz
    i=0
    while [ $i -lt $maxn ]; do
        direct $p $i
        i=$((i + 1))
    done
    for n in $CORPUS_N; do
        rm -rf "$tmp/t" && mkdir "$tmp/t"
        rm -f "$tmp/g"/data.*.gz
        # the MPMD command line, then the direct runs
        set --
        i=0
        while [ $i -lt "$n" ]; do
            [ $i -gt 0 ] && set -- "$@" :
            while IFS= read -r a; do set -- "$@" "$a"; done <<EOA
$(task_args $p $i "$tmp/t")
EOA
            i=$((i + 1))
        done
        PIP_MODE=process timeout -s KILL 300 "$PIP_EXEC" "$@" </dev/null \
            >"$tmp/t/stdout" 2>"$tmp/t/stderr"
        prc=$?
        if [ $p = gzipf ]; then
            for f in "$tmp/g"/data.*.gz; do
                [ -e "$f" ] && mv "$f" "$tmp/t/out.$(basename "$f" .gz | sed 's/^data\.//')"
            done
        fi
        i=0
        bad=0
        while [ $i -lt "$n" ]; do
            want=$(cat "$tmp/d/status.$i")
            got=$(sed -n "s/^.*: task $i (.*) exited with status \([0-9]*\)\$/\1/p" \
                "$tmp/t/stderr")
            [ -n "$got" ] || got=0
            if [ "$got" != "$want" ]; then
                [ $bad -lt 3 ] && echo "FAIL: $p -n $n: task $i exit status $got, directly $want"
                bad=$((bad + 1))
            fi
            if [ $p = seq ]; then
                grep "^t$i " "$tmp/t/stdout" >"$tmp/t/out.$i"
            fi
            if [ ! -s "$tmp/d/out.$i" ]; then
                [ $bad -lt 3 ] && echo "FAIL: $p -n $n: task $i's direct run wrote nothing"
                bad=$((bad + 1))
            elif ! cmp -s "$tmp/t/out.$i" "$tmp/d/out.$i"; then
                [ $bad -lt 3 ] && echo "FAIL: $p -n $n: task $i's output differs from its direct run ($(wc -c <"$tmp/t/out.$i" 2>/dev/null || echo no) bytes, want $(wc -c <"$tmp/d/out.$i"))"
                bad=$((bad + 1))
            fi
            i=$((i + 1))
        done
        if [ $bad -eq 0 ]; then
            echo "PASS: $p, process mode, $n tasks: $n outputs and statuses as $n direct runs ($(cat "$tmp/t"/out.* | wc -c) bytes)"
        else
            echo "FAIL: $p, process mode, $n tasks: $bad mismatches (pip-exec status $prc)"
            sed -n '1,10p' "$tmp/t/stderr"
            fails=$((fails + 1))
        fi
    done
done
[ $fails -eq 0 ]
