/* verify_model.h - the values graft run --verify gives a model's
 * parameters, and what it watches while the model is evaluated.
 *
 * note [model values]: with inputs in [-2, 2] and weights drawn the same
 * way, a deep model's activations grow by a factor per layer until, some
 * 25 layers down, every value is inf or NaN and any two models "agree".
 * So the values are those of a trained model's scale:
 *  - the model's own constants where it has them (eval_meta.c);
 *  - a layer's weights (operand 1 of a conv, dense or matmul, read
 *    nowhere else, directly or through shape ops each read once) uniform
 *    with variance 2 / fan-in (He); when the layer's output RMS still
 *    leaves [0.5, 2] they are scaled to make it 1 and the layer is
 *    evaluated again, with the shape ops between (eval.c);
 *  - a batch norm's statistics (operands 1-4, read nowhere else) drawn
 *    when its input is known, valid and not trivial: per channel, mean =
 *    the input's mean + d * its deviation (|d| in [0.1, 0.5]), variance
 *    in [eps / 2, 128 eps], so that epsilon matters (dropping it changes
 *    the channel's scale by 0.4% to 73%), gamma = g * sqrt(var + eps) /
 *    deviation with g in [0.5, 1.5], so that the output's RMS is about 1,
 *    and beta in +-[0.1, 0.5].  A channel of fewer than 16 values (a
 *    1 x 1 feature map) takes the layer's mean and deviation, and no
 *    channel's deviation is taken below a quarter of the layer's: an
 *    exact normalisation of a nearly constant channel would cancel its
 *    values and scale up their rounding errors, and the next layers
 *    would amplify those, so that even a right rewrite would differ;
 *  - a bias (operand 1 of nn.bias_add) in +-[0.0625, 0.5];
 *  - everything else, the inputs among it, as before: random in [-2, 2].
 * An ONNX model's initializers are such constants: its weights and
 * statistics are taken as given, its graph inputs drawn.
 * Every layer's activation RMS (the outputs of convs, dense, matmuls and
 * batch norms, ONNX's Conv, ConvTranspose, Gemm, MatMul and
 * BatchNormalization among them) is recorded: the range is reported, a layer outside
 * [0.1, 10] is named, and --verify=layers lists every layer's.  The
 * first node whose value holds inf or NaN is recorded too: such a value
 * is never "within" (runner_verify.c).
 */
#ifndef GRAFT_VERIFY_MODEL_H
#define GRAFT_VERIFY_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "eval.h"
#include "graph.h"
#include "util.h"

typedef struct ModelWatch {
    const graft_graph *g;
    Tensor *params;        /* the parameters' values, by index (borrowed) */
    int *param_index;      /* by node id: the parameter's index, or -1 */
    uint32_t nids;
    bool calibrate;        /* draw statistics and rescale (the original model) */
    unsigned char *done;   /* by node id: calibrated, or its layer recorded */
    uint64_t rng;
    int layers;            /* layers whose RMS was recorded */
    VEC(struct ModelLayer {
        const graft_node *at;
        double rms;
    }) each;               /* every layer's RMS, in evaluation order */
    double rms_min, rms_max;
    const graft_node *min_at, *max_at;
    int outside;           /* layers outside [0.1, 10] */
    const graft_node *first_outside;
    int rescaled;          /* weights scaled after their layer's RMS */
    int norms;             /* batch norms whose statistics were drawn */
    const graft_node *nonfinite; /* the first node whose value has inf or NaN */
} ModelWatch;

/* Fills params (one per graph_param of g, typed and allocated by the
 * caller) by their role in g (note [model values]); rng is the state of
 * verify_fill_random. */
void model_fill_params(const graft_graph *g, Tensor *params, uint64_t *rng);

/* A watch over the evaluation of g with params; calibrate for the
 * original model.  Pass model_watch_prepare as EvalInputs.prepare. */
void model_watch_init(ModelWatch *w, const graft_graph *g, Tensor *params, bool calibrate);
void model_watch_free(ModelWatch *w);
bool model_watch_prepare(void *ctx, const graft_node *n, const Value *vals, const Value *out);


#endif
