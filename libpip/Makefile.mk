# SPDX-License-Identifier: BSD-2-Clause
# libpip/Makefile.mk: Process-in-Process library, pip-exec, tests, benchmark.

EXTRA_DIST += libpip/pip.pc.in libpip/include/pip/pip_config.h.in \
	libpip/tests/README.md libpip/bench/RESULTS.md $(PIP_MAN_PAGES) \
	libpip/bench/pvas-2026-12-07-latency.svg
PIP_MAN_PAGES = libpip/man/libpip.7.md libpip/man/pip-exec.1.md \
	libpip/man/pip_init.3.md libpip/man/pip_spawn.3.md \
	libpip/man/pip_wait.3.md libpip/man/pip_export.3.md \
	libpip/man/pip_query.3.md libpip/man/pip_signal.3.md \
	libpip/man/pip_barrier.3.md libpip/man/pipcc.1.md \
	libpip/man/pip-check.1.md libpip/man/pip-mode.1.md \
	libpip/man/pips.1.md libpip/man/pip-unpie.1.md \
	libpip/man/printpipmode.1.md libpip/man/pipfc.1.md \
	libpip/man/pip-gdb.1.md
EXTRA_DIST += libpip/tools/pipcc.in libpip/tests/pipcc_root.c \
	libpip/tests/pipcc_task.c \
	libpip/tests/pipcompat/pipcompat.sh \
	libpip/tests/pipcompat/pc_initfin.exp libpip/tests/pipcompat/pc_func.exp \
	libpip/tests/pipcompat/pc_wait.exp libpip/tests/pipcompat/pc_export.exp \
	libpip/tests/pipcompat/pc_barrier.exp \
	libpip/tests/pipcompat/pc_signal.exp libpip/tests/pipcompat/pc_exit.exp \
	libpip/tests/pipcompat/pc_ctor.exp libpip/tests/pipcompat/pc_fork.exp \
	libpip/tests/pipcompat/pc_lifetime.exp libpip/tests/pipcompat/pc_mode.exp \
	libpip/tests/pipcompat/pc_texit.exp libpip/tests/pipcompat/pc_tools.sh

if BUILD_LIBPIP
PVAS_MANS += $(PIP_MAN_PAGES:.md=)

PIP_CPPFLAGS = -I$(top_srcdir)/libpip/include -I$(top_builddir)/libpip/include

# --- the library -----------------------------------------------------------
lib_LTLIBRARIES += libpip/libpip.la
libpip_libpip_la_SOURCES = \
	libpip/src/pip_internal.h \
	libpip/src/pip_base.c \
	libpip/src/pip_init.c \
	libpip/src/pip_elfcheck.c \
	libpip/src/pip_entry.c libpip/src/pip_start.h \
	libpip/src/pip_loader.c \
	libpip/src/pip_image.c \
	libpip/src/pip_imgend.c \
	libpip/src/pip_region.c \
	libpip/src/pip_preload.c \
	libpip/src/pip_spawn.c \
	libpip/src/pip_taskend.c \
	libpip/src/pip_wait.c \
	libpip/src/pip_export.c \
	libpip/src/pip_util.c \
	libpip/src/pip_registry.h \
	libpip/src/pip_registry.c \
	libpip/src/pip_compat.c \
	libpip/src/pip_hooks.c \
	libpip/src/pip_libmain.c
libpip_libpip_la_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS) -I$(top_srcdir)/libpip/src \
	-I$(top_builddir)/libpip -DPIP_PKGLIBDIR='"$(pkglibdir)"'
# TLS descriptors (configure.ac): pip_cur_task_ is read on libulp's
# carriers too.
libpip_libpip_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(PVAS_TLS_DIALECT)
# libpip.so is also a program: `libpip.so --version` (entry in pip_libmain.c).
libpip_libpip_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 \
	-Wl,-e,pip_libmain_entry
libpip_libpip_la_LIBADD = common/libpvaslog.la -ldl -lpthread

# pip_taskstart.so: preloaded into every private-image task (process
# mode), it sets the task's signal mask once its loader is done and keeps
# handlers without SA_RESTART from failing mmap with EINTR
# (pip_taskstart.c).  libpip looks for it next to libpip.so, then in
# $(pkglibdir).  Built without the sanitizer flags: it runs under the
# task's own libc.
pkglib_LTLIBRARIES = libpip/pip_taskstart.la
libpip_pip_taskstart_la_SOURCES = libpip/src/pip_taskstart.c
libpip_pip_taskstart_la_CFLAGS = -std=gnu11 $(WARN_CFLAGS) -fvisibility=hidden
libpip_pip_taskstart_la_LDFLAGS = -module -avoid-version -shared
libpip_pip_taskstart_la_LIBADD = -ldl

# libpip/pip_build.h: the facts `libpip.so --os --cc --commit` print.  Made
# on every build, replaced only when it changes.
CLEANFILES += libpip/pip_build.h
libpip/pip_build.h: pip-build-h-always
	$(AM_V_GEN)$(MKDIR_P) libpip && { \
	  c=`cd $(top_srcdir) && git rev-parse HEAD 2>/dev/null` || c=unknown; \
	  echo "#define PIP_BUILD_OS \"$(host)\""; \
	  echo "#define PIP_BUILD_CC \"$(CC)\""; \
	  echo "#define PIP_BUILD_COMMIT \"$$c\""; \
	} >$@.tmp && if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
pip-build-h-always:
# Generated, never distributed: BUILT_SOURCES makes it before anything is
# compiled (a rule naming pip_libmain's object would replace automake's own
# rule for that object, which broke the tarball's build).
BUILT_SOURCES += libpip/pip_build.h
nodist_libpip_libpip_la_SOURCES = libpip/pip_build.h

pipincludedir = $(includedir)/pip
pipinclude_HEADERS = libpip/include/pip/pip.h libpip/include/pip/pip_machdep.h \
	libpip/include/pip/pip_clone.h
nodist_pipinclude_HEADERS = libpip/include/pip/pip_config.h
pkgconfig_DATA += libpip/pip.pc

# --- tools -------------------------------------------------------------------
bin_PROGRAMS += libpip/pip-exec
libpip_pip_exec_SOURCES = libpip/src/pip_exec.c libpip/tools/pip_elf.c \
	libpip/tools/pip_elf.h
libpip_pip_exec_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS) -I$(top_srcdir)/libpip/src \
	-I$(top_srcdir)/libpip/tools
libpip_pip_exec_LDADD = libpip/libpip.la

# The PiP toolset (libpip/tools/, man pages in libpip/man/).
PIP_TOOL_CPPF = $(AM_CPPFLAGS) $(PIP_CPPFLAGS) -I$(top_srcdir)/libpip/src \
	-I$(top_srcdir)/libpip/tools
