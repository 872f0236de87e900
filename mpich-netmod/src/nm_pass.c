/* SPDX-License-Identifier: BSD-2-Clause */
/* nm_pass.c: MPI calls that take a communicator and pass straight to
 * MPICH, with the application's MPI_COMM_WORLD replaced by the client
 * communicator.  Written by tools/gen-pass.py from MPICH 4.0's mpi_proto.h
 * and mpio.h;
 * edit the generator, not this file, and format the output with the
 * tree's .clang-format (clang-format -i). */
#include "nm_internal.h"

int MPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return PMPI_Attr_delete(nm_xl(comm), keyval);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return PMPI_Attr_get(nm_xl(comm), keyval, attribute_val, flag);
}

int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return PMPI_Attr_put(nm_xl(comm), keyval, attribute_val);
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return PMPI_Comm_delete_attr(nm_xl(comm), comm_keyval);
}

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val,
                      int *flag)
{
    return PMPI_Comm_get_attr(nm_xl(comm), comm_keyval, attribute_val, flag);
}

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return PMPI_Comm_set_attr(nm_xl(comm), comm_keyval, attribute_val);
}

int MPI_Allgather_init(const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    return PMPI_Allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, nm_xl(comm), info, request);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int displs[],
                   MPI_Datatype recvtype, MPI_Comm comm)
{
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                           displs, recvtype, nm_xl(comm));
}

int MPI_Allgatherv_init(const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[],
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    return PMPI_Allgatherv_init(sendbuf, sendcount, sendtype, recvbuf,
                                recvcounts, displs, recvtype, nm_xl(comm), info,
                                request);
}

int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request)
{
    return PMPI_Allreduce_init(sendbuf, recvbuf, count, datatype, op,
                               nm_xl(comm), info, request);
}

int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              recvtype, nm_xl(comm), info, request);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                  const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                          recvcounts, rdispls, recvtype, nm_xl(comm));
}

int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[],
                       const int sdispls[], MPI_Datatype sendtype,
                       void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return PMPI_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                               recvcounts, rdispls, recvtype, nm_xl(comm), info,
                               request);
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[],
                  const int sdispls[], const MPI_Datatype sendtypes[],
                  void *recvbuf, const int recvcounts[], const int rdispls[],
                  const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                          recvcounts, rdispls, recvtypes, nm_xl(comm));
}

int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[],
                       const int sdispls[], const MPI_Datatype sendtypes[],
                       void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[],
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return PMPI_Alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                               recvcounts, rdispls, recvtypes, nm_xl(comm),
                               info, request);
}

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return PMPI_Barrier_init(nm_xl(comm), info, request);
}

int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return PMPI_Bcast_init(buffer, count, datatype, root, nm_xl(comm), info,
                           request);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, nm_xl(comm));
}

int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    return PMPI_Exscan_init(sendbuf, recvbuf, count, datatype, op, nm_xl(comm),
                            info, request);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
               MPI_Comm comm)
{
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, root, nm_xl(comm));
}

int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request)
{
    return PMPI_Gather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype, root, nm_xl(comm), info, request);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int displs[],
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                        displs, recvtype, root, nm_xl(comm));
}

int MPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request)
{
    return PMPI_Gatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                             displs, recvtype, root, nm_xl(comm), info,
                             request);
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                            displs, recvtype, nm_xl(comm), request);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int rdispls[],
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                           recvcounts, rdispls, recvtype, nm_xl(comm), request);
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request)
{
    return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                           recvcounts, rdispls, recvtypes, nm_xl(comm),
                           request);
}

int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                MPI_Request *request)
{
    return PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, nm_xl(comm),
                        request);
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, root, nm_xl(comm), request);
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int displs[],
                 MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                         displs, recvtype, root, nm_xl(comm), request);
}

int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    return PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, recvtype, nm_xl(comm), request);
}

int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    return PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                     recvcounts, displs, recvtype, nm_xl(comm),
                                     request);
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request)
{
    return PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf,
                                   recvcount, recvtype, nm_xl(comm), request);
}

