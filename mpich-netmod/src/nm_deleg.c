/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_deleg.c: the delegatee.  It runs inside MPI_Init of the last rank of
 * each delegatee group and never returns to the application: setup, the
 * loop (turns, and libdeleg's idle waits between them), the handlers of
 * the clients' requests and the hand-over without the ring.
 *
 * It owns the matching engine of its clients (nm_dmatch.c): for every
 * client a queue of posted receives and a queue of unexpected messages,
 * matched in MPI order (first posted receive / first arrived message that
 * fits (context, source, tag)).  A send is read from the client's buffer
 * (inline in the record or process_vm_readv: one copy), then either
 * delivered to a local client or sent as one MPI message (header +
 * payload) to the delegatee of the destination (nm_dsend.c), which
 * delivers it there with process_vm_writev.  Large payloads between two
 * processes of a node may move by the protocol of nm_dpay.c.  The order of
 * messages between two clients is the ring order at the sender's delegatee
 * and MPI's non-overtaking order between delegatees.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "nm_dstate.h"
#include "pvas_env.h"
#include "pvas_log.h"

/* What the delegatee's own loop needs to know, computed under the turn
 * lock; then the lock is released. */
static void turn_end(void)
{
    /* sends or receives the peer moves (NM_F_CMA) */
    int peer_moves = nm_d.ncs > 0 || nm_d.npush > 0 || nm_d.noffers > 0;
    atomic_store_explicit(&nm_d.more,
                          nm_d.nfin < nm_d.ncl || nm_d.nout > 0 || nm_d.pend ||
                              nm_d.nin || peer_moves,
                          memory_order_relaxed);
    /* never sleep while sends are in flight: their protocol (rendezvous
     * replies) needs our progress, and nobody rings for it.  Process form:
     * a send whose payload the receiving client reads ends with TAG_FIN,
     * which rings us: sleep until then rather than look every 20 us (a
     * wake-up each, on a CPU that the reading client may need) */
    int rung = !nm_d.any_same && nm_d.npush == 0 && nm_d.noffers == 0;
    atomic_store_explicit(&nm_d.may_sleep,
                          nm_d.nfin < nm_d.ncl && nm_d.nout == 0 && !nm_d.nin &&
                              !nm_d.pend && (!peer_moves || rung),
                          memory_order_relaxed);
    /* receives being filled: progress moves their data here (a client
     * waiting on them spins); with more ranks than CPUs, sends alone wait
     * for the peer (rendezvous: the receiver pulls the data) and only need
     * a look now and then, leaving the CPU to whoever moves the other end.
     * NM_F_CMA transfers ring us at each step: our thread naps meanwhile;
     * a client waiting for a receive such a message could fill spins (the
     * side that waits copies the data) */
    int spin = nm_d.nin > 0 || nm_d.pend || (nm_d.nout > 0 && !nm_lay.oversub);
    uint32_t inflight = spin || nm_d.nbig > 0 || nm_d.nattached > 0 ||
                        (peer_moves && !nm_lay.oversub);
    atomic_store_explicit(&nm_d.sends_only,
                          !spin && (nm_d.nout > 0 || peer_moves),
                          memory_order_relaxed);
    dlg_bell_set_inflight(nm_d.bell, inflight);
    dlg_bell_turn_release(nm_d.bell);
}

/* One sweep of the clients' request rings (under the turn lock).  A
 * client's turn (client != 0) skips it while nothing was posted there
 * since the last sweep that found them empty: clients of our address
 * space post there only when the turn is taken, and the sweep's loads of
 * the rings and their control blocks cost a good part of a short turn.
 * Our own loop always sweeps (it also checks that the clients live). */
static int serve_rings(int client)
{
    uint32_t posted = dlg_bell_posted(nm_d.bell);
    if (client && posted == nm_d.posted_seen)
        return 0;
    int rc = dlg_delegatee_progress(nm_d.dg);
    if (rc < 0)
        nmd_fatal("delegation ring", -rc);
    if (rc == 0)
        nm_d.posted_seen = posted;
    return rc;
}

/* PiP form: a client of our address space hands a send or a receive over
 * by calling this (its address is in the doorbell) instead of through its
 * request ring (the record by its offset in the region): the ring is
 * drained first (what the client posted before comes first), then the
 * operation (NM_OP_SEND or NM_OP_RECV) is taken and the sends started.
 * Returns -1 when another thread has the turn (the client uses the ring).
 * NM_OP_SEND_SHORT (`off`: the caller's nm_short_t) returns 1 when the
 * send takes the usual way (a record) instead. */
static int deleg_direct(unsigned op, int world, uint64_t off)
{
    int slot = world >= 0 && world < nm_lay.world_size
                   ? nm_d.slot_of_world[world]
                   : -1;
    if (slot < 0 || !dlg_bell_turn_try(nm_d.bell))
        return -1;
    while (serve_rings(1) > 0)
        ;
    if (op == NM_OP_SEND_SHORT) {
        /* `off` is the caller's nm_short_t (our address space); after
         * sends queued before it, it takes the usual way */
        nm_d.turn_kind = TURN_POST;
        int rc = nm_d.pend
                     ? 1
                     : nmd_send_short(slot, (const nm_short_t *)(uintptr_t)off);
        nm_d.turn_kind = TURN_THREAD;
        turn_end();
        return rc;
    }
    /* the client maps the region elsewhere: its record by offset */
    nm_rec_t *r = (nm_rec_t *)(nm_d.base + off);
    nm_d.own = r;
    nm_d.turn_kind = TURN_POST;
    if (op == NM_OP_SEND && !nm_d.pend) {
        /* nothing queued before it: sent now, without a queue entry */
        pend_t p = {.rec = r, .client = slot};
        nmd_do_send(&p);
    } else if (op == NM_OP_SEND) {
        nmd_hand_send(slot, r);
    } else {
        nmd_hand_recv(slot, r);
    }
    nmd_progress_sends();
    nm_d.own = NULL;
    nm_d.turn_kind = TURN_THREAD;
    turn_end();
    return 0;
}

/* One turn of the delegatee's work, by whoever takes the turn lock: the
 * delegatee's own thread or, in the PiP form, a client thread of the same
 * address space waiting for its operation (no switch to the delegatee's
 * thread on the critical path).  Returns the work done, -1 when another
 * thread has the turn. */
static int turn(int light, int client)
{
    if (!dlg_bell_turn_try(nm_d.bell))
        return -1;
    nm_d.turn_kind = !client ? TURN_THREAD : light ? TURN_POST : TURN_WAIT;
    int n = serve_rings(client);
    /* process form: a window of short sends taken at once goes packed
     * (up to 8 sweeps of `quantum` requests per client) */
    for (int k = 0, m = n; !nm_d.any_same && m > 0 && k < 7; k++)
        n += (m = serve_rings(client));
    n += nmd_progress_sends();
    if (!light)
        n += nmd_progress_incoming(client) + nmd_progress_recvs();
    if (nm_d.turn_kind == TURN_WAIT && nm_d.nattached)
        n += nmd_try_push();
    if (nm_d.noffers)
        n += nmd_progress_offers();
    if (nm_d.nfin == nm_d.ncl)
        nmd_drop_pending();
    nm_d.turn_kind = TURN_THREAD;
    turn_end();
    return n;
}

/* our own loop's turn */
static int deleg_turn(void)
{
    return turn(0, 0);
}

/* the turn of a client of our address space that waits for us */
static int deleg_client_turn(void)
{
    return turn(0, 1);
}

/* The turn a client of our address space runs right after posting: serve
 * the rings and start the sends (what it posted starts now), but leave
 * incoming messages to the turns of waits and of our thread (one pass of
 * MPI's progress less per posted operation). */
static int deleg_post_turn(void)
{
    return turn(1, 1);
}

static int64_t h_hello(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    nm_rec_t *r = dlg_req_ptr(req);
    int s = dlg_req_client(req);
    if (!r || s < 0 || s >= nm_d.ncl)
        return -EINVAL;
    nm_d.cl[s].used = 1;
    nm_d.cl[s].pid = (pid_t)r->arg;
    nm_d.cl[s].same = nm_d.cl[s].pid == getpid();
    nm_d.any_same |= nm_d.cl[s].same;
    if (!nm_d.cl[s].same) {
        /* another process: its payloads move by process_vm_readv/writev
         * (cross memory attach), which a kernel policy may refuse */
        uint64_t v = 0;
        int e = nmd_cma_copy(nm_d.cl[s].pid, &v, r->addr, sizeof v, 0);
        if (e != MPI_SUCCESS || v != r->arg) {
            fprintf(stderr,
                    "mpideleg: delegatee cannot read the memory of client "
                    "pid %d (process_vm_readv refused: see "
                    "kernel.yama.ptrace_scope)\n",
                    (int)nm_d.cl[s].pid);
            return -EPERM;
        }
        nm_log("client rank %d: payloads between processes: "
               "process_vm_readv/writev (cross memory attach)",
               r->peer);
    }
    nm_d.cl[s].world = r->peer;
    if (r->peer >= 0 && r->peer < nm_lay.world_size)
        nm_d.slot_of_world[r->peer] = s;
    return 0;
}

static int64_t h_send(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    nmd_hand_send(dlg_req_client(req), dlg_req_ptr(req));
    return 0;
}

static int64_t h_recv(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    nmd_hand_recv(dlg_req_client(req), dlg_req_ptr(req));
    return 0;
}

static int64_t h_probe(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    nm_rec_t *r = dlg_req_ptr(req);
    dclient_t *c = &nm_d.cl[dlg_req_client(req)];
    int take = dlg_req_op(req) == NM_OP_IMPROBE;
    nm_msg_t *m = nmd_take_unexpected(c, r, take);
    r->found = m != NULL;
    if (m) {
        r->st_src = m->hdr.src;
        r->st_tag = m->hdr.tag;
        r->st_count = m->hdr.size;
        if (take) {
            m->id = ++nm_d.next_id;
            m->next = nm_d.matched;
            nm_d.matched = m;
            r->arg = m->id;
        }
    }
    return 0;
}

static int64_t h_mrecv(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    nm_rec_t *r = dlg_req_ptr(req);
    for (nm_msg_t **pp = &nm_d.matched; *pp; pp = &(*pp)->next) {
        if ((*pp)->id == r->arg) {
            nm_msg_t *m = *pp;
            *pp = m->next;
            r->rr = 0;
            nmd_deliver_to(dlg_req_client(req), m, r);
            return 0;
        }
    }
    return -ENOENT;
}

static int64_t h_cancel(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    nm_rec_t *r = dlg_req_ptr(req);
    dclient_t *c = &nm_d.cl[dlg_req_client(req)];
    nm_rec_t *target = (nm_rec_t *)(nm_d.base + r->arg);
    r->found = 0;
    for (nm_post_t **pp = &c->posted; *pp; pp = &(*pp)->next) {
        if ((*pp)->rec == target) {
            /* announced and claimed by its sender: its data comes */
            if (!nmd_claim_rr(target))
                return 0;
            nmd_unpost(c, pp);
            target->cancelled = 1;
            target->err = MPI_SUCCESS;
            target->st_count = 0;
            nmd_complete(target);
            r->found = 1;
            return 1;
        }
    }
    return 0;
}

static int64_t h_fin(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    dclient_t *c = &nm_d.cl[dlg_req_client(req)];
    if (!c->fin) {
        c->fin = 1;
        nm_d.nfin++;
    }
    return 0;
}

static void on_dead(dlg_delegatee_t *dg, int client, pid_t pid, void *ctx)
{
    (void)dg;
    (void)ctx;
    /* A client that called MPI_Abort, or that hydra saw die, ends the job
     * through hydra, which kills this process within moments: no line,
     * no second abort code.  Still alive after the grace, say why. */
    nm_dead_grace();
    fprintf(stderr,
            "mpideleg: delegatee (world rank %d): client %d (pid %d) "
            "died; aborting the job\n",
            nm_lay.world_rank, client, (int)pid);
    pvas_log_drain(); /* the launcher has the line before the abort */
    PMPI_Abort(MPI_COMM_WORLD, 4);
}

/* What our last turn left, for libdeleg's idle wait: sleep until rung
 * with nothing in flight, look again soon with only transfers the peers
 * move; clients of our address space run turns while they wait. */
static unsigned idle_flags(void)
{
    unsigned f = nm_d.any_same ? DLG_IDLE_TURNS : 0;
    /* Process form (MPIDELEG_DELEGATEE_IDLE adaptive or spin): sleep
     * after a few idle rounds, not after 64 yields and the spin bound
     * (each yield is a system call, and on a busy CPU it hands the CPU to
     * another task for its time slice).  spin: while every client of ours
     * sleeps in a wait (their CPUs are free), poll on, so that a message
     * for them needs no wake-up of ours, only theirs. */
    int live = nm_d.ncl - nm_d.nfin;
    if (!nm_d.any_same && live > 0 && nm_d.quick_idle) {
        f |= DLG_IDLE_QUICK;
        if (nm_d.spin_asleep && dlg_bell_asleep(nm_d.bell) >= (uint32_t)live)
            f |= DLG_IDLE_SPIN;
    }
    if (atomic_load_explicit(&nm_d.may_sleep, memory_order_relaxed))
        f |= DLG_IDLE_SLEEP;
    else if (atomic_load_explicit(&nm_d.sends_only, memory_order_relaxed))
        f |= DLG_IDLE_LOOK;
    return f;
}

void nm_delegatee_main(MPI_Comm wcomm, MPI_Comm dcomm)
{
    nm_d.dcomm = dcomm;
    PMPI_Comm_rank(dcomm, &nm_d.me);
    PMPI_Comm_dup(dcomm, &nm_d.pcomm);
    nmd_incoming_start();
    nm_d.pend_tail = &nm_d.pend;
    const char *idle = getenv("MPIDELEG_DELEGATEE_IDLE");
    /* (other values were refused in MPI_Init) */
    nm_d.idle_adaptive = !(idle && strcmp(idle, "poll") == 0);
    nm_d.quick_idle = nm_d.idle_adaptive;
    nm_d.spin_asleep = idle && strcmp(idle, "spin") == 0;
    /* (a bad value was refused in MPI_Init) */
    pvas_env_bool("MPIDELEG_PACK", 1, 0, &nm_d.pack_on);

    int first = nm_dcomm_rank_of(nm_lay.world_rank) * nm_lay.group;
    nm_d.ncl = nm_lay.world_rank - first;
    nm_d.cl = calloc((size_t)nm_d.ncl, sizeof *nm_d.cl);
    nm_d.slot_of_world = malloc(sizeof(int) * (size_t)nm_lay.world_size);
    size_t npairs =
        (size_t)(nm_d.ncl ? nm_d.ncl : 1) * (size_t)nm_lay.world_size;
    nm_d.sent_seq = calloc(npairs, sizeof *nm_d.sent_seq);
    nm_d.recv_seq = calloc(npairs, sizeof *nm_d.recv_seq);
    if (!nm_d.cl || !nm_d.slot_of_world || !nm_d.sent_seq || !nm_d.recv_seq)
        nmd_fatal("setup", ENOMEM);
    for (int k = 0; k < NM_CLAIMS; k++)
        nm_d.claim_free[nm_d.nclaim_free++] = NM_CLAIMS - 1 - k;
    for (int i = 0; i < nm_lay.world_size; i++)
        nm_d.slot_of_world[i] = -1;
    for (int i = 0; i < nm_d.ncl; i++) {
        nm_d.cl[i].posted_tail = &nm_d.cl[i].posted;
        nm_d.cl[i].unexp_tail = &nm_d.cl[i].unexp;
    }

    dlg_delegatee_attr_t at = {0};
    at.max_clients = (unsigned)nm_d.ncl;
    at.ring_slots = 256;
    at.heap_size = (size_t)nm_d.ncl * (size_t)(2u << 20);
    at.idle_policy = DLG_POLICY_POLL;
    at.quantum = 16;
    at.on_client_dead = on_dead;
    int rc = dlg_region_create(DLG_REGION_MEMFD, "mpideleg",
                               dlg_region_need(&at), 0, &nm_d.region);
    if (rc == 0)
        rc = dlg_delegatee_create(nm_d.region, &at, &nm_d.dg);
    if (rc < 0)
        nmd_fatal("cannot create the delegation region", -rc);
    nm_d.base = (char *)dlg_region_base(nm_d.region);
    dlg_delegatee_register(nm_d.dg, NM_OP_HELLO, h_hello, NULL,
                           DLG_POLICY_POLL);
    dlg_delegatee_register(nm_d.dg, NM_OP_SEND, h_send, NULL, DLG_POLICY_POLL);
    dlg_delegatee_register(nm_d.dg, NM_OP_RECV, h_recv, NULL, DLG_POLICY_POLL);
    dlg_delegatee_register(nm_d.dg, NM_OP_IPROBE, h_probe, NULL,
                           DLG_POLICY_POLL);
    dlg_delegatee_register(nm_d.dg, NM_OP_IMPROBE, h_probe, NULL,
                           DLG_POLICY_POLL);
    dlg_delegatee_register(nm_d.dg, NM_OP_MRECV, h_mrecv, NULL,
                           DLG_POLICY_POLL);
    dlg_delegatee_register(nm_d.dg, NM_OP_CANCEL, h_cancel, NULL,
                           DLG_POLICY_POLL);
    dlg_delegatee_register(nm_d.dg, NM_OP_FIN, h_fin, NULL, DLG_POLICY_POLL);

    /* Doorbells: ours in a memfd page, everybody's by spec. */
    int nd;
    PMPI_Comm_size(dcomm, &nd);
    static const dlg_turns_t turns = {.turn = deleg_client_turn,
                                      .post = deleg_post_turn,
                                      .direct = deleg_direct};
    rc = dlg_bell_create(&turns, &nm_d.bell);
    if (rc < 0)
        nmd_fatal("doorbell", -rc);
    char bspec[32], *all = malloc((size_t)nd * sizeof bspec);
    nm_d.bells = calloc((size_t)nd, sizeof *nm_d.bells);
    nm_d.peer_seen = calloc((size_t)nd, sizeof *nm_d.peer_seen);
    if (!all || !nm_d.bells || !nm_d.peer_seen)
        nmd_fatal("doorbell", ENOMEM);
    dlg_bell_spec(nm_d.bell, bspec, sizeof bspec);
    PMPI_Allgather(bspec, (int)sizeof bspec, MPI_CHAR, all, (int)sizeof bspec,
                   MPI_CHAR, dcomm);
    for (int i = 0; i < nd; i++) {
        if (i == nm_d.me)
            nm_d.bells[i] = nm_d.bell;
        else if ((rc = dlg_bell_open(all + i * sizeof bspec, &nm_d.bells[i])) <
                 0)
            nmd_fatal("doorbell of another delegatee", -rc);
    }
    free(all);
    nmd_cma_setup(nd);
    /* everyone has mapped every doorbell before any is closed */
    PMPI_Barrier(dcomm);

    /* Delegatees that can read each other's memory run on one machine,
     * whatever hosts the launcher was given (two nodes emulated on one):
     * their groups' ranks share its CPUs.  With MPIDELEG_OVERSUBSCRIBED
     * unset (auto), more of them than CPUs makes the node oversubscribed,
     * for us and (through the spec) our clients. */
    const char *ov = getenv("MPIDELEG_OVERSUBSCRIBED");
    if (!nm_lay.oversub && (!ov || !*ov || strcmp(ov, "auto") == 0)) {
        int host = 0;
        for (int d = 0; d < nd; d++)
            if (d == nm_d.me || nm_d.cma[d]) {
                int first_d = d * nm_lay.group;
                int len = nm_lay.world_size - first_d;
                host += len < nm_lay.group ? len : nm_lay.group;
            }
        cpu_set_t cpus;
        if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 &&
            host > CPU_COUNT(&cpus)) {
            nm_lay.oversub = 1;
            nm_log("%d ranks share this machine's %d CPUs: oversubscribed",
                   host, CPU_COUNT(&cpus));
        }
    }

    /* Ranks sharing CPUs (process form): our clients and we on one CPU
     * with MPIDELEG_PLACE=pair, and, with
     * MPIDELEG_DELEGATEE_IDLE unset, we poll while they all sleep (spin):
     * a message for them then needs their wake-up only, not ours too. */
    if (!pvas_env_on("MPIDELEG_PIP", 0) && nm_pair_bind() && (!idle || !*idle))
        nm_d.spin_asleep = 1;

    /* Tell each client where the region and the doorbell are, and
     * whether the node is oversubscribed. */
    char spec[128];
    snprintf(spec, sizeof spec, "%s|%s|%d", dlg_region_spec(nm_d.region), bspec,
             nm_lay.oversub);
    for (int i = 0; i < nm_d.ncl; i++)
        PMPI_Send(spec, (int)sizeof spec, MPI_CHAR, first + i, 7, wcomm);
    nm_log("delegatee of ranks %d..%d, region %s", first, nm_lay.world_rank - 1,
           spec);

    /* The loop: turns, and between them libdeleg's idle waits on our
     * doorbell (what to wait for: idle_flags()). */
    dlg_idle_t idles = {0};
    atomic_store(&nm_d.more, 1);
    while (atomic_load_explicit(&nm_d.more, memory_order_relaxed))
        dlg_bell_idle(nm_d.bell, &idles, deleg_turn(), deleg_turn, idle_flags,
                      !nm_d.idle_adaptive);
    nm_d.sleeps = idles.sleeps;
    /* keep the turn lock from now on: a client thread still in a wait may
     * try a turn, and our MPI (THREAD_SERIALIZED in the PiP form) is ours
     * again */
    dlg_bell_turn_take(nm_d.bell);
    nmd_incoming_end();
    nm_log("delegatee done (%llu sleeps, %llu sends without a copy, %llu "
           "receives filled in place; %llu payloads pulled, %llu pushed, "
           "%llu receives announced; process form: %llu sends left for the "
           "receiver to read, %llu read by our clients, %llu by us)",
           (unsigned long long)nm_d.sleeps, (unsigned long long)nm_d.zsends,
           (unsigned long long)nm_d.drecvs, (unsigned long long)nm_d.pulls,
           (unsigned long long)nm_d.pushes, (unsigned long long)nm_d.announced,
           (unsigned long long)nm_d.cpull_sends,
           (unsigned long long)nm_d.client_pulls,
           (unsigned long long)nm_d.taken_over);
    if (nm_d.packs)
        nm_log("process form: %llu short messages sent in %llu MPI messages",
               (unsigned long long)nm_d.packed, (unsigned long long)nm_d.packs);
    nm_log_usage("delegatee");
    PMPI_Barrier(dcomm); /* nobody rings a doorbell that is gone */
    for (int i = 0; i < nd; i++)
        if (i != nm_d.me)
            dlg_bell_close(nm_d.bells[i]);
    if (!nm_d.any_same) /* else our clients' turns still look at it */
        dlg_bell_destroy(nm_d.bell);
    free(nm_d.bells);
    free(nm_d.peer_seen);
    free(nm_d.cma);
    free(nm_d.push);
    free(nm_d.cs);
    free(nm_d.rr);
    free(nm_d.offers);
    free(nm_d.stage);
    free(nm_d.sent_seq);
    free(nm_d.recv_seq);
    while (nm_d.post_free) {
        nm_post_t *p = nm_d.post_free;
        nm_d.post_free = p->next;
        free(p);
    }
    dlg_delegatee_destroy(nm_d.dg);
    free(nm_d.treq);
    free(nm_d.tidx);
    free(nm_d.tst);
    free(nm_d.in);
    free(nm_d.out);
    dlg_region_close(nm_d.region);
    PMPI_Comm_free(&wcomm);
    PMPI_Comm_free(&nm_d.pcomm);
    PMPI_Comm_free(&dcomm);
    PMPI_Finalize();
    fflush(NULL);
    if (nm_d.any_same)
        exit(0); /* a PiP task: end this task, not the whole process */
    _exit(0);
}
