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

endif BUILD_LIBULP
