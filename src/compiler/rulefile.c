/* rulefile.c - creating, freeing and searching a RuleFile. */
#include "rulefile.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

RuleFile *rulefile_new(void)
{
    RuleFile *rf = xcalloc(1, sizeof(RuleFile));
    rf->arena = arena_new();
    rf->names = interner_new(rf->arena);
    rf->registry = registry_new(rf->arena, rf->names);
    return rf;
}

RuleFile *rulefile_new_from(const Interner *names, const Registry *registry)
{
    RuleFile *rf = xcalloc(1, sizeof(RuleFile));
    rf->arena = arena_new();
    rf->names = interner_clone(names, rf->arena);
    rf->registry = registry_clone(registry, rf->arena, rf->names);
    return rf;
}

void rulefile_free(RuleFile *rf)
{
    if (!rf)
        return;
    for (int i = rf->shared_builtin ? rf->nbuiltin : 0; i < rf->nsources; i++)
        source_free(rf->sources[i]);
    free(rf->sources);
    free(rf->files);
    free(rf->rules);
    registry_free(rf->registry);
    interner_free(rf->names);
    arena_free(rf->arena);
    free(rf);
}

const AstRule *rulefile_find_rule(const RuleFile *rf, const char *name)
{
    for (int i = 0; i < rf->nrules; i++)
        if (strcmp(rf->rules[i]->name, name) == 0)
            return rf->rules[i];
    return NULL;
}
