/* verify_model.c - parameter values of a trained model's scale for graft
 * run --verify, and the watch over activations and non-finite values
 * (note [model values] in verify_model.h). */
#include "verify_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verify_impl.h"

enum { MAX_NORM_CHANNELS = 1 << 16, MIN_SAMPLES = 16, NORM_SEED = 3 };

typedef enum ParamRole {
    ROLE_OTHER,    /* an input, or read where no role applies */
    ROLE_WEIGHT,   /* operand 1 of a layer */
    ROLE_NORM,     /* operands 1-4 of nn.batch_norm */
    ROLE_BIAS,     /* operand 1 of nn.bias_add */
    ROLE_VARIANCE, /* operand 4 of nn.batch_norm read elsewhere too */
} ParamRole;

static bool is_op(const graft_node *n, const char *op)
{
    return node_op(n) && strcmp(node_op(n), op) == 0;
}

static bool is_layer(const graft_node *n)
{
    static const char *const layers[] = {"nn.conv1d", "nn.conv2d", "nn.conv3d", "nn.dense",
                                         "nn.matmul", "nn.batch_matmul", "Conv",
                                         "ConvTranspose", "Gemm", "MatMul"};
    for (size_t i = 0; i < ARRAY_LEN(layers); i++)
        if (is_op(n, layers[i]))
            return true;
    return false;
}

static int64_t attr_int(const graft_node *n, const char *name, int64_t dflt)
{
    const graft_attr_value *v = node_find_attr(n, name);
    if (v && (v->kind == GRAFT_ATTR_INT || v->kind == GRAFT_ATTR_BOOL))
        return v->i;
    return dflt;
}

static double attr_float(const graft_node *n, const char *name, double dflt)
{
    const graft_attr_value *v = node_find_attr(n, name);
    if (v && v->kind == GRAFT_ATTR_FLOAT)
        return v->f;
    return v && v->kind == GRAFT_ATTR_INT ? (double)v->i : dflt;
}

/* The ops that move a weight's elements without changing them. */
static bool is_shape_op(const graft_node *n)
{
    static const char *const ops[] = {"reshape", "transpose", "broadcast_to", "expand_dims",
                                      "squeeze", "copy"};
    for (size_t i = 0; i < ARRAY_LEN(ops); i++)
        if (is_op(n, ops[i]))
            return true;
    return false;
}

/* The layer whose weights p is: p, or a chain of shape ops from it each
 * read once (convnext's weights, transposed and broadcast before a
 * batch_matmul), is operand 1 of a layer, read there alone; NULL
 * otherwise.  *operand gets the layer's operand. */
static const graft_node *weight_layer(const graft_node *p, const graft_node **operand)
{
    for (const graft_node *n = p;;) {
        const graft_node *user = node_sole_user(n);
        if (!user)
            return NULL;
        int index = node_user_operand(n, node_user_first(n));
        if (is_layer(user) && index == 1) {
            *operand = n;
            return user;
        }
        if (!is_shape_op(user) || index != 0)
            return NULL;
        n = user;
    }
}

/* The role of parameter p: by its only use, or ROLE_OTHER. */
static ParamRole param_role(const graft_node *p)
{
    if (!node_nusers(p))
        return ROLE_OTHER;
    int first = node_user_first(p);
    const graft_node *user = node_user(p, first), *operand;
    int index = node_user_operand(p, first);
    if (node_nusers(p) > 1)
        return is_op(user, "nn.batch_norm") && index == 4 ? ROLE_VARIANCE : ROLE_OTHER;
    if (weight_layer(p, &operand))
        return ROLE_WEIGHT;
    if (is_op(user, "nn.batch_norm") && index >= 1 && index <= 4)
        return ROLE_NORM;
    if (is_op(user, "nn.bias_add") && index == 1)
        return ROLE_BIAS;
    return ROLE_OTHER;
}

/* The number of inputs each output of the layer reading weights w sums. */
static double fan_in(const graft_node *layer, const Tensor *w)
{
    if (w->rank == 0 || w->size == 0)
        return 1;
    if (is_op(layer, "nn.dense"))
        return (double)w->dims[w->rank - 1];
    if (is_op(layer, "nn.matmul") || is_op(layer, "nn.batch_matmul")) {
        bool tb = attr_int(layer, "transpose_b", false); /* TVM's default, as eval_nn.c */
        return (double)w->dims[w->rank - (tb || w->rank < 2 ? 1 : 2)];
    }
    const graft_attr_value *kl = node_find_attr(layer, "kernel_layout");
    const char *o = kl && kl->kind == GRAFT_ATTR_STRING ? strchr(kl->s, 'O') : NULL;
    int axis = o ? (int)(o - kl->s) : 0;
    int64_t out = axis < w->rank && w->dims[axis] > 0 ? w->dims[axis] : 1;
    return (double)w->size / (double)out;
}

/* The fan-in of the layer weights p (of value t) feed, read from the
 * shape of the layer's operand, which shape ops may have changed. */
