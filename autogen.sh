#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# autogen.sh: generate configure and Makefile.in from a clean clone.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf -fi "$@"
