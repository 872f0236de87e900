# SPDX-License-Identifier: BSD-2-Clause
# common/Makefile.mk: code every component library links (logging).

# The logging facility (common/pvas_log.h), linked into each component
# library; its symbols are hidden, so each library has its own copy.
noinst_LTLIBRARIES += common/libpvaslog.la
common_libpvaslog_la_SOURCES = common/pvas_log.c common/pvas_log.h \
	common/pvas_syscall.h common/pvas_env.h
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

# A bad PVAS_LOG fails libulp's and libdeleg's initialisation.
EXTRA_DIST += common/tests/test_pvas_log_init.sh
FORMAT_FILES += common/tests/pvas_log_init.c
if BUILD_LIBULP
if BUILD_DELEGATION
check_PROGRAMS += common/tests/pvas_log_init
TESTS += common/tests/test_pvas_log_init.sh
common_tests_pvas_log_init_SOURCES = common/tests/pvas_log_init.c
common_tests_pvas_log_init_CPPFLAGS = $(AM_CPPFLAGS) $(ULP_CPPFLAGS) \
	-I$(top_srcdir)/delegation/include
common_tests_pvas_log_init_LDADD = libulp/libulp.la libpip/libpip.la \
	delegation/libdeleg.la
common_tests_pvas_log_init_LDFLAGS = $(AM_LDFLAGS) -no-install
endif
endif

# Man pages: each component adds the roff pages it installs to PVAS_MANS
# (libpip/man/pip-exec.1 from libpip/man/pip-exec.1.md, ...); they are
# converted with lowdown when configure found it, and otherwise neither
# built nor installed (configure's summary says so).
PVAS_MANS =
EXTRA_DIST += common/md2man.sh common/tests/test_man.sh
if HAVE_LOWDOWN
man_MANS = $(PVAS_MANS)
endif
CLEANFILES += $(PVAS_MANS) test/man-pages

PVAS_MD2MAN = $(AM_V_GEN)$(MKDIR_P) $(@D) && \
	$(SHELL) $(top_srcdir)/common/md2man.sh '$(LOWDOWN)' $< $@
%.1: %.1.md $(top_srcdir)/common/md2man.sh
	$(PVAS_MD2MAN)
%.3: %.3.md $(top_srcdir)/common/md2man.sh
	$(PVAS_MD2MAN)
%.7: %.7.md $(top_srcdir)/common/md2man.sh
	$(PVAS_MD2MAN)

# The pages `make install` installs, for their test (empty without lowdown).
test/man-pages: Makefile
	$(AM_V_GEN)$(MKDIR_P) test && echo $(man_MANS) | tr ' ' '\n' | sed '/^$$/d' >$@
check_SCRIPTS += test/man-pages
TESTS += common/tests/test_man.sh

# ENVIRONMENT.md lists every variable the sources read.
EXTRA_DIST += ENVIRONMENT.md common/tests/test_environment_md.sh
TESTS += common/tests/test_environment_md.sh
