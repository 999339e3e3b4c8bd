#!/bin/sh
# public_api_test.sh - tests/public_api.sh passes on the built libgraft.a
# and the installed headers, and finds each kind of fault in a small
# library and header made to have it.
set -u
src=${GRAFT_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${GRAFT_BUILDDIR:-$src}
fails=0
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# The real libraries, static and shared: only graft_ symbols, each
# declared; headers clean.
for lib in libgraft.a .libs/libgraft.so; do
    out=$(cd "$src" && sh tests/public_api.sh "$build/$lib" include/graft/graft.h \
        include/graft/graft_rules.h include/graft/graft_api.h 2>&1)
    case $out in
    "public_api: "*" symbols, all graft_ and all declared; "*" names in 3 headers, all GRAFT_/graft_") ;;
    *) printf 'FAIL: %s:\n%s\n' "$lib" "$out"; fails=$((fails + 1)) ;;
    esac
done

# A library that exports an internal function and an undeclared graft_
# one, and lacks a declared one; a header with generic names.
cat >"$tmp/lib.c" <<'C'
void *xmalloc(unsigned long n) { return (void *)n; }
int graft_one(void) { return 1; }
int graft_extra(void) { return 2; }
static int local_helper(void) { return 3; }
int graft_uses_local(void) { return local_helper(); }
C
${CC:-cc} -c -o "$tmp/lib.o" "$tmp/lib.c" && ar cr "$tmp/libbad.a" "$tmp/lib.o" || exit 2
cat >"$tmp/bad.h" <<'C'
/* graft_missing(void) in a comment is no declaration */
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define GRAFT_OK 1
enum { STATE_NONE, GRAFT_STATE_ANY = 2 };
typedef struct Shape { int rank; } graft_shape;
typedef int (*visit_fn)(void *ctx, int *node);
int graft_one(void);
int graft_uses_local(void);
int graft_missing(const char *s);
static inline int graft_inline(void) { return 0; }
extern const int table_size;
C
out=$(cd "$tmp" && sh "$src/tests/public_api.sh" libbad.a bad.h 2>&1)
status=$?
want='public_api: libbad.a exports xmalloc without the graft_ prefix
public_api: libbad.a exports graft_extra, which no installed header declares
public_api: the headers declare graft_missing, which libbad.a does not define
public_api: bad.h defines constant STATE_NONE without the GRAFT_/graft_ prefix
public_api: bad.h defines macro ARRAY_LEN without the GRAFT_/graft_ prefix
public_api: bad.h defines tag Shape without the GRAFT_/graft_ prefix
public_api: bad.h defines type visit_fn without the GRAFT_/graft_ prefix
public_api: bad.h defines variable table_size without the GRAFT_/graft_ prefix'
if [ "$status" -ne 1 ] || [ "$out" != "$want" ]; then
    printf 'FAIL: faults: exit %s (want 1), output:\n%s\nwant:\n%s\n' "$status" "$out" "$want"
    fails=$((fails + 1))
fi

[ "$fails" -eq 0 ] && echo "public_api_test: 2 cases passed"
[ "$fails" -eq 0 ]
