/* graph_users.c - a value's users: the users word, the user lists cut
 * from the graph's pool and their index, kept current as uses are added,
 * removed and moved (graph_impl.h declares these; its inline
 * graph_users_add and graph_users_remove take the common cases, a word's
 * one user, without a call). */
#include "graph.h"

#include <stdint.h>
#include <string.h>

#include "graph_impl.h"
#include "keymap.h"
#include "util.h"

/* note [users word]: a value's users are the word users of its node, not
 * a record in each operand slot: an operand slot is the pointer to the
 * node it reads (8 bytes, node_slots), where it was a 32-byte struct Use
 * linked into its value's list (user, value, prev, next), 5.44 MB of the
 * workload's partition's peak at 10,000 copies.  On that workload every
 * value has one user, so the word holds it: the user's address in its low
 * 48 bits and the slot's index + 1 (0 for USE_CALLEE) in its top 16; a
 * value of no user has 0.  Node memory is below 2^48 and 8-aligned
 * (graph.c's node_aligned checks each block and large node it takes:
 * x86-64's and AArch64's user addresses are 47 or 48 bits unless a
 * program asks the kernel for more, which graft does not).  The top
 * bits, not the 3 low ones the alignment frees, because an index past 5
 * is common: the workload's output tuple has 10,000 fields, and each
 * root at a field past the fifth had a list of its own (9,994 of them,
 * made at the load and again when the partition moves the root's use to
 * its call: 2.2 M instructions and 320 KB).  A value with more users, or one whose index
 * does not fit in 16 bits, has a struct UserList tagged 1 in the low bit
 * (note [user lists]).  nusers stays a field of the node, so node_nusers
 * is one load; linking a single user is two stores, unlinking it one. */
_Static_assert(sizeof(uintptr_t) == 8, "a users word has 64 bits (note [users word])");

/* note [user lists]: a list is cut from the graph's pool of pieces of
 * 32 << k bytes with a free list per size (UserPool, freed with the
 * graph), a residual net's thousands of two-user values a piece each, not
 * a malloc each; its header and entries fill the piece (cap is a power of
 * two less two, the header two entries' room).  Entries stay in the order
 * the uses were made (the ONNX writer reads a call's results in that
 * order) and a list grows by a new piece of twice the size.  Removing an
 * entry of a short list (cap below USER_INDEX_CAP) finds it by a scan and
 * closes the gap, at most a few dozen entries; in a longer list the
 * removed entry becomes a tombstone (user NULL, which node_user_next
 * skips), the list made anew without them once they outnumber the live
 * ones.  The oldest live entry is at head, and most removals are of it or
 * of the newest, which len then leaves (a pass takes a shared constant's
 * users in their order or the reverse: the workload's ONNX partition the
 * 10,000 of its epsilon, newest first); any other is found by an index,
 * open addressing of (user, operand) to the entry's position, linear
 * probing with deletion by backward shift (not a KeyMap, which deletes
 * nothing: an exception of note [one hash map] in keymap.h), made by the
 * first such removal (O(len), as the list's growth or remaking is) and
 * kept by appends until the list is made anew.  So removing each of a
 * million users, in any order (graph_set_arg, the sweeps), costs each a
 * probe or two and amortized O(1) moves, never a scan of the list
 * (tests/check_graph.c's wide fan-outs hold GraphUserCounts to that).  A list of one user that
 * the word can say goes back to the word. */
enum { USER_INDEX_CAP = 30 };
/* The pool's first block: a model's few lists (resnet50's residual adds
 * and fold_bn's pairs, note [two users]) take a few KB; each block after
 * is twice the last, up to NODE_BLOCK (64 KB, which the first was: 66 KB
 * more of resnet50's peak than the linked lists took). */
enum { USER_BLOCK_MIN = 2048 };

_Static_assert(sizeof(void *) != 8 || sizeof(struct UserList) == 2 * sizeof(struct UserEntry),
               "a list's header is two entries (note [user lists])");
_Static_assert(sizeof(void *) != 8 || sizeof(struct UserEntry) == 16,
               "an entry is 16 bytes (note [user lists])");

/* The pool's class of a piece of bytes (a power of two, at least 32). */
static unsigned piece_class(size_t bytes)
{
    return (unsigned)__builtin_ctzll((unsigned long long)bytes) - 5;
}

