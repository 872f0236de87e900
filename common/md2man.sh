#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# md2man.sh LOWDOWN IN.S.md OUT: turn one of the tree's Markdown man pages
# into a roff man page with lowdown (-s -Tman).
#
# The pages start in one of two ways:
#   # name(S) -- one-line description        (sections are "## ...")
#   % NAME(S) source | manual                (sections are "# ...", with
#                                             a "# NAME" section)
# Both become lowdown metadata (title, section) and a body whose sections
# are level-1 headings, with a NAME section "name - description" that
# whatis and apropos read.  Headings inside ``` fences are left alone.
set -eu
[ $# -eq 3 ] || { echo "usage: md2man.sh LOWDOWN IN.S.md OUT" >&2; exit 2; }
lowdown=$1 in=$2 out=$3
base=${in##*/}
base=${base%.md}
sec=${base##*.}
name=${base%.*}
first=$(sed -n 1p "$in")
tmp=$out.tmp.md
{
    printf 'title: %s\nsection: %s\nsource: pvas-runtime\nvolume: pvas-runtime manual\n\n' \
        "$name" "$sec"
    case $first in
    '% '*)
        sed 1d "$in"
        ;;
    '# '*)
        desc=$(printf '%s\n' "$first" | sed 's/^# [^ ]* *--* *//')
        printf '# NAME\n\n%s - %s\n' "$name" "$desc"
        sed 1d "$in" | awk '
            /^```/ { fence = !fence }
            !fence && /^##/ { sub(/^#/, "") }
            { print }'
        ;;
    *)
        echo "md2man.sh: $in: first line is neither '# name(S) -- ...' nor '% NAME(S) ...'" >&2
        exit 1
        ;;
    esac
} >"$tmp"
"$lowdown" -s -Tman --parse-no-intraemph -o "$out" "$tmp"
rm -f "$tmp"
