# SPDX-License-Identifier: BSD-2-Clause
# mpiio-earth/Makefile.mk: EARTH collective MPI-IO (PMPI library), its
# tests and benchmarks.

EXTRA_DIST += mpiio-earth/README.md mpiio-earth/DESIGN.md mpiio-earth/tests/README.md mpiio-earth/man/mpiio-earth.7.md \
	mpiio-earth/mpiio-earth.pc.in mpiio-earth/tests/test_earth_hints.sh \
	mpiio-earth/tests/test_earth_patterns.sh \
	mpiio-earth/tests/test_earth_romio_preload.sh \
	mpiio-earth/tests/test_earth_nonblocking.sh \
	mpiio-earth/tests/test_earth_threads.sh \
	mpiio-earth/tests/test_earth_handoff.sh \
	mpiio-earth/tests/test_earth_mpich_io.sh \
	mpiio-earth/tests/test_earth_hdf5.sh mpiio-earth/tests/earth_hdf5.c \
	mpiio-earth/tests/test_earth_env.sh \
	mpiio-earth/tests/test_earth_agree.sh \
	mpiio-earth/tests/test_earth_layers.sh \
	mpiio-earth/bench/earth_bench.sh mpiio-earth/bench/earth_defaults.sh \
	mpiio-earth/bench/earth_collcount.c \
	mpiio-earth/bench/RESULTS.md

if BUILD_MPIIO_EARTH
PVAS_MANS += mpiio-earth/man/mpiio-earth.7
lib_LTLIBRARIES += mpiio-earth/libmpiio-earth.la
pkgconfig_DATA += mpiio-earth/mpiio-earth.pc
include_HEADERS = mpiio-earth/include/earth.h
mpiio_earth_libmpiio_earth_la_SOURCES = \
	mpiio-earth/src/earth_internal.h \
	mpiio-earth/src/earth_flatten.c \
	mpiio-earth/src/earth_hints.c \
	mpiio-earth/src/earth_file.c \
	mpiio-earth/src/earth_open.c \
	mpiio-earth/src/earth_coll.h \
	mpiio-earth/src/earth_coll.c \
	mpiio-earth/src/earth_plan.c \
	mpiio-earth/src/earth_pipe.c \
	mpiio-earth/src/earth_io.c \
	mpiio-earth/src/earth_api.c \
	mpiio-earth/src/earth_async.c \
	mpiio-earth/src/earth_fsemu.c
EARTH_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpiio-earth/include
if HAVE_HWLOC
EARTH_CPPFLAGS += -DEARTH_HAVE_HWLOC
endif
mpiio_earth_libmpiio_earth_la_CPPFLAGS = $(EARTH_CPPFLAGS)
mpiio_earth_libmpiio_earth_la_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) \
	$(HWLOC_CFLAGS) -fvisibility=hidden
mpiio_earth_libmpiio_earth_la_LIBADD = common/libpvaslog.la $(MPI_LIBS) $(HWLOC_LIBS) -lpthread \
	-lrt
mpiio_earth_libmpiio_earth_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0
FORMAT_FILES += $(mpiio_earth_libmpiio_earth_la_SOURCES) \
	mpiio-earth/include/earth.h

# Tests: MPI programs linked with the library (the link-time form of the
# interposition); the scripts run them through test/mpi-run.
EARTH_TEST_LDADD = mpiio-earth/libmpiio-earth.la $(MPI_LIBS)
check_PROGRAMS += mpiio-earth/tests/earth_patterns
mpiio_earth_tests_earth_patterns_SOURCES = mpiio-earth/tests/earth_patterns.c
mpiio_earth_tests_earth_patterns_CPPFLAGS = $(EARTH_CPPFLAGS)
mpiio_earth_tests_earth_patterns_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpiio_earth_tests_earth_patterns_LDADD = $(EARTH_TEST_LDADD)
mpiio_earth_tests_earth_patterns_LDFLAGS = $(AM_LDFLAGS) -no-install
check_PROGRAMS += mpiio-earth/tests/earth_threads
mpiio_earth_tests_earth_threads_SOURCES = mpiio-earth/tests/earth_threads.c
mpiio_earth_tests_earth_threads_CPPFLAGS = $(EARTH_CPPFLAGS)
mpiio_earth_tests_earth_threads_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpiio_earth_tests_earth_threads_LDADD = $(EARTH_TEST_LDADD) -lpthread
mpiio_earth_tests_earth_threads_LDFLAGS = $(AM_LDFLAGS) -no-install
check_PROGRAMS += mpiio-earth/tests/earth_nonblocking
mpiio_earth_tests_earth_nonblocking_SOURCES = mpiio-earth/tests/earth_nonblocking.c
mpiio_earth_tests_earth_nonblocking_CPPFLAGS = $(EARTH_CPPFLAGS)
mpiio_earth_tests_earth_nonblocking_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpiio_earth_tests_earth_nonblocking_LDADD = $(EARTH_TEST_LDADD)
mpiio_earth_tests_earth_nonblocking_LDFLAGS = $(AM_LDFLAGS) -no-install
check_PROGRAMS += mpiio-earth/tests/earth_handoff
mpiio_earth_tests_earth_handoff_SOURCES = mpiio-earth/tests/earth_handoff.c
mpiio_earth_tests_earth_handoff_CPPFLAGS = $(EARTH_CPPFLAGS)
mpiio_earth_tests_earth_handoff_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpiio_earth_tests_earth_handoff_LDADD = $(EARTH_TEST_LDADD)
mpiio_earth_tests_earth_handoff_LDFLAGS = $(AM_LDFLAGS) -no-install
TESTS += mpiio-earth/tests/test_earth_handoff.sh
# MPICH's test/mpi/io and ROMIO's test programs (EARTH_MPICH_SRC or
# EARTH_ROMIO_TEST_DIR; skipped without), and parallel HDF5 (skipped
# without libhdf5-mpich-dev and hdf5-tools).
TESTS += mpiio-earth/tests/test_earth_mpich_io.sh \
	mpiio-earth/tests/test_earth_hdf5.sh
