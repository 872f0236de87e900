# SPDX-License-Identifier: BSD-2-Clause
# pip-gdb.py: teach a stock gdb (13 and later) the PiP tasks of a root.
#
# Each PiP task lives in a glibc namespace of its own (dlmopen), with its
# own copies of its program and libraries.  gdb 13 follows only the base
# namespace, so it sees neither the tasks' functions nor their frames.
# This script walks glibc's list of namespaces (_r_debug_extended, glibc
# 2.35 and later) in the inferior and adds every object of every other
# namespace with add-symbol-file at its load address.  A task's program is
# loaded by libpip from a private copy (a memfd named pip:PROG); its
# symbols are read from the program file itself, found in the root's
# registry of tasks (the memfd pip-registry), or else from memory.
#
# A process-mode task with a private image runs its own copy of the loader,
# with its own r_debug, which the root's registry names: attached to such a
# task's PID, the script adds the objects of that link map.
#
# Loaded by pip-gdb (gdb -x pip-gdb.py).  Commands:
#   pip-symbols     load the symbols of namespaces not seen yet (also done
#                   on attach and each time glibc loads or unloads objects)
#   pip-tasks       list what was loaded, namespace by namespace
import os
import struct

import gdb

_loaded = {}  # (path, l_addr) -> namespace index
_ptr = 8


def _inferior():
    try:
        inf = gdb.selected_inferior()
    except gdb.error:
        return None
    if inf is None or inf.pid == 0:
        return None
    return inf


def _read(inf, addr, size):
    return bytes(inf.read_memory(addr, size))


def _u64(inf, addr):
    return struct.unpack("<Q", _read(inf, addr, 8))[0]


def _i32(inf, addr):
    return struct.unpack("<i", _read(inf, addr, 4))[0]


def _cstr(inf, addr, limit=4096):
    if addr == 0:
        return ""
    out = b""
    while len(out) < limit:
        chunk = _read(inf, addr + len(out), 64)
        nul = chunk.find(b"\0")
        if nul >= 0:
            return (out + chunk[:nul]).decode("utf-8", "replace")
        out += chunk
    return out.decode("utf-8", "replace")


def _r_debug_addr():
    try:
        return int(gdb.parse_and_eval("(long)&_r_debug"))
    except gdb.error:
        return 0


def _ppid(pid):
    """The parent of pid, or None."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("PPid:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _registries(cands):
    """(pid, contents) of each libpip task registry (a memfd named
    pip-registry) that a process of cands holds open."""
    for p in cands:
        fddir = "/proc/%d/fd" % p
        try:
            fds = os.listdir(fddir)
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(os.path.join(fddir, fd))
                if not link.startswith("/memfd:pip-registry"):
                    continue
                with open(os.path.join(fddir, fd), "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if len(data) >= 272:
                yield p, data


def _entries(data):
    """Offsets of the task entries of a registry's contents."""
    hsize, esize = struct.unpack_from("<II", data, 12)
    ntasks = struct.unpack_from("<i", data, 36)[0]
    for i in range(max(ntasks, 0)):
        off = hsize + i * esize
        if off + esize > len(data):
            break
        yield off, esize


def _entry_prog(data, off, esize, p):
    """An entry's program path, absolute (relative ones from the root's
    working directory)."""
    raw = data[off + 32 : off + esize].split(b"\0")[0]
    prog = raw.decode("utf-8", "replace")
    if prog and not prog.startswith("/"):
        try:
            cwd = os.readlink("/proc/%d/cwd" % p)
            prog = os.path.normpath(os.path.join(cwd, prog))
        except OSError:
            pass
    return prog


def _registry_progs(pid):
    """Program paths of the tasks in the root's registry, by base name."""
    parent = _ppid(pid)
    cands = [pid] + ([parent] if parent is not None else [])
    for p, data in _registries(cands):
        progs = {}
        for off, esize in _entries(data):
            prog = _entry_prog(data, off, esize, p)
            progs.setdefault(os.path.basename(prog), prog)
        return progs
    return {}


def _private_image(pid):
    """(r_debug address, program path) of the private-image task whose
    process is pid, from its root's registry, or (0, "")."""
    parent = _ppid(pid)
    for p, data in _registries([parent] if parent is not None else []):
        for off, esize in _entries(data):
            state, tpid = struct.unpack_from("<ii", data, off + 4)
            rdebug = struct.unpack_from("<q", data, off + 24)[0]
            if state == 2 and tpid == pid and rdebug != 0:
                return rdebug, _entry_prog(data, off, esize, p)
    return 0, ""


