/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spare.h: spare-node allocation, sliding substitution of failed nodes and
 * message-collision counting on Cartesian node spaces (libspare).
 *
 * Model (after Hori et al., "Overhead of Using Spare Nodes"):
 * - A node space has 2 to SPARE_MAX_DIMS dimensions, each a mesh or a torus.
 *   Node indices are row-major with dimension 0 varying fastest.  Messages
 *   follow dimension-order routing (dimension 0 first, "XY" in 2-D; on a
 *   torus dimension the shorter way round, ties go in the + direction).
 *   Links are directed: a link is (node, dim, dir) and carries the messages
 *   that leave `node` along `dim` in direction `dir` (0: +, 1: -).
 * - Spare allocation qD(r,s): on a q-dimensional space the last s layers of
 *   the first r dimensions (their high side) are spare nodes; the other
 *   nodes host the logical ranks, rank i initially on the i-th such node in
 *   index order.  The ranks form a logical grid whose size in dimension i is
 *   n_i - s for i < r, n_i otherwise.
 * - Substitution methods: kD sliding (k = 0..q) and hybrids (an ordered list
 *   of degrees tried from first to last; see spare_method_parse()).
 *
 * Errors: functions returning int return 0 (or a non-negative value where
 * stated) on success and a negative errno-style code on error; see
 * spare_strerror().  The library never prints.
 *
 * Thread safety: objects are not locked.  Different objects may be used
 * from different threads; a topology and a pattern may be shared read-only
 * by any number of maps.
 */
#ifndef SPARE_H
#define SPARE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SPARE_BUILDING) && defined(__GNUC__)
#define SPARE_API __attribute__((visibility("default")))
#else
#define SPARE_API
#endif

/** Largest number of dimensions of a node space. */
#define SPARE_MAX_DIMS 6

/** Value of spare_map_node_rank() for a healthy node hosting no rank. */
#define SPARE_NODE_IDLE (-1L)
/** Value of spare_map_node_rank() for a failed node. */
#define SPARE_NODE_FAILED (-2L)

/**
 * @brief Message for an error code of this library.
 * @param err a negative errno-style code returned by a spare_* function
 *            (0 gives "success").
 * @return a static string; never NULL.
 */
SPARE_API const char *spare_strerror(int err);

/* ------------------------------------------------------------------ */
/* Topology and spare allocation                                        */
/* ------------------------------------------------------------------ */

/** A node space with its spare allocation (opaque). */
typedef struct spare_topo spare_topo_t;

/**
 * @brief Create a node space with a qD(r,s) spare allocation.
 * @param ndims     number of dimensions q, 2..SPARE_MAX_DIMS.
 * @param sizes     ndims sizes, each >= 2.
 * @param torus     ndims flags (non-zero: that dimension wraps); NULL: mesh.
 * @param sides     r, the number of dimensions with spare layers, 0..ndims.
 * @param thickness s, spare layers per side, >= 1 and < sizes[i] for i < r
 *                  (ignored when sides is 0).
 * @param topop     receives the new object.
 * @return 0; -EINVAL for a bad argument; -ERANGE when the space has more
 *         than 2^31 nodes; -ENOMEM.
 */
SPARE_API int spare_topo_create(int ndims, const int *sizes, const int *torus,
                                int sides, int thickness, spare_topo_t **topop);

/**
 * @brief Parse a topology description and create it.
 * @param dims  sizes joined by 'x', e.g. "24x24x24"; a 't' after a size
 *              makes that dimension a torus ("8tx8t", "16x8t").
 * @param alloc allocation "qD(r,s)", e.g. "3D(2,1)"; q must equal the number
 *              of sizes.
 * @param topop receives the new object.
 * @return 0; -EINVAL for a malformed string; as spare_topo_create().
 */
SPARE_API int spare_topo_parse(const char *dims, const char *alloc,
                               spare_topo_t **topop);

