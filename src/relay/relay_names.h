/* relay_names.h - printed names of variables and quoted strings, as TVM's
 * printer makes them (private to the relay printer). */
#ifndef GRAFT_RELAY_NAMES_H
#define GRAFT_RELAY_NAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "outbuf.h"
#include "graph.h"
#include "util.h"

/* One name handed out (note [name table] in relay_names.c). */
typedef struct TakenName {
    const char *text; /* the printed name, "%x1" */
    uint32_t len;     /* its length */
    int32_t next;     /* the next name with the same hash, or -1 */
    int64_t counter;  /* the last suffix tried with this name as prefix */
} TakenName;

/* note [temp texts]: a temp is kept as its text without its "%": up to
 * SLOT_DIGITS digits, and in byte 7 the text's length with the "%", so
 * that each use writes a "%" and copies eight bytes instead of
 * converting a number; a bound node keeps it in its 8-byte slot of the
 * printer (note [printer memory] in relay_print_impl.h), and the next
 * temp is counted on in the same form (note [counted temps] in
 * relay_print_text.c).  A temp of more digits (ten million temps and
 * more) keeps its number in bytes 0 to 3 and LONG_TEMP in byte 7,
 * converted where it is used. */
typedef struct TempSlot {
    char b[8];
} TempSlot;

enum { SLOT_DIGITS = 7, LONG_TEMP = 0x7f };

/* The number of the temp slot s keeps. */
static inline uint32_t temp_slot_number(const TempSlot *s)
{
    uint32_t n = 0;
    if (s->b[7] == LONG_TEMP) {
        memcpy(&n, s->b, sizeof n);
        return n;
    }
    for (int i = 0; i < s->b[7] - 1; i++)
        n = n * 10 + (uint32_t)(s->b[i] - '0');
    return n;
}

/* Temp slot s's text, "%N", at at, where there is room for 11 bytes and
 * eight past its "%"; where the text ends. */
static inline char *write_temp_slot(char *at, const TempSlot *s)
{
    *at = '%';
    if (s->b[7] == LONG_TEMP)
        return at + 1 + write_u32(at + 1, temp_slot_number(s));
    memcpy(at + 1, s->b, sizeof s->b); /* byte 7 is written over or past the text */
    return at + s->b[7];
}

/* The temp after slot s's, in s: counted on in decimal (note [counted
 * temps] in relay_print_text.c), or as a number once long. */
static inline void temp_slot_count_on(TempSlot *s)
{
    char *b = s->b;
    if (b[7] == LONG_TEMP) {
        uint32_t n = temp_slot_number(s) + 1;
        memcpy(b, &n, sizeof n);
        return;
    }
    for (int i = b[7] - 2; i >= 0; i--) {
        if (b[i] != '9') {
            b[i]++;
            return;
        }
        b[i] = '0';
    }
    if (b[7] - 1 == SLOT_DIGITS) { /* all nines: one digit more than a slot holds */
        uint32_t n = 10000000; /* 10 to the SLOT_DIGITS */
        memcpy(b, &n, sizeof n);
        b[7] = LONG_TEMP;
        return;
    }
    b[0] = '1'; /* all nines, now zeros: one digit more */
    b[b[7] - 1] = '0';
    b[7]++;
}

/* A variable's printed name, a counted string (interner_length in
 * arena.h gives its length): without its "%" when every name is
 * distinct, with it when given by var_names_slow (NULL until then). */
typedef const char *VarName;

/* A node's slot in the printer's array per node id, 8 bytes (note
 * [printer memory] in relay_print_impl.h). */
typedef union NodeText {
    struct {
        uint32_t off; /* a kept text's entry in pending (a constant's offset in consts) */
        uint32_t len; /* its length, or a call's, tuple's or getitem's bound */
    } kept;
    TempSlot temp; /* once VISIT_BOUND */
    VarName var;   /* a variable's */
} NodeText;
_Static_assert(sizeof(NodeText) == 8, "8 bytes a node id (note [printer memory])");

/* (note [variable names] in relay_names.c) TVM prints a variable as "%" + its name, prefixed
 * with "v" when the name does not start with a letter, and made unique
 * per module by appending 1, 2, ... (so a second %x prints as %x1). */
typedef struct VarNames {
    const graft_graph *g; /* the graph whose variables these are */
    bool distinct;      /* note [distinct names] in relay_names.c: every variable of the
                           graph prints as itself */
    bool as_loaded;     /* distinct, and none takes a "v": each prints as
                           its node's interned name (note [names as
                           loaded] in relay_names.c), the slots unused */
    NodeText *slot;     /* the printer's, per node id: a variable's .var */
    Arena *arena;       /* owns the printed names */
    KeyMap taken;       /* hash of a name -> 1 + its chain's first entry */
    VEC(TakenName) names; /* every name handed out */
} VarNames;

/* Names the variables of g into slot, the printer's array of
 * graph_node_count (at least one) slots, zeroed, which holds nothing
 * yet. */
void var_names_init(VarNames *vn, const graft_graph *g, NodeText *slot);
void var_names_free(VarNames *vn);
/* Variable v's printed name, given on the first call (the name's
 * declaration, or a free variable's first use): not distinct, the name
 * returned has its "%" (*percent false). */
const char *var_names_slow(VarNames *vn, const graft_node *v, size_t *len);

/* The *len bytes of variable v's printed name, after a "%" when
 * *percent. */
static inline const char *var_names_get(VarNames *vn, const graft_node *v, bool *percent,
                                        size_t *len)
{
    if (vn->as_loaded) {
        const char *name = v->str; /* interned: graph.h */
        *percent = true;
        *len = interner_length(name);
        return name;
    }
    if (vn->distinct) {
        *percent = true;
        *len = interner_length(vn->slot[node_id(v)].var);
        return vn->slot[node_id(v)].var;
    }
    *percent = false;
    return var_names_slow(vn, v, len);
}

/* The length of variable v's printed name with its "%", the name given
 * now when names depend on the printing order (not distinct). */
static inline size_t var_names_len(VarNames *vn, const graft_node *v)
{
    size_t len;
    if (vn->as_loaded)
        return interner_length(v->str) + 1;
    if (vn->distinct)
        return interner_length(vn->slot[node_id(v)].var) + 1;
    var_names_slow(vn, v, &len);
    return len;
}

/* Appends s double-quoted with TVM's escapes (\" \\ \n \t). */
void relay_put_string(StrBuf *sb, const char *s);

#endif
