# SPDX-License-Identifier: BSD-2-Clause
# mpich-netmod/Makefile.mk: libmpideleg (PMPI delegation shim), its MPI test
# suite and benchmark.

EXTRA_DIST += mpich-netmod/README.md mpich-netmod/DESIGN.md \
	mpich-netmod/bench/RESULTS.md mpich-netmod/tests/README.md mpich-netmod/.gitignore mpich-netmod/man/mpideleg.7.md \
	mpich-netmod/mpideleg.pc.in \
	mpich-netmod/tools/gen-pass.py mpich-netmod/tests/test_netmod_suite.sh \
	mpich-netmod/tests/test_netmod_genpass.sh \
	mpich-netmod/tests/test_netmod_preload.sh \
	mpich-netmod/tests/test_netmod_errors.sh mpich-netmod/tests/nm_common.sh \
	mpich-netmod/tests/test_netmod_mpich.sh \
	mpich-netmod/tests/test_netmod_kill.sh \
	mpich-netmod/tests/test_netmod_threads.sh \
	mpich-netmod/tests/test_netmod_pip.sh \
	mpich-netmod/tests/test_netmod_form.sh \
	mpich-netmod/tests/test_netmod_private.sh \
	mpich-netmod/tests/test_netmod_twonode.sh \
	mpich-netmod/tests/test_netmod_mpich_twonode.sh \
	mpich-netmod/tests/test_netmod_persist.sh \
	mpich-netmod/tests/test_netmod_progress.sh \
	mpich-netmod/tests/test_netmod_coll.sh \
	mpich-netmod/tests/test_netmod_mpiio.sh \
	mpich-netmod/tests/test_netmod_romio.sh \
	mpich-netmod/tests/test_netmod_pc.sh \
	mpich-netmod/tests/test_netmod_conform.sh \
	mpich-netmod/tests/test_netmod_mpich_dirs.sh \
	mpich-netmod/tests/check_netmod_apps.sh \
	mpich-netmod/bench/run-bench.sh mpich-netmod/bench/plot.gp \
	mpich-netmod/bench/run-user-bench.sh mpich-netmod/bench/np-plot.gp \
	mpich-netmod/bench/run-paired.sh mpich-netmod/bench/median.awk mpich-netmod/bench/where.awk \
	mpich-netmod/bench/run-process-pair.sh \
	mpich-netmod/bench/RESULTS.md mpich-netmod/bench/np-2026-11-27.svg \
	mpich-netmod/bench/run-coll-bench.sh \
	mpich-netmod/bench/run-twonode-bench.sh mpich-netmod/bench/twonode-plot.gp \
	mpich-netmod/bench/run-startup-bench.sh \
	mpich-netmod/bench/twonode-2026-12-07.svg

if BUILD_MPICH_NETMOD
PVAS_MANS += mpich-netmod/man/mpideleg.7
lib_LTLIBRARIES += mpich-netmod/libmpideleg.la
pkgconfig_DATA += mpich-netmod/mpideleg.pc
mpidelegincludedir = $(includedir)
mpideleginclude_HEADERS = mpich-netmod/include/mpideleg.h
mpich_netmod_libmpideleg_la_SOURCES = \
	mpich-netmod/src/nm_internal.h mpich-netmod/src/nm_visibility.h \
	mpich-netmod/src/nm_base.h \
	mpich-netmod/src/nm_init.c \
	mpich-netmod/src/nm_mpi.c \
	mpich-netmod/src/nm_errh.c \
	mpich-netmod/src/nm_coll.h \
	mpich-netmod/src/nm_client.c \
	mpich-netmod/src/nm_dstate.h \
	mpich-netmod/src/nm_dbase.c \
	mpich-netmod/src/nm_deleg.c \
	mpich-netmod/src/nm_dmatch.c \
	mpich-netmod/src/nm_dpay.c \
	mpich-netmod/src/nm_dsend.c \
	mpich-netmod/src/nm_p2p.c \
	mpich-netmod/src/nm_p2p.h \
	mpich-netmod/src/nm_probe.c \
	mpich-netmod/src/nm_bsend.c \
	mpich-netmod/src/nm_persist.c \
	mpich-netmod/src/nm_sendrecv.c \
	mpich-netmod/src/nm_coll.c \
	mpich-netmod/src/nm_coll_mpi.c \
	mpich-netmod/src/nm_pass.c \
	mpich-netmod/src/nm_form.c mpich-netmod/src/nm_member.c mpich-netmod/src/nm_member.h \
	mpich-netmod/src/nm_flock.c \
	mpich-netmod/src/nm_standin.c mpich-netmod/src/nm_standin.h