PIP_ELF_SRC = libpip/tools/pip_elf.c libpip/tools/pip_elf.h \
	libpip/tools/pip_tools.h
bin_PROGRAMS += libpip/pip-check libpip/pip-unpie libpip/pips libpip/pip-mode \
	libpip/printpipmode
libpip_printpipmode_SOURCES = libpip/tools/printpipmode.c
libpip_printpipmode_CPPFLAGS = $(PIP_TOOL_CPPF)
libpip_printpipmode_LDADD = libpip/libpip.la
libpip_pip_check_SOURCES = libpip/tools/pip_check.c $(PIP_ELF_SRC)
libpip_pip_check_CPPFLAGS = $(PIP_TOOL_CPPF)
libpip_pip_unpie_SOURCES = libpip/tools/pip_unpie.c $(PIP_ELF_SRC)
libpip_pip_unpie_CPPFLAGS = $(PIP_TOOL_CPPF)
libpip_pips_SOURCES = libpip/tools/pips.c libpip/tools/pips_roots.c \
	libpip/tools/pips.h libpip/src/pip_registry.h libpip/tools/pip_tools.h
libpip_pips_CPPFLAGS = $(PIP_TOOL_CPPF)
libpip_pip_mode_SOURCES = libpip/tools/pip_mode.c libpip/tools/pip_tools.h
libpip_pip_mode_CPPFLAGS = $(PIP_TOOL_CPPF)
libpip_pip_mode_LDADD = libpip/libpip.la

# libpiproot.a: the 64 KiB TLS reserve `pipcc --piproot` links into a root.
# Built without the sanitizer flags: it is linked by pipcc's plain compiler.
lib_LIBRARIES = libpip/libpiproot.a
libpip_libpiproot_a_SOURCES = libpip/tools/piproot.c libpip/tools/pip_tools.h
libpip_libpiproot_a_CPPFLAGS = $(PIP_TOOL_CPPF)
libpip_libpiproot_a_CFLAGS = -std=gnu11 $(WARN_CFLAGS) -fPIE

# pipcc is generated from one template twice: libpip/pipcc (installed: the
# install paths) and libpip/tests/pipcc (the build tree's paths, for tests).
# In a sanitizer build the tests' pipcc links the uninstrumented libpip copy
# (see PIP_TASK_LIBPIP): pipcc's programs are built without the sanitizers.
bin_SCRIPTS = libpip/pipcc libpip/pipfc libpip/pip-gdb
check_SCRIPTS += libpip/tests/pipcc libpip/tests/pipfc
CLEANFILES += libpip/pipcc libpip/tests/pipcc libpip/pipfc libpip/tests/pipfc
# pipfc: the same script for Fortran (PIP_FC or FC override the compiler).
PIP_FC_DEFAULT = gfortran
libpip/pipcc libpip/tests/pipcc: PIPCC_LANG = c
libpip/pipcc libpip/tests/pipcc: PIPCC_COMPILER = $(CC)
libpip/pipfc libpip/tests/pipfc: PIPCC_LANG = fortran
libpip/pipfc libpip/tests/pipfc: PIPCC_COMPILER = $(PIP_FC_DEFAULT)
if PVAS_SANITIZERS
PIPCC_BUILD_LIBNAME = pip_task
else
PIPCC_BUILD_LIBNAME = pip
endif
libpip/pipcc libpip/pipfc: $(top_srcdir)/libpip/tools/pipcc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) libpip && rm -f $@ $@.tmp && \
	sed -e 's|[@]PIPCC_CC[@]|$(PIPCC_COMPILER)|g' \
	    -e 's|[@]PIPCC_INCDIRS[@]|-I$(includedir)|g' \
	    -e 's|[@]PIPCC_LIBDIR[@]|$(libdir)|g' \
	    -e 's|[@]PIPCC_LIBNAME[@]|pip|g' \
	    -e 's|[@]PIPCC_ROOTLIB[@]|$(libdir)/libpiproot.a|g' \
	    -e 's|[@]PIPCC_COMPAT_VERSION[@]|$(PIP_API_VERSION)|g' \
	    -e 's|[@]PIPCC_LANG[@]|$(PIPCC_LANG)|g' \
	    -e 's|[@]PIPCC_UNPIE[@]|$(bindir)/pip-unpie|g' \
	    $(top_srcdir)/libpip/tools/pipcc.in >$@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@
libpip/tests/pipcc libpip/tests/pipfc: $(top_srcdir)/libpip/tools/pipcc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) libpip/tests && rm -f $@ $@.tmp && \
	sed -e 's|[@]PIPCC_CC[@]|$(PIPCC_COMPILER)|g' \
	    -e 's|[@]PIPCC_INCDIRS[@]|-I$(abs_top_srcdir)/libpip/include -I$(abs_top_builddir)/libpip/include|g' \
	    -e 's|[@]PIPCC_LIBDIR[@]|$(abs_top_builddir)/libpip/.libs|g' \
	    -e 's|[@]PIPCC_LIBNAME[@]|$(PIPCC_BUILD_LIBNAME)|g' \
	    -e 's|[@]PIPCC_ROOTLIB[@]|$(abs_top_builddir)/libpip/libpiproot.a|g' \
	    -e 's|[@]PIPCC_COMPAT_VERSION[@]|$(PIP_API_VERSION)|g' \
	    -e 's|[@]PIPCC_LANG[@]|$(PIPCC_LANG)|g' \
	    -e 's|[@]PIPCC_UNPIE[@]|$(abs_top_builddir)/libpip/pip-unpie|g' \
	    $(top_srcdir)/libpip/tools/pipcc.in >$@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@

# pip-gdb: stock gdb with pip-gdb.py, which loads every task namespace's
# symbols (installed in $(datadir)/pip; the tests' copy uses the source).
pipgdbdir = $(datadir)/pip
dist_pipgdb_DATA = libpip/tools/pip-gdb.py
check_SCRIPTS += libpip/tests/pip-gdb
CLEANFILES += libpip/pip-gdb libpip/tests/pip-gdb
EXTRA_DIST += libpip/tools/pip-gdb.in
libpip/pip-gdb: $(top_srcdir)/libpip/tools/pip-gdb.in Makefile
	$(AM_V_GEN)$(MKDIR_P) libpip && rm -f $@ $@.tmp && \
	sed -e 's|[@]PIPGDB_PY[@]|$(pipgdbdir)/pip-gdb.py|g' \
	    -e 's|[@]PIP_API_VERSION[@]|$(PIP_API_VERSION)|g' \
	    $(top_srcdir)/libpip/tools/pip-gdb.in >$@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@