static double weight_fan_in(const graft_node *p, const Tensor *t)
{
    const graft_node *operand;
    const graft_node *layer = weight_layer(p, &operand);
    const graft_type *type = node_type(operand);
    if (operand == p || !type || type->kind != TYPE_TENSOR || type->rank > EVAL_MAX_RANK)
        return fan_in(layer, t);
    Tensor shape = {.rank = type->rank, .size = 1};
    for (int k = 0; k < type->rank; k++) {
        if (type->dims[k] < 0)
            return fan_in(layer, t);
        shape.dims[k] = type->dims[k];
        shape.size *= (size_t)type->dims[k];
    }
    return fan_in(layer, &shape);
}

/* Uniform in +-[lo, hi], rounded to t's dtype. */
static double signed_uniform(uint64_t *rng, double lo, double hi, const char *dtype)
{
    double u = verify_random(rng), m = lo + (hi - lo) * verify_random(rng);
    return eval_round(u < 0.5 ? -m : m, dtype);
}

void model_fill_params(const graft_graph *g, Tensor *params, uint64_t *rng)
{
    for (int i = 0; i < graph_nparams(g); i++) {
        const graft_node *p = graph_param(g, i);
        Tensor *t = &params[i];
        ParamRole role = eval_is_float(t->dtype) ? param_role(p) : ROLE_OTHER;
        if (role == ROLE_WEIGHT) {
            double bound = sqrt(6 / weight_fan_in(p, t));
            for (size_t k = 0; k < t->size; k++)
                t->data[k] = eval_round((2 * verify_random(rng) - 1) * bound, t->dtype);
        } else if (role == ROLE_BIAS) {
            for (size_t k = 0; k < t->size; k++)
                t->data[k] = signed_uniform(rng, 0.0625, 0.5, t->dtype);
        } else if (role == ROLE_NORM) {
            for (size_t k = 0; k < t->size; k++) /* drawn again at the batch norm */
                t->data[k] = 1;
        } else
            verify_fill_random(t, rng, role == ROLE_VARIANCE);
    }
}

void model_watch_init(ModelWatch *w, const graft_graph *g, Tensor *params, bool calibrate)
{
    memset(w, 0, sizeof *w);
    w->g = g;
    w->params = params;
    w->calibrate = calibrate;
    w->rng = NORM_SEED;
    w->nids = graph_node_count(g);
    w->param_index = xcalloc((size_t)w->nids + 1, sizeof *w->param_index);
    w->done = xcalloc((size_t)w->nids + 1, 1);
    for (uint32_t i = 0; i < w->nids; i++)
        w->param_index[i] = -1;
    for (int i = 0; i < graph_nparams(g); i++)
        w->param_index[node_id(graph_param(g, i))] = i;
}

void model_watch_free(ModelWatch *w)
{
    free(w->param_index);
    free(w->done);
    vec_free(&w->each);
}

/* The parameter tensor operand i of n is, when it has role role. */
static Tensor *role_param(ModelWatch *w, const graft_node *n, int i, ParamRole role)
{
    if (i >= node_nargs(n))
        return NULL;
    const graft_node *a = node_arg(n, i);
    uint32_t id = node_id(a);
    if (node_kind(a) != NODE_VAR || id >= w->nids || w->param_index[id] < 0 ||
        param_role(a) != role)
        return NULL;
    return &w->params[w->param_index[id]];
}

/* Per-channel mean and deviation of x along axis.  A channel of fewer
 * than MIN_SAMPLES values (a 1 x 1 feature map of one image) takes the
 * whole layer's: its own mean would cancel its value, leaving nothing but
 * the rounding errors, which the next layers would amplify.  For the same
 * reason a channel's deviation is at least a quarter of the layer's. */
static void channel_stats(const Tensor *x, int axis, int64_t nc, double *mean, double *dev)
{
    int64_t inner = 1;
    for (int k = axis + 1; k < x->rank; k++)
        inner *= x->dims[k];
    double *sum = xcalloc((size_t)nc + 1, sizeof *sum), *sq = xcalloc((size_t)nc + 1, sizeof *sq);
    double all = 0, all_sq = 0;
    for (size_t i = 0; i < x->size; i++) {
        int64_t c = ((int64_t)i / inner) % nc;
        sum[c] += x->data[i];
        sq[c] += x->data[i] * x->data[i];
        all += x->data[i];
        all_sq += x->data[i] * x->data[i];
    }
    double count = (double)x->size / (double)nc, size = (double)x->size;
    double layer_mean = all / size, layer_var = all_sq / size - layer_mean * layer_mean;
    double layer_dev = layer_var > 0 ? sqrt(layer_var) : 1;
    for (int64_t c = 0; c < nc; c++) {
        mean[c] = count < MIN_SAMPLES ? layer_mean : sum[c] / count;
        double var = count < MIN_SAMPLES ? layer_var : sq[c] / count - mean[c] * mean[c];
        dev[c] = var > layer_dev * layer_dev / 16 ? sqrt(var) : layer_dev / 4;
    }
    free(sum);
    free(sq);
}

