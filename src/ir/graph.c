/* graph.c - the graph and its nodes (graph.h): the tables by id, the
 * interning of names, the node pool and the builders, and the edits that
 * move a use (a value's users are graph_users.c's). */
#include "graph.h"

#include <stddef.h>
#include <string.h>

#include "graph_impl.h"
#include "keymap.h"
#include "outbuf.h"
#include "util.h"

/* note [node size]: struct graft_node is 48 bytes on LP64 (checked here
 * and by tests/check_graph.c): an 8-byte header (kind, flags, id), the
 * operand and user counts, the users word (note [users word] in
 * graph_users.c), one string (op, name or constant spelling), type, then
 * one kind-specific word (a constant's value, a function's or match's
 * record, an element's index, a call's result and attribute counts; a
 * function's attribute count is in its record).  That word comes last so
 * that a variable, which has none, is cut without it (note [short
 * nodes]).  The operand slots (8 bytes each, the node read: note [users
 * word]) are allocated right after the node, a callee's
 * after the operands, so their place is computed, not stored
 * (node_slots, node_callee_slot), and after them, in the nodes that have
 * one, the tail word (note [tail word]): a unary op takes 56 bytes of
 * the pool and a binary one 64 (80 and 112 with session 28's 32-byte
 * slots); attributes live beside it.  Step 1 of the layout by field
 * (doc/architecture.md, "The graph as arrays") took the node from 96
 * bytes to 72, the annotation's move to a table of the graph's to 64
 * (note [annotation table] in graph_node.h), the scope's to 56 (note
 * [scope table] there), the attributes' to the tail word to 48, a
 * variable's to 40 (note [short nodes]), and session 29 the slots from
 * 32 bytes to 8 (step 2, note [users word]).
 *
 * note [tail word]: a call's attributes (or a function's) and a scalar
 * constant's dtype are a word past the node's slots, its callee's
 * included (node_tail, union NodeTail in graph_node.h), allocated only
 * for the nodes that have one: a call or function made with attributes
 * and a constant of graph_add_const or graph_add_literal_interned.  Most
 * calls have none (none of the 60,000 of the workload's model), and the
 * word was in every node, 8 bytes of each of the partition's 90,000 that
 * are not variables.  Its place depends on the slots before it, so it is
 * written only by the builders that made the node with it
 * (graph_new_tailed_node), after its operands (graph_set_attrs,
 * graph_add_call_sharing, graph_add_func_sharing, the constants': the
 * last three by graph_new_tail, without reading the node back), and
 * read only through node_attr and node_const_dtype, which the node's
 * kind and attribute count guard.  A loader's call with attributes is
 * made out of line (call_with_attrs), so that the common one's path has
 * no test of its size (7 instructions a call fewer on both partitions
 * of bench/workload.sh). */
_Static_assert(sizeof(void *) != 8 || sizeof(graft_node) == 48,
               "a node is 48 bytes (note [node size])");
_Static_assert(sizeof(union NodeTail) == sizeof(void *), "a tail is a word (note [tail word])");

/* A graph whose names are interned in strings (NULL: a new interner of
 * its own, in its arena). */
static graft_graph *graph_with_strings(Interner *strings)
{
    graft_graph *g = xcalloc(1, sizeof(graft_graph));
    g->arena = arena_new();
    g->strings_borrowed = strings != NULL;
    g->strings = strings ? strings : interner_new(g->arena);
    g->name = graph_intern(g, "main");
    g->released = (graft_node){.kind = NODE_TUPLE, .dead = 1}; /* (note [dead blocks]
                                                                 in graph_compact.c) */
    return g;
}

graft_graph *graph_new(void)
{
    return graph_with_strings(NULL);
}

graft_graph *graph_new_named(Interner *names)
{
    return graph_with_strings(names);
}

/* note [node table]: the table of nodes by id is sized exactly, not to
 * a power of two: a loader's reserve (graph_reserve) is an estimate from
 * the text, already above what it makes (166,684 for the 120,001 nodes
 * of 10,000 side-by-side batch norms), and a power of two on top of it
 * took 262,144 entries, 2 MB live through the partition's peak.  A pass
 * that knows what it adds fits the table to that (graph_fit_nodes, 190,001
 * entries there); past that the table grows by half, not double.  The
 * positions are cut to the ids the loader handed out when it is done
 * (graph_fit_positions: 0.37 MB there): glibc's realloc cuts a block
 * where it is (a large one by mremap) and copies nothing, and only the
 * loader sets positions, so they do not grow again.  (valgrind's massif
 * keeps a block that realloc shrinks whole and counts the cut bytes as
 * extra heap, so its peaks do not show the cut.) */

/* The node table's capacity set to cap, exactly. */
static void nodes_resize(graft_graph *g, size_t cap)
{
    if (cap > SIZE_MAX / sizeof(graft_node *))
        out_of_memory();
    g->nodes = xrealloc(g->nodes, cap * sizeof(graft_node *));
    g->nodes_cap = cap;
    g->side.nodes.by_id = g->nodes; /* (struct GraphNodeView in graph_node.h) */
}

