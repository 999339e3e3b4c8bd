/* relay_load_line.c - a binding line read by hand and made into its node
 * as it is read (note [binding lines]). */
#include "relay_load.h"
#include "relay_load_bytes.h"

/* note [binding lines]: a model is nearly all binding lines,
 *
 *   %12 = nn.conv2d(%11, %w, padding=[1, 1]) / * ty=Tensor[...] * /;
 *   %13 = %12.0 / * ty=Tensor[...] * /;
 *
 * and as tokens a line costs a dozen scanner matches and parser steps,
 * more than the node it makes.  So the first attempt at a model (note
 * [long tokens] in grammar/relay_lex.l) reads each line that follows a
 * ';' here, before the scanner makes a token of it: the temp's number,
 * the op, the operands (temps found by number as their digits are read,
 * names, numbers, each with its annotation), the attributes (numbers,
 * strings, True, False, None and lists of them) and the line's
 * annotation, up to its ';'.  Each part is checked against the pattern
 * the scanner matches it with (relay_load_bytes.h), and the node is made
 * by the parser's own actions (load_const, load_value, load_list,
 * load_call's line_call, load_annotate, scope_define_temp), so it is
 * the node the tokens would make.  The parser never sees the line: after a ';' it is
 * reading a body's bindings, and a binding read or skipped leaves it
 * where it was.
 *
 * A line of any other form (a call of a function value, a tuple, a map,
 * a meta constant, a comment in another place, a line break inside it:
 * note [line cursor] in relay_load_expr.c) is left to the tokens: the
 * reader reads a line to its ';' before it makes a node, so a line it
 * leaves has made none (only attribute values, left unused in the
 * arena).  An error in a line it reads (an
 * undefined temp, a duplicate) fails the first attempt, and the second,
 * with tokens only, reports it. */

enum { MAX_TEMP_DIGITS = 9, MAX_LIST_DEPTH = 8 };

/* The digits at s read a byte at a time: temp_digits' own way for a
 * number of eight digits or more, or near the end of the text. */
static Bytes digits_bytewise(Bytes s, int64_t *number)
{
    Bytes start = s;
    uint64_t n = 0; /* unsigned: too many digits wrap, and are refused */
    for (unsigned digit; (digit = (unsigned)*s - '0') < 10; s++)
        n = n * 10 + digit;
    *number = s - start > MAX_TEMP_DIGITS ? -1 : (int64_t)n;
    return s;
}

/* note [temp digits]: a binding line reads two temps or so ("%12 =",
 * "%11"), of four or five digits in a model of tens of thousands of
 * nodes, and a byte at a time that was ten instructions a digit.  So the
 * eight bytes at s are read as one word: each byte less '0' is a digit's
 * value when below ten, which one addition puts in the byte's high bit
 * (a borrow or carry between bytes only follows the first byte that is
 * no digit, whose flag is the lowest set); the digits, moved to the
 * word's top, are summed in pairs, fours and eights by three multiplies. */
static const uint64_t ZEROS = 0x3030303030303030ull, HIGH_BITS = 0x8080808080808080ull,
                      PAST_NINE = 0x7676767676767676ull; /* 0x80 - 10 a byte */

/* The digits at s: their end; *number, the temp number they spell, or
 * -1 when there are too many to be read here.  Inline: the call was a
 * fifth of a number's reading. */
static inline Bytes temp_digits(const RelayParser *ps, Bytes s, int64_t *number)
{
    if ((Bytes)ps->text_past - s < 8)
        return digits_bytewise(s, number);
    uint64_t w;
    memcpy(&w, s, 8);
    uint64_t x = HASH_LE64(w) - ZEROS; /* the first byte lowest */
    uint64_t not_digit = (x | (x + PAST_NINE)) & HIGH_BITS;
    if (!not_digit)
        return digits_bytewise(s, number);
    unsigned n = (unsigned)__builtin_ctzll(not_digit) / 8; /* digits */
    if (n == 0) {
        *number = 0;
        return s;
    }
    x <<= 8 * (8 - n); /* the digits at the top, the last in the top byte */
    x = (x * 10 + (x >> 8)) & 0x00ff00ff00ff00ffull; /* pairs */
    x = (x * 100 + (x >> 16)) & 0x0000ffff0000ffffull; /* fours */
    *number = (int64_t)((x * 10000 + (x >> 32)) & 0xffffffffull); /* eight */
    return s + n;
}