check_PROGRAMS += mpiio-earth/tests/earth_env
mpiio_earth_tests_earth_env_SOURCES = mpiio-earth/tests/earth_env.c
mpiio_earth_tests_earth_env_CPPFLAGS = $(EARTH_CPPFLAGS)
mpiio_earth_tests_earth_env_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpiio_earth_tests_earth_env_LDADD = $(EARTH_TEST_LDADD)
mpiio_earth_tests_earth_env_LDFLAGS = $(AM_LDFLAGS) -no-install
TESTS += mpiio-earth/tests/test_earth_env.sh
check_PROGRAMS += mpiio-earth/tests/earth_agree
mpiio_earth_tests_earth_agree_SOURCES = mpiio-earth/tests/earth_agree.c
mpiio_earth_tests_earth_agree_CPPFLAGS = $(EARTH_CPPFLAGS)
mpiio_earth_tests_earth_agree_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpiio_earth_tests_earth_agree_LDADD = $(EARTH_TEST_LDADD)
mpiio_earth_tests_earth_agree_LDFLAGS = $(AM_LDFLAGS) -no-install
TESTS += mpiio-earth/tests/test_earth_agree.sh
# no circle between the library's files
TESTS += mpiio-earth/tests/test_earth_layers.sh
TESTS += mpiio-earth/tests/test_earth_patterns.sh \
	mpiio-earth/tests/test_earth_romio_preload.sh \
	mpiio-earth/tests/test_earth_nonblocking.sh \
	mpiio-earth/tests/test_earth_threads.sh

if HAVE_CMOCKA
check_PROGRAMS += mpiio-earth/tests/test_earth_hints
mpiio_earth_tests_test_earth_hints_SOURCES = mpiio-earth/tests/test_earth_hints.c
mpiio_earth_tests_test_earth_hints_CPPFLAGS = $(EARTH_CPPFLAGS)
mpiio_earth_tests_test_earth_hints_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) \
	$(CMOCKA_CFLAGS)
mpiio_earth_tests_test_earth_hints_LDADD = $(EARTH_TEST_LDADD) $(CMOCKA_LIBS)
mpiio_earth_tests_test_earth_hints_LDFLAGS = $(AM_LDFLAGS) -no-install
TESTS += mpiio-earth/tests/test_earth_hints.sh
endif

# Benchmarks (make bench): 4 and 8 ranks, oversubscribed.
# Installed into $(pkglibexecdir)/bench (earth_bench is then a libtool
# wrapper in the build tree: it links the library).
earthbenchdir = $(pkglibexecdir)/bench
earthbench_PROGRAMS = mpiio-earth/bench/earth_bench
mpiio_earth_bench_earth_bench_SOURCES = mpiio-earth/bench/earth_bench.c
mpiio_earth_bench_earth_bench_CPPFLAGS = $(EARTH_CPPFLAGS)
mpiio_earth_bench_earth_bench_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpiio_earth_bench_earth_bench_LDADD = $(EARTH_TEST_LDADD) -lrt
BENCH_TARGETS += earth-bench
# EARTH's defaults against ROMIO, preloaded into an IOR-like program, and
# on the contention model (make bench-earth; part of make bench).
earthbench_PROGRAMS += mpiio-earth/bench/earth_ior
mpiio_earth_bench_earth_ior_SOURCES = mpiio-earth/bench/earth_ior.c
mpiio_earth_bench_earth_ior_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpiio_earth_bench_earth_ior_LDADD = $(MPI_LIBS)
mpiio_earth_bench_earth_ior_LDFLAGS = $(AM_LDFLAGS) -no-install
FORMAT_FILES += mpiio-earth/bench/earth_ior.c mpiio-earth/bench/earth_collcount.c
BENCH_TARGETS += bench-earth
bench-earth: mpiio-earth/bench/earth_ior mpiio-earth/bench/earth_bench \
	mpiio-earth/libmpiio-earth.la
	@sh $(top_srcdir)/mpiio-earth/bench/earth_defaults.sh \
	    $(abs_top_builddir) $(abs_top_builddir)/mpiio-earth/bench
earth-bench: mpiio-earth/bench/earth_bench
	@sh $(top_srcdir)/mpiio-earth/bench/earth_bench.sh \
	    $(abs_top_builddir)/mpiio-earth/bench/earth_bench \
	    $(abs_top_builddir)/mpiio-earth/bench
CLEANFILES += mpiio-earth/bench/*.csv mpiio-earth/bench/*.svg \
	mpiio-earth/bench/earth_collcount.so mpiio-earth/bench/earth_collcount.txt \
	mpiio-earth/bench/*.raw \
	mpiio-earth/bench/*.png
endif
.PHONY: earth-bench bench-earth
