/* prove_z3.c - opening Z3's library when a proof is first asked for.
 *
 * note [Z3 loaded lazily]: only graft verify --prove calls Z3, but a
 * program linked against libz3 pays for it on every run: the dynamic
 * loader relocates libz3 and the libstdc++ it needs before main, runs
 * their static constructors, and their exit handlers after (3.5 M
 * instructions of the 4.5 M of a run on a one-op model; bench/RESULTS.md,
 * "The fixed set-up (issue 34), session 17").  So graft is not linked
 * against it: prove_z3_load opens the library with dlopen and fills a
 * table of pointers to the functions the prover calls (prove_z3.h),
 * which keep their Z3 spelling there.  The library is the soname of the
 * libz3 configure found (GRAFT_Z3_SONAME, libz3.so.4 on Debian), or the
 * file GRAFT_Z3_LIBRARY names in the environment (for tests: a missing
 * or broken library).  Every other command runs without libz3
 * installed; --prove without it is an error (exit 1) before any rule is
 * read.  The headers are still needed to build: the table's types are
 * z3.h's.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "prove_z3.h"

ProveZ3 prove_z3;
static void *z3_library; /* dlopen's handle, NULL while not loaded */

/* dlsym's object pointer stored as a function pointer: POSIX gives both
 * one representation, which ISO C does not promise. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function pointers as dlsym's");

static bool load_function(void *lib, const char *file, const char *name, void *field,
                          StrBuf *why)
{
    void *address = dlsym(lib, name);
    if (!address) {
        strbuf_printf(why, "cannot load Z3: '%s' has no function %s", file, name);
        return false;
    }
    memcpy(field, &address, sizeof address);
    return true;
}

static bool load_functions(void *lib, const char *file, ProveZ3 *table, StrBuf *why)
{
#define PROVE_Z3_LOAD(name) \
    if (!load_function(lib, file, "Z3_" #name, &table->name, why)) \
        return false;
    PROVE_Z3_FUNCTIONS(PROVE_Z3_LOAD)
#undef PROVE_Z3_LOAD
    return true;
}

bool prove_z3_load(StrBuf *why)
{
    if (z3_library)
        return true;
    const char *file = getenv("GRAFT_Z3_LIBRARY");
    if (!file || !*file)
        file = GRAFT_Z3_SONAME;
    /* RTLD_NOW: a library missing a dependency fails here, with its
     * reason, not at a call (1.1 M instructions more than RTLD_LAZY,
     * 1.6% of the smallest proof) */
    void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        strbuf_printf(why, "cannot load Z3: %s", dlerror());
        return false;
    }
    ProveZ3 table;
    if (!load_functions(lib, file, &table, why)) {
        dlclose(lib);
        return false;
    }
    prove_z3 = table;
    z3_library = lib;
    return true;
}

/* dlclose leaves libz3 mapped (its unique symbols make it undeletable);
 * closing still balances the dlopen. */
void prove_z3_unload(void)
{
    if (!z3_library)
        return;
    Z3_finalize_memory();
    dlclose(z3_library);
    z3_library = NULL;
    memset(&prove_z3, 0, sizeof prove_z3);
}
