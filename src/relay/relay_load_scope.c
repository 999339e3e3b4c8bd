/* relay_load_scope.c - the names in scope while a model is read: temps
 * (%3) by number, variables (%x) by name (note [relay scopes]). */
#include "relay_load.h"

#include <stdlib.h>
#include <string.h>

/* note [relay scopes]: a name (%x) or temp (%3) refers to its innermost
 * definition; a function body, an if branch and a match clause open a
 * scope, so their temps and parameters vanish at its '}' and may reuse
 * outer numbers.  Defining a name twice in one scope is an error.
 *
 * note [temps by number]: TVM numbers temps densely from 0, and a model
 * is mostly "%N = ..." lines, so a temp below TEMP_DIRECT is found by its
 * number in an array of cells (ps->temps), each the node that number
 * names now: no symbol record, no hashing.  A cell defined inside a scope
 * remembers the cell it hides on ps->temp_hidden, put back when the scope
 * closes; at depth 0 (a def's body) nothing is hidden, and the end of the
 * def empties every cell at once.  Variables and larger temps are
 * Symbols: a hash table from the key (an interned name's pointer, or
 * 2 * number + 1) to the innermost Symbol, each Symbol naming the one it
 * hides. */

/* The cell of temp number, grown (empty cells) to reach it. */
static TempCell *temp_cell(RelayParser *ps, uint64_t number)
{
    if (number >= ps->ntemps) {
        size_t old = ps->ntemps;
        ps->temps = xgrow_items(ps->temps, &ps->ntemps, number + 1, sizeof *ps->temps);
        memset(ps->temps + old, 0, (ps->ntemps - old) * sizeof *ps->temps);
    }
    return &ps->temps[number];
}

void load_scope_reserve(RelayParser *ps, size_t ntemps)
{
    if (ps->temps || !ntemps)
        return;
    ps->temps = xcalloc(ntemps, sizeof *ps->temps); /* zeroed pages: empty cells */
    ps->ntemps = ntemps;
}

/* The key of "%name" (its interned spelling) or of a temp too large for
 * a cell; 0 after reporting a bad temp number. */
static uint64_t symbol_key(RelayParser *ps, RelayText t, uint64_t *number)
{
    const char *s = load_text(ps, t) + 1;
    *number = UINT64_MAX;
    if (s[0] < '0' || s[0] > '9')
        return (uint64_t)(uintptr_t)graph_intern_n(ps->g, s, t.len - 1);
    if (t.len > 19) {
        diag_error(ps->diag, ps->src, load_range(ps, t), "temporary number too large");
        return 0;
    }
    uint64_t n = 0;
    for (size_t i = 0; i + 1 < t.len; i++)
        n = n * 10 + (uint64_t)(s[i] - '0');
    *number = n;
    return n * 2 + 1;
}

/* Inline: each of a model's variable uses looks its Symbol up here. */
static inline Symbol *symbol_top(RelayParser *ps, uint64_t key)
{
    const int64_t *cell = keymap_get(scope_keys(ps), key);
    return cell && *cell >= 0 ? &ps->syms.items[*cell] : NULL;
}

/* The def's parameter guessed next (note [parameters in order]) when
 * the variable name ("%x") spells it, else NULL: a use the tokens read
 * (a def's first line, after its '{', is one). */
static graft_node *param_spelled(RelayParser *ps, RelayText name)
{
    if (!scope_param_guessed(ps))
        return NULL;
    graft_node *v = ps->def_params[ps->param_next];
    const char *s = node_name(v);
    if (interner_length(s) != name.len - 1 || memcmp(s, load_text(ps, name) + 1, name.len - 1))
        return NULL;
    ps->param_next++;
    ps->counts.params_guessed++;
    return v;
}

graft_node *scope_use_var(RelayParser *ps, RelayText name)
{
    graft_node *v = param_spelled(ps, name);
    return v ? v : scope_var_guessing(ps, name);
}

