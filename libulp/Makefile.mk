# SPDX-License-Identifier: BSD-2-Clause
# libulp/Makefile.mk: User-Level Processes: library, tests, benchmarks.

ULP_MAN_PAGES = libulp/man/libulp.7.md libulp/man/ulp_spawn.3.md \
	libulp/man/ulp_yield.3.md libulp/man/ulp_couple.3.md \
	libulp/man/ulp_mutex_lock.3.md
EXTRA_DIST += libulp/ulp.pc.in libulp/README.md libulp/DESIGN.md libulp/bench/RESULTS.md \
	$(ULP_MAN_PAGES) libulp/src/arch/x86_64/ulp_arch.h \
	libulp/src/arch/x86_64/ulp_arch.c libulp/src/arch/x86_64/ulp_switch.c \
	libulp/src/arch/aarch64/ulp_arch.h libulp/src/arch/aarch64/ulp_switch.c
FORMAT_FILES += libulp/include/ulp.h $(ULP_LIB_SOURCES) \
	libulp/tests/ut_util.h libulp/tests/test_ulp_switch.c \
	libulp/tests/test_ulp_sync.c libulp/tests/test_ulp_couple.c \
	libulp/tests/test_ulp_task.c libulp/tests/test_ulp_guard.c \
	libulp/tests/ulp_task_worker.c libulp/tests/ulp_overflow.c \
	libulp/bench/ulp_bench_switch.c libulp/bench/ulp_bench_oversub.c \
	libulp/bench/ulp_bench_task.c libulp/bench/ulp_bench_task.h

if BUILD_LIBULP
PVAS_MANS += $(ULP_MAN_PAGES:.md=)

ULP_CPPFLAGS = -I$(top_srcdir)/libulp/include -I$(top_srcdir)/libpip/include \
	-I$(top_builddir)/libpip/include

# --- the library -----------------------------------------------------------
ULP_LIB_SOURCES = \
	libulp/src/ulp_internal.h \
	libulp/src/ulp_base.c \
	libulp/src/ulp_core.c \
	libulp/src/ulp_sched.c \
	libulp/src/ulp_sync.c \
	libulp/src/ulp_tls.c
# One port per architecture (the other's files are still distributed).
if HOST_AARCH64
ULP_ARCH_SOURCES = libulp/src/arch/aarch64/ulp_arch.h \
	libulp/src/arch/aarch64/ulp_switch.c
else
ULP_ARCH_SOURCES = libulp/src/arch/x86_64/ulp_arch.h \
	libulp/src/arch/x86_64/ulp_arch.c \
	libulp/src/arch/x86_64/ulp_switch.c
endif
lib_LTLIBRARIES += libulp/libulp.la
libulp_libulp_la_SOURCES = $(ULP_LIB_SOURCES) $(ULP_ARCH_SOURCES)
libulp_libulp_la_CPPFLAGS = $(AM_CPPFLAGS) $(ULP_CPPFLAGS) -I$(top_srcdir)/libulp/src
libulp_libulp_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(PVAS_TLS_DIALECT)
libulp_libulp_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0
libulp_libulp_la_LIBADD = common/libpvaslog.la libpip/libpip.la -lpthread
ulpincludedir = $(includedir)
ulpinclude_HEADERS = libulp/include/ulp.h
pkgconfig_DATA += libulp/ulp.pc

# --- benchmarks: make bench-ulp ------------------------------------------------
# ulp_bench_switch compares the x86-64 thread-pointer methods (wrfsbase,
# arch_prctl, copy): x86-64 only.
if !HOST_AARCH64
noinst_PROGRAMS += libulp/bench/ulp_bench_switch libulp/bench/ulp_bench_task
libulp_bench_ulp_bench_switch_SOURCES = libulp/bench/ulp_bench_switch.c \
	libulp/bench/ulp_bench_task.h
