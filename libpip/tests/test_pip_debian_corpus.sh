#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# test_pip_debian_corpus.sh: real programs built from Debian sources (GNU
# hello, figlet, lzip in C++) as PIEs, each run alone and as 1, 8 and 64
# PiP tasks in both modes (realprog/debian_corpus.sh).  Sources and builds
# are kept in libpip/corpus/ of the build tree.  Skips (77) without
# apt-get, a compiler or the network.
: "${abs_top_srcdir:?}" "${abs_top_builddir:?}" "${PIP_EXEC:?}"
exec "$abs_top_srcdir/libpip/tests/realprog/debian_corpus.sh" \
    "$abs_top_builddir/libpip/corpus"