libpip/tests/pip-gdb: $(top_srcdir)/libpip/tools/pip-gdb.in Makefile
	$(AM_V_GEN)$(MKDIR_P) libpip/tests && rm -f $@ $@.tmp && \
	sed -e 's|[@]PIPGDB_PY[@]|$(abs_top_srcdir)/libpip/tools/pip-gdb.py|g' \
	    -e 's|[@]PIP_API_VERSION[@]|$(PIP_API_VERSION)|g' \
	    $(top_srcdir)/libpip/tools/pip-gdb.in >$@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@

# After `make install` (make distcheck runs this): the installed pipcc
# builds a task and a root that work standalone and under pip-exec.
installcheck-local: installcheck-libpip
installcheck-libpip:
	@set -e; d=`mktemp -d`; trap 'rm -rf "$$d"' EXIT; \
	"$(DESTDIR)$(bindir)/pipcc" -o "$$d/task" $(abs_top_srcdir)/libpip/tests/pipcc_task.c; \
	"$(DESTDIR)$(bindir)/pipcc" --piproot -o "$$d/root" $(abs_top_srcdir)/libpip/tests/pipcc_root.c; \
	"$$d/task" 7 >"$$d/out1"; grep -q '^task standalone tls 1007 global 1$$' "$$d/out1"; \
	"$(DESTDIR)$(bindir)/pip-exec" -n 2 "$$d/task" 5 >"$$d/out2"; \
	test `grep -c '^task pipid [01] tls 1005 global 1$$' "$$d/out2"` -eq 2; \
	"$$d/root" 3 "$$d/task" >"$$d/out3"; grep -q '^root ok 3$$' "$$d/out3"; \
	"$(DESTDIR)$(bindir)/pip-check" -r "$$d/root"; \
	"$(DESTDIR)$(bindir)/pip-check" -t "$$d/task"; \
	test "`$(DESTDIR)$(libdir)/libpip.so --version`" = "$(PIP_API_VERSION)"; \
	test "`PIP_MODE=thread $(DESTDIR)$(bindir)/printpipmode`" = pthread; \
	"$(DESTDIR)$(bindir)/pip-gdb" -h | grep -q 'pip-gdb -p PID'; \
	test -r "$(DESTDIR)$(pipgdbdir)/pip-gdb.py"; \
	if command -v gfortran >/dev/null 2>&1; then \
	  printf 'program h\n  print *, 1\nend program h\n' >"$$d/h.f90"; \
	  "$(DESTDIR)$(bindir)/pipfc" -o "$$d/h" "$$d/h.f90"; \
	  test `"$(DESTDIR)$(bindir)/pip-exec" -n 2 "$$d/h" | grep -c 1` -eq 2; \
	fi; \
	echo "installcheck-libpip: installed pipcc, pipfc, pip-exec, pip-check, printpipmode, pip-gdb and libpip.so work"

# --- benchmark: make bench ---------------------------------------------------
# Spawn+reap of one task: libpip (both modes) against posix_spawn+waitpid
# and pthread_create+join, measured in the same run.
noinst_PROGRAMS += libpip/bench/pip_bench_spawn
libpip_bench_pip_bench_spawn_SOURCES = libpip/bench/pip_bench_spawn.c
libpip_bench_pip_bench_spawn_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_bench_pip_bench_spawn_CFLAGS = $(AM_CFLAGS) -fPIE
libpip_bench_pip_bench_spawn_LDFLAGS = $(AM_LDFLAGS) -pie -rdynamic -no-install
libpip_bench_pip_bench_spawn_LDADD = libpip/libpip.la -ldl -lpthread -lm
# Cost per task from 1 to 256 tasks (spawn time, RSS, page tables) against
# as many posix_spawn'ed processes.
noinst_PROGRAMS += libpip/bench/pip_bench_scale libpip/bench/pip_bench_task
libpip_bench_pip_bench_scale_SOURCES = libpip/bench/pip_bench_scale.c
libpip_bench_pip_bench_scale_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_bench_pip_bench_scale_CFLAGS = $(AM_CFLAGS) -fPIE
libpip_bench_pip_bench_scale_LDFLAGS = $(AM_LDFLAGS) -pie -rdynamic -no-install
libpip_bench_pip_bench_scale_LDADD = libpip/libpip.la
libpip_bench_pip_bench_task_SOURCES = libpip/bench/pip_bench_task.c
libpip_bench_pip_bench_task_CFLAGS = $(PIP_TASK_CF)
libpip_bench_pip_bench_task_LDFLAGS = $(PIP_TASK_LDF)
# Memory of ended tasks: 10,000 short process-mode tasks, 64 alive at a
# time, measured with none alive every 1000; make check runs 3000
# (test_pip_churn.sh).
noinst_PROGRAMS += libpip/bench/pip_bench_churn
libpip_bench_pip_bench_churn_SOURCES = libpip/bench/pip_bench_churn.c
libpip_bench_pip_bench_churn_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_bench_pip_bench_churn_LDFLAGS = $(AM_LDFLAGS) -no-install
libpip_bench_pip_bench_churn_LDADD = libpip/libpip.la
TESTS += libpip/tests/test_pip_churn.sh
EXTRA_DIST += libpip/tests/test_pip_churn.sh
BENCH_TARGETS += bench-pip
bench-pip: libpip/bench/pip_bench_spawn libpip/tests/task_nop libpip/bench/pip_bench_scale libpip/bench/pip_bench_task libpip/bench/pip_bench_churn
	$(top_builddir)/libpip/bench/pip_bench_spawn --prog $(top_builddir)/libpip/tests/task_nop --csv $(top_builddir)/libpip/bench/pip_bench_spawn.csv
	$(top_builddir)/libpip/bench/pip_bench_churn --tasks 10000 --alive 64 --drain --csv $(top_builddir)/libpip/bench/pip_bench_churn.csv /bin/true
	$(top_builddir)/libpip/bench/pip_bench_scale --csv $(top_builddir)/libpip/bench/pip_bench_scale.csv --plot $(top_builddir)/libpip/bench/pip_bench_scale.svg

# --- benchmark: make bench-pvas (the PVAS advantage, measured) ---------------
# pip_bench_pvas: driver and PiP root; pvas_task: the party program, run as a
# PiP task and as a plain process for the baselines (built like any task:
# PIP_TASK_CF, PIP_TASK_LIBPIP); pvas_mpi: the MPICH baseline.  README in
# libpip/bench/.  `make check` runs one tiny, untimed smoke run.
noinst_PROGRAMS += libpip/bench/pip_bench_pvas libpip/bench/pvas_task
libpip_bench_pip_bench_pvas_SOURCES = libpip/bench/pip_bench_pvas.c \
	libpip/bench/pvas_driver.h libpip/bench/pvas_driver.c \
	libpip/bench/pvas_mpich.c \
	libpip/bench/pvas_root.c libpip/bench/pvas_root.h \
	libpip/bench/pvas_report.c libpip/bench/pvas_report.h \
	libpip/bench/pvas_bench.h