/* note [positions on demand]: graph_reserve sizes the positions' table
 * but makes it only when a loader asks for it (graph_positions) or sets a
 * position (graph_set_pos): the ONNX import reserves as the Relay loader
 * does and sets no position, and its table of zeros lived through its
 * passes, 1.33 MB on the workload's ONNX jobs.  Freed before their passes
 * (note [memory before the output] in src/runtime/runner.c), it was
 * memory glibc's calloc then handed out again and zeroed, 2.5 M
 * instructions on the ONNX partition; never made, it costs nothing. */

/* The positions' table made, of the room graph_reserve asked for, zeroed
 * (calloc's fresh pages come zeroed: no memset). */
static void make_positions(graft_graph *g)
{
    g->pos = xcalloc(g->pos_want, sizeof *g->pos);
    g->pos_cap = g->pos_want;
}

void graph_reserve(graft_graph *g, size_t nodes)
{
    graph_reserve_nodes(g, nodes);
    interner_reserve(g->strings, nodes / 2);
}

void graph_reserve_nodes(graft_graph *g, size_t nodes)
{
    if (nodes > g->nodes_cap)
        nodes_resize(g, nodes);
    if (!g->pos) {
        if (nodes > g->pos_want)
            g->pos_want = nodes;
    } else if (nodes > g->pos_cap) {
        size_t old = g->pos_cap;
        g->pos = xgrow_items(g->pos, &g->pos_cap, nodes, sizeof *g->pos);
        memset(g->pos + old, 0, (g->pos_cap - old) * sizeof *g->pos);
    }
}

void graph_fit_positions(graft_graph *g)
{
    g->pos_want = 0; /* none made now: none wanted */
    if (g->nnodes && g->nnodes < g->pos_cap) {
        g->pos = xrealloc(g->pos, g->nnodes * sizeof *g->pos);
        g->pos_cap = g->nnodes;
    }
}

void graph_fit_nodes(graft_graph *g, size_t more)
{
    size_t cap = (size_t)g->nnodes + more;
    if (cap != g->nodes_cap && cap)
        nodes_resize(g, cap);
}

void graph_free(graft_graph *g)
{
    if (!g)
        return;
    graph_set_type_memo(g, NULL, NULL); /* before the types it holds */
    if (!g->strings_borrowed)
        interner_free(g->strings);
    arena_free(g->arena);
    free(g->nodes);
    free(g->pos);
    free(g->side.annots.by_id);
    free(g->side.scopes.fn_id);
    if (!g->params_borrowed)
        free(g->params);
    free(g->typedefs);
    keymap_free(&g->annotation_types);
    keymap_free(&g->scalar_types);
    keymap_free(&g->tensor_types);
    keymap_free(&g->node_names);
    vec_free(&g->value_names);
    keymap_free(&g->domains);
    keymap_free(&g->dim_symbols);
    keymap_free(&g->fixed_names);
    vec_free(&g->dim_names);
    for (size_t i = 0; i < g->owned.len; i++)
        free(g->owned.items[i]);
    vec_free(&g->owned);
    vec_free(&g->new_names.ids);
    free(g->globals);
    for (size_t i = 0; i < g->node_blocks.len; i++)
        free(g->node_blocks.items[i].mem);
    vec_free(&g->cone);
    vec_free(&g->orphan_vars);
    vec_free(&g->node_blocks);
    graph_user_pool_free(&g->user_pool);
    free(g);
}

Arena *graph_arena(graft_graph *g)
{
    return g->arena;
}

/* note [canonical pointers]: builders intern every string they are
 * given, and most are interned already (the loader interns an op name,
 * then graph_add_call interns it again; constants' dtypes, attribute
 * names).  An interned copy lives in the graph's arena until the graph
 * is freed, so no other string can ever sit at its address: a pointer
 * equal to one the interner returned is canonical.  A small table by
 * address remembers the strings graph_intern was asked for lately and
 * skips the hash.  A slot holds the last two put there (note [one cache
 * slot] in keymap.h): with one a slot, whether two of a job's few hot
 * names shared a slot fell as the allocator placed them, and the ONNX
 * partition's graph_intern read 1.58 M instructions in one build and
 * 3.72 M in another (about 21,700 calls missing or not).  graph_intern_n
 * puts nothing there: the loaders' names (150,000 of the Relay
 * partition's, nearly all asked for once) would only push those out, at
 * a store and a slot a name. */
static const char **canon_slot(graft_graph *g, const char *s)
{
    /* (by note [one cache slot]'s formula: interned strings are packed,
     * not 16 bytes apart, note [interner memory] in arena.c) */
    return g->canon[cache_slot((uint64_t)(uintptr_t)s, CANON_BITS)];
}

static inline bool canon_is(const char *const *entry, const char *s)
{
    return *entry == s;
}

/* Puts canonical, the interner's answer for a string its slot missed, in
 * its own slot, unless that holds it (the string was a copy). */
static const char *remember_canonical(graft_graph *g, const char *canonical)
{
    const char **pair = canon_slot(g, canonical);
    if (cache_pair_find(pair, canonical, canon_is))
        return canonical;
    cache_pair_put(pair, canonical);
    return canonical;
}

