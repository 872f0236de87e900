#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The failure detector over libfabric's sockets provider (fta-fd-kill.sh);
# skipped where the provider is missing.
exec sh "${abs_top_srcdir:-.}/ft-agree/tests/fta-fd-kill.sh" fabric sockets
