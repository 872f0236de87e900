#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The failure detector over UDP sockets, the fallback (fta-fd-kill.sh).
exec sh "${abs_top_srcdir:-.}/ft-agree/tests/fta-fd-kill.sh" udp