/** @brief Destroy a topology (NULL is accepted). */
SPARE_API void spare_topo_destroy(spare_topo_t *topo);

/** @return the number of dimensions. */
SPARE_API int spare_topo_ndims(const spare_topo_t *topo);
/** @return the size of dimension dim, or -EINVAL. */
SPARE_API int spare_topo_size(const spare_topo_t *topo, int dim);
/** @return 1 if dimension dim is a torus, 0 if a mesh, or -EINVAL. */
SPARE_API int spare_topo_is_torus(const spare_topo_t *topo, int dim);
/** @return the logical grid size of dimension dim, or -EINVAL. */
SPARE_API int spare_topo_rank_size(const spare_topo_t *topo, int dim);
/** @return the number of nodes. */
SPARE_API long spare_topo_nodes(const spare_topo_t *topo);
/** @return the number of logical ranks (nodes that are not spares). */
SPARE_API long spare_topo_ranks(const spare_topo_t *topo);
/** @return the number of spare nodes (counted, not estimated). */
SPARE_API long spare_topo_spares(const spare_topo_t *topo);
/** @return the number of directed links (nodes * ndims * 2). */
SPARE_API long spare_topo_links(const spare_topo_t *topo);

/**
 * @brief Coordinates of a node.
 * @return 0, or -EINVAL when node is out of range.
 */
SPARE_API int spare_topo_node_coords(const spare_topo_t *topo, long node,
                                     int *coords);
/** @return the node at coords, or -EINVAL when out of range. */
SPARE_API long spare_topo_node_index(const spare_topo_t *topo,
                                     const int *coords);
/** @return the failure-free node of rank, or -EINVAL. */
SPARE_API long spare_topo_rank_home(const spare_topo_t *topo, long rank);
/** @return 1 if node is a spare of the initial allocation, 0 if not, or
 *  -EINVAL. */
SPARE_API int spare_topo_is_spare(const spare_topo_t *topo, long node);

/**
 * @brief Route from src to dst (dimension order, or symmetric: see
 *        spare_topo_set_routing()).
 * @param links receives up to max directed link ids (node*2*ndims +
 *              2*dim + dir), in path order; may be NULL when max is 0.
 * @return the hop count (which may exceed max), or -EINVAL.
 */
SPARE_API int spare_topo_route(const spare_topo_t *topo, long src, long dst,
                               long *links, int max);

/** How messages are routed (see spare_topo_set_routing()). */
typedef enum spare_routing {
    /** dimension order, dimension 0 first ("XY"), for every message */
    SPARE_ROUTE_DIM_ORDER = 0,
    /** symmetric dimension order: the messages between two nodes use one
     *  path, both ways: the dimension-order path taken from the node with
     *  the lower coordinate in the first dimension in which the two differ
     *  (from it dimension 0 first, towards it the highest dimension first;
     *  in 2-D: "XY" from the node on the left, "YX" from the node on the
     *  right).  With SPARE_COUNT_BOTH it gives the paper's 0D closed form
     *  on small spaces only (every set of up to 5 failures on 13x5, but 12
     *  at 5 failures on 17x9); the paper's rule is SPARE_COUNT_PAPER with
     *  dimension order. */
    SPARE_ROUTE_SYMMETRIC = 1
} spare_routing_t;

/**
 * @brief Choose the routing of a topology (default SPARE_ROUTE_DIM_ORDER).
 * Set it before creating maps on the topology; it applies to
 * spare_topo_route() and to every link load counted on the topology.
 * On a torus dimension the shorter way round is taken; a tie (exactly half
 * way) goes + with dimension order, and + from the lower coordinate with
 * symmetric routing.
 * @return 0, or -EINVAL.
 */
SPARE_API int spare_topo_set_routing(spare_topo_t *topo,
                                     spare_routing_t routing);