libulp_bench_ulp_bench_switch_CPPFLAGS = $(AM_CPPFLAGS) $(ULP_CPPFLAGS)
libulp_bench_ulp_bench_switch_CFLAGS = $(AM_CFLAGS) -fPIE
libulp_bench_ulp_bench_switch_LDFLAGS = $(AM_LDFLAGS) -pie -rdynamic -no-install
libulp_bench_ulp_bench_switch_LDADD = libulp/libulp.la libpip/libpip.la -lpthread
# The PiP task of ulp_bench_switch --task, built as users build tasks.
libulp_bench_ulp_bench_task_SOURCES = libulp/bench/ulp_bench_task.c \
	libulp/bench/ulp_bench_task.h
libulp_bench_ulp_bench_task_CPPFLAGS = $(AM_CPPFLAGS) $(ULP_CPPFLAGS)
libulp_bench_ulp_bench_task_CFLAGS = -std=gnu11 $(WARN_CFLAGS) -O2 -fPIE
libulp_bench_ulp_bench_task_LDFLAGS = -pie -rdynamic -no-install
libulp_bench_ulp_bench_task_LDADD = libulp/libulp.la libpip/libpip.la
endif
noinst_PROGRAMS += libulp/bench/ulp_bench_oversub
libulp_bench_ulp_bench_oversub_SOURCES = libulp/bench/ulp_bench_oversub.c
libulp_bench_ulp_bench_oversub_CPPFLAGS = $(AM_CPPFLAGS) $(ULP_CPPFLAGS)
libulp_bench_ulp_bench_oversub_LDFLAGS = $(AM_LDFLAGS) -no-install
libulp_bench_ulp_bench_oversub_LDADD = libulp/libulp.la libpip/libpip.la -lpthread
BENCH_TARGETS += bench-ulp bench-ulp-oversub
if HOST_AARCH64
bench-ulp:
	@echo "bench-ulp: compares x86-64 thread-pointer methods; skipped on aarch64"
else
bench-ulp: libulp/bench/ulp_bench_switch libulp/bench/ulp_bench_task
	$(top_builddir)/libulp/bench/ulp_bench_switch \
	    --task $(abs_top_builddir)/libulp/bench/ulp_bench_task \
	    --csv $(top_builddir)/libulp/bench/ulp_bench_switch.csv \
	    --plot $(top_builddir)/libulp/bench/ulp_bench_switch.svg
endif
bench-ulp-oversub: libulp/bench/ulp_bench_oversub
	$(top_builddir)/libulp/bench/ulp_bench_oversub \
	    --csv $(top_builddir)/libulp/bench/ulp_bench_oversub.csv
	$(top_builddir)/libulp/bench/ulp_bench_oversub --work 5 --iters 3000 \
	    --csv $(top_builddir)/libulp/bench/ulp_bench_oversub_fine.csv
CLEANFILES += libulp/bench/ulp_bench_oversub_fine.csv libulp/bench/ulp_bench_switch.csv libulp/bench/ulp_bench_switch.svg \
	libulp/bench/ulp_bench_oversub.csv
.PHONY: bench-ulp bench-ulp-oversub

# --- tests -------------------------------------------------------------------
# test_ulp_switch runs once per thread-pointer method, through small scripts
# that set ULP_FSBASE (as libpip's tests do per mode); the .wrfsbase one
# skips as a whole where the kernel does not enable FSGSBASE.  The .nofsgs
# scripts run every libulp test again as on a machine without FSGSBASE
# (ULP_TEST_NO_FSGSBASE=1: the default method is then the copy one).
ULP_TEST_CPPF = $(AM_CPPFLAGS) $(ULP_CPPFLAGS) -I$(top_srcdir)/libulp/tests
ULP_TEST_CF = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
ULP_TEST_LDF = $(AM_LDFLAGS) -no-install
ULP_TEST_LIBS = libulp/libulp.la libpip/libpip.la test/libth.la $(CMOCKA_LIBS) -lm
if HAVE_CMOCKA
ULP_TESTS_BY_METHOD = libulp/tests/test_ulp_switch.wrfsbase \
	libulp/tests/test_ulp_switch.syscall libulp/tests/test_ulp_switch.copy
