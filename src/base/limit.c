/* limits.c - the table of limits, parsing "NAME=N,..." and printing it. */
#include "limit.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* One row of LIMIT_LIST. */
typedef struct LimitInfo {
    const char *name;  /* as written after --limit */
    size_t offset;     /* of its field in Limits */
    uint64_t least;    /* smallest value accepted */
    uint64_t ceiling;  /* largest value accepted */
    const char *what;  /* what it bounds, for graft limits */
} LimitInfo;

const graft_limits limit_defaults = {
#define LIMIT_DEFAULT(field, name, dflt, least, ceiling, what) .field = dflt##ull,
    LIMIT_LIST(LIMIT_DEFAULT)
#undef LIMIT_DEFAULT
};

static const LimitInfo limit_infos[] = {
#define LIMIT_INFO(field, name, dflt, least, ceiling, what) \
    {name, offsetof(graft_limits, field), least##ull, ceiling##ull, what},
    LIMIT_LIST(LIMIT_INFO)
#undef LIMIT_INFO
};

enum { LIMIT_COUNT = sizeof limit_infos / sizeof limit_infos[0] };

static uint64_t *field_of(graft_limits *lim, const LimitInfo *info)
{
    return (uint64_t *)((char *)lim + info->offset);
}

static uint64_t value_of(const graft_limits *lim, const LimitInfo *info)
{
    return *(const uint64_t *)((const char *)lim + info->offset);
}

/* The limit called name (len bytes, not NUL-terminated), or NULL. */
static const LimitInfo *find(const char *name, size_t len)
{
    for (int i = 0; i < LIMIT_COUNT; i++)
        if (strlen(limit_infos[i].name) == len && memcmp(limit_infos[i].name, name, len) == 0)
            return &limit_infos[i];
    return NULL;
}

/* The limit whose name is closest to name, when one is close. */
static const char *suggest(const char *name)
{
    size_t limit = strlen(name) / 3 > 0 ? strlen(name) / 3 : 1;
    const char *best = NULL;
    for (int i = 0; i < LIMIT_COUNT; i++) {
        size_t dist = edit_distance(name, limit_infos[i].name, limit);
        if (dist <= limit) {
            limit = dist;
            best = limit_infos[i].name;
        }
    }
    return best;
}

static bool unknown_limit(const char *name, size_t len, StrBuf *why)
{
    char *copy = xstrndup(name, len);
    const char *hint = suggest(copy);
    if (hint)
        strbuf_printf(why, "unknown limit '%s'; did you mean '%s'?", copy, hint);
    else
        strbuf_printf(why, "unknown limit '%s' ('graft limits' lists them)", copy);
    free(copy);
    return false;
}

/* The value text of one item, a whole number within the limit's range. */
static bool parse_value(const LimitInfo *info, const char *text, uint64_t *out, StrBuf *why)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end) {
        strbuf_printf(why, "limit '%s' needs a whole number, not '%s'", info->name, text);
        return false;
    }
    if (errno == ERANGE || v < info->least || v > info->ceiling) {
        strbuf_printf(why, "limit '%s' must be from %llu to %llu, not %s", info->name,
                      (unsigned long long)info->least, (unsigned long long)info->ceiling,
                      text);
        return false;
    }
    *out = v;
    return true;
}

/* One "NAME=N" item, len bytes at item. */
static bool parse_item(graft_limits *lim, const char *item, size_t len, StrBuf *why)
{
    const char *eq = memchr(item, '=', len);
    if (!eq || eq == item) {
        strbuf_printf(why, "expected NAME=N, not '%.*s'", (int)len, item);
        return false;
    }
    const LimitInfo *info = find(item, (size_t)(eq - item));
    if (!info)
        return unknown_limit(item, (size_t)(eq - item), why);
    char *text = xstrndup(eq + 1, len - (size_t)(eq + 1 - item));
    bool ok = parse_value(info, text, field_of(lim, info), why);
    free(text);
    return ok;
}

bool limit_parse(graft_limits *lim, const char *spec, StrBuf *why)
{
    graft_limits next = *lim;
    for (const char *item = spec;;) {
        const char *comma = strchr(item, ',');
        size_t len = comma ? (size_t)(comma - item) : strlen(item);
        if (!parse_item(&next, item, len, why))
            return false;
        if (!comma)
            break;
        item = comma + 1;
    }
    *lim = next;
    return true;
}

/* A value as the table shows it: 0 has a meaning of its own for two. */
static void value_text(const LimitInfo *info, uint64_t v, char buf[24])
{
    if (v == 0 && strcmp(info->name, "rewrites") == 0)
        strcpy(buf, "auto");
    else if (v == 0 && strcmp(info->name, "errors") == 0)
        strcpy(buf, "none");
    else
        snprintf(buf, 24, "%llu", (unsigned long long)v);
}

void limit_print(const graft_limits *lim, FILE *out)
{
    fprintf(out, "%-14s %-8s %-8s %-20s %s\n", "limit", "value", "default", "range",
            "what it bounds");
    for (int i = 0; i < LIMIT_COUNT; i++) {
        const LimitInfo *info = &limit_infos[i];
        char value[24], dflt[24], range[48];
        value_text(info, value_of(lim, info), value);
        value_text(info, value_of(&limit_defaults, info), dflt);
        snprintf(range, sizeof range, "%llu..%llu", (unsigned long long)info->least,
                 (unsigned long long)info->ceiling);
        fprintf(out, "%-14s %-8s %-8s %-20s %s\n", info->name, value, dflt, range,
                info->what);
    }
}
