# SPDX-License-Identifier: BSD-2-Clause
# libulp/Makefile.mk: User-Level Processes: library, tests, benchmarks.

ULP_MAN_PAGES = libulp/man/libulp.7.md libulp/man/ulp_spawn.3.md \
	libulp/man/ulp_yield.3.md libulp/man/ulp_couple.3.md \
	libulp/man/ulp_mutex_lock.3.md
EXTRA_DIST += libulp/ulp.pc.in libulp/README.md $(ULP_MAN_PAGES)

if BUILD_LIBULP

ULP_CPPFLAGS = -I$(top_srcdir)/libulp/include -I$(top_srcdir)/libpip/include \
	-I$(top_builddir)/libpip/include

# --- the library -----------------------------------------------------------
ULP_LIB_SOURCES = \
	libulp/src/ulp_internal.h \
	libulp/src/ulp_core.c \
	libulp/src/ulp_sched.c \
	libulp/src/ulp_sync.c \
	libulp/src/arch/x86_64/ulp_arch.h \
	libulp/src/arch/x86_64/ulp_arch.c \
	libulp/src/arch/x86_64/ulp_switch.c
lib_LTLIBRARIES += libulp/libulp.la
libulp_libulp_la_SOURCES = $(ULP_LIB_SOURCES)
libulp_libulp_la_CPPFLAGS = $(AM_CPPFLAGS) $(ULP_CPPFLAGS) -I$(top_srcdir)/libulp/src
libulp_libulp_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libulp_libulp_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0
libulp_libulp_la_LIBADD = libpip/libpip.la -lpthread
ulpincludedir = $(includedir)
ulpinclude_HEADERS = libulp/include/ulp.h
pkgconfig_DATA += libulp/ulp.pc

# --- tests -------------------------------------------------------------------
# test_ulp_switch runs once per thread-pointer method, through two small
# scripts that set ULP_FSBASE (as libpip's tests do per mode).
ULP_TEST_CPPF = $(AM_CPPFLAGS) $(ULP_CPPFLAGS) -I$(top_srcdir)/libulp/tests
ULP_TEST_CF = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
ULP_TEST_LDF = $(AM_LDFLAGS) -no-install
ULP_TEST_LIBS = libulp/libulp.la libpip/libpip.la test/libth.la $(CMOCKA_LIBS) -lm
if HAVE_CMOCKA
ULP_TESTS_BY_METHOD = libulp/tests/test_ulp_switch.wrfsbase \
	libulp/tests/test_ulp_switch.syscall
ULP_TESTS = libulp/tests/test_ulp_sync
check_PROGRAMS += libulp/tests/test_ulp_switch $(ULP_TESTS)
TESTS += $(ULP_TESTS_BY_METHOD) $(ULP_TESTS)
CLEANFILES += $(ULP_TESTS_BY_METHOD)
libulp/tests/test_ulp_switch.wrfsbase: libulp/tests/test_ulp_switch
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nULP_FSBASE=wrfsbase; export ULP_FSBASE\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
	chmod +x $@
libulp/tests/test_ulp_switch.syscall: libulp/tests/test_ulp_switch
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nULP_FSBASE=syscall; export ULP_FSBASE\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
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
endif HAVE_CMOCKA

endif BUILD_LIBULP
