#!/bin/sh
# public_api.sh LIB HEADER... - libgraft's public names (note [public
# names] in include/graft/graft.h, note [hidden internals] in Makefile.am):
#
#  - every global symbol LIB defines begins with graft_;
#  - LIB defines exactly the functions the HEADERs declare (not static
#    inline), no internal function more and none of them less;
#  - every name a HEADER defines (macro, type, struct or enum tag, enum
#    constant, function, variable) begins with graft_ or GRAFT_.
#
# Prints each fault and exits 1 on any; tests/public_api_test.sh runs it on
# the built library and on made-up faults.
set -u
[ $# -ge 2 ] || { echo "usage: public_api.sh LIB HEADER..."; exit 2; }
lib=$1
shift
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
bad=0

# The symbols: "NAME" for each global definition (any section).
nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/exported"
[ -s "$tmp/exported" ] || { echo "public_api: $lib defines no global symbol"; exit 1; }

# The names each header defines, "KIND NAME HEADER", from its text without
# comments and string literals, one token a line.
for h in "$@"; do
    ${CC:-cc} -fpreprocessed -dD -E -P "$h" |
        sed -e 's/"\([^"\\]\|\\.\)*"/""/g' -e "s/'\([^'\\\\]\|\\\\.\)*'/0/g" |
        sed -e 's/^[[:space:]]*#[[:space:]]*define[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\).*/#define \1/' \
            -e '/^[[:space:]]*#/!s/[A-Za-z_][A-Za-z0-9_]*\|[^[:space:]A-Za-z0-9_]/\n&\n/g' |
        grep -v '^[[:space:]]*$' |
        awk -v h="$h" '
        # Brace and parenthesis depth; a declaration statement at depth 0
        # ends at ";" or at the "{" of a function body.
        /^#define / { print "macro", $2, h; next }
        /^#/ { next }
        {
            t = $0
            if (t == "{") {
                depth++
                if (depth == 1 && enum_open) { in_enum = 1; entry = 1 }
                else if (depth == 1 && pdepth == 0 && last == ")") body = 1
                enum_open = 0; last = t; next
            }
            if (t == "}") {
                depth--
                if (depth == 0) { in_enum = 0; if (body) { body = 0; stmt_typedef = 0 } }
                last = t; next
            }
            if (t == "(") {
                pdepth++
                if (depth == 0 && pdepth == 1 && last ~ /^[A-Za-z_]/ && !stmt_typedef)
                    print "function", last, h
                prev2 = prev; prev = last; last = t; next
            }
            if (t == ")") {
                # typedef RET (*NAME)(PARAMS);
                if (depth == 0 && pdepth == 1 && stmt_typedef && prev2 == "(" && prev == "*" &&
                    last ~ /^[A-Za-z_]/)
                    print "type", last, h
                pdepth--; prev2 = prev; prev = last; last = t; next
            }
            if (t == "," && in_enum && depth == 1) { entry = 1; last = t; next }
            if (t == ";") {
                if (depth == 0 && pdepth == 0) {
                    if (last ~ /^[A-Za-z_]/ && stmt_typedef) print "type", last, h
                    else if (last ~ /^[A-Za-z_]/ && stmt_extern) print "variable", last, h
                    stmt_typedef = 0; stmt_extern = 0
                }
                last = t; next
            }
            if (depth == 0 && pdepth == 0 && t == "typedef") stmt_typedef = 1
            if (depth == 0 && pdepth == 0 && t == "extern") stmt_extern = 1
            if (in_enum && depth == 1 && entry && t ~ /^[A-Za-z_]/) { print "constant", t, h; entry = 0 }
            if ((last == "struct" || last == "union" || last == "enum") && t ~ /^[A-Za-z_]/) print "tag", t, h
            if (t == "enum") enum_open = 1
            else if (t != "{" && last == "enum") enum_open = (t ~ /^[A-Za-z_]/)
            prev2 = prev; prev = last; last = t
        }'
done >"$tmp/names"

# Functions declared for the library to define: not static (inline).
for h in "$@"; do
    ${CC:-cc} -fpreprocessed -dD -E -P "$h" | tr '\n' ' ' | tr ';{}' '\n\n\n' |
        grep -v '^[[:space:]]*\(static\|typedef\|#\)' |
        sed -n 's/.*[^A-Za-z0-9_]\(graft_[A-Za-z0-9_]*\)[[:space:]]*(.*/\1/p'
done | sort -u >"$tmp/declared"

awk -v lib="$lib" '$1 !~ /^graft_/ { print "public_api: " lib " exports " $1 " without the graft_ prefix" }' \
    "$tmp/exported" >"$tmp/faults"
comm -23 "$tmp/exported" "$tmp/declared" | grep '^graft_' |
    sed "s|.*|public_api: $lib exports &, which no installed header declares|" >>"$tmp/faults"
comm -13 "$tmp/exported" "$tmp/declared" |
    sed "s|.*|public_api: the headers declare &, which $lib does not define|" >>"$tmp/faults"
awk '$2 !~ /^(graft_|GRAFT_)/ { print "public_api: " $3 " defines " $1 " " $2 " without the GRAFT_/graft_ prefix" }' \
    "$tmp/names" | sort -u >>"$tmp/faults"

if [ -s "$tmp/faults" ]; then
    cat "$tmp/faults"
    exit 1
fi
echo "public_api: $(wc -l <"$tmp/exported" | tr -d ' ') symbols, all graft_ and all declared;" \
    "$(wc -l <"$tmp/names" | tr -d ' ') names in $# headers, all GRAFT_/graft_"
