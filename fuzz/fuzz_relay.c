/* fuzz_relay.c - fuzz harness for the model loader (relay.h).
 *
 * Any bytes go to relay_load as a model file.  Invariants: the loader
 * either returns a graph or reports at least one "file:line:col: error"
 * with its excerpt (never a crash, a hang or a leak); a loaded graph's
 * users lists are consistent; its printed text loads again and prints the
 * same bytes (fuzz_load_model). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    graft_graph *g = fuzz_load_model("fuzz.relay", (const char *)data, size);
    graph_free(g);
    return 0;
}
