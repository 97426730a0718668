/* Tree operations from an Euler tour (examples/tree_ops.md): every node's
 * depth and subtree size of a random rooted tree, from one scan over its
 * Euler tour and one sort that takes each node's two steps to the node,
 * checked against a sequential depth-first search.
 *
 * The tour walks the tree depth first: a step down into v (enter v) and,
 * after v's subtree, a step back up (leave v); 2n steps in all. Each step
 * carries one 64-bit word: 2^32 + 1 for a step down, 2^32 - 1 for a step up.
 * Their inclusive scan (PP_SUM, u64) is, at step p, (p + 1) * 2^32 + the
 * level there (downs minus ups so far; below 2^32, so nothing carries into
 * the high half): one scan counts positions and depths together. At
 * enter v the level is depth(v) + 1; between enter v and leave v lie
 * exactly the 2 * size(v) steps of v's subtree, so size(v) = (leave - enter
 * + 1) / 2. Sorting the scanned words by the step's code 2v (enter) or
 * 2v + 1 (leave) puts both of v's words at 2v and 2v + 1: the sort is the
 * scatter from tour order to node order. */
#include "example_common.h"

typedef struct tree {
    size_t n;
    uint32_t root;
    uint32_t *first, *kids; /* children of v: kids[first[v] .. first[v + 1]) */
} tree;

/* A random tree of n nodes: node i > 0 of the generation hangs below i - 1
 * (15 times in 16: long paths, a deep tree) or below a random earlier node;
 * then the labels are shuffled so that neither labels nor child order
 * follow depth. Children are listed in label order (a counting sort). */