/** @return the routing of topo (a spare_routing_t), or -EINVAL. */
SPARE_API int spare_topo_routing(const spare_topo_t *topo);
/**
 * @brief Parse a routing name: "dor" (dimension order) or "sym"
 *        (symmetric); case-insensitive.
 * @return 0, or -EINVAL.
 */
SPARE_API int spare_routing_parse(const char *name, spare_routing_t *routing);

/** Which messages are counted on a link (see spare_topo_set_count()). */
typedef enum spare_count {
    /** every message of the pattern, on the route from its sender */
    SPARE_COUNT_BOTH = 0,
    /** the paper's rule (its Figure 6 text): the messages between ranks
     *  that have not moved (rank on its failure-free node), and of the
     *  messages of a moved rank only one direction: those it receives,
     *  each on the route from its sender.  A message from a moved rank to
     *  a rank that has not moved is left out. */
    SPARE_COUNT_PAPER = 1
} spare_count_t;

/**
 * @brief Choose the counting rule of a topology (default SPARE_COUNT_BOTH).
 * Set it before creating maps on the topology; it applies to every link
 * load counted on the topology (spare_map_collisions(), studies).
 * @return 0, or -EINVAL.
 */
SPARE_API int spare_topo_set_count(spare_topo_t *topo, spare_count_t count);
/** @return the counting rule of topo (a spare_count_t), or -EINVAL. */
SPARE_API int spare_topo_count(const spare_topo_t *topo);
/**
 * @brief Parse a counting rule name: "both" or "paper"; case-insensitive.
 * @return 0, or -EINVAL.
 */
SPARE_API int spare_count_parse(const char *name, spare_count_t *count);

/** Value of spare_topo_set_qd_limit() for no limit. */
#define SPARE_QD_UNLIMITED (-1L)

/**
 * @brief Limit the number of substitutions by qD sliding (degree equal to
 *        the number of dimensions) per map.
 * The default is the paper's: one per spare layer, sides * thickness of
 * the qD(r,s) allocation (2 for 3D(2,1): "two is the maximum number of 3D
 * sliding methods").  SPARE_QD_UNLIMITED lets qD sliding also use the
 * layers vacated by earlier slidings.  Set it before creating maps.
 * @param limit >= 0, or SPARE_QD_UNLIMITED.
 * @return 0, or -EINVAL.
 */
SPARE_API int spare_topo_set_qd_limit(spare_topo_t *topo, long limit);
/** @return the qD limit of topo (SPARE_QD_UNLIMITED: none), or -EINVAL
 *  (which is below SPARE_QD_UNLIMITED). */
SPARE_API long spare_topo_qd_limit(const spare_topo_t *topo);

/**
 * @brief The paper's estimate of the spare fraction of qD(r,s) with n nodes:
 *        1 - (n^(1/q) - s)^r * (n^(1/q))^(q-r) / n.
 * @return the fraction (0..1), or a negative value for bad arguments.
 */
SPARE_API double spare_alloc_ratio(int q, int r, int s, double n);

/* ------------------------------------------------------------------ */
/* Substitution methods                                                 */
/* ------------------------------------------------------------------ */

/**
 * A substitution method: the sliding degrees tried in order.  "2D" is
 * {1, {2}}; "hybrid(3D+1D+0D)" is {3, {3, 1, 0}}.
 */
typedef struct spare_method {
    int count;                      /**< number of degrees, 1..ndims+1 */
    int degree[SPARE_MAX_DIMS + 1]; /**< degrees, strictly descending */
} spare_method_t;

/**
 * @brief Parse a method name.
 * Accepted: "kD" (0 <= k <= ndims); "hybrid(all)" (ndims..0);
 * "hybrid(-kD)" (all but k; several may be listed: "hybrid(-2D-1D)");
 * "hybrid(aD+bD+...)" with strictly descending degrees.
 * @param name  the text; case-insensitive.
 * @param ndims the number of dimensions of the node space.
 * @param m     receives the method.
 * @return 0, or -EINVAL.
 */
