# SPDX-License-Identifier: BSD-2-Clause
# ft-agree/Makefile.mk: fault-tolerant agreement, revoke and shrink.

FTA_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ft-agree/include \
	-I$(top_srcdir)/ft-agree/src

EXTRA_DIST += ft-agree/README.md ft-agree/man/ftagree.7.md ft-agree/DESIGN.md \
	ft-agree/tests/README.md \
	ft-agree/tests/test_fta_mpi.sh ft-agree/tests/fta-mpiexec \
	ft-agree/tests/test_fta_mpich.sh ft-agree/tests/test_fta_sim_seeded.sh \
	ft-agree/tests/test_fta_env.sh ft-agree/tests/fta-fd-kill.sh \
	ft-agree/tests/test_fta_fd_udp.sh ft-agree/tests/test_fta_fd_fabric_tcp.sh \
	ft-agree/tests/test_fta_fd_fabric_udp.sh ft-agree/tests/test_fta_fd_fabric_shm.sh \
	ft-agree/tests/test_fta_fd_fabric_sockets.sh ft-agree/tests/test_fta_fd_fabric_net.sh \
	ft-agree/tests/test_fta_scale.sh ft-agree/tests/fta_fi_probe.c \
	ft-agree/.gitignore ft-agree/bench/fta-bench.sh \
	ft-agree/bench/fta-detect.sh ft-agree/bench/RESULTS.md \
	ft-agree/ftagree.pc.in
FORMAT_FILES += ft-agree/src/fta_core.c ft-agree/src/fta_tree.c \
	ft-agree/src/fta_wire.c ft-agree/src/fta_sim.c ft-agree/src/fta_mpi.c ft-agree/src/fta_fd_tx.c \
	ft-agree/src/fta_ulfm.c ft-agree/src/fta_fd.c ft-agree/src/fta_comm.c \
	ft-agree/src/fta_req.c ft-agree/src/fta_clone.c ft-agree/src/fta_init.c \
	ft-agree/src/fta_node.c ft-agree/src/fta_sim_bench.c \
	ft-agree/src/fta_sim_int.h ft-agree/src/fta_sim_fd.c

if HAVE_FABRIC
FTA_FABRIC_CPPFLAGS = -DFTA_HAVE_FABRIC
endif

if BUILD_FT_AGREE
PVAS_MANS += ft-agree/man/ftagree.7
# The transport-independent core (static, linked into the installed
# library, the tests and the tools) and the simulator.
noinst_LTLIBRARIES += ft-agree/libftacore.la ft-agree/libftasim.la
ft_agree_libftacore_la_SOURCES = ft-agree/src/fta_core.c ft-agree/src/fta_node.c \
	ft-agree/src/fta_tree.c ft-agree/src/fta_wire.c ft-agree/src/fta_clone.c \
	ft-agree/src/fta_int.h ft-agree/include/fta.h
ft_agree_libftacore_la_CPPFLAGS = $(FTA_CPPFLAGS)
ft_agree_libftacore_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
ft_agree_libftasim_la_SOURCES = ft-agree/src/fta_sim.c ft-agree/src/fta_sim.h \
	ft-agree/src/fta_sim_bench.c ft-agree/src/fta_sim_int.h \
	ft-agree/src/fta_sim_fd.c
ft_agree_libftasim_la_CPPFLAGS = $(FTA_CPPFLAGS)
ft_agree_libftasim_la_LIBADD = ft-agree/libftacore.la

# The ULFM layer for MPI programs (PMPI interposition).
lib_LTLIBRARIES += ft-agree/libftagree.la
ft_agree_libftagree_la_SOURCES = ft-agree/src/fta_mpi.c ft-agree/src/fta_init.c \
	ft-agree/src/fta_ulfm.c ft-agree/src/fta_comm.c ft-agree/src/fta_req.c \
	ft-agree/src/fta_fd.c ft-agree/src/fta_fd.h ft-agree/src/fta_fd_tx.c ft-agree/src/fta_fd_tx.h \
	ft-agree/src/fta_mpi_int.h ft-agree/include/mpix_ft.h
ft_agree_libftagree_la_CPPFLAGS = $(FTA_CPPFLAGS) $(FTA_FABRIC_CPPFLAGS)
ft_agree_libftagree_la_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) $(FABRIC_CFLAGS) \
	-fvisibility=hidden
ft_agree_libftagree_la_LIBADD = common/libpvaslog.la ft-agree/libftacore.la \
	$(FABRIC_LIBS) $(MPI_LIBS) -lpthread