libpip_bench_pip_bench_pvas_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_bench_pip_bench_pvas_CFLAGS = $(AM_CFLAGS) -fPIE
libpip_bench_pip_bench_pvas_LDFLAGS = $(AM_LDFLAGS) -pie -rdynamic -no-install
libpip_bench_pip_bench_pvas_LDADD = libpip/libpip.la -lm
libpip_bench_pvas_task_SOURCES = libpip/bench/pvas_task.c \
	libpip/bench/pvas_bench.h
libpip_bench_pvas_task_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_bench_pvas_task_CFLAGS = $(PIP_TASK_CF)
libpip_bench_pvas_task_LDFLAGS = $(PIP_TASK_LDF)
libpip_bench_pvas_task_LDADD = $(PIP_TASK_LIBPIP)
PVAS_BENCH_DEPS = libpip/bench/pip_bench_pvas libpip/bench/pvas_task
if HAVE_MPI
noinst_PROGRAMS += libpip/bench/pvas_mpi
libpip_bench_pvas_mpi_SOURCES = libpip/bench/pvas_mpi.c \
	libpip/bench/pvas_bench.h
libpip_bench_pvas_mpi_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
libpip_bench_pvas_mpi_LDFLAGS = $(AM_LDFLAGS) -no-install
libpip_bench_pvas_mpi_LDADD = $(MPI_LIBS)
PVAS_BENCH_DEPS += libpip/bench/pvas_mpi
endif
# PVAS_BENCH_ARGS: extra options, e.g. make bench-pvas PVAS_BENCH_ARGS='-r 21'
BENCH_TARGETS += bench-pvas
bench-pvas: $(PVAS_BENCH_DEPS)
	$(top_builddir)/libpip/bench/pip_bench_pvas \
	    --mpi-run $(abs_top_builddir)/test/mpi-run \
	    --csv $(top_builddir)/libpip/bench/pip_bench_pvas.csv \
	    --plot $(top_builddir)/libpip/bench/pvas-plots $(PVAS_BENCH_ARGS)
TESTS += libpip/bench/test_pip_bench_pvas.sh
EXTRA_DIST += libpip/bench/test_pip_bench_pvas.sh
# --- end of the PVAS benchmark ------------------------------------------------

# --- tests -------------------------------------------------------------------
# Task programs are built the way users build them: plain `cc -fPIE -pie
# -rdynamic`, never with the sanitizer flags (a task's code runs under its
# own namespace's libc, where the sanitizer runtime is not loaded).
PIP_TASK_CF = -std=gnu11 $(WARN_CFLAGS) -fPIE
PIP_TASK_LDF = -pie -rdynamic -no-install
# The libpip a task program links.  In a sanitizer build libpip.so itself
# is instrumented and needs libasan, which cannot be loaded a second time
# into a task's namespace (ASan aborts: "runtime does not come first" /
# "shadow memory range interleaves").  Tasks that use the API then link an
# uninstrumented copy built from the same sources (the root's libpip stays
# instrumented; the root finds the task's copy by its pip_ns_link_ symbol).
if PVAS_SANITIZERS
check_LTLIBRARIES += libpip/libpip_task.la
libpip_libpip_task_la_SOURCES = $(libpip_libpip_la_SOURCES)
nodist_libpip_libpip_task_la_SOURCES = $(nodist_libpip_libpip_la_SOURCES)
libpip_libpip_task_la_CPPFLAGS = $(libpip_libpip_la_CPPFLAGS)
libpip_libpip_task_la_CFLAGS = -std=gnu11 $(WARN_CFLAGS) -fvisibility=hidden \
	$(PVAS_TLS_DIALECT)
libpip_libpip_task_la_LDFLAGS = -rpath $(abs_top_builddir)/libpip/.libs \
	-version-info 0:0:0 -Wl,-e,pip_libmain_entry
libpip_libpip_task_la_LIBADD = $(PVAS_LOG_TASK_LIB) -ldl -lpthread
PIP_TASK_LIBPIP = libpip/libpip_task.la
else
PIP_TASK_LIBPIP = libpip/libpip.la
endif
check_PROGRAMS += libpip/tests/task_nop libpip/tests/task_plain \
	libpip/tests/task_tls libpip/tests/task_api \
	libpip/tests/task_nopie libpip/tests/task_nordyn \
	libpip/tests/task_nordyn_stripped libpip/tests/task_stdio \
	libpip/tests/task_compat \
	libpip/tests/task_scale libpip/tests/task_preload
# PIP_NS_PRELOAD (test_pip_spawn): a library task_preload does not link
check_LTLIBRARIES += libpip/tests/libpt_preload.la
libpip_tests_libpt_preload_la_SOURCES = libpip/tests/pt_preload.c
libpip_tests_libpt_preload_la_CFLAGS = -std=gnu11 $(WARN_CFLAGS)
libpip_tests_libpt_preload_la_LDFLAGS = -module -avoid-version \
	-rpath $(abs_top_builddir)/libpip/tests/.libs
libpip_tests_task_preload_SOURCES = libpip/tests/task_preload.c
libpip_tests_task_preload_CFLAGS = $(PIP_TASK_CF)
libpip_tests_task_preload_LDFLAGS = $(PIP_TASK_LDF)
libpip_tests_task_scale_SOURCES = libpip/tests/task_scale.c libpip/tests/ps_shared.h
libpip_tests_task_scale_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_task_scale_CFLAGS = $(PIP_TASK_CF)
libpip_tests_task_scale_LDFLAGS = $(PIP_TASK_LDF)
libpip_tests_task_scale_LDADD = $(PIP_TASK_LIBPIP)
libpip_tests_task_nop_SOURCES = libpip/tests/task_nop.c
libpip_tests_task_nop_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_task_nop_CFLAGS = $(PIP_TASK_CF)
libpip_tests_task_nop_LDFLAGS = $(PIP_TASK_LDF)
libpip_tests_task_plain_SOURCES = libpip/tests/task_plain.c
libpip_tests_task_plain_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_task_plain_CFLAGS = $(PIP_TASK_CF)
libpip_tests_task_plain_LDFLAGS = $(PIP_TASK_LDF)
libpip_tests_task_tls_SOURCES = libpip/tests/task_tls.c libpip/tests/pt_task.h
libpip_tests_task_tls_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_task_tls_CFLAGS = $(PIP_TASK_CF)
libpip_tests_task_tls_LDFLAGS = $(PIP_TASK_LDF)
libpip_tests_task_api_SOURCES = libpip/tests/task_api.c libpip/tests/pt_task.h
libpip_tests_task_api_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_task_api_CFLAGS = $(PIP_TASK_CF)
libpip_tests_task_api_LDFLAGS = $(PIP_TASK_LDF)
libpip_tests_task_api_LDADD = $(PIP_TASK_LIBPIP)
libpip_tests_task_compat_SOURCES = libpip/tests/task_compat.c
libpip_tests_task_compat_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_task_compat_CFLAGS = $(PIP_TASK_CF)
libpip_tests_task_compat_LDFLAGS = $(PIP_TASK_LDF)
libpip_tests_task_compat_LDADD = $(PIP_TASK_LIBPIP)
libpip_tests_task_stdio_SOURCES = libpip/tests/task_stdio.c
libpip_tests_task_stdio_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_task_stdio_CFLAGS = $(PIP_TASK_CF)
libpip_tests_task_stdio_LDFLAGS = $(PIP_TASK_LDF)
# A bad task for the loader's error cases: not a PIE.
libpip_tests_task_nopie_SOURCES = libpip/tests/task_nop.c
libpip_tests_task_nopie_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_task_nopie_CFLAGS = -std=gnu11 $(WARN_CFLAGS) -fno-pie
libpip_tests_task_nopie_LDFLAGS = -no-pie -rdynamic -no-install
# task_nordyn runs anyway (main and start functions from its .symtab);
# stripped as well, its symbols are really absent (ENOEXEC).
libpip_tests_task_nordyn_SOURCES = libpip/tests/task_nordyn.c
libpip_tests_task_nordyn_CFLAGS = $(PIP_TASK_CF)
libpip_tests_task_nordyn_LDFLAGS = -pie -no-install
libpip_tests_task_nordyn_stripped_SOURCES = libpip/tests/task_nordyn.c
libpip_tests_task_nordyn_stripped_CFLAGS = $(PIP_TASK_CF)
libpip_tests_task_nordyn_stripped_LDFLAGS = -pie -no-install -Wl,--strip-all