SPARE_API int spare_method_parse(const char *name, int ndims,
                                 spare_method_t *m);

/**
 * @brief Canonical text of a method ("0D", "hybrid(3D+1D+0D)").
 * @return the length written (without NUL), -EINVAL, or -ENOSPC when len
 *         is too small.
 */
SPARE_API int spare_method_format(const spare_method_t *m, char *buf,
                                  size_t len);

/* ------------------------------------------------------------------ */
/* Communication patterns                                               */
/* ------------------------------------------------------------------ */

/** Communication patterns whose link loads are counted. */
typedef enum spare_pattern_kind {
    SPARE_PAT_STAR = 0, /**< 2q+1-point stencil (5P in 2-D, 7P in 3-D) */
    SPARE_PAT_9P = 1,   /**< 9-point stencil (2-D only) */
    SPARE_PAT_ALLREDUCE_RD = 2,  /**< recursive-doubling allreduce */
    SPARE_PAT_BARRIER_DISSEM = 3 /**< dissemination barrier */
} spare_pattern_kind_t;

/** A communication pattern over the logical ranks (opaque). */
typedef struct spare_pattern spare_pattern_t;

/**
 * @brief Create a pattern for the ranks of topo.
 * Stencils exchange with the logical neighbours (both ways); with periodic
 * set they wrap around the logical grid.  Collectives use rank order; each
 * round is a phase, counted separately (the collision count of a pattern is
 * its worst phase).  Recursive doubling pairs r with r XOR 2^k (pairs past
 * the last rank are left out); the dissemination barrier sends r -> (r + 2^k)
 * mod P.
 * @param periodic only for stencils.
 * @return 0; -EINVAL (9P needs 2 dimensions); -ENOMEM.
 */
SPARE_API int spare_pattern_create(const spare_topo_t *topo,
                                   spare_pattern_kind_t kind, int periodic,
                                   spare_pattern_t **patp);

/**
 * @brief Parse a pattern name: "5p" (2-D), "7p" (3-D), "9p" (2-D), "star"
 *        (any), "allreduce-rd", "barrier-dissem".
 * @return 0, or -EINVAL (unknown name or wrong number of dimensions).
 */
SPARE_API int spare_pattern_parse(const char *name, int ndims,
                                  spare_pattern_kind_t *kind);

/** @brief Destroy a pattern (NULL is accepted). */
SPARE_API void spare_pattern_destroy(spare_pattern_t *pat);
/** @return the number of messages of the pattern. */
SPARE_API long spare_pattern_messages(const spare_pattern_t *pat);
/** @return the number of phases. */
SPARE_API int spare_pattern_phases(const spare_pattern_t *pat);

/* ------------------------------------------------------------------ */
/* Node-rank mapping under failures                                     */
/* ------------------------------------------------------------------ */

/** The node-rank mapping of a job under failures (opaque). */
typedef struct spare_map spare_map_t;

/** What one substitution did. */
typedef struct spare_subst {
    int degree; /**< sliding degree used; -1: the node hosted no rank */
    int dim;    /**< sliding dimension (kD, k>=1), -1 for 0D */
    int dir;    /**< +1 or -1 (kD, k>=1), 0 for 0D */
    long moved; /**< number of ranks that changed node */
    long spare; /**< 0D, 1D: the idle node that now hosts a rank; else -1 */
} spare_subst_t;

/**
 * @brief Create the failure-free mapping.
 * @param topo   the node space; must outlive the map.
 * @param method substitution method (copied).
 * @param pat    pattern whose link loads the map keeps up to date at every
 *               failure (incrementally); NULL for none.  Must outlive the
 *               map.
 * @return 0; -EINVAL; -ENOMEM.
 */
SPARE_API int spare_map_create(const spare_topo_t *topo,
                               const spare_method_t *method,
                               const spare_pattern_t *pat, spare_map_t **mapp);