static RelayText span(const RelayParser *ps, Bytes s, Bytes end)
{
    Bytes text = (Bytes)ps->src->text;
    return (RelayText){(uint32_t)(s - text), (uint32_t)(end - s)};
}

/* The annotation at s (a '/') into *annot, then layout: the end, or NULL
 * at a comment that is not one, or that holds a newline (note [line
 * cursor] in relay_load_expr.c: a line read here lies on one line). */
static Bytes comment(const RelayParser *ps, Bytes s, RelayText *annot)
{
    Bytes end = scan_comment(s);
    if (!end || memchr(s, '\n', (size_t)(end - s)))
        return NULL;
    *annot = span(ps, s, end);
    s = skip(end, SPACE);
    return *s == '/' ? NULL : s; /* a second comment is layout: the tokens read it */
}

/* Layout, then an annotation if one is there (*annot, else len 0), then
 * layout: the end, or NULL at a comment that is not one.  Inline, the
 * comment apart: it follows every operand and line, and the call was
 * two thirds of its cost when no annotation is there (issue 34). */
static inline Bytes annotation(const RelayParser *ps, Bytes s, RelayText *annot)
{
    s = skip(s, SPACE);
    *annot = (RelayText){0, 0};
    return *s == '/' ? comment(ps, s, annot) : s;
}

/* ---- attribute values ---- */

static Bytes value(RelayParser *ps, Bytes s, int depth, graft_attr_value **v);

/* STRING: '"' ([^"\\\n] | '\\' .)* '"': its end, or NULL. */
static Bytes string_end(Bytes s)
{
    for (s++; *s != '"'; s++) {
        if (*s == '\\')
            s++;
        if (*s == '\n' || *s == '\0')
            return NULL;
    }
    return s + 1;
}

/* Whether the list [s, end) is written as load_list spells it: every
 * ',' followed by one space, no other layout (a string in it, spelled as
 * written, may fail this: then the list is spelled from its items). */
static bool as_printed(Bytes s, Bytes end)
{
    for (; s < end; s++)
        if ((*s == ',' && s[1] != ' ') || (is(*s, LAYOUT) && (s[-1] != ',' || *s != ' ')))
            return false;
    return true;
}

/* '[' values ']', each value pushed as load_list takes them. */
static Bytes list(RelayParser *ps, Bytes s, int depth, graft_attr_value **v)
{
    if (depth == MAX_LIST_DEPTH)
        return NULL;
    Bytes start = s;
    size_t mark = load_mark(ps);
    s = skip(s + 1, SPACE);
    while (*s != ']') {
        graft_attr_value *item;
        if (!(s = value(ps, s, depth + 1, &item)))
            return NULL;
        load_push_value(ps, item);
        s = skip(s, SPACE);
        if (*s == ']')
            break;
        if (*s != ',')
            return NULL;
        s = skip(s + 1, SPACE);
    }
    s++;
    *v = as_printed(start, s) ? load_list_spelled(ps, mark, (const char *)start, s - start)
                              : load_list(ps, mark);
    return s;
}

/* Whether the word at s is word and ends there (the scanner would make a
 * longer identifier of "Trueish" or "None.x").  strncmp, not memcmp: it
 * stops at the text's NUL, where the text may end before len bytes. */
static bool is_word(Bytes s, const char *word, size_t len)
{
    return strncmp((const char *)s, word, len) == 0 && !is(s[len], IDENT) && s[len] != '.';
}