ULP_TESTS = libulp/tests/test_ulp_sync libulp/tests/test_ulp_couple \
	libulp/tests/test_ulp_task libulp/tests/test_ulp_guard
ULP_TESTS_NOFSGS = libulp/tests/test_ulp_switch.nofsgs \
	libulp/tests/test_ulp_sync.nofsgs libulp/tests/test_ulp_couple.nofsgs \
	libulp/tests/test_ulp_task.nofsgs libulp/tests/test_ulp_guard.nofsgs
check_PROGRAMS += libulp/tests/test_ulp_switch $(ULP_TESTS)
if HOST_AARCH64
# One thread-pointer method (TPIDR_EL0): each program runs once.
TESTS += libulp/tests/test_ulp_switch $(ULP_TESTS)
else
TESTS += $(ULP_TESTS_BY_METHOD) $(ULP_TESTS) $(ULP_TESTS_NOFSGS) \
	libulp/tests/test_ulp_tls_model.sh
endif
CLEANFILES += $(ULP_TESTS_BY_METHOD) $(ULP_TESTS_NOFSGS)
EXTRA_DIST += libulp/tests/test_ulp_tls_model.sh
libulp/tests/test_ulp_switch.wrfsbase: libulp/tests/test_ulp_switch
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nULP_FSBASE=wrfsbase; export ULP_FSBASE\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
	chmod +x $@
libulp/tests/test_ulp_switch.syscall: libulp/tests/test_ulp_switch
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nULP_FSBASE=syscall; export ULP_FSBASE\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
	chmod +x $@
libulp/tests/test_ulp_switch.copy: libulp/tests/test_ulp_switch
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nULP_FSBASE=copy; export ULP_FSBASE\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
	chmod +x $@
libulp/tests/test_ulp_switch.nofsgs: libulp/tests/test_ulp_switch
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nULP_TEST_NO_FSGSBASE=1; export ULP_TEST_NO_FSGSBASE\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
	chmod +x $@
libulp/tests/test_ulp_sync.nofsgs: libulp/tests/test_ulp_sync
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nULP_TEST_NO_FSGSBASE=1; export ULP_TEST_NO_FSGSBASE\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
	chmod +x $@
libulp/tests/test_ulp_couple.nofsgs: libulp/tests/test_ulp_couple
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nULP_TEST_NO_FSGSBASE=1; export ULP_TEST_NO_FSGSBASE\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
	chmod +x $@
libulp/tests/test_ulp_task.nofsgs: libulp/tests/test_ulp_task
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nULP_TEST_NO_FSGSBASE=1; export ULP_TEST_NO_FSGSBASE\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
	chmod +x $@
libulp/tests/test_ulp_guard.nofsgs: libulp/tests/test_ulp_guard
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nULP_TEST_NO_FSGSBASE=1; export ULP_TEST_NO_FSGSBASE\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
	chmod +x $@