const char *graph_intern(graft_graph *g, const char *s)
{
    if (!s)
        return s;
    const char **pair = canon_slot(g, s);
    if (cache_pair_find(pair, s, canon_is))
        return s;
    if (g->new_names.prefix)
        graph_before_interning(g, s, strlen(s));
    return remember_canonical(g, interner_cstr(g->strings, s));
}

/* note [fixed names]: a compiled action names its ops and attributes by
 * string literals (graft_add_call(g, "nn.batch_norm", ...)), whose
 * addresses are not the graph's copies, so graph_intern hashed each of
 * them on every rewrite: 3 hashes of a batch norm's 1,875 instructions, a
 * compiled build dearer than the interpreter's, which remembers the
 * graph's copy of each rule-set name (note [names interned once] in
 * rewrite_build_attr.c).  graph_intern_fixed remembers it by the literal's
 * address for the graph's life.  That is sound only for a string whose
 * bytes cannot change while the graph lives, which is what its callers
 * promise: a literal of the compiled rule set, or a name the graph
 * interned itself (its arena keeps it unchanged until the graph is
 * freed). */
const char *graph_intern_fixed(graft_graph *g, const char *s)
{
    if (!s)
        return s;
    const char *copy = keymap_get_ptr(&g->fixed_names, s);
    if (!copy) {
        copy = graph_intern(g, s);
        keymap_put_ptr(&g->fixed_names, s, copy);
    }
    return copy;
}

/* graph_intern_n once a batch of names made new began: out of line, so
 * that the loaders' interning (150,000 names on the workload's Relay
 * jobs) keeps its registers (+0.6 M instructions on the rewrite
 * inline). */
static __attribute__((noinline)) const char *intern_n_beside_new(graft_graph *g, const char *s,
                                                                 size_t n)
{
    graph_before_interning(g, s, n);
    return interner_intern(g->strings, s, n);
}

const char *graph_intern_n(graft_graph *g, const char *s, size_t n)
{
    if (g->new_names.prefix)
        return intern_n_beside_new(g, s, n);
    return interner_intern(g->strings, s, n);
}

size_t graph_interned_count(const graft_graph *g)
{
    return interner_count(g->strings);
}

uint32_t graph_node_count(const graft_graph *g)
{
    return g->nnodes;
}

uint32_t graph_live_count(const graft_graph *g)
{
    return g->nnodes - g->ndead;
}

int graph_nparams(const graft_graph *g)
{
    return g->nparams;
}

graft_node *graph_param(const graft_graph *g, int i)
{
    return g->params[i];
}

graft_node *const *graph_params(const graft_graph *g)
{
    return g->params;
}

uint32_t graph_var_count(const graft_graph *g)
{
    return g->nvars;
}

graft_node *graph_output(const graft_graph *g)
{
    return g->output;
}

void graph_set_output(graft_graph *g, graft_node *out)
{
    g->output = out;
    g->swept = false; /* (note [swept graph] in graph_walk.c) */
}

size_t graph_bytes(const graft_graph *g)
{
    return arena_bytes(g->arena) + g->node_blocks.len * (size_t)NODE_BLOCK +
           g->nodes_cap * sizeof(graft_node *) + g->params_cap * sizeof(graft_node *) +
           g->annots_alloc * sizeof *g->side.annots.by_id +
           g->side.scopes.cap * sizeof *g->side.scopes.fn_id;
}

size_t graph_node_size(void)
{
    return sizeof(graft_node);
}

/* ---- node accessors (the field reads are inline, graph_node.h) ---- */

int node_line(const graft_graph *g, const graft_node *n)
{
    return n->id < g->pos_cap ? g->pos[n->id].line : 0;
}

int node_col(const graft_graph *g, const graft_node *n)
{
    return n->id < g->pos_cap ? g->pos[n->id].col : 0;
}

void graph_set_pos(graft_graph *g, graft_node *n, int line, int col)
{
    if (!g->pos && n->id < g->pos_want)
        make_positions(g);
    if (n->id >= g->pos_cap) {
        size_t old = g->pos_cap;
        g->pos = xgrow_items(g->pos, &g->pos_cap, (size_t)n->id + 1, sizeof *g->pos);
        memset(g->pos + old, 0, (g->pos_cap - old) * sizeof *g->pos);
    }
    g->pos[n->id] = (SrcPos){line, col};
}

int32_t *graph_positions(graft_graph *g, size_t *cap)
{
    _Static_assert(sizeof(SrcPos) == 2 * sizeof(int32_t), "a position is a line and a column");
    if (!g->pos && g->pos_want)
        make_positions(g);
    *cap = g->pos_cap;
    return (int32_t *)(void *)g->pos;
}

const graft_attr_value *node_find_attr(const graft_node *n, const char *name)
{
    for (int i = 0, count = node_nattrs(n); i < count; i++)
        if (node_attr(n, i)->name == name || strcmp(node_attr(n, i)->name, name) == 0)
            return node_attr(n, i)->value;
    return NULL;
}

/* A meta constant's dtype is its tensor type's. */
const char *node_const_dtype(const graft_node *n)
{
    if (n->kind != NODE_CONST)
        return NULL;
    if (n->flag)
        return node_tail(n)->dtype; /* (note [tail word]) */
    return n->type && n->type->kind == TYPE_TENSOR ? n->type->dtype : NULL;
}