ft_agree_libftagree_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0

ftagreeincludedir = $(includedir)
ftagreeinclude_HEADERS = ft-agree/include/fta.h ft-agree/include/mpix_ft.h
pkgconfig_DATA += ft-agree/ftagree.pc

# The simulator's command-line front end.
bin_PROGRAMS += ft-agree/fta-sim
ft_agree_fta_sim_SOURCES = ft-agree/src/fta_simtool.c
ft_agree_fta_sim_CPPFLAGS = $(FTA_CPPFLAGS)
ft_agree_fta_sim_LDADD = ft-agree/libftasim.la -lm

if HAVE_CMOCKA
check_PROGRAMS += ft-agree/tests/test_fta_core ft-agree/tests/test_fta_sim
TESTS += ft-agree/tests/test_fta_core ft-agree/tests/test_fta_sim
ft_agree_tests_test_fta_core_CPPFLAGS = $(FTA_CPPFLAGS)
ft_agree_tests_test_fta_core_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
ft_agree_tests_test_fta_core_LDADD = ft-agree/libftacore.la $(CMOCKA_LIBS)
ft_agree_tests_test_fta_core_LDFLAGS = $(AM_LDFLAGS) -no-install
ft_agree_tests_test_fta_sim_CPPFLAGS = $(FTA_CPPFLAGS)
ft_agree_tests_test_fta_sim_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
ft_agree_tests_test_fta_sim_LDADD = ft-agree/libftasim.la $(CMOCKA_LIBS)
ft_agree_tests_test_fta_sim_LDFLAGS = $(AM_LDFLAGS) -no-install
endif

# The simulator must be able to fail: fta-sim-seeded is fta-sim built on a
# core with a seeded bug (FTA_SEEDED_BUG in src/fta_core.c); the check
# runs both on the same schedules.
check_PROGRAMS += ft-agree/tests/fta-sim-seeded
ft_agree_tests_fta_sim_seeded_SOURCES = ft-agree/src/fta_simtool.c \
	ft-agree/src/fta_sim.c ft-agree/src/fta_sim_bench.c ft-agree/src/fta_sim_fd.c \
	ft-agree/src/fta_core.c ft-agree/src/fta_node.c \
	ft-agree/src/fta_tree.c \
	ft-agree/src/fta_wire.c ft-agree/src/fta_clone.c
ft_agree_tests_fta_sim_seeded_CPPFLAGS = $(FTA_CPPFLAGS) -DFTA_SEEDED_BUG
ft_agree_tests_fta_sim_seeded_LDADD = -lm
ft_agree_tests_fta_sim_seeded_LDFLAGS = $(AM_LDFLAGS) -no-install
TESTS += ft-agree/tests/test_fta_sim_seeded.sh

# Real-process failure tests (through test/mpi-run).
check_PROGRAMS += ft-agree/tests/fta_mpi_scen ft-agree/tests/fta_mpi_detect
TESTS += ft-agree/tests/test_fta_mpi.sh ft-agree/tests/test_fta_env.sh
# The detector over each transport, heartbeats only: UDP and every
# libfabric provider (an entry each; skipped where the provider is missing).
TESTS += ft-agree/tests/test_fta_fd_udp.sh ft-agree/tests/test_fta_fd_fabric_tcp.sh \
	ft-agree/tests/test_fta_fd_fabric_udp.sh ft-agree/tests/test_fta_fd_fabric_shm.sh \
	ft-agree/tests/test_fta_fd_fabric_sockets.sh ft-agree/tests/test_fta_fd_fabric_net.sh
if HAVE_FABRIC
check_PROGRAMS += ft-agree/tests/fta_fi_probe
ft_agree_tests_fta_fi_probe_CFLAGS = $(AM_CFLAGS) $(FABRIC_CFLAGS)
ft_agree_tests_fta_fi_probe_LDADD = $(FABRIC_LIBS)
endif
# MPICH's test/mpi/ft programs (FTA_MPICH_SRC; skipped without it).
TESTS += ft-agree/tests/test_fta_mpich.sh
ft_agree_tests_fta_mpi_scen_CPPFLAGS = $(FTA_CPPFLAGS)
ft_agree_tests_fta_mpi_scen_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
ft_agree_tests_fta_mpi_scen_LDADD = ft-agree/libftagree.la $(MPI_LIBS)
ft_agree_tests_fta_mpi_scen_LDFLAGS = $(AM_LDFLAGS) -no-install
ft_agree_tests_fta_mpi_detect_CPPFLAGS = $(FTA_CPPFLAGS)
ft_agree_tests_fta_mpi_detect_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
ft_agree_tests_fta_mpi_detect_LDADD = ft-agree/libftagree.la $(MPI_LIBS)
ft_agree_tests_fta_mpi_detect_LDFLAGS = $(AM_LDFLAGS) -no-install