NM_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpich-netmod/include \
	-I$(top_srcdir)/delegation/include
mpich_netmod_libmpideleg_la_CPPFLAGS = $(NM_CPPFLAGS) \
	-I$(top_srcdir)/libpip/include -I$(top_builddir)/libpip/include \
	-include $(top_srcdir)/mpich-netmod/src/nm_visibility.h
mpich_netmod_libmpideleg_la_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -fvisibility=hidden
mpich_netmod_libmpideleg_la_LIBADD = common/libpvaslog.la delegation/libdeleg.la $(MPI_LIBS)
mpich_netmod_libmpideleg_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0
FORMAT_FILES += mpich-netmod/include/mpideleg.h \
	mpich-netmod/src/nm_internal.h mpich-netmod/src/nm_init.c \
	mpich-netmod/src/nm_base.h mpich-netmod/src/nm_mpi.c \
	mpich-netmod/src/nm_errh.c mpich-netmod/src/nm_coll.h \
	mpich-netmod/src/nm_client.c mpich-netmod/src/nm_deleg.c \
	mpich-netmod/src/nm_dstate.h mpich-netmod/src/nm_dbase.c \
	mpich-netmod/src/nm_dmatch.c \
	mpich-netmod/src/nm_dpay.c mpich-netmod/src/nm_dsend.c \
	mpich-netmod/src/nm_p2p.c mpich-netmod/src/nm_persist.c \
	mpich-netmod/src/nm_p2p.h mpich-netmod/src/nm_probe.c \
	mpich-netmod/src/nm_bsend.c \
	mpich-netmod/src/nm_sendrecv.c mpich-netmod/src/nm_coll.c \
	mpich-netmod/src/nm_coll_mpi.c \
	mpich-netmod/tests/nm_suite.c mpich-netmod/tests/nm_persist.c \
	mpich-netmod/tests/nm_check.h mpich-netmod/tests/nm_progress.c \
	mpich-netmod/tests/nm_coll.c mpich-netmod/tests/nm_cma.c \
	mpich-netmod/tests/nm_jacobi.c mpich-netmod/tests/nm_threads.c \
	mpich-netmod/tests/nm_mpiio.c mpich-netmod/tests/nm_window.c \
	mpich-netmod/tests/nm_conform.c mpich-netmod/tests/nm_private.c \
	mpich-netmod/bench/nm_bench.c mpich-netmod/bench/nm_coll_bench.c \
	mpich-netmod/bench/nm_median.h

# Test programs: plain MPI programs (not linked with the shim; the scripts
# preload it), and the suite once more linked with it (the link form).
check_PROGRAMS += mpich-netmod/tests/nm_suite mpich-netmod/tests/nm_suite_linked \
	mpich-netmod/tests/nm_jacobi mpich-netmod/tests/nm_threads \
	mpich-netmod/tests/nm_persist mpich-netmod/tests/nm_progress \
	mpich-netmod/tests/nm_coll mpich-netmod/tests/nm_cma \
	mpich-netmod/tests/nm_mpiio \
	mpich-netmod/tests/nm_conform mpich-netmod/tests/nm_private
check_PROGRAMS += mpich-netmod/tests/nm_window
mpich_netmod_tests_nm_window_SOURCES = mpich-netmod/tests/nm_window.c \
	mpich-netmod/tests/nm_check.h