int node_func_nattrs(const graft_node *n)
{
    return n->u.fn->nattrs;
}

int node_nparams(const graft_node *n)
{
    return n->kind == NODE_FUNC ? n->u.fn->nparams : 0;
}

graft_node *node_param(const graft_node *n, int i)
{
    return n->u.fn->params[i];
}

graft_node *const *node_params(const graft_node *n)
{
    return n->u.fn->params;
}

graft_node *node_body(const graft_node *n)
{
    return n->kind == NODE_FUNC ? n->u.fn->body : NULL;
}

const graft_type *node_ret_type(const graft_node *n)
{
    return n->kind == NODE_FUNC && n->u.fn->decl ? n->u.fn->decl->ret : NULL;
}

const char *node_type_params(const graft_node *n)
{
    return n->kind == NODE_FUNC && n->u.fn->decl ? n->u.fn->decl->type_params : NULL;
}

FuncParts node_func_parts(const graft_node *n)
{
    const FuncInfo *f = n->u.fn;
    const FuncDecl *d = f->decl ? f->decl : &(const FuncDecl){0};
    return (FuncParts){f->params, f->nparams, f->nattrs, f->body, d->ret, d->type_params};
}

/* ---- builders ---- */

/* note [node pool]: the arena aligns what it hands out to 16 bytes, so a
 * 72-byte node with its 32-byte slots would take 80 + 32 n bytes, as an
 * 80-byte one does.  Nodes need 8 (the users word's tag needs no more:
 * note [users word] in graph_users.c): they are cut from 64 KB blocks at
 * 8-byte steps, each node zeroed as it is cut (as arena_alloc zeroes
 * what it gives), but not its operand slots: every builder fills each
 * slot whole (graph_set_operands, a callee's slot), and zeroing them too
 * made the zeroing a memset of a variable size, a call; a node too large
 * for a block gets the arena's own allocation.  The blocks are malloc'd,
 * not the arena's: the arena zeroes a large allocation twice (alloc_big,
 * then arena_alloc), and glibc's memset counts an instruction a byte
 * under callgrind, which put about 570 instructions on each op node of
 * bench/e2e.sh's partition. */
_Static_assert(sizeof(graft_node) % 8 == 0 && sizeof(graft_node *) % 8 == 0,
               "nodes and slots keep 8-byte alignment (note [node pool])");

/* note [short nodes]: a variable, a global's reference and an operator
 * reference have no operands, attributes or kind-specific word, so their
 * node is struct graft_node up to its member u, 40 bytes of the pool, not
 * 48 (SHORT_NODE; 56 before the tail word): the workload's partition has
 * 100,000 variables (@main's parameters and its functions'), half its
 * 190,000 nodes, 1.6 MB less at its peak when the node was 56
 * (bench/RESULTS.md, session 28).  Nothing may read or write u of such a
 * node, which is memory of the next one (nor a tail word: it has none);
 * that holds because
 *   - they are made by new_node of a constant kind (new_var),
 *     graph_new_vars and graph_new_short_node (graph_global_ref,
 *     graph_add_opref), which cut and zero 40 bytes (node_zero), and
 *     their builders set str and type alone; graph_new_node, whose kind
 *     is not constant, cuts every node whole, so that its callers pay no
 *     test of the kind (a short kind given to it would only take 48);
 *   - a node's kind is set once, by node_register, and nothing copies a
 *     node whole (the graph's released node is a full one, a tuple);
 *   - every reader of u asks the kind first: the accessors of
 *     graph_node.h and of this file (node_nattrs is 0 for these kinds,
 *     so node_attr is never asked), the FuncInfo's and MatchInfo's,
 *     graph_set_attrs' callers (calls and functions), the walks (a
 *     function's record).
 * Slots stay at sizeof(graft_node) past every node that has them
 * (node_slots): no kind is asked on the operands' path.  The users word
 * comes before u, so a short node has its users as any node does: a
 * parameter's one user costs it nothing beyond its 40 bytes (note [users
 * word]), where each user was a 32-byte record in the user's slot. */
enum { SHORT_NODE = offsetof(graft_node, u) };
_Static_assert(sizeof(void *) != 8 || SHORT_NODE == 40,
               "a variable is 40 bytes (note [short nodes])");
_Static_assert(SHORT_NODE % 8 == 0, "a short node keeps 8-byte alignment (note [node pool])");

static inline bool kind_is_short(NodeKind kind)
{
    return kind == NODE_VAR || kind == NODE_GLOBAL || kind == NODE_OPREF;
}

/* The pool's bytes for a node of kind with nslots operand slots (none
 * for a short kind). */
static inline size_t node_bytes(NodeKind kind, int nslots)
{
    return kind_is_short(kind) ? SHORT_NODE
                               : sizeof(graft_node) + (size_t)nslots * sizeof(graft_node *);
}

/* Zeroes n's fields, all of them (whole) or a short node's (note [short
 * nodes]); a constant size: stores, no call (note [node pool]). */
static inline void node_zero(graft_node *n, bool whole)
{
    if (whole)
        *n = (graft_node){0};
    else
        memset(n, 0, SHORT_NODE);
}