# Benchmarks (make bench).
noinst_PROGRAMS += ft-agree/bench/fta_bench_mpi
ft_agree_bench_fta_bench_mpi_CPPFLAGS = $(FTA_CPPFLAGS)
ft_agree_bench_fta_bench_mpi_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
ft_agree_bench_fta_bench_mpi_LDADD = ft-agree/libftagree.la $(MPI_LIBS)
ft_agree_bench_fta_bench_mpi_LDFLAGS = $(AM_LDFLAGS) -no-install
noinst_PROGRAMS += ft-agree/bench/fta_bench_detect
ft_agree_bench_fta_bench_detect_CPPFLAGS = $(FTA_CPPFLAGS)
ft_agree_bench_fta_bench_detect_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
ft_agree_bench_fta_bench_detect_LDADD = ft-agree/libftagree.la $(MPI_LIBS)
ft_agree_bench_fta_bench_detect_LDFLAGS = $(AM_LDFLAGS) -no-install
BENCH_TARGETS += fta-bench
fta-bench: ft-agree/bench/fta_bench_mpi ft-agree/fta-sim test/mpi-run
	abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
	$(SHELL) $(top_srcdir)/ft-agree/bench/fta-bench.sh
CLEANFILES += ft-agree-bench.csv ft-agree-sim.csv ft-agree-detect.csv ft-agree-detect-model.csv
BENCH_TARGETS += fta-bench-detect
fta-bench-detect: ft-agree/bench/fta_bench_detect test/mpi-run
	abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
	$(SHELL) $(top_srcdir)/ft-agree/bench/fta-detect.sh

CHECK_LONG_TARGETS += fta-check-long
# The kill tests with 5 and 6 ranks over each transport (every provider
# offered here), 16 and 32 ranks with 2 and 3 simultaneous kills
# (heartbeats only), the larger simulation spaces, and, with
# FTA_MPICH_SRC, MPICH's test/mpi/ft 20 times in a row.
fta-check-long: ft-agree/tests/test_fta_sim $(check_PROGRAMS) test/mpi-run
	abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
	MPI_RUN='$(abs_top_builddir)/test/mpi-run' FTA_MPI_NP_MAX=6 \
	$(SHELL) $(top_srcdir)/ft-agree/tests/test_fta_mpi.sh
	set -e; for t in udp fabric; do \
	  if [ $$t = udp ]; then provs=-; \
	  elif [ -x ft-agree/tests/fta_fi_probe ]; then provs=$$(ft-agree/tests/fta_fi_probe | sed 's/;.*//' | sort -u); \
	  else continue; fi; \
	  for p in $$provs; do \
	    [ $$p = - ] && p=; \
	    abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
	    MPI_RUN='$(abs_top_builddir)/test/mpi-run' FTA_FD_KILL_NP_MAX=6 \
	    $(SHELL) $(top_srcdir)/ft-agree/tests/fta-fd-kill.sh $$t $$p || [ $$? -eq 77 ]; \
	  done; \
	done
	abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
	MPI_RUN='$(abs_top_builddir)/test/mpi-run' \
	$(SHELL) $(top_srcdir)/ft-agree/tests/test_fta_scale.sh
	FTA_SIM_LONG=1 ft-agree/tests/test_fta_sim
	$(MAKE) $(AM_MAKEFLAGS) fta-check-mpich
# MPICH's test/mpi/ft under ft-agree FTA_MPICH_RUNS (20) times in a row;
# skipped (one line) without FTA_MPICH_SRC.  Also part of check-long.
fta-check-mpich: ft-agree/libftagree.la test/mpi-run
	@FTA_MPICH_RUNS=$${FTA_MPICH_RUNS:-20} \
	abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
	$(SHELL) $(top_srcdir)/ft-agree/tests/test_fta_mpich.sh; st=$$?; \
	[ $$st -eq 0 ] || [ $$st -eq 77 ]
endif
.PHONY: fta-check-long fta-check-mpich fta-bench fta-bench-detect