int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                            const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype,
                                    recvbuf, recvcounts, rdispls, recvtype,
                                    nm_xl(comm), request);
}

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf,
                            const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request)
{
    return PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes,
                                    recvbuf, recvcounts, rdispls, recvtypes,
                                    nm_xl(comm), request);
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf,
                        const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op,
                                nm_xl(comm), request);
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request)
{
    return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op,
                                      nm_xl(comm), request);
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count,
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              MPI_Request *request)
{
    return PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, nm_xl(comm),
                      request);
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         recvtype, root, nm_xl(comm), request);
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[],
                  const int displs[], MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                          recvcount, recvtype, root, nm_xl(comm), request);
}

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    return PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf,
                                   recvcount, recvtype, nm_xl(comm));
}

int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Info info,
                                MPI_Request *request)
{
    return PMPI_Neighbor_allgather_init(sendbuf, sendcount, sendtype, recvbuf,
                                        recvcount, recvtype, nm_xl(comm), info,
                                        request);
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                    recvcounts, displs, recvtype, nm_xl(comm));
}

int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf,
                                 const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    return PMPI_Neighbor_allgatherv_init(sendbuf, sendcount, sendtype, recvbuf,
                                         recvcounts, displs, recvtype,
                                         nm_xl(comm), info, request);
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm)
{
    return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf,
                                  recvcount, recvtype, nm_xl(comm));
}

int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               int recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    return PMPI_Neighbor_alltoall_init(sendbuf, sendcount, sendtype, recvbuf,
                                       recvcount, recvtype, nm_xl(comm), info,
                                       request);
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                           const int sdispls[], MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm)
{
    return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype,
                                   recvbuf, recvcounts, rdispls, recvtype,
                                   nm_xl(comm));
}

int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                const int sdispls[], MPI_Datatype sendtype,
                                void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Info info,
                                MPI_Request *request)
{
    return PMPI_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype,
                                        recvbuf, recvcounts, rdispls, recvtype,
                                        nm_xl(comm), info, request);
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                           const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf,
                           const int recvcounts[], const MPI_Aint rdispls[],
                           const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes,
                                   recvbuf, recvcounts, rdispls, recvtypes,
                                   nm_xl(comm));
}

int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[],
                                const MPI_Datatype sendtypes[], void *recvbuf,
                                const int recvcounts[],
                                const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    return PMPI_Neighbor_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes,
                                        recvbuf, recvcounts, rdispls, recvtypes,
                                        nm_xl(comm), info, request);
}

int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    return PMPI_Reduce_init(sendbuf, recvbuf, count, datatype, op, root,
                            nm_xl(comm), info, request);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                       const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm)
{
    return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op,
                               nm_xl(comm));
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op,
                                     nm_xl(comm));
}

int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf,
                                  int recvcount, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    return PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype,
                                          op, nm_xl(comm), info, request);
}

int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf,
                            const int recvcounts[], MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request)
{
    return PMPI_Reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op,
                                    nm_xl(comm), info, request);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count,
             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return PMPI_Scan(sendbuf, recvbuf, count, datatype, op, nm_xl(comm));
}

int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                  MPI_Info info, MPI_Request *request)
{
    return PMPI_Scan_init(sendbuf, recvbuf, count, datatype, op, nm_xl(comm),
                          info, request);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, root, nm_xl(comm));
}

int MPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    return PMPI_Scatter_init(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                             recvtype, root, nm_xl(comm), info, request);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
                 const int displs[], MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                         recvcount, recvtype, root, nm_xl(comm));
}

int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[],
                      const int displs[], MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return PMPI_Scatterv_init(sendbuf, sendcounts, displs, sendtype, recvbuf,
                              recvcount, recvtype, root, nm_xl(comm), info,
                              request);
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    return PMPI_Comm_compare(nm_xl(comm1), nm_xl(comm2), result);
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    return PMPI_Comm_get_info(nm_xl(comm), info_used);
}

int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    return PMPI_Comm_get_name(nm_xl(comm), comm_name, resultlen);
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    return PMPI_Comm_group(nm_xl(comm), group);
}

