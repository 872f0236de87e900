#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# gen-pass.py: write mpich-netmod/src/nm_pass.c from MPICH's mpi_proto.h.
#
# Every C binding that takes an MPI_Comm by value gets a wrapper that
# replaces the application's MPI_COMM_WORLD by the client communicator
# (nm_xl) and calls the PMPI entry.  Calls matching REFUSE would refuse
# delegated communicators with MPI_ERR_UNSUPPORTED_OPERATION.  Calls
# implemented by hand (nm_p2p.c, nm_init.c, nm_persist.c, nm_sendrecv.c,
# nm_coll.c, nm_mpi.c)
# are skipped.
# MPI-IO's bindings are declared in mpio.h, not mpi_proto.h: give both (the
# shim must translate MPI_File_open's communicator, or a collective open on
# MPI_COMM_WORLD waits for the hidden delegatees forever).
#   tools/gen-pass.py /usr/include/x86_64-linux-gnu/mpich/mpi_proto.h \
#       /usr/include/x86_64-linux-gnu/mpich/mpio.h > src/nm_pass.c
import re, sys

HAND = set("""MPI_Send MPI_Ssend MPI_Rsend MPI_Bsend MPI_Isend MPI_Issend MPI_Irsend
MPI_Ibsend MPI_Recv MPI_Irecv MPI_Probe MPI_Iprobe MPI_Mprobe MPI_Improbe
MPI_Sendrecv MPI_Sendrecv_replace MPI_Comm_dup MPI_Comm_dup_with_info
MPI_Comm_split MPI_Comm_create MPI_Comm_free MPI_Comm_disconnect MPI_Cart_create
MPI_Comm_create_group MPI_Comm_split_type MPI_Graph_create MPI_Dist_graph_create
MPI_Dist_graph_create_adjacent MPI_Cart_sub MPI_Comm_idup
MPI_Comm_create_from_group MPI_Intercomm_create_from_groups
MPI_Isendrecv MPI_Isendrecv_replace MPI_Comm_dup_with_info
MPI_Send_init MPI_Ssend_init MPI_Rsend_init MPI_Bsend_init MPI_Recv_init
MPI_Send_c MPI_Ssend_c MPI_Rsend_c MPI_Bsend_c MPI_Isend_c MPI_Issend_c
MPI_Irsend_c MPI_Ibsend_c MPI_Recv_c MPI_Irecv_c MPI_Send_init_c
MPI_Ssend_init_c MPI_Rsend_init_c MPI_Bsend_init_c MPI_Recv_init_c
MPI_Sendrecv_c MPI_Sendrecv_replace_c MPI_Isendrecv_c
MPI_Isendrecv_replace_c MPI_Comm_set_errhandler MPI_Errhandler_set
MPI_Psend_init MPI_Precv_init
MPI_Barrier MPI_Bcast MPI_Reduce MPI_Allreduce MPI_Allgather MPI_Alltoall
MPI_Ibarrier MPI_Ibcast MPI_Ireduce MPI_Iallreduce MPI_Iallgather
MPI_Ialltoall MPI_Abort""".split())
# Refused on delegated communicators (none at present).
REFUSE = re.compile(r"^$")

src = "".join(open(f).read() for f in sys.argv[1:])
src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
out = []
for m in re.finditer(r"\bint\s+(MPI_\w+)\s*\(([^;{]*?)\)\s*[^;]*;", src):
    name, params = m.group(1), " ".join(m.group(2).split())
    if name in HAND or name.startswith(("MPI_T_", "MPIX_")) or re.match(r"^MPI_[A-Z_]+$", name):
        continue
    if params in ("void", ""):
        continue
    ps = [p.strip() for p in params.split(",")]
    if not any(re.match(r"^MPI_Comm\s+\w+$", p) for p in ps):
        continue
    names, decl = [], []
    for p in ps:
        a = re.match(r"^(.*?)(\w+)(\s*\[\s*\])?$", p)
        if not a:
            break
        names.append(a.group(2))
        decl.append(p)
    else:
        args = []
        comms = []
        for p, n in zip(ps, names):
            if re.match(r"^MPI_Comm\s+\w+$", p):
                args.append("nm_xl(%s)" % n)
                comms.append(n)
            else:
                args.append(n)
        body = ""
        if REFUSE.match(name):
            body = ("    if (nm_comm_delegated(%s))\n        return nm_refuse(%s, \"%s\");\n"
                    % (comms[0], comms[0], name))
        out.append("int %s(%s)\n{\n%s    return P%s(%s);\n}\n" %
                   (name, ", ".join(decl), body, name, ", ".join(args)))

print("/* SPDX-License-Identifier: BSD-2-Clause */")
print("/* nm_pass.c: MPI calls that take a communicator and pass straight to")
print(" * MPICH, with the application's MPI_COMM_WORLD replaced by the client")
print(" * communicator.  Written by tools/gen-pass.py from MPICH 4.0's mpi_proto.h")
print(" * and mpio.h;")
print(" * edit the generator, not this file, and format the output with the")
print(" * tree's .clang-format (clang-format -i). */")
print("#include \"nm_internal.h\"\n")
print("\n".join(out))