static void *piece_take(graft_graph *g, size_t bytes)
{
    UserPool *p = &g->user_pool;
    unsigned k = piece_class(bytes);
    if (k >= USER_CLASSES)
        out_of_memory();
    void *piece = p->free[k];
    if (piece) {
        p->free[k] = *(void **)piece;
        return piece;
    }
    if (bytes > NODE_BLOCK / 4) { /* a piece of its own */
        piece = xmalloc(bytes);
        vec_push(&p->blocks, piece);
        p->counts.pool_bytes += bytes;
        return piece;
    }
    if (p->left < bytes) { /* (a block's tail too short is left unused) */
        size_t size = p->block ? p->block : USER_BLOCK_MIN;
        while (size < bytes)
            size *= 2;
        p->block = size < NODE_BLOCK ? 2 * size : NODE_BLOCK;
        p->next = xmalloc(size);
        vec_push(&p->blocks, (void *)p->next);
        p->left = size;
        p->counts.pool_bytes += size;
    }
    piece = p->next;
    p->next += bytes;
    p->left -= bytes;
    return piece;
}

static void piece_give(graft_graph *g, void *piece, size_t bytes)
{
    UserPool *p = &g->user_pool;
    unsigned k = piece_class(bytes);
    *(void **)piece = p->free[k];
    p->free[k] = piece;
}

void graph_user_pool_free(UserPool *p)
{
    for (size_t i = 0; i < p->blocks.len; i++)
        free(p->blocks.items[i]);
    vec_free(&p->blocks);
}

GraphUserCounts graph_user_counts(const graft_graph *g)
{
    return g->user_pool.counts;
}

static size_t list_bytes(uint32_t cap)
{
    return ((size_t)cap + 2) * sizeof(struct UserEntry);
}

/* The entries of an index of a list of cap entries: more than twice the
 * entries it can hold, a power of two. */
static size_t index_size(uint32_t cap)
{
    return 2 * ((size_t)cap + 2);
}

static struct UserList *list_of(const graft_node *v)
{
    return (struct UserList *)(v->users - USERS_LIST_TAG);
}

/* The home slot of (user, operand) in an index of mask + 1 slots (a
 * power of two): note [one cache slot]'s formula, whose top bits spread
 * the users' addresses, made at a fixed stride, evenly. */
static size_t index_home(const graft_node *user, int operand, size_t mask)
{
    uint64_t key = (uint64_t)(uintptr_t)user ^ ((uint64_t)(uint32_t)operand << 48);
    return cache_slot(key, (unsigned)__builtin_ctzll(mask + 1));
}

static void index_put(graft_graph *g, struct UserList *l, uint32_t pos)
{
    size_t mask = index_size(l->cap) - 1;
    size_t i = index_home(l->at[pos].user, l->at[pos].operand, mask);
    g->user_pool.counts.probes++;
    while (l->index[i]) {
        i = (i + 1) & mask;
        g->user_pool.counts.probes++;
    }
    l->index[i] = pos + 1;
}

/* Whether e is (user, operand). */
static inline bool entry_is(const struct UserEntry *e, const graft_node *user, int operand)
{
    return e->user == user && e->operand == operand;
}

/* Removes (user, operand) from l's index and returns its position. */
static uint32_t index_take(graft_graph *g, struct UserList *l, const graft_node *user,
                           int operand)
{
    size_t mask = index_size(l->cap) - 1;
    size_t i = index_home(user, operand, mask);
    for (;; i = (i + 1) & mask) {
        g->user_pool.counts.probes++;
        const struct UserEntry *e = &l->at[l->index[i] - 1]; /* (it is there) */
        if (entry_is(e, user, operand))
            break;
    }
    uint32_t pos = l->index[i] - 1;
    for (size_t j = (i + 1) & mask; l->index[j]; j = (j + 1) & mask) { /* backward shift */
        g->user_pool.counts.probes++;
        const struct UserEntry *e = &l->at[l->index[j] - 1];
        size_t home = index_home(e->user, e->operand, mask);
        if (((j - home) & mask) >= ((j - i) & mask)) { /* home not in (i, j] */
            l->index[i] = l->index[j];
            i = j;
        }
    }
    l->index[i] = 0;
    return pos;
}

/* l's index made, of its live entries (note [user lists]). */
static void index_make(graft_graph *g, struct UserList *l)
{
    l->index = piece_take(g, index_size(l->cap) * sizeof *l->index);
    memset(l->index, 0, index_size(l->cap) * sizeof *l->index);
    for (uint32_t pos = l->head; pos < l->len; pos++)
        if (l->at[pos].user)
            index_put(g, l, pos);
}

/* A list of cap entries holding the live entries of the n at from, in
 * order, without an index. */
static struct UserList *list_make(graft_graph *g, uint32_t cap, const struct UserEntry *from,
                                  uint32_t n)
{
    struct UserList *l = piece_take(g, list_bytes(cap));
    g->user_pool.counts.lists++;
    *l = (struct UserList){.cap = cap};
    for (uint32_t i = 0; i < n; i++)
        if (from[i].user)
            l->at[l->len++] = from[i];
    g->user_pool.counts.moves += l->len;
    return l;
}

