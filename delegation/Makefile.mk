# SPDX-License-Identifier: BSD-2-Clause
# delegation/Makefile.mk: libdeleg, its tests, tools and benchmarks.

EXTRA_DIST += delegation/README.md delegation/DESIGN.md delegation/bench/RESULTS.md delegation/man/deleg.3.md delegation/bench/run-bench.sh \
	delegation/bench/plot.gp delegation/tests/test_delegation_onecore.sh \
	delegation/tests/dlg_test_ops.h delegation/tests/run-tsan.sh \
	delegation/tests/dlg_pip.h

if BUILD_DELEGATION
PVAS_MANS += delegation/man/deleg.3
lib_LTLIBRARIES += delegation/libdeleg.la
delegincludedir = $(includedir)
deleginclude_HEADERS = delegation/include/deleg.h
pkgconfig_DATA += delegation/deleg.pc
delegation_libdeleg_la_SOURCES = \
	delegation/src/dlg_internal.h \
	delegation/src/dlg_region.c \
	delegation/src/dlg_wait.c \
	delegation/src/dlg_bell.c \
	delegation/src/dlg_delegatee.c \
	delegation/src/dlg_client.c \
	delegation/src/dlg_place.c \
	delegation/src/dlg_ranktab.c
delegation_libdeleg_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/delegation/include
delegation_libdeleg_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(HWLOC_CFLAGS)
delegation_libdeleg_la_LIBADD = common/libpvaslog.la $(HWLOC_LIBS)
delegation_libdeleg_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0

DLG_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/delegation/include -I$(top_srcdir)/delegation/src
DLG_TEST_LDADD = delegation/libdeleg.la test/libth.la $(CMOCKA_LIBS) $(HWLOC_LIBS)

# Tools and benchmarks (not installed).
noinst_PROGRAMS += delegation/bench/dlg_bench delegation/bench/dlg_ranktab_report
delegation_bench_dlg_bench_SOURCES = delegation/bench/dlg_bench.c \
	delegation/bench/dlg_bench_base.c delegation/bench/dlg_bench_srv.c \
	delegation/bench/dlg_bench_util.c \
	delegation/bench/dlg_bench.h
delegation_bench_dlg_bench_CPPFLAGS = $(DLG_TEST_CPPFLAGS) -I$(top_srcdir)/delegation/tests
delegation_bench_dlg_bench_LDADD = delegation/libdeleg.la
delegation_bench_dlg_bench_LDFLAGS = $(AM_LDFLAGS) -no-install
if BUILD_LIBPIP
# a PiP root for the PiP-task series (task: delegation/tests/dlg_pip_task)
delegation_bench_dlg_bench_CPPFLAGS += -DDLG_BENCH_PIP $(PIP_CPPFLAGS)
delegation_bench_dlg_bench_CFLAGS = $(AM_CFLAGS) -fPIE
delegation_bench_dlg_bench_LDFLAGS += -pie -rdynamic
delegation_bench_dlg_bench_LDADD += libpip/libpip.la
DLG_BENCH_TASK = delegation/tests/dlg_pip_task
# The PiP task program of test_delegation_pip and of the benchmark, built
# as users build tasks: plain -fPIE -pie -rdynamic, no sanitizer flags; in
# a sanitizer build it links an uninstrumented copy of libdeleg (as
# libpip's tasks do with PIP_TASK_LIBPIP).
check_PROGRAMS += delegation/tests/dlg_pip_task
delegation_tests_dlg_pip_task_SOURCES = delegation/tests/dlg_pip_task.c
delegation_tests_dlg_pip_task_CPPFLAGS = $(DLG_TEST_CPPFLAGS)
delegation_tests_dlg_pip_task_CFLAGS = $(PIP_TASK_CF)
delegation_tests_dlg_pip_task_LDFLAGS = $(PIP_TASK_LDF)
delegation_tests_dlg_pip_task_LDADD = $(DLG_TASK_LIBDELEG)
endif
delegation_bench_dlg_ranktab_report_SOURCES = delegation/bench/dlg_ranktab_report.c
delegation_bench_dlg_ranktab_report_CPPFLAGS = $(DLG_TEST_CPPFLAGS)
delegation_bench_dlg_ranktab_report_LDADD = delegation/libdeleg.la
delegation_bench_dlg_ranktab_report_LDFLAGS = $(AM_LDFLAGS) -no-install