# Every libpip test program runs once per execution mode: the harness runs
# test_pip_X.process and test_pip_X.thread, two small scripts that set
# PIP_MODE and exec the program (so its argv[0] stays test_pip_X).  They are
# plain tests, not a TEST_EXTENSIONS pair: automake names the log of X.ext
# X.log, so two extensions of one program would share (and clobber) one log
# and only one mode would run.  Logs: test_pip_X.process.log / .thread.log.
PIP_TESTS = \
	libpip/tests/test_pip_init \
	libpip/tests/test_pip_spawn \
	libpip/tests/test_pip_wait \
	libpip/tests/test_pip_exit \
	libpip/tests/test_pip_export \
	libpip/tests/test_pip_barrier \
	libpip/tests/test_pip_signal \
	libpip/tests/test_pip_hooks \
	libpip/tests/test_pip_coreno \
	libpip/tests/test_pip_cloexec \
	libpip/tests/test_pip_stdio \
	libpip/tests/test_pip_privacy \
	libpip/tests/test_pip_tls \
	libpip/tests/test_pip_xmem \
	libpip/tests/test_pip_query \
	libpip/tests/test_pip_exec \
	libpip/tests/test_pip_scale \
	libpip/tests/test_pip_pips \
	libpip/tests/test_pip_compat
check_PROGRAMS += $(PIP_TESTS)
PIP_TESTS_BY_PROCESS = $(PIP_TESTS:=.process)
PIP_TESTS_BY_THREAD = $(PIP_TESTS:=.thread)
TESTS += $(PIP_TESTS_BY_PROCESS) $(PIP_TESTS_BY_THREAD)
CLEANFILES += $(PIP_TESTS_BY_PROCESS) $(PIP_TESTS_BY_THREAD)
$(PIP_TESTS_BY_PROCESS): %.process: %
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nPIP_MODE=process; export PIP_MODE\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
	chmod +x $@
$(PIP_TESTS_BY_THREAD): %.thread: %
	$(AM_V_GEN)rm -f $@ && \
	printf '#!/bin/sh\nPIP_MODE=thread; export PIP_MODE\nexec "$$(dirname "$$0")/%s" "$$@"\n' '$(<F)' >$@ && \
	chmod +x $@
PIP_TEST_CPPF = $(AM_CPPFLAGS) $(PIP_CPPFLAGS) -I$(top_srcdir)/libpip/tests
PIP_TEST_CF = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -fPIE
PIP_TEST_LDF = $(AM_LDFLAGS) -pie -rdynamic -no-install
PIP_TEST_LIBS = libpip/libpip.la test/libth.la $(CMOCKA_LIBS)
libpip_tests_test_pip_init_SOURCES = libpip/tests/test_pip_init.c libpip/tests/pt_util.h
libpip_tests_test_pip_init_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_init_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_init_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_init_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_spawn_SOURCES = libpip/tests/test_pip_spawn.c libpip/tests/pt_util.h
libpip_tests_test_pip_spawn_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_spawn_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_spawn_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_spawn_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_wait_SOURCES = libpip/tests/test_pip_wait.c libpip/tests/pt_util.h
libpip_tests_test_pip_wait_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_wait_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_wait_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_wait_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_exit_SOURCES = libpip/tests/test_pip_exit.c libpip/tests/pt_util.h
libpip_tests_test_pip_exit_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_exit_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_exit_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_exit_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_export_SOURCES = libpip/tests/test_pip_export.c libpip/tests/pt_util.h
libpip_tests_test_pip_export_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_export_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_export_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_export_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_barrier_SOURCES = libpip/tests/test_pip_barrier.c libpip/tests/pt_util.h
libpip_tests_test_pip_barrier_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_barrier_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_barrier_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_barrier_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_signal_SOURCES = libpip/tests/test_pip_signal.c libpip/tests/pt_util.h
libpip_tests_test_pip_signal_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_signal_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_signal_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_signal_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_hooks_SOURCES = libpip/tests/test_pip_hooks.c libpip/tests/pt_util.h
libpip_tests_test_pip_hooks_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_hooks_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_hooks_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_hooks_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_coreno_SOURCES = libpip/tests/test_pip_coreno.c libpip/tests/pt_util.h
libpip_tests_test_pip_coreno_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_coreno_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_coreno_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_coreno_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_cloexec_SOURCES = libpip/tests/test_pip_cloexec.c libpip/tests/pt_util.h
libpip_tests_test_pip_cloexec_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_cloexec_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_cloexec_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_cloexec_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_stdio_SOURCES = libpip/tests/test_pip_stdio.c libpip/tests/pt_util.h
libpip_tests_test_pip_stdio_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_stdio_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_stdio_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_stdio_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_privacy_SOURCES = libpip/tests/test_pip_privacy.c libpip/tests/pt_util.h
libpip_tests_test_pip_privacy_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_privacy_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_privacy_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_privacy_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_tls_SOURCES = libpip/tests/test_pip_tls.c libpip/tests/pt_util.h
libpip_tests_test_pip_tls_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_tls_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_tls_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_tls_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_xmem_SOURCES = libpip/tests/test_pip_xmem.c libpip/tests/pt_util.h
libpip_tests_test_pip_xmem_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_xmem_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_xmem_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_xmem_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_query_SOURCES = libpip/tests/test_pip_query.c libpip/tests/pt_util.h
libpip_tests_test_pip_query_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_query_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_query_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_query_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_exec_SOURCES = libpip/tests/test_pip_exec.c libpip/tests/pt_util.h
libpip_tests_test_pip_exec_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_exec_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_exec_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_exec_LDADD = $(PIP_TEST_LIBS)
libpip_tests_test_pip_compat_SOURCES = libpip/tests/test_pip_compat.c libpip/tests/pt_util.h
libpip_tests_test_pip_compat_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_compat_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_compat_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_compat_LDADD = $(PIP_TEST_LIBS) -ldl
libpip_tests_test_pip_scale_SOURCES = libpip/tests/test_pip_scale.c libpip/tests/pt_util.h libpip/tests/ps_shared.h
libpip_tests_test_pip_scale_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_scale_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_scale_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_scale_LDADD = $(PIP_TEST_LIBS)