/* Draws the statistics of batch norm n from its input x. */
static bool calibrate_norm(ModelWatch *w, const graft_node *n, const Tensor *x)
{
    Tensor *gamma = role_param(w, n, 1, ROLE_NORM), *beta = role_param(w, n, 2, ROLE_NORM);
    Tensor *mean = role_param(w, n, 3, ROLE_NORM), *var = role_param(w, n, 4, ROLE_NORM);
    int64_t axis = attr_int(n, "axis", 1);
    axis += axis < 0 ? x->rank : 0;
    if (!gamma || !beta || !mean || !var || axis < 0 || axis >= x->rank)
        return false;
    int64_t nc = x->dims[axis];
    if (nc > MAX_NORM_CHANNELS || gamma->size != (size_t)nc || beta->size != (size_t)nc ||
        mean->size != (size_t)nc || var->size != (size_t)nc)
        return false;
    double eps = attr_float(n, "epsilon", 1e-5);
    double *m = xcalloc((size_t)nc + 1, sizeof *m), *dev = xcalloc((size_t)nc + 1, sizeof *dev);
    channel_stats(x, (int)axis, nc, m, dev);
    for (int64_t c = 0; c < nc; c++) {
        double v = eps > 0 ? eps * pow(2, 8 * verify_random(&w->rng) - 1)
                           : dev[c] * dev[c] * (0.5 + 1.5 * verify_random(&w->rng));
        var->data[c] = eval_round(v, var->dtype);
        double scale = 0.5 + verify_random(&w->rng);
        gamma->data[c] = eval_round(scale * sqrt(var->data[c] + eps) / dev[c], gamma->dtype);
        mean->data[c] = eval_round(m[c] + signed_uniform(&w->rng, 0.1, 0.5, "float64") * dev[c],
                                   mean->dtype);
        beta->data[c] = signed_uniform(&w->rng, 0.1, 0.5, beta->dtype);
    }
    free(dev);
    free(m);
    w->norms++;
    return true;
}

static double rms(const Value *v)
{
    while (v->nfields > 0)
        v = &v->fields[0];
    if (v->nfields == 0 || v->t.size == 0)
        return 0;
    double sum = 0;
    for (size_t i = 0; i < v->t.size; i++)
        sum += v->t.data[i] * v->t.data[i];
    return sqrt(sum / (double)v->t.size);
}

static void record_layer(ModelWatch *w, const graft_node *n, double r)
{
    if (w->layers == 0 || r < w->rms_min)
        w->rms_min = r, w->min_at = n;
    if (w->layers == 0 || r > w->rms_max)
        w->rms_max = r, w->max_at = n;
    w->layers++;
    vec_push(&w->each, ((struct ModelLayer){n, r}));
    if (!(r >= 0.1 && r <= 10) && w->outside++ == 0)
        w->first_outside = n;
}

/* The parameter whose values layer n's weights are, through shape ops
 * (weight_layer), or NULL. */
static Tensor *weight_param(ModelWatch *w, const graft_node *n)
{
    if (node_nargs(n) < 2)
        return NULL;
    const graft_node *a = node_arg(n, 1);
    while (node_kind(a) == NODE_CALL && is_shape_op(a) && node_nargs(a) > 0)
        a = node_arg(a, 0);
    uint32_t id = node_id(a);
    if (node_kind(a) != NODE_VAR || id >= w->nids || w->param_index[id] < 0 ||
        param_role(a) != ROLE_WEIGHT)
        return NULL;
    return &w->params[w->param_index[id]];
}

/* After layer n: scales its weights when its RMS left [0.5, 2]; true
 * when it did (n is evaluated again, its weights read again through the
 * shape ops between: eval.c's reread_operand). */
static bool rescale_layer(ModelWatch *w, const graft_node *n, double r)
{
    Tensor *wt = weight_param(w, n);
    if (!w->calibrate || !wt || !(r > 0) || !isfinite(r) || (r >= 0.5 && r <= 2))
        return false;
    for (size_t k = 0; k < wt->size; k++)
        wt->data[k] = eval_round(wt->data[k] / r, wt->dtype);
    w->rescaled++;
    return true;
}

bool model_watch_prepare(void *ctx, const graft_node *n, const Value *vals, const Value *out)
{
    ModelWatch *w = ctx;
    uint32_t id = node_id(n);
    if (id >= w->nids)
        return false;
    if (!out) {
        const Value *x = node_nargs(n) ? &vals[node_id(node_arg(n, 0))] : NULL;
        if (!w->calibrate || w->done[id] || !is_op(n, "nn.batch_norm") || !x || x->nfields >= 0)
            return false;
        w->done[id] = 1;
        return calibrate_norm(w, n, &x->t);
    }
    if (!w->nonfinite && !eval_value_finite(out))
        w->nonfinite = n;
    if (!is_layer(n) && !is_op(n, "nn.batch_norm") && !is_op(n, "BatchNormalization"))
        return false;
    double r = rms(out);
    if (w->done[id] != 2 && rescale_layer(w, n, r)) {
        w->done[id] = 2;
        return true;
    }
    record_layer(w, n, r);
    return false;
}