/* An attribute value: its end, or NULL for a form left to the tokens. */
static Bytes value(RelayParser *ps, Bytes s, int depth, graft_attr_value **v)
{
    Bytes end;
    graft_attr_kind kind;
    if (*s == '[')
        return list(ps, s, depth, v);
    if (*s == '"') {
        end = string_end(s);
        kind = GRAFT_ATTR_STRING;
    } else if (*s == '-' || is(*s, DIGIT)) {
        end = scan_literal(s);
        Bytes digits = s + (*s == '-');
        kind = end && skip(digits, DIGIT) == end ? GRAFT_ATTR_INT : GRAFT_ATTR_FLOAT;
    } else if (is_word(s, "True", 4) || is_word(s, "False", 5)) {
        end = s + (*s == 'T' ? 4 : 5);
        kind = GRAFT_ATTR_BOOL;
    } else if (is_word(s, "None", 4)) {
        end = s + 4;
        kind = GRAFT_ATTR_NULL;
    } else {
        return NULL;
    }
    if (end)
        *v = load_value(ps, kind, span(ps, s, end));
    return end;
}

/* ---- operands and the call ---- */

/* The def's parameter guessed next (note [parameters in order] in
 * relay_load_scope.c) when the variable at s ("%x") spells it, found
 * without scanning the name first: its node, *end where scan_name would
 * end the name (before a byte no name holds; at a ':', scan_name is
 * asked); else NULL. */
static inline graft_node *param_guessed(RelayParser *ps, Bytes s, Bytes *end)
{
    if (!scope_param_guessed(ps))
        return NULL;
    graft_node *v = ps->def_params[ps->param_next];
    const char *name = node_name(v);
    Bytes past = s + 1 + interner_length(name);
    if (past >= (Bytes)ps->text_past || !bytes_equal(name, s + 1, (size_t)(past - (s + 1))) ||
        is(*past, NAMEC) || *past == ':')
        return NULL; /* (past is within the text, its NUL at most: readable) */
    ps->param_next++;
    *end = past;
    return v;
}

/* note [literal seen]: every copy of the batch-norm workload adds
 * 1e-05f, and a literal's reading was about 250 instructions: its scan
 * (scan_literal), interning its spelling, finding its value and dtype
 * (literal in relay_load_expr.c), its node.  So the reader keeps the last
 * literal a line made, when its spelling fits in a word, with its
 * spelling interned, value and dtype (ps->literal_seen): a literal spelled
 * the same is read by one comparison of words, and made from them.  Its
 * end is where scan_literal's would be when the byte after it is no
 * IDENT byte and no '.': the same bytes, scanned the same way, stop
 * there.  A line's operands are read before any is made, and making one
 * may keep another literal, so each is compared again as it is made. */

/* Whether the len bytes at s are the literal kept (the eight at s are
 * read: the text's NUL is at least eight bytes further on). */
static bool is_literal_seen(const RelayParser *ps, Bytes s, uint32_t len)
{
    const SeenLiteral *seen = &ps->literal_seen;
    uint64_t word;
    if (!seen->len || len != seen->len || (Bytes)ps->text_past - s <= 8)
        return false;
    memcpy(&word, s, 8);
    return (word & seen->mask) == seen->head;
}

/* The literal at s: its end, found by one comparison when it is the one
 * kept, else by scan_literal; NULL when there is none. */
static Bytes literal_end(const RelayParser *ps, Bytes s)
{
    uint32_t len = ps->literal_seen.len;
    if (is_literal_seen(ps, s, len) && !is(s[len], IDENT) && s[len] != '.')
        return s + len;
    return scan_literal(s);
}

/* The node of the literal operand o: from the one kept when o spells it,
 * else by load_const, then kept when its spelling fits in a word. */
static graft_node *literal_node(RelayParser *ps, const LineOperand *o)
{
    Bytes s = (Bytes)load_text(ps, o->text);
    SeenLiteral *seen = &ps->literal_seen;
    if (is_literal_seen(ps, s, o->text.len)) {
        graft_node *n = graph_add_literal_interned(ps->g, seen->spelling, seen->value,
                                                   seen->dtype);
        load_place(ps, n, o->text); /* (n is new: load_at's test is not needed) */
        return n;
    }
    graft_node *n = load_const(ps, o->text);
    if (!n || o->text.len > 8)
        return n;
    uint64_t head = 0, mask = 0;
    memcpy(&head, s, o->text.len);
    memset(&mask, 0xff, o->text.len);
    *seen = (SeenLiteral){head, mask, o->text.len, node_const_text(n), node_const_value(n),
                          node_const_dtype(n)};
    return n;
}