# --- tests of the tools ------------------------------------------------------
# test_pip_pips runs per mode (in PIP_TESTS above); the others do not depend
# on the mode.  Helper programs: task_block (announces itself, blocks on
# stdin), task_bigtls (128 KiB of TLS), task_static, and two roots with a
# big and a too small TLS reserve (never run).
PIP_TOOL_TESTS = libpip/tests/test_pip_check libpip/tests/test_pip_unpie \
	libpip/tests/test_pip_mode libpip/tests/test_pip_pipcc
check_PROGRAMS += $(PIP_TOOL_TESTS) libpip/tests/task_block \
	libpip/tests/task_bigtls libpip/tests/task_static \
	libpip/tests/root_tls_big libpip/tests/root_tls_small
TESTS += $(PIP_TOOL_TESTS)
# pip-gdb on a running root, both modes (skips without gdb or ptrace).
check_PROGRAMS += libpip/tests/task_gdb
libpip_tests_task_gdb_SOURCES = libpip/tests/task_gdb.c
libpip_tests_task_gdb_CFLAGS = $(PIP_TASK_CF) -g
libpip_tests_task_gdb_LDFLAGS = $(PIP_TASK_LDF)
TESTS += libpip/tests/test_pip_gdb.sh
EXTRA_DIST += libpip/tests/test_pip_gdb.sh
# Every PiP 2.4.1 flag of libpip.so, pipcc, pipfc and pip-check; the
# compatibility table of libpip/README.md is complete.
TESTS += libpip/tests/test_pip_tools_flags.sh libpip/tests/test_pip_compat_table.sh
EXTRA_DIST += libpip/tests/test_pip_tools_flags.sh \
	libpip/tests/test_pip_compat_table.sh libpip/tests/pip241-names.txt \
	libpip/README.md
libpip_tests_task_block_SOURCES = libpip/tests/task_block.c
libpip_tests_task_block_CFLAGS = $(PIP_TASK_CF)
libpip_tests_task_block_LDFLAGS = $(PIP_TASK_LDF)
libpip_tests_task_bigtls_SOURCES = libpip/tests/task_bigtls.c
libpip_tests_task_bigtls_CFLAGS = $(PIP_TASK_CF)
libpip_tests_task_bigtls_LDFLAGS = $(PIP_TASK_LDF)
libpip_tests_task_static_SOURCES = libpip/tests/task_nop.c
libpip_tests_task_static_CFLAGS = -std=gnu11 $(WARN_CFLAGS)
libpip_tests_task_static_LDFLAGS = -all-static -no-install
libpip_tests_root_tls_big_SOURCES = libpip/tests/root_tls.c
libpip_tests_root_tls_big_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS) -DROOT_RESERVE=65536
libpip_tests_root_tls_big_CFLAGS = $(PIP_TASK_CF)
libpip_tests_root_tls_big_LDFLAGS = $(PIP_TASK_LDF)
libpip_tests_root_tls_big_LDADD = libpip/libpip.la
libpip_tests_root_tls_small_SOURCES = libpip/tests/root_tls.c
libpip_tests_root_tls_small_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS) -DROOT_RESERVE=1024
libpip_tests_root_tls_small_CFLAGS = $(PIP_TASK_CF)
libpip_tests_root_tls_small_LDFLAGS = $(PIP_TASK_LDF)
libpip_tests_root_tls_small_LDADD = libpip/libpip.la
PIP_TOOL_TEST_CF = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
PIP_TOOL_TEST_LDF = $(AM_LDFLAGS) -no-install
PIP_TOOL_TEST_LIBS = test/libth.la $(CMOCKA_LIBS)
libpip_tests_test_pip_check_SOURCES = libpip/tests/test_pip_check.c libpip/tests/pt_tool.h
libpip_tests_test_pip_check_CFLAGS = $(PIP_TOOL_TEST_CF)
libpip_tests_test_pip_check_LDFLAGS = $(PIP_TOOL_TEST_LDF)
libpip_tests_test_pip_check_LDADD = $(PIP_TOOL_TEST_LIBS)
libpip_tests_test_pip_unpie_SOURCES = libpip/tests/test_pip_unpie.c libpip/tests/pt_tool.h
libpip_tests_test_pip_unpie_CFLAGS = $(PIP_TOOL_TEST_CF)
libpip_tests_test_pip_unpie_LDFLAGS = $(PIP_TOOL_TEST_LDF)
libpip_tests_test_pip_unpie_LDADD = $(PIP_TOOL_TEST_LIBS)
libpip_tests_test_pip_mode_SOURCES = libpip/tests/test_pip_mode.c libpip/tests/pt_tool.h
libpip_tests_test_pip_mode_CFLAGS = $(PIP_TOOL_TEST_CF)
libpip_tests_test_pip_mode_LDFLAGS = $(PIP_TOOL_TEST_LDF)
libpip_tests_test_pip_mode_LDADD = $(PIP_TOOL_TEST_LIBS)
libpip_tests_test_pip_pipcc_SOURCES = libpip/tests/test_pip_pipcc.c libpip/tests/pt_tool.h
libpip_tests_test_pip_pipcc_CFLAGS = $(PIP_TOOL_TEST_CF)
libpip_tests_test_pip_pipcc_LDFLAGS = $(PIP_TOOL_TEST_LDF)
libpip_tests_test_pip_pipcc_LDADD = $(PIP_TOOL_TEST_LIBS)
libpip_tests_test_pip_pips_SOURCES = libpip/tests/test_pip_pips.c libpip/tests/pt_tool.h
libpip_tests_test_pip_pips_CPPFLAGS = $(PIP_TEST_CPPF)
libpip_tests_test_pip_pips_CFLAGS = $(PIP_TEST_CF)
libpip_tests_test_pip_pips_LDFLAGS = $(PIP_TEST_LDF)
libpip_tests_test_pip_pips_LDADD = $(PIP_TEST_LIBS)