static void list_free(graft_graph *g, struct UserList *l)
{
    if (l->index)
        piece_give(g, l->index, index_size(l->cap) * sizeof *l->index);
    piece_give(g, l, list_bytes(l->cap));
}

/* The capacity of a list made for n users: room for as many again. */
static uint32_t list_cap_for(uint32_t n)
{
    uint32_t cap = 2;
    while (cap < 2 * n)
        cap = 2 * cap + 2;
    return cap;
}

/* v's users made anew from its list l, whose live entries number
 * v->nusers: none, the word of one, or a list without tombstones. */
static void list_refit(graft_graph *g, graft_node *v, struct UserList *l)
{
    uint32_t n = (uint32_t)v->nusers;
    if (n <= 1) {
        uint32_t k = l->head;
        while (n && !l->at[k].user)
            k++;
        if (!n || word_holds(l->at[k].operand)) {
            v->users = n ? user_word(l->at[k].user, l->at[k].operand) : 0;
            list_free(g, l);
            return;
        }
    }
    struct UserList *fit = list_make(g, list_cap_for(n), l->at, l->len);
    list_free(g, l);
    v->users = (uintptr_t)fit | USERS_LIST_TAG;
}

/* note [two users]: a rewrite makes its new node on the inputs of the
 * nodes it replaces before those die, so each input has two users for a
 * moment, a list made and refitted to the word: 50,000 of them on the
 * workload's Relay rewrite, 220 instructions each through list_make and
 * list_refit.  The word's second user and the removal of one of two take
 * their own few stores instead (a list of 2 from the pool's free list,
 * and the one left put back in the word: graph_users_unpair in
 * graph_impl.h, inline in the kill of a cone, which gives most back). */

/* graph_users_add_listed's general case: v's user list made (from its
 * word's user) or grown, then user appended; and the count. */
static __attribute__((noinline)) void list_add(graft_graph *g, graft_node *v,
                                               graft_node *user, int operand)
{
    struct UserList *l;
    if (!node_users_listed(v)) { /* from the word: its user first */
        struct UserEntry one = {node_user(v, 0), node_user_operand(v, 0)};
        l = list_make(g, PAIR_CAP, &one, v->users ? 1 : 0);
    } else {
        l = list_of(v);
        if (l->len == l->cap) {
            struct UserList *grown = list_make(g, 2 * l->cap + 2, l->at + l->head,
                                               l->len - l->head);
            list_free(g, l);
            l = grown;
        }
    }
    l->at[l->len] = (struct UserEntry){user, operand};
    if (l->index)
        index_put(g, l, l->len);
    l->len++;
    v->users = (uintptr_t)l | USERS_LIST_TAG;
    v->nusers++;
}

/* graph_users_add_listed past a pair: an append to a list with room and
 * no index stored here (note [common orders]), else list_add's. */
static __attribute__((noinline)) void list_append(graft_graph *g, graft_node *v,
                                                  graft_node *user, int operand)
{
    struct UserList *l = list_of(v);
    if (!node_users_listed(v) || l->len == l->cap || l->index) {
        list_add(g, v, user, operand);
        return;
    }
    l->at[l->len++] = (struct UserEntry){user, operand};
    v->nusers++;
}

/* graph_users_add past the word: a second user to v's word, made a pair
 * (note [two users]), or list_append's. */
void graph_users_add_listed(graft_graph *g, graft_node *v, graft_node *user, int operand)
{
    UserPool *p = &g->user_pool;
    struct UserList *l = p->free[PAIR_CLASS];
    if (!l || !v->users || node_users_listed(v)) {
        list_append(g, v, user, operand);
        return;
    }
    p->free[PAIR_CLASS] = *(void **)l; /* (piece_take's reuse, inline) */
    uintptr_t w = v->users;            /* (the word's user: node_user's) */
    *l = (struct UserList){.len = 2, .cap = PAIR_CAP};
    l->at[0] = (struct UserEntry){(graft_node *)(w & USER_ADDRESS_MASK),
                                  (int)(w >> USER_OPERAND_SHIFT) - 1};
    l->at[1] = (struct UserEntry){user, operand};
    p->counts.lists++;
    v->users = (uintptr_t)l | USERS_LIST_TAG;
    v->nusers = 2;
}

/* Tombstones the entry at pos of l, a list of USER_INDEX_CAP or more
 * entries; head moves past the tombstones it reaches, and len back. */