mpich_netmod_tests_nm_window_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpich_netmod_tests_nm_window_LDADD = $(MPI_LIBS)
mpich_netmod_tests_nm_window_LDFLAGS = $(AM_LDFLAGS) -no-install
mpich_netmod_tests_nm_private_SOURCES = mpich-netmod/tests/nm_private.c
mpich_netmod_tests_nm_private_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpich_netmod_tests_nm_private_LDADD = $(MPI_LIBS)
mpich_netmod_tests_nm_private_LDFLAGS = $(AM_LDFLAGS) -no-install
mpich_netmod_tests_nm_mpiio_SOURCES = mpich-netmod/tests/nm_mpiio.c \
	mpich-netmod/tests/nm_check.h
mpich_netmod_tests_nm_mpiio_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpich_netmod_tests_nm_mpiio_LDADD = $(MPI_LIBS)
mpich_netmod_tests_nm_mpiio_LDFLAGS = $(AM_LDFLAGS) -no-install
mpich_netmod_tests_nm_conform_SOURCES = mpich-netmod/tests/nm_conform.c \
	mpich-netmod/tests/nm_check.h
mpich_netmod_tests_nm_conform_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpich_netmod_tests_nm_conform_LDADD = $(MPI_LIBS) -ldl
mpich_netmod_tests_nm_conform_LDFLAGS = $(AM_LDFLAGS) -no-install
mpich_netmod_tests_nm_cma_SOURCES = mpich-netmod/tests/nm_cma.c \
	mpich-netmod/tests/nm_check.h
mpich_netmod_tests_nm_cma_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpich_netmod_tests_nm_cma_LDADD = $(MPI_LIBS)
mpich_netmod_tests_nm_coll_SOURCES = mpich-netmod/tests/nm_coll.c \
	mpich-netmod/tests/nm_check.h
mpich_netmod_tests_nm_coll_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpich_netmod_tests_nm_coll_LDADD = $(MPI_LIBS)
mpich_netmod_tests_nm_coll_LDFLAGS = $(AM_LDFLAGS) -no-install
mpich_netmod_tests_nm_suite_SOURCES = mpich-netmod/tests/nm_suite.c \
	mpich-netmod/tests/nm_check.h
mpich_netmod_tests_nm_suite_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpich_netmod_tests_nm_suite_LDADD = $(MPI_LIBS) -ldl
mpich_netmod_tests_nm_suite_LDFLAGS = $(AM_LDFLAGS) -no-install
mpich_netmod_tests_nm_suite_linked_SOURCES = mpich-netmod/tests/nm_suite.c
mpich_netmod_tests_nm_suite_linked_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpich_netmod_tests_nm_suite_linked_LDADD = mpich-netmod/libmpideleg.la \
	$(MPI_LIBS) -ldl
mpich_netmod_tests_nm_suite_linked_LDFLAGS = $(AM_LDFLAGS) -no-install
mpich_netmod_tests_nm_persist_SOURCES = mpich-netmod/tests/nm_persist.c \
	mpich-netmod/tests/nm_check.h
mpich_netmod_tests_nm_persist_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpich_netmod_tests_nm_persist_LDADD = $(MPI_LIBS) -ldl
mpich_netmod_tests_nm_persist_LDFLAGS = $(AM_LDFLAGS) -no-install
mpich_netmod_tests_nm_progress_SOURCES = mpich-netmod/tests/nm_progress.c \
	mpich-netmod/tests/nm_check.h
