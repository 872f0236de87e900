# SPDX-License-Identifier: BSD-2-Clause
# examples/Makefile.mk: small programs that show each part of the tree.

EXTRA_DIST += examples/README.md examples/stencil/README.md \
	examples/stencil/DESIGN.md examples/bench/RESULTS.md \
	examples/stencil/test_stencil.sh
FORMAT_FILES += examples/stencil/stencil.c examples/stencil/stencil_ft.c \
	examples/stencil/stencil_ckpt.c examples/stencil/stencil_kernel.c \
	examples/stencil/stencil_opts.c examples/stencil/stencil.h

if BUILD_EXAMPLES
if BUILD_LIBPIP
# The main demo: `pip-exec -n 8 examples/pip_demo`.  Built like any PiP
# task (a PIE exporting its symbols) with `make`, run by `make demo` and, in
# both modes, by `make check`.
noinst_PROGRAMS += examples/pip_demo
examples_pip_demo_SOURCES = examples/pip_demo.c
examples_pip_demo_CPPFLAGS = $(AM_CPPFLAGS) $(PIP_CPPFLAGS)
examples_pip_demo_CFLAGS = -std=gnu11 $(WARN_CFLAGS) -fPIE
examples_pip_demo_LDFLAGS = -pie -rdynamic -no-install
examples_pip_demo_LDADD = $(PIP_TASK_LIBPIP)

DEMO_TARGETS += demo-pip
demo-pip: libpip/pip-exec examples/pip_demo
	@echo "== pip-exec -n 8 examples/pip_demo (process mode) =="
	PIP_MODE=process $(top_builddir)/libpip/pip-exec -n 8 $(top_builddir)/examples/pip_demo
	@echo "== pip-exec -n 8 examples/pip_demo (thread mode) =="
	PIP_MODE=thread $(top_builddir)/libpip/pip-exec -n 8 $(top_builddir)/examples/pip_demo

TESTS += examples/test_pip_demo.sh
EXTRA_DIST += examples/test_pip_demo.sh
.PHONY: demo-pip
endif BUILD_LIBPIP
endif BUILD_EXAMPLES

if BUILD_EXAMPLES
if BUILD_FT_AGREE
if BUILD_SPARE
if BUILD_STORAGE_WIN
# The end-to-end demo: a Jacobi stencil that survives killed processes
# (ft-agree), with spare nodes and sliding (libspare) and checkpoints in
# storage windows (libmpi-storagewin).  ft-agree's library comes first in
# the link: both interpose MPI_Barrier and MPI_Finalize, and after a
# failure only ft-agree's may run (PMPI_Finalize would wait for the dead).
noinst_PROGRAMS += examples/stencil/stencil
examples_stencil_stencil_SOURCES = examples/stencil/stencil.c \
	examples/stencil/stencil_ft.c examples/stencil/stencil_ckpt.c \
	examples/stencil/stencil_kernel.c examples/stencil/stencil_opts.c \
	examples/stencil/stencil.h
examples_stencil_stencil_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/ft-agree/include -I$(top_srcdir)/spare/include \
	-I$(top_srcdir)/storage-win/include
examples_stencil_stencil_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
examples_stencil_stencil_LDADD = ft-agree/libftagree.la \
	storage-win/libmpi-storagewin.la spare/libspare.la $(MPI_LIBS) -lm
examples_stencil_stencil_LDFLAGS = $(AM_LDFLAGS) -no-install

TESTS += examples/stencil/test_stencil.sh

# 1, 2 and 3 failures with 0D, 1D and hybrid(all), 2-D on 3x3 (9
# processes) and 3-D on 2x2x2 (8), against failure-free runs.
CHECK_LONG_TARGETS += stencil-check-long
stencil-check-long: examples/stencil/stencil test/mpi-run
	abs_top_builddir='$(abs_top_builddir)' abs_top_srcdir='$(abs_top_srcdir)' \
	MPI_RUN='$(abs_top_builddir)/test/mpi-run' \
	STENCIL_LONG=1 $(SHELL) $(top_srcdir)/examples/stencil/test_stencil.sh

# The demo with failures (README: examples/stencil/README.md): the report
# of the survivors; it must end in "stencil: OK" (mpiexec itself exits with
# the killed ranks' status).
demo-stencil: examples/stencil/stencil test/mpi-run
	@MPIEXEC='$(abs_top_srcdir)/ft-agree/tests/fta-mpiexec' \
	$(abs_top_builddir)/test/mpi-run -n 4 -t 120 \
	$(abs_top_builddir)/examples/stencil/stencil -d 2x2 -m 'hybrid(all)' \
	-i 60 -k 10 --kill 23:1,41:0 2>&1 | tee stencil-demo.log
	@grep -q '^stencil: OK' stencil-demo.log
CLEANFILES += stencil-demo.log
endif BUILD_STORAGE_WIN
endif BUILD_SPARE
endif BUILD_FT_AGREE
endif BUILD_EXAMPLES