static tree make_tree(size_t n, uint64_t *rng)
{
    uint32_t *perm = malloc(n * sizeof *perm), *parent = malloc(n * sizeof *parent);
    tree t = {n, 0, calloc(n + 1, sizeof(uint32_t)), malloc((n ? n : 1) * sizeof(uint32_t))};
    if (!perm || !parent || !t.first || !t.kids) {
        fprintf(stderr, "tree_ops: out of host memory\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++) perm[i] = (uint32_t)i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)ex_below(rng, i);
        uint32_t x = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = x;
    }
    t.root = perm[0];
    for (size_t i = 1; i < n; i++) {
        size_t p = ex_below(rng, 16) ? i - 1 : (size_t)ex_below(rng, i);
        parent[perm[i]] = perm[p];
    }
    for (size_t v = 0; v < n; v++)
        if (v != t.root) t.first[parent[v] + 1]++;
    for (size_t v = 0; v < n; v++) t.first[v + 1] += t.first[v];
    uint32_t *fill = malloc((n ? n : 1) * sizeof *fill);
    if (!fill) exit(2);
    memcpy(fill, t.first, n * sizeof *fill);
    for (size_t v = 0; v < n; v++)
        if (v != t.root) t.kids[fill[parent[v]]++] = (uint32_t)v;
    free(fill);
    free(perm);
    free(parent);
    return t;
}

/* The Euler tour, the input representation: code[p] = 2v (enter v) or
 * 2v + 1 (leave v), word[p] = the step's 64-bit increment. Built by a
 * depth-first walk with an explicit stack (the tree may be deep). */
static void make_tour(const tree *t, uint32_t *code, uint64_t *word, uint32_t *stack, uint32_t *next)
{
    size_t p = 0, top = 0;
    const uint64_t down = (1ull << 32) + 1, up = (1ull << 32) - 1;
    stack[top++] = t->root;
    next[t->root] = t->first[t->root];
    code[p] = 2 * t->root;
    word[p++] = down;
    while (top) {
        uint32_t v = stack[top - 1];
        if (next[v] < t->first[v + 1]) {
            uint32_t c = t->kids[next[v]++];
            next[c] = t->first[c];
            stack[top++] = c;
            code[p] = 2 * c;
            word[p++] = down;
        } else {
            top--;
            code[p] = 2 * v + 1;
            word[p++] = up;
        }
    }
}

/* The sequential version: depths on the way down, sizes on the way up. */
static void dfs(const tree *t, uint32_t *depth, uint32_t *size, uint32_t *stack, uint32_t *next)
{
    size_t top = 0;
    stack[top++] = t->root;
    depth[t->root] = 0;
    size[t->root] = 1;
    next[t->root] = t->first[t->root];
    while (top) {
        uint32_t v = stack[top - 1];
        if (next[v] < t->first[v + 1]) {
            uint32_t c = t->kids[next[v]++];
            depth[c] = depth[v] + 1;
            size[c] = 1;
            next[c] = t->first[c];
            stack[top++] = c;
        } else {
            top--;
            if (top) size[stack[top - 1]] += size[v];
        }
    }
}

static int body(pp_context *ctx, const ex_args *a)
{
    size_t n = a->n, m = 2 * n;
    uint64_t rng = a->seed;
    tree t = make_tree(n, &rng);
    uint32_t *code = malloc(m * sizeof *code), *stack = malloc(n * sizeof *stack), *next = malloc(n * sizeof *next);
    uint64_t *word = malloc(m * sizeof *word);
    uint32_t *depth = malloc(n * sizeof *depth), *size = malloc(n * sizeof *size);
    uint32_t *rdepth = malloc(n * sizeof *rdepth), *rsize = malloc(n * sizeof *rsize);
    if (!code || !stack || !next || !word || !depth || !size || !rdepth || !rsize) {
        fprintf(stderr, "tree_ops: out of host memory\n");
        exit(2);
    }
    double t0 = ex_now();
    make_tour(&t, code, word, stack, next);
    double t_tour = ex_now() - t0;

    void *d_code = ex_alloc(ctx, m * sizeof *code), *d_word = ex_alloc(ctx, m * sizeof *word);
    void *d_scan = ex_alloc(ctx, m * sizeof *word), *d_codes = ex_alloc(ctx, m * sizeof *code);
    void *d_node = ex_alloc(ctx, m * sizeof *word);
    ex_ok(ctx, pp_upload(ctx, d_code, code, m * sizeof *code), "pp_upload");
    ex_ok(ctx, pp_upload(ctx, d_word, word, m * sizeof *word), "pp_upload");
    ex_ok(ctx, pp_synchronize(ctx), "pp_synchronize");

    /* position and level of every step, then both of each node's steps
     * moved to its slots 2v and 2v + 1; timed on the second of two runs
     * (the first also sets up the context's scratch and kernels) */
    double t_dev = 0;
    for (int rep = 0; rep < 2; rep++) {
        t0 = ex_now();
        ex_ok(ctx, pp_scan(ctx, PP_U64, PP_SUM, PP_INCLUSIVE, d_word, d_scan, m), "pp_scan");
        ex_ok(ctx, pp_sort_pairs_copy(ctx, PP_U32, d_code, d_scan, d_codes, d_node, sizeof(uint64_t), m, PP_ASCENDING),
              "pp_sort_pairs_copy");
        ex_ok(ctx, pp_synchronize(ctx), "pp_synchronize");
        t_dev = ex_now() - t0;
    }
    t0 = ex_now();
    ex_ok(ctx, pp_download(ctx, word, d_node, m * sizeof *word), "pp_download");
    for (size_t v = 0; v < n; v++) {
        uint64_t enter = word[2 * v], leave = word[2 * v + 1];
        depth[v] = (uint32_t)(enter & 0xffffffffu) - 1;
        size[v] = (uint32_t)(((leave >> 32) - (enter >> 32) + 1) / 2);
    }
    double t_fin = ex_now() - t0;

    t0 = ex_now();
    dfs(&t, rdepth, rsize, stack, next);
    double t_seq = ex_now() - t0;

    int bad = 0;
    uint32_t maxdepth = 0;
    for (size_t v = 0; v < n; v++) {
        if (rdepth[v] > maxdepth) maxdepth = rdepth[v];
        if (depth[v] != rdepth[v] || size[v] != rsize[v]) {
            if (bad < 5)
                fprintf(stderr, "tree_ops: node %zu: depth %u size %u, the search says %u and %u\n", v, depth[v],
                        size[v], rdepth[v], rsize[v]);
            bad++;
        }
    }
    if (!bad && rsize[t.root] != n) bad = 1;
    printf("  %zu nodes, height %u; tour built on the host in %.3f ms (input)\n", n, maxdepth, 1e3 * t_tour);
    printf("  parprim: scan + sort of %zu steps %.3f ms, download + per-node arithmetic %.3f ms\n", m, 1e3 * t_dev,
           1e3 * t_fin);
    printf("  sequential depth-first search: %.3f ms\n", 1e3 * t_seq);
    if (bad) fprintf(stderr, "tree_ops: %d nodes differ\n", bad);

    pp_free(ctx, d_code);
    pp_free(ctx, d_word);
    pp_free(ctx, d_scan);
    pp_free(ctx, d_codes);
    pp_free(ctx, d_node);
    free(code), free(stack), free(next), free(word), free(depth), free(size), free(rdepth), free(rsize);
    free(t.first), free(t.kids);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    ex_args a = ex_parse(argc, argv, 100000);
    if (a.n < 1 || a.n > (1u << 30)) {
        fprintf(stderr, "tree_ops: --n must be in [1, 2^30] (a node's two step codes fit 32 bits)\n");
        return 2;
    }
    return ex_run(&a, "tree_ops", body);
}