mpich_netmod_tests_nm_progress_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpich_netmod_tests_nm_progress_LDADD = $(MPI_LIBS)
mpich_netmod_tests_nm_progress_LDFLAGS = $(AM_LDFLAGS) -no-install
mpich_netmod_tests_nm_jacobi_SOURCES = mpich-netmod/tests/nm_jacobi.c
mpich_netmod_tests_nm_jacobi_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpich_netmod_tests_nm_jacobi_LDADD = $(MPI_LIBS) -lm
mpich_netmod_tests_nm_jacobi_LDFLAGS = $(AM_LDFLAGS) -no-install
mpich_netmod_tests_nm_threads_SOURCES = mpich-netmod/tests/nm_threads.c
mpich_netmod_tests_nm_threads_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpich_netmod_tests_nm_threads_LDADD = $(MPI_LIBS)
mpich_netmod_tests_nm_threads_LDFLAGS = $(AM_LDFLAGS) -no-install
# nm_pass.c is what tools/gen-pass.py writes (clang-formatted).
TESTS += mpich-netmod/tests/test_netmod_genpass.sh
TESTS += mpich-netmod/tests/test_netmod_suite.sh \
	mpich-netmod/tests/test_netmod_preload.sh \
	mpich-netmod/tests/test_netmod_errors.sh \
	mpich-netmod/tests/test_netmod_kill.sh \
	mpich-netmod/tests/test_netmod_threads.sh \
	mpich-netmod/tests/test_netmod_mpich.sh \
	mpich-netmod/tests/test_netmod_persist.sh \
	mpich-netmod/tests/test_netmod_progress.sh \
	mpich-netmod/tests/test_netmod_coll.sh \
	mpich-netmod/tests/test_netmod_mpiio.sh \
	mpich-netmod/tests/test_netmod_romio.sh \
	mpich-netmod/tests/test_netmod_pc.sh \
	mpich-netmod/tests/test_netmod_conform.sh \
	mpich-netmod/tests/test_netmod_mpich_dirs.sh

# The PiP form: mpideleg-pip runs each delegatee group as PiP tasks of one
# process (needs libpip); the test and bench programs are linked with the
# shim, PIE and -rdynamic, as PiP tasks must be.
if BUILD_LIBPIP
bin_PROGRAMS += mpich-netmod/mpideleg-pip
mpich_netmod_mpideleg_pip_SOURCES = mpich-netmod/tools/mpideleg_pip.c \
	mpich-netmod/src/nm_standin.c mpich-netmod/src/nm_standin.h
mpich_netmod_mpideleg_pip_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
mpich_netmod_mpideleg_pip_LDADD = libpip/libpip.la
check_PROGRAMS += mpich-netmod/tests/nm_suite_pip mpich-netmod/tests/nm_jacobi_pip \
	mpich-netmod/tests/nm_threads_pip mpich-netmod/tests/nm_progress_pip \
	mpich-netmod/tests/nm_coll_pip mpich-netmod/tests/nm_cma_pip
mpich_netmod_tests_nm_cma_pip_SOURCES = mpich-netmod/tests/nm_cma.c
mpich_netmod_tests_nm_cma_pip_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -fPIE
mpich_netmod_tests_nm_cma_pip_LDADD = mpich-netmod/libmpideleg.la \
	$(MPI_LIBS)
mpich_netmod_tests_nm_cma_pip_LDFLAGS = $(AM_LDFLAGS) -pie -rdynamic -no-install
mpich_netmod_tests_nm_progress_pip_SOURCES = mpich-netmod/tests/nm_progress.c
mpich_netmod_tests_nm_progress_pip_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -fPIE
mpich_netmod_tests_nm_progress_pip_LDADD = mpich-netmod/libmpideleg.la \
	$(MPI_LIBS)
mpich_netmod_tests_nm_progress_pip_LDFLAGS = $(AM_LDFLAGS) -pie -rdynamic -no-install
mpich_netmod_tests_nm_coll_pip_SOURCES = mpich-netmod/tests/nm_coll.c
mpich_netmod_tests_nm_coll_pip_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -fPIE
mpich_netmod_tests_nm_coll_pip_LDADD = mpich-netmod/libmpideleg.la \
	$(MPI_LIBS)