# --- PiP-style programs (libpip/tests/pipcompat/) ------------------------------
# Written against PiP 2.4.1's documented API, built as PiP users build
# (cc -fPIE -pie -rdynamic, -lpip), each its own root spawning itself.
# pipcompat.sh runs them all in one mode and compares their outputs.
check_PROGRAMS += libpip/tests/pipcompat/pc_initfin \
	libpip/tests/pipcompat/pc_func libpip/tests/pipcompat/pc_wait \
	libpip/tests/pipcompat/pc_export libpip/tests/pipcompat/pc_barrier \
	libpip/tests/pipcompat/pc_signal libpip/tests/pipcompat/pc_exit \
	libpip/tests/pipcompat/pc_ctor libpip/tests/pipcompat/pc_fork \
	libpip/tests/pipcompat/pc_lifetime libpip/tests/pipcompat/pc_mode \
	libpip/tests/pipcompat/pc_texit
PIPCOMPAT_CF = -std=gnu11 $(WARN_CFLAGS) -fPIE
PIPCOMPAT_LDF = -pie -rdynamic -no-install
libpip_tests_pipcompat_pc_initfin_SOURCES = libpip/tests/pipcompat/pc_initfin.c libpip/tests/pipcompat/pc.h
libpip_tests_pipcompat_pc_initfin_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_pipcompat_pc_initfin_CFLAGS = $(PIPCOMPAT_CF)
libpip_tests_pipcompat_pc_initfin_LDFLAGS = $(PIPCOMPAT_LDF)
libpip_tests_pipcompat_pc_initfin_LDADD = $(PIP_TASK_LIBPIP)
libpip_tests_pipcompat_pc_func_SOURCES = libpip/tests/pipcompat/pc_func.c libpip/tests/pipcompat/pc.h
libpip_tests_pipcompat_pc_func_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_pipcompat_pc_func_CFLAGS = $(PIPCOMPAT_CF)
libpip_tests_pipcompat_pc_func_LDFLAGS = $(PIPCOMPAT_LDF)
libpip_tests_pipcompat_pc_func_LDADD = $(PIP_TASK_LIBPIP)
libpip_tests_pipcompat_pc_wait_SOURCES = libpip/tests/pipcompat/pc_wait.c libpip/tests/pipcompat/pc.h
libpip_tests_pipcompat_pc_wait_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_pipcompat_pc_wait_CFLAGS = $(PIPCOMPAT_CF)
libpip_tests_pipcompat_pc_wait_LDFLAGS = $(PIPCOMPAT_LDF)
libpip_tests_pipcompat_pc_wait_LDADD = $(PIP_TASK_LIBPIP)
libpip_tests_pipcompat_pc_export_SOURCES = libpip/tests/pipcompat/pc_export.c libpip/tests/pipcompat/pc.h
libpip_tests_pipcompat_pc_export_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_pipcompat_pc_export_CFLAGS = $(PIPCOMPAT_CF)
libpip_tests_pipcompat_pc_export_LDFLAGS = $(PIPCOMPAT_LDF)
libpip_tests_pipcompat_pc_export_LDADD = $(PIP_TASK_LIBPIP)
libpip_tests_pipcompat_pc_barrier_SOURCES = libpip/tests/pipcompat/pc_barrier.c libpip/tests/pipcompat/pc.h
libpip_tests_pipcompat_pc_barrier_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_pipcompat_pc_barrier_CFLAGS = $(PIPCOMPAT_CF)
libpip_tests_pipcompat_pc_barrier_LDFLAGS = $(PIPCOMPAT_LDF)
libpip_tests_pipcompat_pc_barrier_LDADD = $(PIP_TASK_LIBPIP)
libpip_tests_pipcompat_pc_signal_SOURCES = libpip/tests/pipcompat/pc_signal.c libpip/tests/pipcompat/pc.h
libpip_tests_pipcompat_pc_signal_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_pipcompat_pc_signal_CFLAGS = $(PIPCOMPAT_CF)
libpip_tests_pipcompat_pc_signal_LDFLAGS = $(PIPCOMPAT_LDF)
libpip_tests_pipcompat_pc_signal_LDADD = $(PIP_TASK_LIBPIP)
libpip_tests_pipcompat_pc_exit_SOURCES = libpip/tests/pipcompat/pc_exit.c libpip/tests/pipcompat/pc.h
libpip_tests_pipcompat_pc_exit_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_pipcompat_pc_exit_CFLAGS = $(PIPCOMPAT_CF)
libpip_tests_pipcompat_pc_exit_LDFLAGS = $(PIPCOMPAT_LDF)
libpip_tests_pipcompat_pc_exit_LDADD = $(PIP_TASK_LIBPIP)
libpip_tests_pipcompat_pc_ctor_SOURCES = libpip/tests/pipcompat/pc_ctor.c libpip/tests/pipcompat/pc.h
libpip_tests_pipcompat_pc_ctor_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_pipcompat_pc_ctor_CFLAGS = $(PIPCOMPAT_CF)
libpip_tests_pipcompat_pc_ctor_LDFLAGS = $(PIPCOMPAT_LDF)
libpip_tests_pipcompat_pc_ctor_LDADD = $(PIP_TASK_LIBPIP)
libpip_tests_pipcompat_pc_fork_SOURCES = libpip/tests/pipcompat/pc_fork.c libpip/tests/pipcompat/pc.h
libpip_tests_pipcompat_pc_fork_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_pipcompat_pc_fork_CFLAGS = $(PIPCOMPAT_CF)
libpip_tests_pipcompat_pc_fork_LDFLAGS = $(PIPCOMPAT_LDF)
libpip_tests_pipcompat_pc_fork_LDADD = $(PIP_TASK_LIBPIP)
libpip_tests_pipcompat_pc_lifetime_SOURCES = libpip/tests/pipcompat/pc_lifetime.c libpip/tests/pipcompat/pc.h
libpip_tests_pipcompat_pc_lifetime_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_pipcompat_pc_lifetime_CFLAGS = $(PIPCOMPAT_CF)
libpip_tests_pipcompat_pc_lifetime_LDFLAGS = $(PIPCOMPAT_LDF)
libpip_tests_pipcompat_pc_lifetime_LDADD = $(PIP_TASK_LIBPIP)
libpip_tests_pipcompat_pc_mode_SOURCES = libpip/tests/pipcompat/pc_mode.c libpip/tests/pipcompat/pc.h
libpip_tests_pipcompat_pc_mode_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_pipcompat_pc_mode_CFLAGS = $(PIPCOMPAT_CF)
libpip_tests_pipcompat_pc_mode_LDFLAGS = $(PIPCOMPAT_LDF)
libpip_tests_pipcompat_pc_mode_LDADD = $(PIP_TASK_LIBPIP)
libpip_tests_pipcompat_pc_texit_SOURCES = libpip/tests/pipcompat/pc_texit.c libpip/tests/pipcompat/pc.h
libpip_tests_pipcompat_pc_texit_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
libpip_tests_pipcompat_pc_texit_CFLAGS = $(PIPCOMPAT_CF)
libpip_tests_pipcompat_pc_texit_LDFLAGS = $(PIPCOMPAT_LDF)
libpip_tests_pipcompat_pc_texit_LDADD = $(PIP_TASK_LIBPIP)
PIPCOMPAT_TESTS = libpip/tests/pipcompat/pipcompat.process \
	libpip/tests/pipcompat/pipcompat.thread
