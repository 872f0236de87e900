# SPDX-License-Identifier: BSD-2-Clause
# common/Makefile.mk: code every component library links (logging).

# The logging facility (common/pvas_log.h), linked into each component
# library; its symbols are hidden, so each library has its own copy.
noinst_LTLIBRARIES += common/libpvaslog.la
common_libpvaslog_la_SOURCES = common/pvas_log.c common/pvas_log.h
common_libpvaslog_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden

# The copy linked into the uninstrumented task libraries of a sanitizer
# build (libpip_task, libulp_task, libdeleg_task): same flags as those.
if PVAS_SANITIZERS
check_LTLIBRARIES += common/libpvaslog_task.la
common_libpvaslog_task_la_SOURCES = $(common_libpvaslog_la_SOURCES)
common_libpvaslog_task_la_CFLAGS = -std=gnu11 $(WARN_CFLAGS) -fvisibility=hidden
PVAS_LOG_TASK_LIB = common/libpvaslog_task.la
else
PVAS_LOG_TASK_LIB = common/libpvaslog.la
endif

EXTRA_DIST += common/tests/test_pvas_log_env.sh
FORMAT_FILES += $(common_libpvaslog_la_SOURCES) common/tests/test_pvas_log.c

if HAVE_CMOCKA
# The parser, the aliases, the line format and the one write per line
# (write is wrapped to count the calls).
check_PROGRAMS += common/tests/test_pvas_log
TESTS += common/tests/test_pvas_log
common_tests_test_pvas_log_SOURCES = common/tests/test_pvas_log.c
common_tests_test_pvas_log_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
common_tests_test_pvas_log_LDADD = common/libpvaslog.la $(CMOCKA_LIBS) -lpthread
common_tests_test_pvas_log_LDFLAGS = $(AM_LDFLAGS) -no-install -Wl,--wrap=write
endif

if BUILD_LIBPIP
# PVAS_LOG and its alias PIP_DEBUG seen through pip-exec.
TESTS += common/tests/test_pvas_log_env.sh
endif