mpich_netmod_tests_nm_coll_pip_LDFLAGS = $(AM_LDFLAGS) -pie -rdynamic -no-install
mpich_netmod_tests_nm_threads_pip_SOURCES = mpich-netmod/tests/nm_threads.c
mpich_netmod_tests_nm_threads_pip_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -fPIE
mpich_netmod_tests_nm_threads_pip_LDADD = mpich-netmod/libmpideleg.la \
	$(MPI_LIBS)
mpich_netmod_tests_nm_threads_pip_LDFLAGS = $(AM_LDFLAGS) -pie -rdynamic -no-install
mpich_netmod_tests_nm_suite_pip_SOURCES = mpich-netmod/tests/nm_suite.c
mpich_netmod_tests_nm_suite_pip_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -fPIE
mpich_netmod_tests_nm_suite_pip_LDADD = mpich-netmod/libmpideleg.la \
	$(MPI_LIBS) -ldl
mpich_netmod_tests_nm_suite_pip_LDFLAGS = $(AM_LDFLAGS) -pie -rdynamic -no-install
mpich_netmod_tests_nm_jacobi_pip_SOURCES = mpich-netmod/tests/nm_jacobi.c
mpich_netmod_tests_nm_jacobi_pip_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -fPIE
mpich_netmod_tests_nm_jacobi_pip_LDADD = mpich-netmod/libmpideleg.la \
	$(MPI_LIBS) -lm
mpich_netmod_tests_nm_jacobi_pip_LDFLAGS = $(AM_LDFLAGS) -pie -rdynamic -no-install
noinst_PROGRAMS += mpich-netmod/bench/nm_bench_pip
mpich_netmod_bench_nm_bench_pip_SOURCES = mpich-netmod/bench/nm_bench.c \
	mpich-netmod/bench/nm_median.h
mpich_netmod_bench_nm_bench_pip_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -fPIE
mpich_netmod_bench_nm_bench_pip_LDADD = mpich-netmod/libmpideleg.la \
	$(MPI_LIBS) -ldl
mpich_netmod_bench_nm_bench_pip_LDFLAGS = $(AM_LDFLAGS) -pie -rdynamic -no-install
TESTS += mpich-netmod/tests/test_netmod_pip.sh
# MPIDELEG_FORM=pip: the suite built as a plain PIE (above) and as a
# position-dependent program, which must fall back to the process form
check_PROGRAMS += mpich-netmod/tests/nm_suite_nopie mpich-netmod/tests/nm_ranks
mpich_netmod_tests_nm_ranks_SOURCES = mpich-netmod/tests/nm_ranks.c
mpich_netmod_tests_nm_ranks_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpich_netmod_tests_nm_ranks_LDADD = $(MPI_LIBS)
mpich_netmod_tests_nm_ranks_LDFLAGS = $(AM_LDFLAGS) -no-install
mpich_netmod_tests_nm_suite_nopie_SOURCES = mpich-netmod/tests/nm_suite.c
mpich_netmod_tests_nm_suite_nopie_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -fno-pie
mpich_netmod_tests_nm_suite_nopie_LDADD = $(MPI_LIBS) -ldl
mpich_netmod_tests_nm_suite_nopie_LDFLAGS = $(AM_LDFLAGS) -no-pie -no-install
TESTS += mpich-netmod/tests/test_netmod_form.sh mpich-netmod/tests/test_netmod_twonode.sh \
	mpich-netmod/tests/test_netmod_mpich_twonode.sh \
	mpich-netmod/tests/test_netmod_private.sh
# make check-long: a delegatee group of 32 application ranks (33 PiP
# tasks, private process images) against 32 ranks run directly
CHECK_LONG_TARGETS += netmod-check-private32
netmod-check-private32: mpich-netmod/tests/nm_private mpich-netmod/libmpideleg.la \
	    libpip/libpip.la test/mpi-run
	MPI_RUN=$(abs_top_builddir)/test/mpi-run abs_top_builddir=$(abs_top_builddir) \
	abs_top_srcdir=$(abs_top_srcdir) NM_PRIVATE_RANKS=32 \
	    $(SHELL) $(top_srcdir)/mpich-netmod/tests/test_netmod_private.sh
