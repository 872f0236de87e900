# SPDX-License-Identifier: BSD-2-Clause
# spare/Makefile.mk: spare-node allocation, sliding substitution and the
# message-collision simulator (libspare, spare-sim).

if BUILD_SPARE
PVAS_MANS += spare/man/spare-sim.1 spare/man/libspare.3

lib_LTLIBRARIES += spare/libspare.la
spare_libspare_la_SOURCES = spare/src/spare_int.h spare/src/spare_topo.c \
	spare/src/spare_load.c spare/src/spare_map.c spare/src/spare_slide.c \
	spare/src/spare_study.c
spare_libspare_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/spare/include \
	-DSPARE_BUILDING
spare_libspare_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden -pthread
spare_libspare_la_LIBADD = -lm -lpthread
spare_libspare_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0

spareincludedir = $(includedir)
spareinclude_HEADERS = spare/include/spare.h
pkgconfig_DATA += spare/spare.pc

bin_PROGRAMS += spare/spare-sim
spare_spare_sim_SOURCES = spare/src/spare_sim.h spare/src/spare_sim_main.c \
	spare/src/spare_sim_svg.c spare/src/spare_sim_scen.c
spare_spare_sim_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/spare/include
spare_spare_sim_LDADD = spare/libspare.la -lm

EXTRA_DIST += spare/README.md spare/DESIGN.md spare/bench/RESULTS.md spare/bench/fig12.png spare/bench/fig13.png spare/bench/fig14.svg spare/bench/fig15.svg spare/man/spare-sim.1.md spare/man/libspare.3.md \
	spare/scripts/spare-plots.sh spare/scripts/spare-study24.sh \
	spare/scripts/spare-exhaustive6.sh \
	spare/tests/test_spare_golden.sh spare/spare.pc.in $(SPARE_GOLDEN)
SPARE_GOLDEN = \
	spare/scenarios/0d-allreduce.scn spare/scenarios/0d-allreduce.expected \
	spare/scenarios/0d-fig4-dor.scn spare/scenarios/0d-fig4-dor.expected \
	spare/scenarios/0d-fig4-paper.scn spare/scenarios/0d-fig4-paper.expected \
	spare/scenarios/0d-fig6-left-paper.scn \
	spare/scenarios/0d-fig6-left-paper.expected \
	spare/scenarios/0d-fig6-left-sym.scn \
	spare/scenarios/0d-fig6-left-sym.expected \
	spare/scenarios/0d-fig6-right-paper.scn \
	spare/scenarios/0d-fig6-right-paper.expected \
	spare/scenarios/0d-side-mesh.scn spare/scenarios/0d-side-mesh.expected \
	spare/scenarios/0d-sym-17x9.scn spare/scenarios/0d-sym-17x9.expected \
	spare/scenarios/0d-torus.scn spare/scenarios/0d-torus.expected \
	spare/scenarios/1d-barrier.scn spare/scenarios/1d-barrier.expected \
	spare/scenarios/1d-fig7.scn spare/scenarios/1d-fig7.expected \
	spare/scenarios/2d-2d21.scn spare/scenarios/2d-2d21.expected \
	spare/scenarios/3d-qd.scn spare/scenarios/3d-qd.expected \
	spare/scenarios/hybrid-3d1d0d.scn spare/scenarios/hybrid-3d1d0d.expected \
	spare/scenarios/hybrid-all-fig9.scn spare/scenarios/hybrid-all-fig9.expected \
	spare/scenarios/hybrid-minus2d.scn spare/scenarios/hybrid-minus2d.expected
FORMAT_FILES += $(spare_libspare_la_SOURCES) $(spare_spare_sim_SOURCES) \
	spare/include/spare.h

SPARE_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/spare/include \
	-I$(top_srcdir)/spare/src

if HAVE_CMOCKA
SPARE_CTESTS = spare/tests/test_spare_topo spare/tests/test_spare_map \
	spare/tests/test_spare_load spare/tests/test_spare_closed
check_PROGRAMS += $(SPARE_CTESTS)
TESTS += $(SPARE_CTESTS)
spare_tests_test_spare_topo_CPPFLAGS = $(SPARE_TEST_CPPFLAGS)
spare_tests_test_spare_topo_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
spare_tests_test_spare_topo_LDADD = spare/libspare.la $(CMOCKA_LIBS) -lm
spare_tests_test_spare_topo_LDFLAGS = $(AM_LDFLAGS) -no-install
spare_tests_test_spare_map_CPPFLAGS = $(SPARE_TEST_CPPFLAGS)
spare_tests_test_spare_map_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
spare_tests_test_spare_map_LDADD = spare/libspare.la $(CMOCKA_LIBS)
spare_tests_test_spare_map_LDFLAGS = $(AM_LDFLAGS) -no-install
spare_tests_test_spare_load_CPPFLAGS = $(SPARE_TEST_CPPFLAGS)
spare_tests_test_spare_load_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
spare_tests_test_spare_load_LDADD = spare/libspare.la $(CMOCKA_LIBS)
spare_tests_test_spare_load_LDFLAGS = $(AM_LDFLAGS) -no-install
spare_tests_test_spare_closed_CPPFLAGS = $(SPARE_TEST_CPPFLAGS)
spare_tests_test_spare_closed_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
spare_tests_test_spare_closed_LDADD = spare/libspare.la $(CMOCKA_LIBS)
spare_tests_test_spare_closed_LDFLAGS = $(AM_LDFLAGS) -no-install
endif

# The golden scenarios and the command-line checks need only spare-sim.
TESTS += spare/tests/test_spare_golden.sh

# make spare-plots: the paper's Figures 8 and 10-15 as SVG (written by
# spare-sim, no gnuplot needed) in spare/plots/.  SPARE_PLOT_SCALE=1: the paper's
# sample counts (about 20 minutes on 2 cores); the default is 0.1.
spare-plots: spare/spare-sim
	SPARE_SIM=$(abs_top_builddir)/spare/spare-sim \
	    sh $(top_srcdir)/spare/scripts/spare-plots.sh spare/plots

# make check-long: the paper's random study on 24x24x24 (3D(2,1)), with the
# paper's number of cases, checked against its selection-rate result.
spare-study24: spare/spare-sim
	SPARE_SIM=$(abs_top_builddir)/spare/spare-sim \
	    sh $(top_srcdir)/spare/scripts/spare-study24.sh spare/study24
CHECK_LONG_TARGETS += spare-study24

# make check-long: every set of up to 6 failures on 15x6, paper's rule.
spare-exhaustive6: spare/spare-sim
	SPARE_SIM=$(abs_top_builddir)/spare/spare-sim \
	    sh $(top_srcdir)/spare/scripts/spare-exhaustive6.sh \
	    spare/exhaustive6.csv
CHECK_LONG_TARGETS += spare-exhaustive6

endif

clean-local: spare-clean-local
spare-clean-local:
	-rm -rf spare/plots spare/study24 spare/exhaustive6.csv
.PHONY: spare-plots spare-study24 spare-exhaustive6 spare-clean-local
