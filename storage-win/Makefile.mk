# SPDX-License-Identifier: BSD-2-Clause
# storage-win/Makefile.mk: MPI storage windows and persistent coarrays.

EXTRA_DIST += storage-win/README.md storage-win/DESIGN.md storage-win/bench/RESULTS.md storage-win/mpi-storagewin.pc.in \
	storage-win/tests/test_swin_env.sh \
	storage-win/man/libmpi-storagewin.7.md \
	storage-win/examples/pcaf_listing1.f90 \
	storage-win/tests/test_swin_pcaf.sh \
	storage-win/bench/swin_bench.sh
FORMAT_FILES += storage-win/include/storage_win.h storage-win/src/*.c \
	storage-win/src/*.h storage-win/tests/*.c storage-win/bench/*.c

if BUILD_STORAGE_WIN
PVAS_MANS += storage-win/man/libmpi-storagewin.7
SWIN_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/storage-win/include \
	-I$(top_srcdir)/storage-win/src

# Everything but the interposed MPI symbols, shared with the unit tests.
noinst_LTLIBRARIES += storage-win/libswin_core.la
storage_win_libswin_core_la_SOURCES = storage-win/src/swin_cfg.c \
	storage-win/src/swin_map.c storage-win/src/swin_pcaf.c \
	storage-win/src/swin_internal.h
storage_win_libswin_core_la_CPPFLAGS = $(SWIN_CPPFLAGS)
storage_win_libswin_core_la_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -fvisibility=hidden

lib_LTLIBRARIES += storage-win/libmpi-storagewin.la
swinincludedir = $(includedir)
swininclude_HEADERS = storage-win/include/storage_win.h
storage_win_libmpi_storagewin_la_SOURCES = storage-win/src/swin_pmpi.c
storage_win_libmpi_storagewin_la_CPPFLAGS = $(SWIN_CPPFLAGS)
storage_win_libmpi_storagewin_la_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -fvisibility=hidden
storage_win_libmpi_storagewin_la_LIBADD = storage-win/libswin_core.la common/libpvaslog.la $(MPI_LIBS)
storage_win_libmpi_storagewin_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0
pkgconfig_DATA += storage-win/mpi-storagewin.pc

# The MPI program the storage tests drive, and the benchmark.
check_PROGRAMS += storage-win/tests/swin_mpi_helper
storage_win_tests_swin_mpi_helper_SOURCES = storage-win/tests/swin_mpi_helper.c \
	storage-win/tests/swin_pattern.h
storage_win_tests_swin_mpi_helper_CPPFLAGS = $(SWIN_CPPFLAGS)
storage_win_tests_swin_mpi_helper_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
storage_win_tests_swin_mpi_helper_LDADD = storage-win/libmpi-storagewin.la $(MPI_LIBS)
storage_win_tests_swin_mpi_helper_LDFLAGS = $(AM_LDFLAGS) -no-install
check_PROGRAMS += storage-win/tests/swin_env
storage_win_tests_swin_env_SOURCES = storage-win/tests/swin_env.c
storage_win_tests_swin_env_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
storage_win_tests_swin_env_LDADD = storage-win/libmpi-storagewin.la $(MPI_LIBS)
storage_win_tests_swin_env_LDFLAGS = $(AM_LDFLAGS) -no-install
TESTS += storage-win/tests/test_swin_env.sh

noinst_PROGRAMS += storage-win/bench/swin_bench
storage_win_bench_swin_bench_SOURCES = storage-win/bench/swin_bench.c
storage_win_bench_swin_bench_CPPFLAGS = $(SWIN_CPPFLAGS)
storage_win_bench_swin_bench_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
storage_win_bench_swin_bench_LDADD = storage-win/libmpi-storagewin.la $(MPI_LIBS)
storage_win_bench_swin_bench_LDFLAGS = $(AM_LDFLAGS) -no-install

if HAVE_CMOCKA
check_PROGRAMS += storage-win/tests/test_swin_track storage-win/tests/test_swin_storage
TESTS += storage-win/tests/test_swin_track storage-win/tests/test_swin_storage
# The cases that need userfaultfd (and cross memory attach) run as entries
# of their own, which skip as a whole where the kernel refuses.
SWIN_TRACK_GROUPS = storage-win/tests/test_swin_track.uffd \
	storage-win/tests/test_swin_track.cma
TESTS += $(SWIN_TRACK_GROUPS)
CLEANFILES += $(SWIN_TRACK_GROUPS)
storage-win/tests/test_swin_track.uffd: storage-win/tests/test_swin_track
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nSWIN_TRACK_GROUP=uffd; export SWIN_TRACK_GROUP\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
	chmod +x $@
storage-win/tests/test_swin_track.cma: storage-win/tests/test_swin_track
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nSWIN_TRACK_GROUP=cma; export SWIN_TRACK_GROUP\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
	chmod +x $@
storage_win_tests_test_swin_track_SOURCES = storage-win/tests/test_swin_track.c
storage_win_tests_test_swin_track_CPPFLAGS = $(SWIN_CPPFLAGS)
storage_win_tests_test_swin_track_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) $(CMOCKA_CFLAGS)
storage_win_tests_test_swin_track_LDADD = storage-win/libswin_core.la common/libpvaslog.la test/libth.la $(MPI_LIBS) $(CMOCKA_LIBS)
storage_win_tests_test_swin_track_LDFLAGS = $(AM_LDFLAGS) -no-install
storage_win_tests_test_swin_storage_SOURCES = storage-win/tests/test_swin_storage.c \
	storage-win/tests/swin_pattern.h
storage_win_tests_test_swin_storage_CPPFLAGS = $(SWIN_CPPFLAGS)
storage_win_tests_test_swin_storage_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
storage_win_tests_test_swin_storage_LDADD = test/libth.la $(CMOCKA_LIBS)
storage_win_tests_test_swin_storage_LDFLAGS = $(AM_LDFLAGS) -no-install
endif

# Persistent coarrays with a real OpenCoarrays program (skipped without caf).
TESTS += storage-win/tests/test_swin_pcaf.sh

# make bench: storage vs memory windows, sync cost sweep (table + CSV).
swin-bench: storage-win/bench/swin_bench storage-win/libmpi-storagewin.la
	MPI_RUN='$(abs_top_builddir)/test/mpi-run' sh $(top_srcdir)/storage-win/bench/swin_bench.sh \
	    $(abs_top_builddir)/storage-win/bench/swin_bench $(abs_top_builddir)/storage-win/bench-results
BENCH_TARGETS += swin-bench
endif
.PHONY: swin-bench