/* The pool's next size bytes, which the caller knows it has (and the
 * node table room for the ids they will take). */
static inline graft_node *pool_take(graft_graph *g, size_t size)
{
    graft_node *n = (graft_node *)(void *)g->node_pool;
    g->node_pool += size;
    g->node_pool_left -= size;
    return n;
}

/* mem of size bytes, which nodes are cut from: 8-aligned and below
 * 2^48, as the users word needs (note [users word] in graph_users.c);
 * checked at each block and large node, so that the nodes cut at 8-byte
 * steps from a block need no check. */
static void *node_aligned(void *mem, size_t size)
{
    if (((uintptr_t)mem & 7) || ((uintptr_t)mem + size - 1) > USER_ADDRESS_MASK)
        abort();
    return mem;
}

static graft_node *node_memory(graft_graph *g, size_t size, bool whole)
{
    if (size > NODE_BLOCK / 4)
        return node_aligned(arena_alloc(g->arena, size), size);
    if (g->node_pool_left < size) {
        uint32_t first = g->nnodes; /* the id node_register gives */
        NodeBlock block = {node_aligned(xmalloc(NODE_BLOCK), NODE_BLOCK), first, first};
        vec_push(&g->node_blocks, block);
        g->node_pool = block.mem;
        g->node_pool_left = NODE_BLOCK;
    }
    graft_node *n = pool_take(g, size);
    node_zero(n, whole);
    return n;
}

/* Gives n, fresh from node_memory, its kind and the next id, and
 * registers it in the node table, which has room for it. */
static inline graft_node *node_register(graft_graph *g, graft_node *n, NodeKind kind)
{
    n->kind = (uint8_t)kind;
    n->id = g->nnodes;
    g->nodes[g->nnodes++] = n;
    g->side.nodes.count = g->nnodes; /* (struct GraphNodeView in graph_node.h) */
    g->swept = false; /* unreached till an edit links it (note [swept graph] in graph_walk.c) */
    return n;
}

/* cut_node when the node table is full, the pool has no room or the
 * node is too large for it (note [new node's fast path]). */
static __attribute__((noinline)) graft_node *new_node_making_room(graft_graph *g,
                                                                  NodeKind kind, size_t size,
                                                                  bool whole)
{
    if (g->nnodes == g->nodes_cap) /* by half (note [node table]) */
        nodes_resize(g, g->nodes_cap < 8 ? 16 : g->nodes_cap + g->nodes_cap / 2);
    graft_node *n = node_memory(g, size, whole);
    return node_register(g, n, kind);
}

/* note [new node's fast path]: a node is made for every operator, operand
 * and parameter the loaders read and every node a pass makes; when it
 * fits the pool's block and the node table, making it is a few stores
 * and needs no call, and graph_new_node does only that, leaving the rest
 * to new_node_making_room.  With the block's refill and the table's
 * growth in it, GCC saved and restored five registers on every node
 * (48 -> 37 instructions a node on the workload's Relay rewrite,
 * bench/RESULTS.md, "Session 25, round 2: the reached sweeps and the
 * node builder"). */

/* note [builders inline]: the import of a model calls
 * graph_add_call_interned for each op node and graph_add_param_interned
 * for each parameter, and they called graph_new_node and
 * graph_set_operands in turn, each call's registers saved and restored:
 * 11 instructions a call and 14 a parameter of issue 34's ONNX workload.
 * So the two bodies are inline here (new_node, fill_operands), in those
 * builders (new_var's parameters too) and behind the two public
 * functions alike. */

/* A fresh node of kind with the next id, registered in the node table,
 * of size bytes: all its fields (whole) and its operand slots, or a
 * short node's (note [short nodes]).  A constant whole makes its zeroing
 * stores without a test. */
GRAFT_HOT graft_node *cut_node(graft_graph *g, NodeKind kind, size_t size, bool whole)
{
    if (size > g->node_pool_left || size > NODE_BLOCK / 4 || g->nnodes == g->nodes_cap)
        return new_node_making_room(g, kind, size, whole);
    graft_node *n = pool_take(g, size);
    node_zero(n, whole);
    return node_register(g, n, kind);
}

/* A fresh node with the next id, registered in the node table, with
 * room for nslots operand slots right after it; for a constant kind, as
 * the builders inline it. */
GRAFT_HOT graft_node *new_node(graft_graph *g, NodeKind kind, int nslots)
{
    return cut_node(g, kind, node_bytes(kind, nslots), !kind_is_short(kind));
}

graft_node *graph_new_node(graft_graph *g, NodeKind kind, int nslots)
{
    return cut_node(g, kind, sizeof(graft_node) + (size_t)nslots * sizeof(graft_node *), true);
}

graft_node *graph_new_tailed_node(graft_graph *g, NodeKind kind, int nslots)
{
    size_t size =
        sizeof(graft_node) + (size_t)nslots * sizeof(graft_node *) + sizeof(union NodeTail);
    return cut_node(g, kind, size, true);
}

graft_node *graph_new_short_node(graft_graph *g, NodeKind kind)
{
    return cut_node(g, kind, SHORT_NODE, false);
}