TESTS += $(PIPCOMPAT_TESTS)
CLEANFILES += $(PIPCOMPAT_TESTS)
$(PIPCOMPAT_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) libpip/tests/pipcompat && rm -f $@ && \
	printf '#!/bin/sh\nexec sh "%s" %s "%s"\n' \
	    '$(abs_top_srcdir)/libpip/tests/pipcompat/pipcompat.sh' \
	    '$(subst .,,$(suffix $@))' \
	    '$(abs_top_builddir)/libpip/tests/pipcompat' >$@ && \
	chmod +x $@
# PiP's tools as PiP's scripts use them (pc_tools.sh), both modes.
PIPCOMPAT_TOOL_TESTS = libpip/tests/pipcompat/pc_tools.process \
	libpip/tests/pipcompat/pc_tools.thread
TESTS += $(PIPCOMPAT_TOOL_TESTS)
CLEANFILES += $(PIPCOMPAT_TOOL_TESTS)
$(PIPCOMPAT_TOOL_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) libpip/tests/pipcompat && rm -f $@ && \
	printf '#!/bin/sh\nexec sh "%s" %s "%s"\n' \
	    '$(abs_top_srcdir)/libpip/tests/pipcompat/pc_tools.sh' \
	    '$(subst .,,$(suffix $@))' '$(abs_top_builddir)' >$@ && \
	chmod +x $@

endif BUILD_LIBPIP


# --- ordinary programs as tasks (libpip/tests/realprog/) ----------------------
# rp_compare.sh runs a program alone and as 1, 8 and 64 tasks in both modes
# and compares the outputs.
EXTRA_DIST += libpip/tests/realprog/rp_compare.sh libpip/tests/realprog/rp_cxx.cc \
	libpip/tests/test_pip_cxx.sh libpip/tests/test_pip_realprog.sh \
	libpip/tests/test_pip_usererr.sh
if BUILD_LIBPIP
TESTS += libpip/tests/test_pip_cxx.sh libpip/tests/test_pip_realprog.sh \
	libpip/tests/test_pip_usererr.sh
RP_PROGS = libpip/tests/realprog/rp_thrtls libpip/tests/realprog/rp_getopt \
	libpip/tests/realprog/rp_stdio libpip/tests/realprog/rp_alarm
check_PROGRAMS += $(RP_PROGS)
RP_CF = -std=gnu11 $(WARN_CFLAGS) -fPIE
RP_LDF = -pie -rdynamic -no-install
libpip_tests_realprog_rp_thrtls_SOURCES = libpip/tests/realprog/rp_thrtls.c
libpip_tests_realprog_rp_thrtls_CFLAGS = $(RP_CF) -pthread
libpip_tests_realprog_rp_thrtls_LDFLAGS = $(RP_LDF) -pthread
libpip_tests_realprog_rp_getopt_SOURCES = libpip/tests/realprog/rp_getopt.c
libpip_tests_realprog_rp_getopt_CFLAGS = $(RP_CF)
libpip_tests_realprog_rp_getopt_LDFLAGS = $(RP_LDF)
libpip_tests_realprog_rp_stdio_SOURCES = libpip/tests/realprog/rp_stdio.c
libpip_tests_realprog_rp_stdio_CFLAGS = $(RP_CF)
libpip_tests_realprog_rp_stdio_LDFLAGS = $(RP_LDF)
libpip_tests_realprog_rp_alarm_SOURCES = libpip/tests/realprog/rp_alarm.c
libpip_tests_realprog_rp_alarm_CFLAGS = $(RP_CF)
libpip_tests_realprog_rp_alarm_LDFLAGS = $(RP_LDF)
endif

# Real programs from Debian sources (apt-get source: GNU hello, figlet,
# lzip), built as PIEs and run as 1, 8 and 64 tasks in both modes, by
# make check (test_pip_debian_corpus.sh) and make check-long; skipped
# without apt-get, a compiler or the network.  Sources and builds are
# kept in libpip/corpus/ of the build tree.
EXTRA_DIST += libpip/tests/realprog/debian_corpus.sh \
	libpip/tests/test_pip_debian_corpus.sh
# The fetched sources and their builds outlive make clean (fetching them
# again is slow) and go with make distclean.
distclean-local: distclean-local-corpus
distclean-local-corpus:
	-rm -rf libpip/corpus
.PHONY: distclean-local-corpus
# Debian's sqlite3, seq, sort, sed, gzip, dash and the tree's C++, pthread,
# OpenMP and Fortran programs as 1, 16, 64 and 256 process-mode tasks
# (1024 in make check-long), each task's output file and status compared
# byte for byte with a direct run.
EXTRA_DIST += libpip/tests/test_pip_corpus.sh \
	libpip/tests/realprog/pip_corpus.sh libpip/tests/realprog/rp_cxxf.cc \
	libpip/tests/realprog/rp_pth.c libpip/tests/realprog/rp_omp.c \
	libpip/tests/realprog/rp_ftn.f90
if BUILD_LIBPIP
TESTS += libpip/tests/test_pip_corpus.sh
TESTS += libpip/tests/test_pip_debian_corpus.sh
CHECK_LONG_TARGETS += pip-check-long
pip-check-long: libpip/pip-exec
	@PIP_EXEC=$(abs_top_builddir)/libpip/pip-exec; export PIP_EXEC; \
	$(SHELL) $(abs_top_srcdir)/libpip/tests/realprog/debian_corpus.sh \
	    $(abs_top_builddir)/libpip/corpus; rc=$$?; \
	test $$rc -eq 0 || test $$rc -eq 77
	@PIP_EXEC=$(abs_top_builddir)/libpip/pip-exec; export PIP_EXEC; \
	abs_top_srcdir=$(abs_top_srcdir); export abs_top_srcdir; \
	CORPUS_N=1024; export CORPUS_N; \
	$(SHELL) $(abs_top_srcdir)/libpip/tests/test_pip_corpus.sh; rc=$$?; \
	test $$rc -eq 0 || test $$rc -eq 77
endif