bool scope_lookup(RelayParser *ps, RelayText name, graft_node **found)
{
    const char *s = load_text(ps, name) + 1;
    if (s[0] < '0' || s[0] > '9') { /* a variable, keyed as symbol_key keys it */
        *found = scope_use_var(ps, name);
        return true;
    }
    uint64_t number, key = symbol_key(ps, name, &number);
    if (!key)
        return false;
    if (number < TEMP_DIRECT) {
        *found = scope_temp(ps, number);
    } else {
        Symbol *sym = symbol_top(ps, key);
        *found = sym ? sym->node : NULL;
    }
    return true;
}

/* note [parameters in order]: a model's def lists its parameters in the
 * order its body first uses them (TVM's free variables, collected in
 * post-order: the batch-norm workload's 50,000, each used once), and
 * finding a use's Symbol by its name was about 130 instructions:
 * scanning the name, hashing it, the interner's probe and comparison, the
 * keys' probe.  So a binding line's variable is first compared, as it is
 * read (param_guessed in relay_load_line.c), with the parameter after
 * the last one used, by that one's bytes and the byte after them (where
 * scan_name would end the name); when it spells that one, that is its
 * innermost definition as long as no Symbol was defined since the
 * parameters (ps->syms is then as load_params left it: a nested scope's
 * Symbols gone, no let or second definition above them), and
 * ps->param_syms keeps that length.  A use that is not the one guessed
 * is scanned and looked up by its name (scope_var_guessing); a parameter
 * found so after the guess moves the guess past it, one before it (a
 * second use, or one listed out of order: convnext_tiny's layer scales
 * come first) leaves the guess where it is, since the uses after it go
 * on from there (moved back, the guess missed the next use too: the
 * corpus's ten models found 42 uses by name so, 22 now).  A line's
 * operands are all read before any is made, and a use found by name
 * moves the guess only as it is made: so a use the guess missed as it
 * was read is guessed again as it is made (scope_use_var), after the uses
 * before it moved the guess ("add(%c, %d)" when %b was guessed: %c by
 * name, %d guessed), and a line left to the tokens gives back the
 * guesses its operands made (unguess in relay_load_line.c), for the
 * tokens to make again.  The tokens' lookups (scope_lookup) guess too,
 * by the name they were given; a def read by tokens has no PARAMS
 * (ps->ndef_params 0) and guesses nothing.  The uses found each way are
 * counted (note [loading counted] in relay_load.c), the corpus's and the
 * workload's held exactly by tests/check_relay.c. */
void scope_param_found(RelayParser *ps, const graft_node *v)
{
    if (!ps->ndef_params)
        return;
    /* (the parameters were made one after another: consecutive ids) */
    size_t i = (size_t)(node_id(v) - node_id(ps->def_params[0]));
    if (i >= ps->ndef_params || ps->def_params[i] != v)
        return;
    ps->counts.params_by_name++;
    if (i >= ps->param_next)
        ps->param_next = i + 1;
}

/* "duplicate definition of '%3'", with a note at the first one (off,
 * len). */
static bool duplicate(RelayParser *ps, RelayText name, uint32_t off, uint32_t len)
{
    diag_error(ps->diag, ps->src, load_range(ps, name), "duplicate definition of '%.*s'",
               (int)name.len, load_text(ps, name));
    diag_note(ps->diag, ps->src, source_range(ps->src, off, off + len),
              "'%.*s' was first defined here", (int)name.len, load_text(ps, name));
    return false;
}

static bool define_symbol(RelayParser *ps, RelayText name, uint64_t key, graft_node *n);

/* The bytes of the temp ("%007") at off. */
static uint32_t temp_length(const RelayParser *ps, uint32_t off)
{
    const char *s = ps->src->text + off;
    uint32_t len = 1;
    while (s[len] >= '0' && s[len] <= '9')
        len++;
    return len;
}

bool scope_define_temp(RelayParser *ps, uint64_t number, RelayText temp, graft_node *n)
{
    if (number >= TEMP_DIRECT)
        return define_symbol(ps, temp, number * 2 + 1, n);
    TempCell *cell = temp_cell(ps, number);
    if (cell->node && cell->depth == ps->depth)
        return duplicate(ps, temp, cell->off, temp_length(ps, cell->off));
    if (ps->depth > 0)
        vec_push(&ps->temp_hidden, ((TempHidden){(uint32_t)number, *cell}));
    *cell = (TempCell){n, temp.off, ps->depth};
    return true;
}