/** @brief Destroy a map (NULL is accepted). */
SPARE_API void spare_map_destroy(spare_map_t *map);

/**
 * @brief Copy the state of src into dst; both must have been created with
 *        the same topology, method and pattern.  No allocation.
 * @return 0, or -EINVAL.
 */
SPARE_API int spare_map_copy(spare_map_t *dst, const spare_map_t *src);

/**
 * @brief Record the failure of a node and substitute it.
 * The degrees of the method are tried in order; the first that applies is
 * used.  0D picks the idle node at the shortest Manhattan distance (ties:
 * the side used least so far, so that failures in one line alternate
 * sides).  kD (k >= 1) shifts by one node, along dimension `dim`, every rank
 * between the failed node's (k-1)-dimensional slab and the idle nodes
 * beyond it; 1D prefers the dimension already used most by 1D (to keep the
 * slidings uneven, as the paper advises), then the fewest moved ranks.
 * kD with k = ndims applies at most spare_topo_qd_limit() times per map.
 * @param node the node that failed.
 * @param out  receives what was done; may be NULL.
 * @return 0; -EINVAL (bad node); -EEXIST (already failed); -ENOSPC (no
 *         method of the list applies: the map is then unusable and every
 *         later call returns -ENOSPC).
 */
SPARE_API int spare_map_fail_node(spare_map_t *map, long node,
                                  spare_subst_t *out);

/** @return the node hosting rank, or -EINVAL. */
SPARE_API long spare_map_rank_node(const spare_map_t *map, long rank);
/** @return the rank on node, SPARE_NODE_IDLE, SPARE_NODE_FAILED, or
 *  -EINVAL (below SPARE_NODE_FAILED). */
SPARE_API long spare_map_node_rank(const spare_map_t *map, long node);
/** @return the number of failures recorded. */
SPARE_API long spare_map_failures(const spare_map_t *map);
/** @return the number of idle healthy nodes. */
SPARE_API long spare_map_idle(const spare_map_t *map);

/**
 * @brief Largest number of messages on one directed link in one phase of
 *        the attached pattern (1 means no collision).
 * @return the count, or -EINVAL when no pattern is attached.
 */
SPARE_API int spare_map_collisions(const spare_map_t *map);

/**
 * @brief Messages on one directed link in one phase.
 * @return the count, or -EINVAL.
 */
SPARE_API int spare_map_link_load(const spare_map_t *map, int phase, long node,
                                  int dim, int dir);

/** A directed link in one phase of a pattern. */
typedef struct spare_link {
    int phase; /**< phase of the pattern (0 for stencils) */
    long node; /**< the node the link leaves */
    int dim;   /**< dimension */
    int dir;   /**< 0: + direction, 1: - direction */
} spare_link_t;

/**
 * @brief The busiest directed link: the largest load; ties go to the lowest
 *        phase, then to the lowest link id (node * 2 * ndims + 2 * dim +
 *        dir).
 * @param link   receives the link.
 * @param nlinks receives the number of (phase, link) pairs with that load;
 *               may be NULL.
 * @return the load (as spare_map_collisions()), or -EINVAL when no pattern
 *         is attached.
 */
SPARE_API int spare_map_busiest_link(const spare_map_t *map, spare_link_t *link,
                                     long *nlinks);

/**
 * @brief The counted messages that cross a link, in pattern order.
 * @param src, dst receive up to max sending and receiving ranks; may be NULL
 *                 when max is 0.
 * @return the number of messages (which may exceed max; it equals
 *         spare_map_link_load() of the link), or -EINVAL.
 */
SPARE_API long spare_map_link_messages(const spare_map_t *map,
                                       const spare_link_t *link, long *src,
                                       long *dst, long max);