/* note [variables made together]: a partition makes each group's
 * parameters at once (graph_add_fn_params_like), five at the workload's
 * batch norms: when the pool's block and the node table have room for
 * all, one check serves them, and each is the stores of
 * graph_new_node's fast path; else each is made by it. */
void graph_new_vars(graft_graph *g, uint32_t count, graft_node **vars)
{
    size_t size = (size_t)count * SHORT_NODE; /* (note [short nodes]) */
    if (size > g->node_pool_left || g->nnodes + (size_t)count > g->nodes_cap) {
        for (uint32_t k = 0; k < count; k++)
            vars[k] = graph_new_short_node(g, NODE_VAR);
    } else {
        unsigned char *at = (unsigned char *)pool_take(g, size);
        for (uint32_t k = 0; k < count; k++, at += SHORT_NODE) {
            graft_node *n = (graft_node *)(void *)at;
            node_zero(n, false);
            vars[k] = node_register(g, n, NODE_VAR);
        }
    }
    g->nvars += count;
}

/* Fills n's operand slots (allocated with it), n added to each one's
 * users. */
GRAFT_HOT void fill_operands(graft_graph *g, graft_node *n, graft_node *const *args, int nargs)
{
    graft_node **slots = node_slots(n);
    n->nargs = nargs;
    for (int i = 0; i < nargs; i++) {
        slots[i] = args[i];
        graph_users_add(g, args[i], n, i);
    }
}

void graph_set_operands(graft_graph *g, graft_node *n, graft_node *const *args, int nargs)
{
    fill_operands(g, n, args, nargs);
}

/* Copies attributes into the arena with interned names, for a call or a
 * function (whose FuncInfo is made first: the count is kept there), made
 * with its tail word when nattrs is not 0 (note [tail word]). */
void graph_set_attrs(graft_graph *g, graft_node *n, const graft_attr *attrs, int nattrs)
{
    if (n->kind == NODE_FUNC)
        n->u.fn->nattrs = nattrs;
    else
        n->u.call.nattrs = nattrs;
    if (!nattrs)
        return;
    graft_attr *copy = arena_array(g->arena, (size_t)nattrs, sizeof(graft_attr));
    for (int i = 0; i < nattrs; i++) {
        copy[i].name = graph_intern(g, attrs[i].name);
        copy[i].value = attrs[i].value;
    }
    node_tail(n)->attrs = copy;
}

/* A variable named name, interned (inline in its three builders: note
 * [builders inline]). */
GRAFT_HOT graft_node *new_var(graft_graph *g, const char *name, const graft_type *type)
{
    graft_node *n = new_node(g, NODE_VAR, 0); /* note [builders inline] */
    g->nvars++;
    n->str = name;
    n->type = type;
    n->type_declared = type != NULL;
    return n;
}

graft_node *graph_add_param(graft_graph *g, const char *name, const graft_type *type)
{
    return graph_add_param_interned(g, graph_intern(g, name), type);
}

/* note [main's parameters]: the Relay loader makes @main a function
 * first, whose table of parameters (in the arena) graph_make_main copied
 * to the graph's, malloc'd: 400,008 bytes twice (524,288 by the growth)
 * for the 50,000 parameters of the workload's model, through the passes
 * and the printing (bench/RESULTS.md, "Session 26: the dead nodes'
 * blocks and the positions freed before printing").  So a graph with no
 * parameters yet borrows the function's table, which nothing changes
 * after (the function is dead), and a parameter added after copies it
 * into a table of the graph's own. */
static void params_own(graft_graph *g)
{
    graft_node **own = xmalloc(((size_t)g->nparams + 1) * sizeof *own);
    memcpy(own, g->params, (size_t)g->nparams * sizeof *own);
    g->params = own;
    g->params_cap = (size_t)g->nparams + 1;
    g->params_borrowed = false;
}

graft_node *graph_add_param_interned(graft_graph *g, const char *name, const graft_type *type)
{
    graft_node *n = new_var(g, name, type);
    if (g->params_borrowed)
        params_own(g);
    if ((size_t)g->nparams + 1 > g->params_cap) /* (a call per parameter: 15 instructions) */
        g->params =
            xgrow_items(g->params, &g->params_cap, (size_t)g->nparams + 1, sizeof(graft_node *));
    g->params[g->nparams++] = n;
    return n;
}

graft_node *graph_add_fn_param(graft_graph *g, const char *name, const graft_type *type)
{
    return new_var(g, graph_intern(g, name), type);
}

graft_node *graph_add_fn_param_interned(graft_graph *g, const char *name,
                                        const graft_type *type)
{
    return new_var(g, name, type);
}

graft_node *graph_add_const(graft_graph *g, const char *text, double value, const char *dtype)
{
    graft_node *n = graph_new_tailed_node(g, NODE_CONST, 0);
    n->str = graph_intern(g, text);
    n->u.value = value;
    graph_new_tail(n, 0)->dtype = graph_intern(g, dtype);
    n->flag = strncmp(text, "meta[", 5) != 0;
    return n;
}

graft_node *graph_add_literal_interned(graft_graph *g, const char *text, double value,
                                       const char *dtype)
{
    graft_node *n = graph_new_tailed_node(g, NODE_CONST, 0);
    n->str = text;
    n->u.value = value;
    graph_new_tail(n, 0)->dtype = dtype;
    n->flag = 1;
    return n;
}