/* A Symbol for key, defined at name (a variable, or a large temp). */
static bool define_symbol(RelayParser *ps, RelayText name, uint64_t key, graft_node *n)
{
    if (ps->syms.len >= INT32_MAX) {
        diag_error(ps->diag, ps->src, load_range(ps, name), "too many names");
        return false;
    }
    /* the key's cell is found once, for the lookup and the update (a new
     * key's cell holds -1, "none", until then) */
    int64_t *top = keymap_put(scope_keys(ps), key, -1);
    Symbol *old = *top >= 0 ? &ps->syms.items[*top] : NULL;
    if (old && old->depth == ps->depth)
        return duplicate(ps, name, old->off, old->len);
    int32_t shadowed = old ? (int32_t)*top : -1;
    vec_push(&ps->syms, ((Symbol){key, n, name.off, name.len, ps->depth, shadowed}));
    *top = (int64_t)ps->syms.len - 1;
    ps->syms_keyed = ps->syms.len;
    return true;
}

bool scope_define(RelayParser *ps, RelayText name, graft_node *n)
{
    uint64_t number, key = symbol_key(ps, name, &number);
    if (!key)
        return false;
    if (number != UINT64_MAX)
        return scope_define_temp(ps, number, name, n);
    return define_symbol(ps, name, key, n);
}

bool scope_define_var(RelayParser *ps, RelayText name, const char *interned, graft_node *v)
{
    return define_symbol(ps, name, (uint64_t)(uintptr_t)interned, v);
}

/* A new scope's marks: where its symbols and hidden cells start. */
static void scope_push(RelayParser *ps)
{
    /* (counted by the mark: note [parameter Symbols made late] in relay_load_params.c) */
    scope_make_params(ps);
    vec_push(&ps->scopes, ((ScopeMark){ps->syms.len, ps->temp_hidden.len}));
    ps->depth++;
}

bool load_scope_open(RelayParser *ps, RelayText at, const char *type_params)
{
    if ((uint64_t)ps->depth >= ps->max_fn_depth) {
        diag_error(ps->diag, ps->src, load_range(ps, at),
                   "functions nested deeper than %llu level%s [--limit fn-depth]",
                   (unsigned long long)ps->max_fn_depth, ps->max_fn_depth == 1 ? "" : "s");
        ps->failed = true;
        return false;
    }
    vec_reserve(&ps->fn_type_params, (size_t)ps->depth + 1);
    ps->fn_type_params.items[ps->depth] = type_params;
    scope_push(ps);
    return true;
}

void load_block_open(RelayParser *ps)
{
    scope_push(ps);
}

/* At the end of a def every name goes: the tables are freed whole
 * rather than emptied symbol by symbol (a model's one def may have
 * named tens of thousands). */
void load_scope_reset(RelayParser *ps)
{
    vec_free(&ps->syms);
    ps->syms_keyed = 0;
    ps->params_unmade = 0;
    keymap_free(&ps->keys);
    ps->keys = (KeyMap){0};
    free(ps->temps);
    ps->temps = NULL;
    ps->ntemps = 0;
}

void load_scope_close(RelayParser *ps)
{
    ScopeMark mark = ps->scopes.items[--ps->scopes.len];
    ps->depth--;
    while (ps->syms.len > mark.syms) { /* (defined by define_symbol: keyed) */
        Symbol *s = &ps->syms.items[--ps->syms.len];
        *keymap_put(&ps->keys, s->key, -1) = s->shadowed;
    }
    if (ps->syms_keyed > ps->syms.len)
        ps->syms_keyed = ps->syms.len;
    while (ps->temp_hidden.len > mark.temps) {
        TempHidden *h = &ps->temp_hidden.items[--ps->temp_hidden.len];
        ps->temps[h->number] = h->cell;
    }
}