/**
 * @brief The mapping after an ordered list of failures, for applications.
 *
 * After a shrink (e.g. MPIX_Comm_shrink), the process on node x calls this
 * with the same arguments as everyone else and uses
 * MPI_Comm_split(shrunk, rank_of[x] >= 0 ? 0 : MPI_UNDEFINED, rank_of[x])
 * where rank_of is the inverse of rank_node (spare_map_node_rank() on a
 * map gives it directly).
 *
 * @param topo      node space and spares.
 * @param method    substitution method.
 * @param failed    the failed nodes, in the order they failed.
 * @param nfailed   their number.
 * @param rank_node receives spare_topo_ranks() entries: the node of each
 *                  logical rank.
 * @return 0; -EINVAL; -EEXIST (a node listed twice); -ENOSPC (the method
 *         cannot substitute one of the failures); -ENOMEM.
 */
SPARE_API int spare_map_apply(const spare_topo_t *topo,
                              const spare_method_t *method, const long *failed,
                              size_t nfailed, long *rank_node);

/* ------------------------------------------------------------------ */
/* Studies: exhaustive and random failure sets                         */
/* ------------------------------------------------------------------ */

/** How failure cases are generated. */
typedef enum spare_study_mode {
    /** every set of failed nodes, failing in increasing node order */
    SPARE_STUDY_SETS = 0,
    /** every ordered sequence of distinct failed nodes */
    SPARE_STUDY_ORDERS = 1,
    /** random sequences: each failure hits the node of a uniformly drawn
     *  rank; one sample is a sequence of max_failures failures */
    SPARE_STUDY_RANDOM = 2
} spare_study_mode_t;

/** Parameters of a study. */
typedef struct spare_study_config {
    const spare_topo_t *topo;
    const spare_pattern_t *pattern;
    spare_method_t method;
    spare_study_mode_t mode;
    int max_failures; /**< failures per case, >= 1 */
    long samples;     /**< random mode: number of sequences */
    uint64_t seed;    /**< random mode: results depend on seed only */
    int threads;      /**< worker threads, >= 1 */
    /** called in the calling thread about every 200 ms and at the end with
     *  the work done and the total (units of the mode); may be NULL */
    void (*progress)(void *arg, long done, long total);
    void *progress_arg;
    /** non-zero: keep the failed nodes of the worst cases (worst_seq of the
     *  result; max_failures^2 longs per thread) */
    int keep_worst;
} spare_study_config_t;

/** Results, indexed by the number of failures f = 1..max_failures
 *  (index 0 holds the failure-free case). */
typedef struct spare_study_result {
    int max_failures;
    long *cases;         /**< evaluated (substituted) cases with f failures */
    long *unrecoverable; /**< cases where the f-th failure could not be
                              substituted */
    int *worst;          /**< largest collision count (0 if no case) */
    int *best;           /**< smallest collision count (0 if no case) */
    double *sum;         /**< sum of collision counts (average = sum/cases) */
    /** selections: used[f * (SPARE_MAX_DIMS + 1) + k] = number of f-th
     *  failures substituted by kD sliding */
    long *used;
    /** worst cases: worst_seq[f * max_failures + i], i < f, are the failed
     *  nodes, in failure order, of a case with f failures and worst[f]
     *  collisions: of all such cases the one whose node sequence is the
     *  lexicographically smallest, so that it does not depend on the number
     *  of threads.  Replaying them (spare_map_fail_node() in that order)
     *  gives worst[f] again.  NULL unless keep_worst was set and a
     *  pattern given. */
    long *worst_seq;
} spare_study_result_t;

/**
 * @brief Run a study (threads are created and joined inside).
 * @return 0; -EINVAL; -ENOMEM; -EAGAIN (threads could not be created).
 */
SPARE_API int spare_study_run(const spare_study_config_t *cfg,
                              spare_study_result_t **resp);

/** @brief Free a result (NULL is accepted). */
SPARE_API void spare_study_result_free(spare_study_result_t *res);

#ifdef __cplusplus
}
#endif

#endif /* SPARE_H */