/* The operand at s into *o: the end of its annotation, or NULL. */
static Bytes operand(RelayParser *ps, Bytes s, LineOperand *o)
{
    bool temp = *s == '%' && is(s[1], DIGIT);
    o->number = -1;
    o->param = NULL;
    Bytes end;
    if (temp)
        end = temp_digits(ps, s + 1, &o->number);
    else if (*s != '%')
        end = literal_end(ps, s);
    else if (!(o->param = param_guessed(ps, s, &end)))
        end = scan_name(s);
    if (!end || (!is(*end, ENDS) && *end != '/'))
        return NULL;
    o->text = span(ps, s, end);
    if (temp && o->number < 0)
        return NULL;
    return annotation(ps, end, &o->annot);
}

/* The operand's node: a temp by number, else as the parser's actions
 * make it; NULL after an error. */
static graft_node *operand_node(RelayParser *ps, const LineOperand *o)
{
    bool named = ps->src->text[o->text.off] == '%';
    graft_node *n = o->param; /* (a parameter guessed as it was read) */
    if (n) /* (counted as made: a line left to the tokens makes none) */
        ps->counts.params_guessed++;
    else if (o->number >= 0)
        n = scope_temp(ps, (uint64_t)o->number);
    else if (named) /* a variable: a temp has its number */
        n = scope_use_var(ps, o->text); /* (load_use's, without its call) */
    if (!n)
        n = named ? load_use(ps, o->text) : literal_node(ps, o);
    if (n && o->annot.len)
        load_annotate(ps, n, o->annot);
    return n;
}

/* An attribute "name=value" at s, pushed: its end and the layout after
 * it, or NULL. */
static Bytes attribute(RelayParser *ps, Bytes s)
{
    Bytes name = s;
    s = skip(s + 1, IDENT);
    RelayText name_text = span(ps, name, s);
    s = skip(s, SPACE);
    if (*s != '=' || s[1] == '>')
        return NULL;
    graft_attr_value *v;
    if (!(s = value(ps, skip(s + 1, SPACE), 0, &v)))
        return NULL;
    load_push_attr(ps, name_text, v);
    s = skip(s, SPACE);
    return *s == '/' ? NULL : s; /* a comment: the tokens read it */
}

/* The arguments after "op(" up to the ')': operands into ps->operands (made
 * once the line is read), attributes pushed.  The end, or NULL. */
static Bytes arguments(RelayParser *ps, Bytes s)
{
    ps->operands.len = 0;
    s = skip(s, SPACE);
    if (*s == ')')
        return s + 1;
    for (;;) {
        if (*s == '%' || *s == '-' || is(*s, DIGIT)) {
            vec_reserve(&ps->operands, ps->operands.len + 1);
            s = operand(ps, s, &ps->operands.items[ps->operands.len++]);
        } else if (is(*s, IDSTART)) {
            s = attribute(ps, s);
        } else {
            return NULL;
        }
        if (!s) /* (each ends past the layout after it) */
            return NULL;
        if (*s == ')')
            return s + 1;
        if (*s != ',')
            return NULL;
        s = skip(s + 1, SPACE);
    }
}

/* note [ops read]: a model calls a few dozen ops, each on many lines,
 * and scanning an op's name, checking that it is no keyword and finding
 * it in the name cache (note [name cache] in relay_load_expr.c) took a
 * sixth of a line's reading.  So each slot of ps->ops_seen keeps the
 * last op read whose first two bytes lead there, interned, with its first
 * eight bytes and the '(' after it when they fit in eight; a line whose
 * op has its bytes and then '(' takes it from there, mostly by one
 * comparison of words: the scan would end at that '(' too, where it
 * ended when the op was first read. */
