#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# mpideleg.pc exists and resolves (pkg-config --cflags --libs mpideleg in
# the build tree), and every installed .pc of the tree links the same way:
# its Libs carry -Wl,-rpath,${libdir} (all of them, so that programs built
# against any prefix find the libraries without LD_LIBRARY_PATH).
top=${abs_top_builddir:-.}
src=${abs_top_srcdir:-.}
command -v pkg-config >/dev/null 2>&1 || { echo "SKIP: no pkg-config"; exit 77; }
fail=0
pc=$top/mpich-netmod/mpideleg.pc
[ -f "$pc" ] || { echo "FAIL: $pc missing"; exit 1; }
libs=$(PKG_CONFIG_PATH=$top/mpich-netmod:$top/delegation${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} \
    pkg-config --libs mpideleg) || { echo "FAIL: pkg-config --libs mpideleg"; fail=1; }
case $libs in
*-lmpideleg*-Wl,-rpath,* | *-Wl,-rpath,*-lmpideleg*) echo "ok mpideleg.pc: $libs" ;;
*) echo "FAIL: mpideleg.pc gives '$libs'"; fail=1 ;;
esac
n=0
for f in $(find "$src" -name '*.pc.in' -not -path '*/.git/*'); do
    n=$((n + 1))
    if ! grep -q '^Libs:.*-Wl,-rpath,${libdir}' "$f"; then
        echo "FAIL: $f: Libs without -Wl,-rpath,\${libdir}"; fail=1
    fi
done
[ "$n" -ge 8 ] || { echo "FAIL: only $n .pc.in files found under $src"; fail=1; }
echo "$n .pc.in files checked"
exit $fail