bench-delegation: delegation/bench/dlg_bench delegation/bench/dlg_ranktab_report $(DLG_BENCH_TASK)
	$(SHELL) $(top_srcdir)/delegation/bench/run-bench.sh $(top_builddir)/delegation/bench
BENCH_TARGETS += bench-delegation

FORMAT_FILES += delegation/include/deleg.h $(delegation_libdeleg_la_SOURCES)
CLEANFILES += delegation/bench/results/*.csv delegation/bench/results/*.svg

if HAVE_CMOCKA
DLG_TESTS = \
	delegation/tests/test_delegation_core \
	delegation/tests/test_delegation_bell \
	delegation/tests/test_delegation_multi \
	delegation/tests/test_delegation_proc \
	delegation/tests/test_delegation_place \
	delegation/tests/test_delegation_ranktab \
	delegation/tests/test_delegation_stress
check_PROGRAMS += $(DLG_TESTS)
TESTS += $(DLG_TESTS) delegation/tests/test_delegation_onecore.sh
# The case that needs cross memory attach, as an entry of its own that
# skips as a whole where process_vm_readv is refused.
TESTS += delegation/tests/test_delegation_proc.cma
CLEANFILES += delegation/tests/test_delegation_proc.cma
delegation/tests/test_delegation_proc.cma: delegation/tests/test_delegation_proc
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nDLG_PROC_GROUP=cma; export DLG_PROC_GROUP\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
	chmod +x $@

delegation_tests_test_delegation_core_CPPFLAGS = $(DLG_TEST_CPPFLAGS)
delegation_tests_test_delegation_core_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
delegation_tests_test_delegation_core_LDADD = $(DLG_TEST_LDADD)
delegation_tests_test_delegation_core_LDFLAGS = $(AM_LDFLAGS) -no-install
delegation_tests_test_delegation_bell_CPPFLAGS = $(DLG_TEST_CPPFLAGS)
delegation_tests_test_delegation_bell_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
delegation_tests_test_delegation_bell_LDADD = $(DLG_TEST_LDADD)
delegation_tests_test_delegation_bell_LDFLAGS = $(AM_LDFLAGS) -no-install
delegation_tests_test_delegation_multi_CPPFLAGS = $(DLG_TEST_CPPFLAGS)
delegation_tests_test_delegation_multi_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
delegation_tests_test_delegation_multi_LDADD = $(DLG_TEST_LDADD)
delegation_tests_test_delegation_multi_LDFLAGS = $(AM_LDFLAGS) -no-install
delegation_tests_test_delegation_proc_CPPFLAGS = $(DLG_TEST_CPPFLAGS)
delegation_tests_test_delegation_proc_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
delegation_tests_test_delegation_proc_LDADD = $(DLG_TEST_LDADD)
delegation_tests_test_delegation_proc_LDFLAGS = $(AM_LDFLAGS) -no-install
delegation_tests_test_delegation_place_CPPFLAGS = $(DLG_TEST_CPPFLAGS) $(HWLOC_CFLAGS)
delegation_tests_test_delegation_place_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
delegation_tests_test_delegation_place_LDADD = $(DLG_TEST_LDADD)
delegation_tests_test_delegation_place_LDFLAGS = $(AM_LDFLAGS) -no-install
delegation_tests_test_delegation_stress_CPPFLAGS = $(DLG_TEST_CPPFLAGS)
delegation_tests_test_delegation_stress_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
delegation_tests_test_delegation_stress_LDADD = $(DLG_TEST_LDADD)
delegation_tests_test_delegation_stress_LDFLAGS = $(AM_LDFLAGS) -no-install
delegation_tests_test_delegation_ranktab_CPPFLAGS = $(DLG_TEST_CPPFLAGS)
delegation_tests_test_delegation_ranktab_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
delegation_tests_test_delegation_ranktab_LDADD = $(DLG_TEST_LDADD)
delegation_tests_test_delegation_ranktab_LDFLAGS = $(AM_LDFLAGS) -no-install

if BUILD_LIBPIP
# PiP mode: this test is a PiP root serving as delegatee; its clients are
# dlg_pip_task tasks (defined with the benchmark above).
check_PROGRAMS += delegation/tests/test_delegation_pip
TESTS += delegation/tests/test_delegation_pip
delegation_tests_test_delegation_pip_SOURCES = delegation/tests/test_delegation_pip.c
delegation_tests_test_delegation_pip_CPPFLAGS = $(DLG_TEST_CPPFLAGS) $(PIP_CPPFLAGS)
delegation_tests_test_delegation_pip_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -fPIE
delegation_tests_test_delegation_pip_LDADD = $(DLG_TEST_LDADD) libpip/libpip.la
delegation_tests_test_delegation_pip_LDFLAGS = $(AM_LDFLAGS) -pie -rdynamic -no-install
endif
endif
endif

# The libdeleg a PiP task program links (see PIP_TASK_LIBPIP).
if BUILD_DELEGATION
if BUILD_LIBPIP
if PVAS_SANITIZERS
check_LTLIBRARIES += delegation/libdeleg_task.la
delegation_libdeleg_task_la_SOURCES = $(delegation_libdeleg_la_SOURCES)
delegation_libdeleg_task_la_CPPFLAGS = $(delegation_libdeleg_la_CPPFLAGS)
delegation_libdeleg_task_la_CFLAGS = -std=gnu11 $(WARN_CFLAGS) -fvisibility=hidden $(HWLOC_CFLAGS)
delegation_libdeleg_task_la_LIBADD = $(PVAS_LOG_TASK_LIB) $(HWLOC_LIBS)
delegation_libdeleg_task_la_LDFLAGS = -rpath $(abs_top_builddir)/delegation/.libs \
	-version-info 0:0:0
DLG_TASK_LIBDELEG = delegation/libdeleg_task.la
else
DLG_TASK_LIBDELEG = delegation/libdeleg.la
endif
endif
endif

# ThreadSanitizer: `make check-tsan` (or check-tsan-delegation) builds the
# library and its thread tests with -fsanitize=thread (their own objects, in
# delegation/tsan/, whatever configure chose: TSan cannot be combined with
# --enable-sanitizers' ASan) and runs them; any report fails the target.
DLG_TSAN_LIB_SRC = $(filter %.c,$(delegation_libdeleg_la_SOURCES)) \
	common/pvas_log.c
DLG_TSAN_TESTS = core multi proc ranktab
check-tsan-delegation: $(DLG_TSAN_LIB_SRC:%=$(top_srcdir)/%) \
		$(DLG_TSAN_TESTS:%=$(top_srcdir)/delegation/tests/test_delegation_%.c) \
		$(top_srcdir)/test/th_util.c
	@mkdir -p delegation/tsan
	@for t in $(DLG_TSAN_TESTS); do \
	    echo "  TSAN     delegation/tsan/test_delegation_$$t"; \
	    $(CC) -std=gnu11 -D_GNU_SOURCE $(WARN_CFLAGS) -g -O1 -fsanitize=thread \
	        -I$(top_builddir) -I$(top_srcdir)/delegation/include \
	        -I$(top_srcdir)/common \
	        -I$(top_srcdir)/delegation/src -I$(top_srcdir)/test \
	        $(CMOCKA_CFLAGS) $(HWLOC_CFLAGS) \
	        -o delegation/tsan/test_delegation_$$t \
	        $(top_srcdir)/delegation/tests/test_delegation_$$t.c \
	        $(DLG_TSAN_LIB_SRC:%=$(top_srcdir)/%) $(top_srcdir)/test/th_util.c \
	        $(CMOCKA_LIBS) $(HWLOC_LIBS) -lpthread || exit 1; \
	done
	$(SHELL) $(top_srcdir)/delegation/tests/run-tsan.sh delegation/tsan \
	    $(DLG_TSAN_TESTS)
check-tsan: check-tsan-delegation
clean-local: clean-local-delegation-tsan
clean-local-delegation-tsan:
	-rm -rf delegation/tsan

.PHONY: bench-delegation check-tsan check-tsan-delegation \
	clean-local-delegation-tsan
