#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_environment_md.sh: every environment variable the sources read is
# listed in the top ENVIRONMENT.md (as `NAME` in a table row).  A name is
# one read with getenv("NAME") / secure_getenv("NAME") anywhere in the C
# sources outside the components' tests/ directories, or a string literal
# with a component's prefix (PIP_, ULP_, DLG_, MPIDELEG_, FTA_, EARTH_,
# SWIN_, PCAF_, STENCIL_, SPARE_, PVAS_, TH_, PMI_, KMP_, OMP_), which is how
# the helpers that take a variable's name are called.
set -u
sdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
doc=$sdir/ENVIRONMENT.md
[ -r "$doc" ] || { echo "FAIL: $doc missing"; exit 1; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$sdir" || exit 99
# The components' own code only: src/, include/, tools/, bench/, the shared
# test/ helpers, examples/ and common/ (not tests/, nor sources a test
# downloads into the tree, such as libpip's corpus).
find . -path ./.git -prune -o \( -name '*.c' -o -name '*.h' -o -name '*.h.in' \) -print |
    grep -E '^\./([^/]+/(src|include|tools|bench)/|test/|examples/|common/)' |
    grep -v '/tests/' | grep -v '/test_[^/]*\.c$' | sort >"$tmp/files"
[ -s "$tmp/files" ] || { echo "ERROR: no sources found under $sdir"; exit 99; }
{
    xargs grep -ohE '(secure_)?getenv\("[A-Za-z_][A-Za-z0-9_]*"\)' <"$tmp/files" |
        sed -E 's/.*\("([^"]*)"\)/\1/'
    xargs grep -ohE '"(PIP|ULP|DLG|MPIDELEG|FTA|EARTH|SWIN|PCAF|STENCIL|SPARE|PVAS|TH|PMI|KMP|OMP)_[A-Z0-9_]+"' <"$tmp/files" |
        tr -d '"'
} | sort -u >"$tmp/names"
n=$(wc -l <"$tmp/names")
[ "$n" -gt 50 ] || { echo "ERROR: only $n names found: the scan is broken"; exit 99; }
missing=
for v in $(cat "$tmp/names"); do
    grep -q "^|.*\`$v\`" "$doc" || missing="$missing $v"
done
if [ -n "$missing" ]; then
    echo "FAIL: read by the sources but not in ENVIRONMENT.md:$missing"
    exit 1
fi
echo "ok: all $n variables the sources read are in ENVIRONMENT.md"