graft_node *graph_add_call(graft_graph *g, const char *op, graft_node *const *args, int nargs,
                     const graft_attr *attrs, int nattrs)
{
    graft_node *n = nattrs ? graph_new_tailed_node(g, NODE_CALL, nargs)
                           : graph_new_node(g, NODE_CALL, nargs);
    n->str = graph_intern(g, op);
    graph_set_operands(g, n, args, nargs);
    graph_set_attrs(g, n, attrs, nattrs);
    return n;
}

/* graph_add_call_interned of a call with attributes, out of line: the
 * loaders' calls mostly have none (note [tail word]). */
static __attribute__((noinline)) graft_node *call_with_attrs(graft_graph *g, const char *op,
                                                             graft_node *const *args, int nargs,
                                                             const graft_attr *attrs,
                                                             int nattrs)
{
    graft_node *n = graph_new_tailed_node(g, NODE_CALL, nargs);
    n->str = op;
    fill_operands(g, n, args, nargs);
    graph_set_attrs(g, n, attrs, nattrs);
    return n;
}

graft_node *graph_add_call_interned(graft_graph *g, const char *op, graft_node *const *args,
                                    int nargs, const graft_attr *attrs, int nattrs)
{
    if (nattrs) /* (with its tail word: note [tail word]) */
        return call_with_attrs(g, op, args, nargs, attrs, nattrs);
    graft_node *n = new_node(g, NODE_CALL, nargs); /* note [builders inline] */
    n->str = op;
    fill_operands(g, n, args, nargs);
    return n;
}

graft_node *graph_add_call_sharing(graft_graph *g, const char *op, graft_node *const *args,
                                   int nargs, const graft_attr *attrs, int nattrs)
{
    graft_node *n = nattrs ? graph_new_tailed_node(g, NODE_CALL, nargs)
                           : graph_new_node(g, NODE_CALL, nargs);
    n->str = op;
    graph_set_operands(g, n, args, nargs);
    n->u.call.nattrs = nattrs;
    if (nattrs)
        graph_new_tail(n, nargs)->attrs = attrs;
    return n;
}

/* A call of callee on args, with room for a tail word when tailed (note
 * [tail word]): its attributes are set by the caller. */
static graft_node *fn_call(graft_graph *g, graft_node *callee, graft_node *const *args,
                           int nargs, bool tailed)
{
    graft_node *n = tailed ? graph_new_tailed_node(g, NODE_CALL, nargs + 1)
                           : graph_new_node(g, NODE_CALL, nargs + 1);
    graph_set_operands(g, n, args, nargs);
    n->flag = 1; /* the callee is the slot after the operands */
    *node_callee_slot(n) = callee;
    graph_users_add(g, callee, n, USE_CALLEE);
    return n;
}

graft_node *graph_add_fn_call(graft_graph *g, graft_node *callee, graft_node *const *args,
                              int nargs)
{
    return fn_call(g, callee, args, nargs, false);
}

graft_node *graph_add_fn_call_attrs(graft_graph *g, graft_node *callee, graft_node *const *args,
                                    int nargs, const graft_attr *attrs, int nattrs)
{
    graft_node *n = fn_call(g, callee, args, nargs, nattrs > 0);
    graph_set_attrs(g, n, attrs, nattrs);
    return n;
}

graft_node *graph_add_tuple(graft_graph *g, graft_node *const *fields, int nfields)
{
    graft_node *n = graph_new_node(g, NODE_TUPLE, nfields);
    graph_set_operands(g, n, fields, nfields);
    return n;
}

graft_node *graph_add_getitem(graft_graph *g, graft_node *tuple, int index)
{
    graft_node *n = graph_new_node(g, NODE_GETITEM, 1);
    graph_set_operands(g, n, &tuple, 1);
    n->u.call.index = index;
    return n;
}

graft_attr_value *graph_new_attr_value(graft_graph *g, graft_attr_kind kind)
{
    graft_attr_value *v = arena_alloc(g->arena, sizeof(graft_attr_value));
    v->kind = kind;
    return v;
}

/* Recursion follows list nesting, which the loader and the rule parser
 * bound (relay.h, graft-rules(5) "Limits"). */
const graft_attr_value *graph_copy_attr_value(graft_graph *g, const graft_attr_value *v)
{
    graft_attr_value *c = graph_new_attr_value(g, v->kind);
    c->i = v->i;
    c->f = v->f;
    c->s = v->s ? graph_intern(g, v->s) : NULL;
    c->spelling = v->spelling ? graph_intern(g, v->spelling) : NULL;
    if (v->kind == GRAFT_ATTR_LIST || v->kind == GRAFT_ATTR_OPAQUE) { /* a map has items too */
        const graft_attr_value **items = arena_array(graph_arena(g), (size_t)v->nitems + 1,
                                              sizeof *items);
        for (int i = 0; i < v->nitems; i++)
            items[i] = graph_copy_attr_value(g, v->items[i]);
        c->nitems = v->nitems;
        c->items = (const graft_attr_value *const *)items;
    }
    if (v->type)
        c->type = graph_type_copy(g, v->type);
    if (v->nbytes) {
        c->data = arena_dup(graph_arena(g), v->data, v->nbytes);
        c->nbytes = v->nbytes;
    }
    return c;
}

