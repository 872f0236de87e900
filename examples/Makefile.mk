# SPDX-License-Identifier: BSD-2-Clause
# examples/Makefile.mk: small programs that show each part of the tree.

EXTRA_DIST += examples/README.md

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
