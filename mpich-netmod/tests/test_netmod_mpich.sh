#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# MPICH's own point-to-point and collective test programs
# (test/mpi/pt2pt and test/mpi/coll of the MPICH source package; nothing of
# them is in this tree) pass unmodified under LD_PRELOAD across two boards,
# as they do directly.
#
#   MPIDELEG_MPICH_SRC=.../mpich-4.0.2 make check     (apt-get source mpich)
#
# Without it the test skips.  MPIDELEG_MPICH_TESTS overrides the list
# (DIR/NAME, or NAME for pt2pt/NAME).
src=${MPIDELEG_MPICH_SRC:-}
t=$src/test/mpi
if [ -z "$src" ] || [ ! -f "$t/util/mtest.c" ]; then
    echo "SKIP: set MPIDELEG_MPICH_SRC to an MPICH source tree (apt-get source mpich)"
    exit 77
fi
. "${abs_top_srcdir:-.}/mpich-netmod/tests/nm_common.sh"
command -v mpicc >/dev/null 2>&1 || { echo "SKIP: mpicc not found"; exit 77; }
# the harness (and dtpools, the datatype pools of allred, allred2, reduce
# and op_coll), compiled once
nm_mpich_harness "$t"
objs=$nm_harness
pt2pt="anyall sendrecv2 mprobe rcancel probe_unexp isendself waitany_null eagerdt bsend1 bsend2 recv_any cancelanysrc dtype_send sendall many_isend rqstatus bottom isendselfprobe probenull large_tag bsendfrag"
# test/mpi/coll: all but bcast (arguments of the GPU list), uop_equal
# (reads the result on every rank, not only the root: fails directly too),
# allgatherv4 (3 ranks at least: a minute with 3 ranks on 2 cores) and
# gather_big (8 ranks at least);
# nbNAME is NAME.c built with -DUSE_MTEST_NBC (the blocking collectives of
# the test as nonblocking ones + MPI_Wait), as MPICH builds it
coll="nonblocking nonblocking2 nonblocking3 coll_large allred allred2 allred3 allred4 allred5 allred6 allredmany
reduce reduce_local op_commutative op_coll red3 red4 uoplong
opband opbor opbxor opland oplor oplxor opmax opmaxloc opmin opminloc opprod opsum
bcasttest bcastzerotype alltoall1 alltoallv alltoallv0 alltoallw1 alltoallw2 alltoallw_zeros
allgather2 allgather3 allgatherv2 allgatherv3 allgather_struct
gather gather2 gatherv scattern scatter2 scatter3 scatterv iallred ibarrier
scantst exscan exscan2 redscat redscat2 redscat3 red_scat_block red_scat_block2
redscatblk3 redscatinter redscatbkinter
coll2 coll4 coll5 coll6 coll7 coll8 coll9 coll10 coll12 coll13 longuser
icbarrier icallreduce icbcast icgather icgatherv icallgather icallgatherv
icalltoall icalltoallv icalltoallw icreduce icscatter icscatterv
neighb_allgather neighb_allgatherv neighb_alltoall neighb_alltoallv neighb_alltoallw
ring_neighbor_alltoall
p_allgather p_allgatherv p_allred p_alltoall p_alltoallv p_alltoallw p_barrier
p_bcast p_bcast2 p_exscan p_gather p_gatherv p_neighb_allgather p_neighb_allgatherv
p_neighb_alltoall p_neighb_alltoallv p_neighb_alltoallw p_order p_red
p_red_scat_block p_redscat p_scan p_scatter p_scatterv
nballtoall1 nbredscat nbredscat3 nbredscatinter nbcoll2 nbicbarrier nbicallgather
nbicallgatherv nbicallreduce nbicalltoall nbicalltoallv nbicalltoallw nbicbcast
nbicgather nbicgatherv nbicreduce nbicscatter nbicscatterv"
progs=${MPIDELEG_MPICH_TESTS:-$pt2pt $(for c in $coll; do printf 'coll/%s ' $c; done)}
n=0
for dp in $progs; do
    case $dp in */*) ;; *) dp=pt2pt/$dp ;; esac
    p=${dp#*/} src=$t/$dp.c nbc=
    case $dp in
    coll/nb*) [ -f "$src" ] || { src=$t/coll/${p#nb}.c nbc=-DUSE_MTEST_NBC; } ;;
    esac
    if ! mpicc -w $nbc -I"$NM_TMP" -I"$t/include" -I"$NM_TMP/dtp/include" \
        -o "$NM_TMP/$p" "$src" $objs -lpthread -lm 2>"$NM_TMP/$p.cc"; then
        echo "FAIL $p: does not compile"; head -3 "$NM_TMP/$p.cc"; nm_fail=1; continue
    fi
    args=
    [ $p = allred ] && args=-count=10
    lays="direct a b"
    # programs written for exactly 2 ranks (or a rank count dividing 10):
    # layout b has 3 clients; nonblocking3 and allredmany take a minute with
    # 3 ranks on 2 cores (directly too)
    # on two emulated nodes (NM_NODES=2) layout b's client communicator
    # has ranks 0 and 1 on one node and 2 on the other: MPICH 4.0.2's own
    # MPI_Reduce on a reordered communicator so placed returns wrong sums
    # from 1024 ints on (directly, without the shim: mpiexec -launcher fork
    # -hosts nodeA,nodeB -ppn 2 -n 3 with a split of MPI_COMM_WORLD), and
    # reduce tests such communicators
    two2=
    [ "${NM_NODES:-1}" = 2 ] && two2=reduce
    case " ${MPIDELEG_MPICH_TWO:-anyall cancelanysrc dtype_send sendrecv2 rcancel iallred coll2 coll6 coll7 gatherv ring_neighbor_alltoall p_gatherv nbcoll2 nonblocking3 allredmany} $two2 " in
    *" $p "*) lays="direct a" ;;
    esac
    for lay in $lays; do
        np=4
        [ $lay = direct ] && np=2
        if nm_run "$p-$lay" $np $lay "$NM_TMP/$p" $args; then
            if grep -q 'No Errors' "$NM_TMP/$p-$lay.out"; then
                n=$((n + 1))
            else
                echo "FAIL $p ($lay): no 'No Errors'"; tail -5 "$NM_TMP/$p-$lay.out"; nm_fail=1
            fi
        fi
    done
done
echo "$n runs said No Errors"
exit $nm_fail