libulp_tests_test_ulp_switch_SOURCES = libulp/tests/test_ulp_switch.c libulp/tests/ut_util.h
libulp_tests_test_ulp_switch_CPPFLAGS = $(ULP_TEST_CPPF)
libulp_tests_test_ulp_switch_CFLAGS = $(ULP_TEST_CF)
libulp_tests_test_ulp_switch_LDFLAGS = $(ULP_TEST_LDF)
libulp_tests_test_ulp_switch_LDADD = $(ULP_TEST_LIBS)
libulp_tests_test_ulp_sync_SOURCES = libulp/tests/test_ulp_sync.c libulp/tests/ut_util.h
libulp_tests_test_ulp_sync_CPPFLAGS = $(ULP_TEST_CPPF)
libulp_tests_test_ulp_sync_CFLAGS = $(ULP_TEST_CF)
libulp_tests_test_ulp_sync_LDFLAGS = $(ULP_TEST_LDF)
libulp_tests_test_ulp_sync_LDADD = $(ULP_TEST_LIBS)
libulp_tests_test_ulp_couple_SOURCES = libulp/tests/test_ulp_couple.c libulp/tests/ut_util.h
libulp_tests_test_ulp_couple_CPPFLAGS = $(ULP_TEST_CPPF)
libulp_tests_test_ulp_couple_CFLAGS = $(ULP_TEST_CF)
libulp_tests_test_ulp_couple_LDFLAGS = $(ULP_TEST_LDF)
libulp_tests_test_ulp_couple_LDADD = $(ULP_TEST_LIBS)
# Roots that spawn PiP tasks are PIEs with -rdynamic, as libpip's are.
libulp_tests_test_ulp_task_SOURCES = libulp/tests/test_ulp_task.c libulp/tests/ut_util.h
libulp_tests_test_ulp_task_CPPFLAGS = $(ULP_TEST_CPPF)
libulp_tests_test_ulp_task_CFLAGS = $(ULP_TEST_CF) -fPIE
libulp_tests_test_ulp_task_LDFLAGS = $(ULP_TEST_LDF) -pie -rdynamic
libulp_tests_test_ulp_task_LDADD = $(ULP_TEST_LIBS)
libulp_tests_test_ulp_guard_SOURCES = libulp/tests/test_ulp_guard.c libulp/tests/ut_util.h
libulp_tests_test_ulp_guard_CPPFLAGS = $(ULP_TEST_CPPF)
libulp_tests_test_ulp_guard_CFLAGS = $(ULP_TEST_CF)
libulp_tests_test_ulp_guard_LDFLAGS = $(ULP_TEST_LDF)
libulp_tests_test_ulp_guard_LDADD = $(ULP_TEST_LIBS)
endif HAVE_CMOCKA

# Helpers of the tests: a task program (built as users build tasks, never
# with the sanitizer flags: see libpip/Makefile.mk) and a crashing root.
if PVAS_SANITIZERS
check_LTLIBRARIES += libulp/libulp_task.la
libulp_libulp_task_la_SOURCES = $(ULP_LIB_SOURCES) $(ULP_ARCH_SOURCES)
libulp_libulp_task_la_CPPFLAGS = $(libulp_libulp_la_CPPFLAGS)
libulp_libulp_task_la_CFLAGS = -std=gnu11 $(WARN_CFLAGS) -fvisibility=hidden \
	$(PVAS_TLS_DIALECT)
libulp_libulp_task_la_LDFLAGS = -rpath $(abs_top_builddir)/libulp/.libs \
	-version-info 0:0:0
libulp_libulp_task_la_LIBADD = $(PVAS_LOG_TASK_LIB) $(PIP_TASK_LIBPIP) -lpthread
ULP_TASK_LIBULP = libulp/libulp_task.la $(PIP_TASK_LIBPIP)
else
ULP_TASK_LIBULP = libulp/libulp.la libpip/libpip.la
endif
check_PROGRAMS += libulp/tests/ulp_task_worker libulp/tests/ulp_overflow
libulp_tests_ulp_task_worker_SOURCES = libulp/tests/ulp_task_worker.c
libulp_tests_ulp_task_worker_CPPFLAGS = $(AM_CPPFLAGS) $(ULP_CPPFLAGS)
libulp_tests_ulp_task_worker_CFLAGS = -std=gnu11 $(WARN_CFLAGS) -fPIE
libulp_tests_ulp_task_worker_LDFLAGS = -pie -rdynamic -no-install
libulp_tests_ulp_task_worker_LDADD = $(ULP_TASK_LIBULP)
libulp_tests_ulp_overflow_SOURCES = libulp/tests/ulp_overflow.c
libulp_tests_ulp_overflow_CPPFLAGS = $(AM_CPPFLAGS) $(ULP_CPPFLAGS)
libulp_tests_ulp_overflow_CFLAGS = $(AM_CFLAGS) -fPIE
libulp_tests_ulp_overflow_LDFLAGS = $(AM_LDFLAGS) -pie -rdynamic -no-install
libulp_tests_ulp_overflow_LDADD = libulp/libulp.la libpip/libpip.la

endif BUILD_LIBULP