void graph_set_type(graft_graph *g, graft_node *n, const graft_type *type)
{
    (void)g;
    n->type = type;
}

void graph_declare_type(graft_graph *g, graft_node *var, const graft_type *type)
{
    (void)g;
    var->type = type;
    var->type_declared = type != NULL;
}

/* fn's declarations, made when first set (note [function records] in
 * graph_impl.h). */
static FuncDecl *func_decl(graft_graph *g, graft_node *fn)
{
    FuncInfo *f = fn->u.fn;
    if (!f->decl)
        f->decl = arena_alloc(g->arena, sizeof *f->decl);
    return f->decl;
}

void graph_set_ret_type(graft_graph *g, graft_node *fn, const graft_type *type)
{
    if (fn->kind == NODE_FUNC && (type || fn->u.fn->decl))
        func_decl(g, fn)->ret = type;
}

void graph_set_type_params(graft_graph *g, graft_node *fn, const char *names)
{
    if (fn->kind == NODE_FUNC && (names || fn->u.fn->decl))
        func_decl(g, fn)->type_params = names;
}

/* The table takes the node table's capacity, zeroed: calloc, whose
 * fresh pages need no memset, then the new part of each growth.  (The
 * annotations' table zeroes only up to the highest id set, note
 * [annotation table]; here that zeroed the gap of two ids, a function and
 * its call, before each of a partition's functions' parameters, and gcc
 * makes a loop over such a gap a call of memset: 600,000 instructions on
 * the workload's partition.) */
void graph_scopes_grow(graft_graph *g)
{
    struct GraphScopes *t = &g->side.scopes;
    if (t->dropped) /* (note [scopes after the drop] in graph_node.h) */
        abort();
    if (!t->fn_id) {
        t->fn_id = xcalloc(g->nodes_cap, sizeof *t->fn_id);
    } else {
        t->fn_id = xrealloc(t->fn_id, g->nodes_cap * sizeof *t->fn_id);
        memset(t->fn_id + t->cap, 0, (g->nodes_cap - t->cap) * sizeof *t->fn_id);
    }
    t->cap = g->nodes_cap; /* every node's id is below it */
}

void graph_reserve_scopes(graft_graph *g)
{
    if (g->side.scopes.cap < g->nodes_cap)
        graph_scopes_grow(g);
}

void graph_scope_past(graft_graph *g, const graft_node *n, const graft_node *fn)
{
    graph_scopes_grow(g);
    g->side.scopes.fn_id[n->id] = fn->id + 1;
}

/* ---- edits ---- */

/* graph_set_arg past its words (of a list, or to one): the use unlinked
 * and linked again. */
static __attribute__((noinline)) void relink_slot(graft_graph *g, graft_node **slot,
                                                  graft_node *user, int i, graft_node *value)
{
    graph_users_remove(g, *slot, user, i);
    *slot = value;
    graph_users_add(g, value, user, i);
}

/* A partition moves each input of a region to its function's parameter
 * (60,000 on the workload's): from a word to an empty word, stores
 * without a call, whose registers GCC saved on every move. */
void graph_set_arg(graft_graph *g, graft_node *user, int i, graft_node *value)
{
    graft_node **slot = graph_slot_of(user, i);
    graft_node *old = *slot;
    if (old == value)
        return;
    g->swept = false; /* (note [swept graph] in graph_walk.c) */
    g->relinked = true; /* (note [reached by users] in graph_walk.c) */
    if (node_users_listed(old) || value->users || !word_holds(i)) {
        relink_slot(g, slot, user, i, value);
        return;
    }
    old->users = 0; /* (its word held this use, its one: note [users word] in graph_users.c) */
    old->nusers = 0;
    *slot = value;
    value->users = user_word(user, i);
    value->nusers = 1;
}

/* The output, or the body of the function enclosing old, when it is old. */
static void replace_body(graft_graph *g, graft_node *old, graft_node *new_node_)
{
    if (g->output == old)
        g->output = new_node_;
    graft_node *fn = node_scope(g, old);
    if (fn && fn->u.fn->body == old) {
        fn->u.fn->body = new_node_;
        if (!node_scope(g, new_node_))
            graph_set_scope(g, new_node_, fn);
    }
}

/* Moves every use of old over to new_node (except new_node's own), then
 * the output or function body that was old. */
void graph_replace_all_uses(graft_graph *g, graft_node *old, graft_node *new_node_)
{
    if (old == new_node_)
        return;
    g->swept = false; /* (note [swept graph] in graph_walk.c) */
    g->relinked = true; /* (note [reached by users] in graph_walk.c) */
    if (node_users_listed(old)) {
        graph_users_move_listed(g, old, new_node_);
    } else if (old->users && node_user(old, 0) != new_node_) { /* the word's one use, inline */
        graft_node *user = node_user(old, 0);
        int operand = node_user_operand(old, 0);
        *graph_slot_of(user, operand) = new_node_;
        old->users = 0;
        old->nusers = 0;
        graph_users_add(g, new_node_, user, operand);
    }
    replace_body(g, old, new_node_);
}
