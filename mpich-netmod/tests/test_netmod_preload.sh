#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# An unmodified MPI program (a textbook Jacobi solver built without any
# knowledge of the shim) gives the same output under LD_PRELOAD across two
# boards as without, also with the ranks bound by MPIDELEG_PLACE=hwloc; so
# does a 4-client run with MPIDELEG_DISABLE=1.
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
j=$top/mpich-netmod/tests/nm_jacobi
nm_run jdirect2 2 direct "$j" 64 100
nm_run jprea 4 a "$j" 64 100
nm_same jdirect2 jprea
nm_run jplaced 4 a env MPIDELEG_PLACE=hwloc "$j" 64 100
nm_same jdirect2 jplaced
nm_run jdirect3 3 direct "$j" 63 100
nm_run jpreb 4 b "$j" 63 100
nm_same jdirect3 jpreb
nm_run jdirect4 4 direct "$j" 64 100
nm_run jdisabled 4 direct env LD_PRELOAD="$NM_LIB" MPIDELEG_DISABLE=1 "$j" 64 100
nm_same jdirect4 jdisabled
exit $nm_fail