int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                            MPI_Request *request)
{
    return PMPI_Comm_idup_with_info(nm_xl(comm), info, newcomm, request);
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    return PMPI_Comm_rank(nm_xl(comm), rank);
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    return PMPI_Comm_remote_group(nm_xl(comm), group);
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    return PMPI_Comm_remote_size(nm_xl(comm), size);
}

int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    return PMPI_Comm_set_info(nm_xl(comm), info);
}

int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    return PMPI_Comm_set_name(nm_xl(comm), comm_name);
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    return PMPI_Comm_size(nm_xl(comm), size);
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    return PMPI_Comm_test_inter(nm_xl(comm), flag);
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader,
                         MPI_Comm peer_comm, int remote_leader, int tag,
                         MPI_Comm *newintercomm)
{
    return PMPI_Intercomm_create(nm_xl(local_comm), local_leader,
                                 nm_xl(peer_comm), remote_leader, tag,
                                 newintercomm);
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    return PMPI_Intercomm_merge(nm_xl(intercomm), high, newintracomm);
}

int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
             void *outbuf, int outsize, int *position, MPI_Comm comm)
{
    return PMPI_Pack(inbuf, incount, datatype, outbuf, outsize, position,
                     nm_xl(comm));
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    return PMPI_Pack_size(incount, datatype, nm_xl(comm), size);
}

int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
               int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    return PMPI_Unpack(inbuf, insize, position, outbuf, outcount, datatype,
                       nm_xl(comm));
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    return PMPI_Comm_call_errhandler(nm_xl(comm), errorcode);
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_get_errhandler(nm_xl(comm), errhandler);
}

int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return PMPI_Errhandler_get(nm_xl(comm), errhandler);
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                     void *baseptr, MPI_Win *win)
{
    return PMPI_Win_allocate(size, disp_unit, info, nm_xl(comm), baseptr, win);
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
                            MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    return PMPI_Win_allocate_shared(size, disp_unit, info, nm_xl(comm), baseptr,
                                    win);
}

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                   MPI_Comm comm, MPI_Win *win)
{
    return PMPI_Win_create(base, size, disp_unit, info, nm_xl(comm), win);
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return PMPI_Win_create_dynamic(info, nm_xl(comm), win);
}

int MPI_Comm_accept(const char *port_name, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *newcomm)
{
    return PMPI_Comm_accept(port_name, info, root, nm_xl(comm), newcomm);
}

int MPI_Comm_connect(const char *port_name, MPI_Info info, int root,
                     MPI_Comm comm, MPI_Comm *newcomm)
{
    return PMPI_Comm_connect(port_name, info, root, nm_xl(comm), newcomm);
}

int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs,
                   MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm,
                   int array_of_errcodes[])
{
    return PMPI_Comm_spawn(command, argv, maxprocs, info, root, nm_xl(comm),
                           intercomm, array_of_errcodes);
}

int MPI_Comm_spawn_multiple(int count, char *array_of_commands[],
                            char **array_of_argv[],
                            const int array_of_maxprocs[],
                            const MPI_Info array_of_info[], int root,
                            MPI_Comm comm, MPI_Comm *intercomm,
                            int array_of_errcodes[])
{
    return PMPI_Comm_spawn_multiple(count, array_of_commands, array_of_argv,
                                    array_of_maxprocs, array_of_info, root,
                                    nm_xl(comm), intercomm, array_of_errcodes);
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    return PMPI_Cart_coords(nm_xl(comm), rank, maxdims, coords);
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[],
                 int coords[])
{
    return PMPI_Cart_get(nm_xl(comm), maxdims, dims, periods, coords);
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[],
                 const int periods[], int *newrank)
{
    return PMPI_Cart_map(nm_xl(comm), ndims, dims, periods, newrank);
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    return PMPI_Cart_rank(nm_xl(comm), coords, rank);
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                   int *rank_dest)
{
    return PMPI_Cart_shift(nm_xl(comm), direction, disp, rank_source,
                           rank_dest);
}

int MPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    return PMPI_Cartdim_get(nm_xl(comm), ndims);
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                             int sourceweights[], int maxoutdegree,
                             int destinations[], int destweights[])
{
    return PMPI_Dist_graph_neighbors(nm_xl(comm), maxindegree, sources,
                                     sourceweights, maxoutdegree, destinations,
                                     destweights);
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                   int *weighted)
{
    return PMPI_Dist_graph_neighbors_count(nm_xl(comm), indegree, outdegree,
                                           weighted);
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[],
                  int edges[])
{
    return PMPI_Graph_get(nm_xl(comm), maxindex, maxedges, indx, edges);
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[],
                  const int edges[], int *newrank)
{
    return PMPI_Graph_map(nm_xl(comm), nnodes, indx, edges, newrank);
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors,
                        int neighbors[])
{
    return PMPI_Graph_neighbors(nm_xl(comm), rank, maxneighbors, neighbors);
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    return PMPI_Graph_neighbors_count(nm_xl(comm), rank, nneighbors);
}

int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    return PMPI_Graphdims_get(nm_xl(comm), nnodes, nedges);
}

int MPI_Topo_test(MPI_Comm comm, int *status)
{
    return PMPI_Topo_test(nm_xl(comm), status);
}

int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm)
{
    return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype, nm_xl(comm));
}

int MPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount,
                         MPI_Datatype sendtype, void *recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return PMPI_Allgather_init_c(sendbuf, sendcount, sendtype, recvbuf,
                                 recvcount, recvtype, nm_xl(comm), info,
                                 request);
}

int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void *recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[],
                     MPI_Datatype recvtype, MPI_Comm comm)
{
    return PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                             displs, recvtype, nm_xl(comm));
}

int MPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    return PMPI_Allgatherv_init_c(sendbuf, sendcount, sendtype, recvbuf,
                                  recvcounts, displs, recvtype, nm_xl(comm),
                                  info, request);
}

int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return PMPI_Allreduce_c(sendbuf, recvbuf, count, datatype, op, nm_xl(comm));
}

int MPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    return PMPI_Allreduce_init_c(sendbuf, recvbuf, count, datatype, op,
                                 nm_xl(comm), info, request);
}

int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm)
{
    return PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, nm_xl(comm));
}

int MPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return PMPI_Alltoall_init_c(sendbuf, sendcount, sendtype, recvbuf,
                                recvcount, recvtype, nm_xl(comm), info,
                                request);
}

int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                    const MPI_Aint sdispls[], MPI_Datatype sendtype,
                    void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    return PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                            recvcounts, rdispls, recvtype, nm_xl(comm));
}

int MPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const MPI_Count recvcounts[],
                         const MPI_Aint rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return PMPI_Alltoallv_init_c(sendbuf, sendcounts, sdispls, sendtype,
                                 recvbuf, recvcounts, rdispls, recvtype,
                                 nm_xl(comm), info, request);
}

int MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                    void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                    MPI_Comm comm)
{
    return PMPI_Alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                            recvcounts, rdispls, recvtypes, nm_xl(comm));
}

int MPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[],
                         const MPI_Datatype sendtypes[], void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    return PMPI_Alltoallw_init_c(sendbuf, sendcounts, sdispls, sendtypes,
                                 recvbuf, recvcounts, rdispls, recvtypes,
                                 nm_xl(comm), info, request);
}

int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                MPI_Comm comm)
{
    return PMPI_Bcast_c(buffer, count, datatype, root, nm_xl(comm));
}

int MPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype,
                     int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    return PMPI_Bcast_init_c(buffer, count, datatype, root, nm_xl(comm), info,
                             request);
}

int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return PMPI_Exscan_c(sendbuf, recvbuf, count, datatype, op, nm_xl(comm));
}

int MPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    return PMPI_Exscan_init_c(sendbuf, recvbuf, count, datatype, op,
                              nm_xl(comm), info, request);
}

int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount,
                 MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         recvtype, root, nm_xl(comm));
}

int MPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    return PMPI_Gather_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              recvtype, root, nm_xl(comm), info, request);
}

int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, void *recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[],
                  MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return PMPI_Gatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                          displs, recvtype, root, nm_xl(comm));
}

int MPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf,
                       const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request)
{
    return PMPI_Gatherv_init_c(sendbuf, sendcount, sendtype, recvbuf,
                               recvcounts, displs, recvtype, root, nm_xl(comm),
                               info, request);
}

int MPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Iallgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                             recvtype, nm_xl(comm), request);
}

int MPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, void *recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    return PMPI_Iallgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                              displs, recvtype, nm_xl(comm), request);
}

int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                     MPI_Request *request)
{
    return PMPI_Iallreduce_c(sendbuf, recvbuf, count, datatype, op, nm_xl(comm),
                             request);
}

int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype, nm_xl(comm), request);
}

int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                     const MPI_Aint sdispls[], MPI_Datatype sendtype,
                     void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Ialltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                             recvcounts, rdispls, recvtype, nm_xl(comm),
                             request);
}

int MPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                     void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                     MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Ialltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                             recvcounts, rdispls, recvtypes, nm_xl(comm),
                             request);
}

int MPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Ibcast_c(buffer, count, datatype, root, nm_xl(comm), request);
}

int MPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                  MPI_Request *request)
{
    return PMPI_Iexscan_c(sendbuf, recvbuf, count, datatype, op, nm_xl(comm),
                          request);
}

int MPI_Igather_c(const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    return PMPI_Igather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, root, nm_xl(comm), request);
}

int MPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[],
                   MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    return PMPI_Igatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                           displs, recvtype, root, nm_xl(comm), request);
}

int MPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Ineighbor_allgather_c(sendbuf, sendcount, sendtype, recvbuf,
                                      recvcount, recvtype, nm_xl(comm),
                                      request);
}

int MPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[],
                               const MPI_Aint displs[], MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Ineighbor_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf,
                                       recvcounts, displs, recvtype,
                                       nm_xl(comm), request);
}

int MPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Ineighbor_alltoall_c(sendbuf, sendcount, sendtype, recvbuf,
                                     recvcount, recvtype, nm_xl(comm), request);
}

int MPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Ineighbor_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype,
                                      recvbuf, recvcounts, rdispls, recvtype,
                                      nm_xl(comm), request);
}

int MPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf,
                              const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm,
                              MPI_Request *request)
{
    return PMPI_Ineighbor_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes,
                                      recvbuf, recvcounts, rdispls, recvtypes,
                                      nm_xl(comm), request);
}

int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    return PMPI_Ireduce_c(sendbuf, recvbuf, count, datatype, op, root,
                          nm_xl(comm), request);
}

int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf,
                          const MPI_Count recvcounts[], MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Ireduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op,
                                  nm_xl(comm), request);
}

int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf,
                                MPI_Count recvcount, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Ireduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype,
                                        op, nm_xl(comm), request);
}

int MPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                MPI_Request *request)
{
    return PMPI_Iscan_c(sendbuf, recvbuf, count, datatype, op, nm_xl(comm),
                        request);
}

int MPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    return PMPI_Iscatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, root, nm_xl(comm), request);
}

int MPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                    const MPI_Aint displs[], MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *request)
{
    return PMPI_Iscatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf,
                            recvcount, recvtype, root, nm_xl(comm), request);
}

int MPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    return PMPI_Neighbor_allgather_c(sendbuf, sendcount, sendtype, recvbuf,
                                     recvcount, recvtype, nm_xl(comm));
}

int MPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount,
                                  MPI_Datatype sendtype, void *recvbuf,
                                  MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    return PMPI_Neighbor_allgather_init_c(sendbuf, sendcount, sendtype, recvbuf,
                                          recvcount, recvtype, nm_xl(comm),
                                          info, request);
}

int MPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[],
                              const MPI_Aint displs[], MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    return PMPI_Neighbor_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf,
                                      recvcounts, displs, recvtype,
                                      nm_xl(comm));
}

int MPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
                                   MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[],
                                   const MPI_Aint displs[],
                                   MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request)
{
    return PMPI_Neighbor_allgatherv_init_c(
        sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
        nm_xl(comm), info, request);
}

int MPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    return PMPI_Neighbor_alltoall_c(sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, recvtype, nm_xl(comm));
}

int MPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
                                 MPI_Datatype sendtype, void *recvbuf,
                                 MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    return PMPI_Neighbor_alltoall_init_c(sendbuf, sendcount, sendtype, recvbuf,
                                         recvcount, recvtype, nm_xl(comm), info,
                                         request);
}

int MPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], MPI_Datatype sendtype,
                             void *recvbuf, const MPI_Count recvcounts[],
                             const MPI_Aint rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    return PMPI_Neighbor_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype,
                                     recvbuf, recvcounts, rdispls, recvtype,
                                     nm_xl(comm));
}

int MPI_Neighbor_alltoallv_init_c(
    const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
    MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
    MPI_Info info, MPI_Request *request)
{
    return PMPI_Neighbor_alltoallv_init_c(
        sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
        recvtype, nm_xl(comm), info, request);
}

int MPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf,
                             const MPI_Count recvcounts[],
                             const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return PMPI_Neighbor_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes,
                                     recvbuf, recvcounts, rdispls, recvtypes,
                                     nm_xl(comm));
}

int MPI_Neighbor_alltoallw_init_c(
    const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
    MPI_Info info, MPI_Request *request)
{
    return PMPI_Neighbor_alltoallw_init_c(
        sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
        recvtypes, nm_xl(comm), info, request);
}

int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    return PMPI_Reduce_c(sendbuf, recvbuf, count, datatype, op, root,
                         nm_xl(comm));
}

int MPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    return PMPI_Reduce_init_c(sendbuf, recvbuf, count, datatype, op, root,
                              nm_xl(comm), info, request);
}

int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf,
                         const MPI_Count recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm)
{
    return PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op,
                                 nm_xl(comm));
}

int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm)
{
    return PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype,
                                       op, nm_xl(comm));
}

int MPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf,
                                    MPI_Count recvcount, MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request)
{
    return PMPI_Reduce_scatter_block_init_c(
        sendbuf, recvbuf, recvcount, datatype, op, nm_xl(comm), info, request);
}

int MPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf,
                              const MPI_Count recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Info info, MPI_Request *request)
{
    return PMPI_Reduce_scatter_init_c(sendbuf, recvbuf, recvcounts, datatype,
                                      op, nm_xl(comm), info, request);
}

int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return PMPI_Scan_c(sendbuf, recvbuf, count, datatype, op, nm_xl(comm));
}

int MPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    return PMPI_Scan_init_c(sendbuf, recvbuf, count, datatype, op, nm_xl(comm),
                            info, request);
}

int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, root, nm_xl(comm));
}

int MPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return PMPI_Scatter_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, root, nm_xl(comm), info, request);
}

int MPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
                   const MPI_Aint displs[], MPI_Datatype sendtype,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm)
{
    return PMPI_Scatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf,
                           recvcount, recvtype, root, nm_xl(comm));
}

int MPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                        const MPI_Aint displs[], MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    return PMPI_Scatterv_init_c(sendbuf, sendcounts, displs, sendtype, recvbuf,
                                recvcount, recvtype, root, nm_xl(comm), info,
                                request);
}

int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
               void *outbuf, MPI_Count outsize, MPI_Count *position,
               MPI_Comm comm)
{
    return PMPI_Pack_c(inbuf, incount, datatype, outbuf, outsize, position,
                       nm_xl(comm));
}

int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                    MPI_Count *size)
{
    return PMPI_Pack_size_c(incount, datatype, nm_xl(comm), size);
}

int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position,
                 void *outbuf, MPI_Count outcount, MPI_Datatype datatype,
                 MPI_Comm comm)
{
    return PMPI_Unpack_c(inbuf, insize, position, outbuf, outcount, datatype,
                         nm_xl(comm));
}

int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                       MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    return PMPI_Win_allocate_c(size, disp_unit, info, nm_xl(comm), baseptr,
                               win);
}

int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                              MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    return PMPI_Win_allocate_shared_c(size, disp_unit, info, nm_xl(comm),
                                      baseptr, win);
}

int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit,
                     MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return PMPI_Win_create_c(base, size, disp_unit, info, nm_xl(comm), win);
}

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                  MPI_File *fh)
{
    return PMPI_File_open(nm_xl(comm), filename, amode, info, fh);
}
