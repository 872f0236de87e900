# SPDX-License-Identifier: BSD-2-Clause
# test/Makefile.mk: shared test scaffolding and the tests of that scaffolding.

# Helpers every C test may link: th_sibling_path, th_run, th_count.
check_LTLIBRARIES += test/libth.la
test_libth_la_SOURCES = test/th_util.c test/th_util.h

EXTRA_DIST += test/mpi-run.in test/test_mpi_run.sh
FORMAT_FILES += test/th_util.c test/th_util.h test/test_th_util.c

if HAVE_CMOCKA
check_PROGRAMS += test/test_th_util
TESTS += test/test_th_util
test_test_th_util_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
test_test_th_util_LDADD = test/libth.la $(CMOCKA_LIBS)
test_test_th_util_LDFLAGS = $(AM_LDFLAGS) -no-install
endif

if HAVE_MPI
# The MPI launcher wrapper, shown to pass status through and to kill and fail
# a hung program.
check_PROGRAMS += test/mpi_sum test/mpi_hang
test_mpi_sum_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
test_mpi_sum_LDADD = $(MPI_LIBS)
test_mpi_sum_LDFLAGS = $(AM_LDFLAGS) -no-install
test_mpi_hang_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
test_mpi_hang_LDADD = $(MPI_LIBS)
test_mpi_hang_LDFLAGS = $(AM_LDFLAGS) -no-install
TESTS += test/test_mpi_run.sh
endif

# Every installed library exports exactly its public API (<dir>/<lib>.exports).
test/installed-libs: Makefile
	$(AM_V_GEN)echo $(lib_LTLIBRARIES) | tr ' ' '\n' >$@
check_SCRIPTS += test/installed-libs
CLEANFILES += test/installed-libs
EXTRA_DIST += test/test_exports.sh
TESTS += test/test_exports.sh
EXTRA_DIST += libpip/libpip.exports libulp/libulp.exports \
	delegation/libdeleg.exports mpich-netmod/libmpideleg.exports \
	ft-agree/libftagree.exports mpiio-earth/libmpiio-earth.exports \
	spare/libspare.exports storage-win/libmpi-storagewin.exports
# make check-load: make check next to one busy loop per CPU (HACKING.md).
dist_check_SCRIPTS += test/test_check_load.sh
EXTRA_DIST += test/check-load.sh
TESTS += test/test_check_load.sh

# make distcheck's cheap guard: the tarball's file list and generated headers.
dist_check_SCRIPTS += test/test_dist_files.sh
TESTS += test/test_dist_files.sh

# File sizes and circles among a component's files (tools/check-structure.py).
EXTRA_DIST += tools/check-structure.py
dist_check_SCRIPTS += test/test_structure.sh
TESTS += test/test_structure.sh
