/* api.c - graft's C API (graft_api.h) in one program: a rule given as
 * text, a model read from a file, the matches with their bindings, the
 * rewritten model, and a bad rule's diagnostics as structures.
 *
 *   cc api.c $(pkg-config --cflags --libs graft) -o api && ./api bn.relay
 *
 * tests/api_example.sh builds and runs it against the built library. */
#include <stdio.h>
#include <string.h>

#include "graft_api.h"

static const char rule[] =
    "bn := gamma*(x-mean)/sqrt(var+eps:const)+beta\n"
    "      => nn.batch_norm(x, gamma, beta, mean, var, axis=-1, epsilon=eps)[0]\n";

static void print_messages(const graft_diag *d)
{
    for (size_t i = 0; i < graft_diag_count(d); i++) {
        const graft_message *m = graft_diag_message(d, i);
        printf("%s:%d:%d: %s\n", m->file ? m->file : "graft", m->line, m->column, m->text);
        for (size_t j = 0; j < m->nnotes; j++)
            printf("  note: %s\n", m->notes[j].text);
    }
}

static void print_matches(const graft_rules *r, graft_graph *g)
{
    graft_matches *ms = graft_rules_match(r, g, NULL, NULL);
    for (size_t i = 0; i < graft_matches_count(ms); i++) {
        const graft_match *m = graft_matches_get(ms, i);
        printf("%s at %s (%d:%d)", m->rule, m->root, m->line, m->column);
        for (size_t b = 0; b < m->nbindings; b++)
            printf("%s%s=%s", b ? ", " : ": ", m->bindings[b].var, m->bindings[b].value);
        putchar('\n');
    }
    graft_matches_free(ms);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: api MODEL.relay\n");
        return 2;
    }
    graft_diag *d = graft_diag_capture();
    graft_rules *r = graft_rules_parse("bn.graft", rule, strlen(rule), NULL, d);
    graft_graph *g = graft_model_load(argv[1], NULL, d);
    int status = r && g ? 0 : 1;
    if (status == 0) {
        print_matches(r, g);
        if (graft_rules_run(r, g, NULL, d)) {
            char *text = graft_model_print_string(g);
            fputs(text, stdout);
            graft_string_free(text);
        }
    }
    graft_rules *bad = graft_rules_parse("bad.graft", "r := addd(x, 0) => x\n", 21, NULL, d);
    print_messages(d);
    graft_rules_free(bad);
    graft_rules_free(r);
    graft_model_free(g);
    graft_diag_free(d);
    return status;
}