FORMAT_FILES += mpich-netmod/tools/mpideleg_pip.c mpich-netmod/src/nm_form.c mpich-netmod/src/nm_flock.c \
	mpich-netmod/src/nm_member.c mpich-netmod/src/nm_member.h \
	mpich-netmod/src/nm_standin.c mpich-netmod/src/nm_standin.h
NM_PIP_BENCH = mpich-netmod/mpideleg-pip mpich-netmod/bench/nm_bench_pip
endif

# Benchmark (make bench-netmod; part of make bench).  Installed into
# $(pkglibexecdir)/bench so that users can measure their own machines.
nmbenchdir = $(pkglibexecdir)/bench
nmbench_PROGRAMS = mpich-netmod/bench/nm_bench
# flags of the benchmark programs (plain MPI programs)
NMB_CF = $(AM_CFLAGS) $(MPI_CFLAGS)
NMB_LDF = $(AM_LDFLAGS) -no-install
mpich_netmod_bench_nm_bench_SOURCES = mpich-netmod/bench/nm_bench.c \
	mpich-netmod/bench/nm_median.h
mpich_netmod_bench_nm_bench_CFLAGS = $(NMB_CF)
mpich_netmod_bench_nm_bench_LDADD = $(MPI_LIBS) -ldl
mpich_netmod_bench_nm_bench_LDFLAGS = $(NMB_LDF)
# the shim as users run it: NetPIPE (when installed) and an oversubscribed
# ping-pong, preloaded vs direct (run-user-bench.sh)
nmbench_PROGRAMS += mpich-netmod/bench/nm_lat_pct
mpich_netmod_bench_nm_lat_pct_SOURCES = mpich-netmod/bench/nm_lat_pct.c \
	mpich-netmod/bench/nm_median.h
mpich_netmod_bench_nm_lat_pct_CFLAGS = $(NMB_CF)
mpich_netmod_bench_nm_lat_pct_LDADD = $(MPI_LIBS)
mpich_netmod_bench_nm_lat_pct_LDFLAGS = $(NMB_LDF)
# what MPICH's calls cost a delegatee's short message (direct MPICH)
nmbench_PROGRAMS += mpich-netmod/bench/nm_patterns
mpich_netmod_bench_nm_patterns_SOURCES = mpich-netmod/bench/nm_patterns.c \
	mpich-netmod/bench/nm_median.h
mpich_netmod_bench_nm_patterns_CFLAGS = $(NMB_CF)
mpich_netmod_bench_nm_patterns_LDADD = $(MPI_LIBS)
mpich_netmod_bench_nm_patterns_LDFLAGS = $(NMB_LDF)
# the least a message between processes sharing CPUs costs here (system
# call, wake-up and yield hand-overs; no MPI)
nmbench_PROGRAMS += mpich-netmod/bench/nm_floor
mpich_netmod_bench_nm_floor_SOURCES = mpich-netmod/bench/nm_floor.c \
	mpich-netmod/bench/nm_median.h
mpich_netmod_bench_nm_floor_LDFLAGS = $(AM_LDFLAGS) -no-install
# start-up and application time (run-startup-bench.sh): the trivial
# program and an NWChem-like kernel
nmbench_PROGRAMS += mpich-netmod/bench/nm_startup
mpich_netmod_bench_nm_startup_SOURCES = mpich-netmod/bench/nm_startup.c
mpich_netmod_bench_nm_startup_CFLAGS = $(NMB_CF)
mpich_netmod_bench_nm_startup_LDADD = $(MPI_LIBS)
mpich_netmod_bench_nm_startup_LDFLAGS = $(NMB_LDF)
# NM_SU_BEFORE: a directory with another build's libmpideleg.so,
# libdeleg.so.0 and libpip.so.0, measured in the same rounds
bench-netmod-startup: mpich-netmod/bench/nm_startup mpich-netmod/libmpideleg.la
	$(SHELL) $(top_srcdir)/mpich-netmod/bench/run-startup-bench.sh \
	    $(abs_top_builddir) $(abs_top_builddir)/mpich-netmod/bench $(NM_SU_BEFORE)