static SeenOp *seen_slot(RelayParser *ps, Bytes op)
{
    return &ps->ops_seen[cache_slot((uint64_t)op[0] << 8 | op[1], OPS_SEEN_BITS)];
}

/* The op read at op, its name len bytes and a '(' after them, kept in
 * *seen under its interned name. */
static void keep_seen(SeenOp *seen, Bytes op, size_t len, const char *name)
{
    size_t kept = len + 1 < 8 ? len + 1 : 8;
    uint64_t head = 0, mask = 0;
    memcpy(&head, op, kept);
    memset(&mask, 0xff, kept);
    *seen = (SeenOp){name, head, mask, (uint32_t)len};
}

/* Whether the bytes at s are seen's name and then '(' (compared past
 * the first eight up to the first that differs: the text may end before
 * the name's length; a text ending in fewer than eight is not compared). */
static bool is_seen(const RelayParser *ps, Bytes s, const SeenOp *seen)
{
    uint64_t word;
    if (!seen->name || (Bytes)ps->text_past - s < 8)
        return false;
    memcpy(&word, s, 8);
    if ((word & seen->mask) != seen->head)
        return false;
    for (uint32_t i = 8; i < seen->len; i++)
        if (s[i] != (unsigned char)seen->name[i])
            return false;
    return seen->len < 8 || s[seen->len] == '(';
}

/* The op's name at op, "nn.conv2d", and the '(' right after it: the end
 * of the name, *name interned, or NULL (a keyword: "fn(" is a function). */
static Bytes op_name(RelayParser *ps, Bytes op, const char **name)
{
    if (!is(*op, IDSTART))
        return NULL;
    SeenOp *seen = seen_slot(ps, op);
    if (is_seen(ps, op, seen)) {
        *name = seen->name;
        return op + seen->len;
    }
    Bytes s = dotted_name_end(op);
    if (*s != '(' || is_keyword(op, (size_t)(s - op)))
        return NULL;
    *name = load_intern(ps, span(ps, op, s));
    keep_seen(seen, op, (size_t)(s - op), *name);
    return s;
}

/* "op(args)" at s: its end, or NULL; *paren: the '(' after the op's
 * name, *name: the name interned; the attributes pushed from mark, the
 * operands read into ps->operands. */
static Bytes call_end(RelayParser *ps, Bytes s, Bytes *paren, const char **name)
{
    *paren = op_name(ps, s, name);
    return *paren ? arguments(ps, *paren + 1) : NULL;
}

/* load_call of a binding line, placed: its op's name interned already
 * (name), its operands made already, in args; only its attributes listed
 * from mark.  Here, not with load_call: inlined in call, whose line has
 * one (its call was a tenth of the line's node). */
static graft_node *line_call(RelayParser *ps, RelayText op, const char *name, size_t mark,
                             graft_node *const *args, int nargs)
{
    int nattrs;
    graft_attr *attrs = load_take_attrs(ps, mark, &nattrs);
    graft_node *n = graph_add_call_interned(ps->g, name, args, nargs, attrs, nattrs);
    load_place(ps, n, op); /* (n is new: load_at's test is not needed) */
    return n;
}

/* The call call_end read at s, its op's name ending at paren (NULL after
 * an error). */
static graft_node *call(RelayParser *ps, Bytes s, Bytes paren, const char *name, size_t mark)
{
    size_t nargs = ps->operands.len;
    vec_reserve(&ps->line_args, nargs);
    for (size_t i = 0; i < nargs; i++)
        if (!(ps->line_args.items[i] = operand_node(ps, &ps->operands.items[i])))
            return NULL;
    return line_call(ps, span(ps, s, paren), name, mark, ps->line_args.items, (int)nargs);
}