static inline void list_bury(struct UserList *l, uint32_t pos)
{
    l->at[pos].user = NULL;
    while (l->head < l->len && !l->at[l->head].user)
        l->head++;
    while (l->len > l->head && !l->at[l->len - 1].user)
        l->len--;
}

/* Whether v's list l is to be made anew: v has a user or none left, or
 * its tombstones outnumber its users. */
static inline bool list_to_refit(const graft_node *v, const struct UserList *l)
{
    return v->nusers <= 1 || l->len - (uint32_t)v->nusers > (uint32_t)v->nusers;
}

/* graph_users_remove_listed of any entry (note [user lists]). */
static __attribute__((noinline)) void list_remove(graft_graph *g, graft_node *v,
                                                  const graft_node *user, int operand)
{
    struct UserList *l = list_of(v);
    if (l->cap >= USER_INDEX_CAP) { /* not at an end, or indexed: by the index */
        if (!l->index)
            index_make(g, l);
        list_bury(l, index_take(g, l, user, operand));
    } else {
        uint32_t pos = 0;
        while (!entry_is(&l->at[pos], user, operand))
            pos++;
        g->user_pool.counts.probes += pos + 1;
        g->user_pool.counts.moves += l->len - pos - 1;
        for (uint32_t k = pos + 1; k < l->len; k++) /* (a few: no call of memmove) */
            l->at[k - 1] = l->at[k];
        l->len--;
    }
    if (list_to_refit(v, l))
        list_refit(g, v, l);
}

/* note [common orders]: a shared value's list is grown by its users in
 * creation order and emptied by a pass in that order or the reverse: the
 * workload's ONNX epsilon, one initializer read by the 10,000 batch
 * norms, gains them at the import and loses them newest first to the
 * partition, oldest first to the rewrite.  So an append to a list with
 * room and no index is a store in list_append, not list_add's path (39
 * instructions an append there), and graph_users_remove_listed asks
 * whether a long list without an index loses its newest or its oldest
 * entry before it calls anything, then list_remove_newest pops it or
 * list_remove_oldest moves head past it (73 and 58 instructions a
 * removal through list_remove_at_end, list_end_of and list_bury, which
 * were).  Any other removal is list_remove's. */

/* graph_users_remove_listed of the newest entry of l, v's list, long and
 * without an index (note [common orders]): popped, with the tombstones
 * it uncovers. */
static __attribute__((noinline)) void list_remove_newest(graft_graph *g, graft_node *v,
                                                         struct UserList *l)
{
    g->user_pool.counts.probes++;
    uint32_t len = l->len - 1; /* (a local: the loop reads no field again) */
    while (len > l->head && !l->at[len - 1].user)
        len--;
    l->len = len;
    if (list_to_refit(v, l))
        list_refit(g, v, l);
}

/* The same of its oldest entry, asked second: a tombstone, head moved
 * past it and those after it. */
static __attribute__((noinline)) void list_remove_oldest(graft_graph *g, graft_node *v,
                                                         struct UserList *l)
{
    g->user_pool.counts.probes += 2;
    uint32_t head = l->head;
    l->at[head++].user = NULL;
    while (head < l->len && !l->at[head].user)
        head++;
    l->head = head;
    if (list_to_refit(v, l))
        list_refit(g, v, l);
}

void graph_users_remove_listed(graft_graph *g, graft_node *v, const graft_node *user,
                               int operand)
{
    if (graph_users_unpair(g, v, user, operand))
        return;
    struct UserList *l = list_of(v);
    if (l->cap >= USER_INDEX_CAP && !l->index) { /* note [common orders] */
        if (entry_is(&l->at[l->len - 1], user, operand)) {
            list_remove_newest(g, v, l);
            return;
        }
        if (entry_is(&l->at[l->head], user, operand)) {
            list_remove_oldest(g, v, l);
            return;
        }
    }
    list_remove(g, v, user, operand);
}

/* graph_replace_all_uses of a listed value: its entries moved to to in
 * order, but to's own, kept in place; then old's list refitted to those.
 * (old stays listed till the refit: to != old, so no move changes it.) */
void graph_users_move_listed(graft_graph *g, graft_node *old, graft_node *to)
{
    struct UserList *l = list_of(old);
    uint32_t kept = 0;
    for (uint32_t pos = 0; pos < l->len; pos++) {
        struct UserEntry e = l->at[pos];
        if (e.user == to) {
            l->at[kept++] = e;
        } else if (e.user) {
            *graph_slot_of(e.user, e.operand) = to;
            graph_users_add(g, to, e.user, e.operand);
        }
    }
    g->user_pool.counts.moves += l->len;
    l->len = kept;
    l->head = 0;
    old->nusers = (int32_t)kept;
    list_refit(g, old, l);
}