# where the time of the 8 B message-rate window goes (the sender's and the
# receiver's phases; a plain MPI program, by hand)
nmbench_PROGRAMS += mpich-netmod/bench/nm_phases
mpich_netmod_bench_nm_phases_SOURCES = mpich-netmod/bench/nm_phases.c \
	mpich-netmod/bench/nm_median.h
mpich_netmod_bench_nm_phases_CFLAGS = $(NMB_CF)
mpich_netmod_bench_nm_phases_LDADD = $(MPI_LIBS)
mpich_netmod_bench_nm_phases_LDFLAGS = $(NMB_LDF)
bench-netmod: mpich-netmod/bench/nm_bench mpich-netmod/bench/nm_lat_pct \
	    mpich-netmod/bench/nm_patterns mpich-netmod/bench/nm_floor test/mpi-run \
	    mpich-netmod/libmpideleg.la $(NM_PIP_BENCH) bench-netmod-startup
	$(SHELL) $(top_srcdir)/mpich-netmod/bench/run-bench.sh \
	    $(abs_top_builddir) $(abs_top_builddir)/mpich-netmod/bench
	$(SHELL) $(top_srcdir)/mpich-netmod/bench/run-user-bench.sh \
	    $(abs_top_builddir) $(abs_top_builddir)/mpich-netmod/bench
	$(SHELL) $(top_srcdir)/mpich-netmod/bench/run-twonode-bench.sh \
	    $(abs_top_builddir) $(abs_top_builddir)/mpich-netmod/bench
	@echo "MPICH's calls for a delegatee's 64 B message (direct, 2 ranks):"
	@r=$(abs_top_builddir)/mpich-netmod/bench/results/nm_patterns.csv; \
	$(abs_top_builddir)/test/mpi-run -n 2 -t 300 \
	    $(abs_top_builddir)/mpich-netmod/bench/nm_patterns >$$r 2>/dev/null && \
	grep '^#' $$r && echo "  CSV: $$r"
BENCH_TARGETS += bench-netmod
# Collectives: MPICH, the shim with MPIDELEG_COLL=direct and =hier
# (make bench-netmod-coll; part of make bench).
nmbench_PROGRAMS += mpich-netmod/bench/nm_coll_bench
mpich_netmod_bench_nm_coll_bench_SOURCES = mpich-netmod/bench/nm_coll_bench.c \
	mpich-netmod/bench/nm_median.h
mpich_netmod_bench_nm_coll_bench_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
mpich_netmod_bench_nm_coll_bench_LDADD = $(MPI_LIBS)
mpich_netmod_bench_nm_coll_bench_LDFLAGS = $(AM_LDFLAGS) -no-install
bench-netmod-coll: mpich-netmod/bench/nm_coll_bench mpich-netmod/libmpideleg.la
	$(SHELL) $(top_srcdir)/mpich-netmod/bench/run-coll-bench.sh \
	    $(abs_top_builddir) $(abs_top_builddir)/mpich-netmod/bench
BENCH_TARGETS += bench-netmod-coll
CLEANFILES += mpich-netmod/bench/results/*.csv mpich-netmod/bench/results/*.svg

# make check-long: NetPIPE and ScaLAPACK's test programs, unmodified,
# preloaded against direct (skipped when neither is installed).
CHECK_LONG_TARGETS += netmod-check-apps
netmod-check-apps: mpich-netmod/libmpideleg.la test/mpi-run
	abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
	MPI_RUN='$(abs_top_builddir)/test/mpi-run' \
	$(SHELL) $(top_srcdir)/mpich-netmod/tests/check_netmod_apps.sh; \
	rc=$$?; [ $$rc -eq 77 ] || exit $$rc
endif
.PHONY: bench-netmod bench-netmod-startup bench-netmod-coll netmod-check-apps netmod-check-private32