/* "%M.K" at s: its end, or NULL. */
static Bytes element_end(const RelayParser *ps, Bytes s)
{
    int64_t number;
    Bytes dot = temp_digits(ps, s + 1, &number);
    if (dot == s + 1 || number < 0 || *dot != '.')
        return NULL; /* (dot may be the text's NUL: nothing past it is read) */
    Bytes end = skip(dot + 1, DIGIT);
    return end == dot + 1 ? NULL : end;
}

/* The element element_end read at s (NULL after an error). */
static graft_node *element(RelayParser *ps, Bytes s)
{
    int64_t number;
    Bytes dot = temp_digits(ps, s + 1, &number);
    graft_node *tuple = scope_temp(ps, (uint64_t)number);
    if (!tuple)
        tuple = load_use(ps, span(ps, s, dot));
    return tuple ? load_getitem(ps, tuple, span(ps, dot + 1, skip(dot + 1, DIGIT))) : NULL;
}

/* The layout before a line at s, its newlines counted on the line
 * cursor: its end.  The spaces of a line's indent are skipped by a loop
 * of their own, a compare a byte, before the class of the byte after
 * them is looked up (26 instructions a line of the batch-norm workload,
 * where looking up every byte's class took 31). */
static inline Bytes layout_before(RelayParser *ps, Bytes s)
{
    for (;; s++) {
        while (*s == ' ')
            s++;
        if (*s == '\n')
            load_newline(ps, (uint32_t)(s - (Bytes)ps->src->text));
        else if (!is(*s, LAYOUT))
            return s;
    }
}

/* The guesses of the def's parameters that the operands read made
 * (note [parameters in order] in relay_load_scope.c), given back: their
 * line is left to the tokens, which guess again.  Each guess moved the
 * guess on by one, and nothing else moves it while a line is read. */
static void unguess(RelayParser *ps)
{
    for (size_t i = 0; i < ps->operands.len; i++)
        if (ps->operands.items[i].param)
            ps->param_next--;
}

/* One binding line at s, "%N = op(...)" or "%N = %M.K", its annotation
 * and ';', read to its end before a node is made: the end, or NULL when
 * it is left to the tokens; after an error, ps->failed. */
static Bytes line(RelayParser *ps, Bytes s)
{
    s = layout_before(ps, s);
    if (*s != '%') /* the text's NUL among others: nothing past it is read */
        return NULL;
    int64_t number;
    Bytes digits = s + 1, equals = temp_digits(ps, digits, &number);
    if (equals == digits || number < 0)
        return NULL;
    RelayText temp = span(ps, s, equals);
    equals = skip(equals, BLANK);
    if (*equals != '=')
        return NULL;
    Bytes at = skip(equals + 1, BLANK);
    size_t mark = load_mark(ps);
    Bytes paren = NULL;
    const char *op = NULL;
    Bytes end = *at == '%' ? element_end(ps, at) : call_end(ps, at, &paren, &op);
    RelayText annot;
    if (!end || !(end = annotation(ps, end, &annot)) || *end != ';') {
        ps->items.len = mark;
        if (paren) /* (its arguments were read: ps->operands is this line's) */
            unguess(ps);
        return NULL;
    }
    uint32_t read = (uint32_t)(end + 1 - (Bytes)ps->src->text);
    if (ps->cursor.end < read) /* no newline in it: its nodes are placed on the cursor */
        ps->cursor.end = read;
    graft_node *value = *at == '%' ? element(ps, at) : call(ps, at, paren, op, mark);
    if (value && annot.len)
        load_annotate(ps, value, annot);
    /* (a call or an element: load_define's test that it computes holds) */
    if (!value || !scope_define_line_temp(ps, (uint64_t)number, temp, value)) {
        ps->failed = true;
        return NULL;
    }
    return end + 1;
}

uint32_t relay_read_lines(RelayParser *ps, uint32_t off)
{
    Bytes text = (Bytes)ps->src->text, s = text + off, end;
    load_cursor_seek(ps, off);
    while (!ps->failed && (end = line(ps, s))) {
        s = end;
        ps->counts.lines_by_hand++; /* note [loading counted] in relay_load.c */
    }
    return (uint32_t)(s - (text + off));
}