def load_private_image(verbose=False):
    """A process-mode task with a private image: its own loader's link map
    (the program, its libraries, its loader copy)."""
    inf = _inferior()
    if inf is None:
        return 0
    rd, prog = _private_image(inf.pid)
    if rd == 0:
        return 0
    added = 0
    lm = _u64(inf, rd + 8)  # r_map
    first = True
    seen = 0
    while lm != 0 and seen < 4096:
        seen += 1
        l_addr = _u64(inf, lm)
        name = _cstr(inf, _u64(inf, lm + 8))
        lm = _u64(inf, lm + 24)  # l_next
        path = prog if first else name
        first = False
        if not path or not os.path.isfile(path) or (path, l_addr) in _loaded:
            continue
        _add(path, l_addr, 0)
        added += 1
        if verbose:
            gdb.write("pip-gdb: private image: %s at 0x%x\n" % (path, l_addr))
    return added


def _mapped_name(pid, addr):
    """The file name /proc/PID/maps gives for the mapping holding addr."""
    try:
        with open("/proc/%d/maps" % pid) as f:
            for line in f:
                parts = line.split(None, 5)
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                if lo <= addr < hi and len(parts) == 6:
                    return parts[5].strip()
    except OSError:
        pass
    return ""


def _add(path, l_addr, ns, from_memory_at=None):
    try:
        if from_memory_at is not None:
            gdb.execute("add-symbol-file-from-memory 0x%x" % from_memory_at,
                        to_string=True)
        else:
            gdb.execute("add-symbol-file %s -o 0x%x" % (path, l_addr),
                        to_string=True)
    except gdb.error as e:
        gdb.write("pip-gdb: %s: %s\n" % (path, e), gdb.STDERR)
        return
    _loaded[(path, l_addr)] = ns


def load_namespaces(verbose=False):
    inf = _inferior()
    if inf is None:
        return 0
    rd = _r_debug_addr()
    if rd == 0:
        return 0
    if _i32(inf, rd) < 2:  # no r_debug_extended: a single namespace
        return 0
    progs = None
    added = 0
    ns = 0
    cur = _u64(inf, rd + 40)  # r_next of the base namespace
    while cur != 0 and ns < 64:
        ns += 1
        lm = _u64(inf, cur + 8)  # r_map
        seen = 0
        while lm != 0 and seen < 4096:
            seen += 1
            l_addr = _u64(inf, lm)
            name = _cstr(inf, _u64(inf, lm + 8))
            l_ld = _u64(inf, lm + 16)
            lm = _u64(inf, lm + 24)  # l_next
            if not name or "ld-linux" in os.path.basename(name):
                continue  # the dynamic linker is shared by all namespaces
            path = name
            mapped = _mapped_name(inf.pid, l_ld)
            if not os.path.isfile(path) or mapped.startswith("/memfd:"):
                # libpip's private copy of a task program: find the file.
                base = mapped[len("/memfd:pip:"):].split(" ")[0] if \
                    mapped.startswith("/memfd:pip:") else os.path.basename(name)
                if progs is None:
                    progs = _registry_progs(inf.pid)
                path = progs.get(base, "")
            if (path or name, l_addr) in _loaded:
                continue
            if path and os.path.isfile(path):
                _add(path, l_addr, ns)
            else:
                _add(name, l_addr, ns, from_memory_at=l_addr)
            added += 1
            if verbose:
                gdb.write("pip-gdb: namespace %d: %s at 0x%x\n" %
                          (ns, path or name, l_addr))
        cur = _u64(inf, cur + 40)
    return added


class PipSymbols(gdb.Command):
    """Load the symbols of every PiP task (every glibc namespace)."""

    def __init__(self):
        super().__init__("pip-symbols", gdb.COMMAND_FILES)

    def invoke(self, arg, from_tty):
        n = load_private_image(verbose=True) + load_namespaces(verbose=True)
        gdb.write("pip-gdb: %d object(s) added\n" % n)


class PipTasks(gdb.Command):
    """List the objects pip-gdb added, by namespace."""

    def __init__(self):
        super().__init__("pip-tasks", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        for (path, addr), ns in sorted(_loaded.items(), key=lambda x: x[1]):
            if ns == 0:
                gdb.write("private image: 0x%x %s\n" % (addr, path))
            else:
                gdb.write("namespace %d: 0x%x %s\n" % (ns, addr, path))


class _LoadHook(gdb.Breakpoint):
    """glibc calls _dl_debug_state after each change of a link map: load
    the namespaces then, and go on without stopping."""

    def __init__(self):
        super().__init__("_dl_debug_state", internal=True)
        self.silent = True

    def stop(self):
        try:
            load_namespaces()
        except gdb.error:
            pass
        return False


def _on_new_objfile(event):
    global _hook
    if _hook is None:
        try:
            _hook = _LoadHook()
        except gdb.error:
            _hook = None


_hook = None
PipSymbols()
PipTasks()
gdb.events.new_objfile.connect(_on_new_objfile)
if _inferior() is not None:  # attached (-p): load what is there now
    _on_new_objfile(None)
    load_private_image(verbose=True)
    load_namespaces(verbose=True)
