/* pp bench: its options (one table) and its help. */
#include "bench.h"
#include "bench_data.h"
#include "cli.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)

/* ---- list items --------------------------------------------------------- */

static int one_backend(void *settings, const char *s)
{
    config *c = (config *)settings;
    int found = 0;
    for (int b = PP_BACKEND_AUTO; b <= PP_BACKEND_OPENCL; b++)
        if (!strcmp(s, pp_backend_name((pp_backend)b))) c->backend = (pp_backend)b, found = 1;
    return found;
}

static int one_primitive(void *settings, const char *s)
{
    config *c = (config *)settings;
    struct { const char *g; variant b, e; } groups[] = {
        {"reduce", V_REDUCE, V_REDUCE},        {"scan", V_SCAN_INCL, V_SCAN_EXCL},
        {"histogram", V_HIST_EVEN, V_HIST_RANGE}, {"select", V_SELECT_IF, V_PARTITION_IF},
        {"sort", V_SORT_KEYS, V_SORT_PAIRS},   {"partition", V_PARTITION_IF, V_PARTITION_IF},
        {"segmented", V_SEG_REDUCE, V_SEG_SORT_PAIRS}, {"bykey", V_REDUCE_BY_KEY, V_RLE},
    };
    if (!strcmp(s, "all")) { /* every variant but sort_keys_copy */
        for (int v = 0; v < V_COUNT; v++) c->variants[v] |= v != V_SORT_KEYS_COPY;
        return 1;
    }
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (!strcmp(s, groups[i].g)) {
            for (int v = groups[i].b; v <= (int)groups[i].e; v++) c->variants[v] = 1;
            return 1;
        }
    for (int v = 0; v < V_COUNT; v++)
        if (!strcmp(s, VARIANTS[v].name)) {
            c->variants[v] = 1;
            return 1;
        }
    return 0;
}

static int one_type(void *settings, const char *s)
{
    config *c = (config *)settings;
    int any = 0;
    for (int t = 0; t <= PP_F64; t++) { /* the half types (PP_F16, PP_BF16): not benchmarked yet */
        int fl = type_is_float((pp_type)t);
        if (!strcmp(s, "all") || (!strcmp(s, "ints") && !fl) || (!strcmp(s, "floats") && fl) ||
            !strcmp(s, pp_type_name((pp_type)t)))
            c->types[t] = 1, any = 1;
    }
    return any;
}

static int one_op(void *settings, const char *s)
{
    config *c = (config *)settings;
    int any = 0;
    for (int o = 0; o < PP_OP_COUNT; o++)
        if (!strcmp(s, "all") || !strcmp(s, pp_op_name((pp_op)o))) c->ops[o] = 1, any = 1;
    return any;
}

static int one_algo(void *settings, const char *s)
{
    config *c = (config *)settings;
    int any = 0;
    if (!strcmp(s, "all")) c->algo_all = 1;
    for (int a = 0; a < PP_ALGO_COUNT; a++)
        if (!strcmp(s, "all") || !strcmp(s, pp_algorithm_name((pp_algorithm)a))) c->algos[a] = 1, any = 1;
    return any;
}

static int one_size(void *settings, const char *s)
{
    config *c = (config *)settings;
    size_t n;
    if (!cli_parse_size(s, &n) || n == 0) return 0;
    if (c->nsizes >= MAX_SIZES) return 0;
    c->sizes[c->nsizes++] = n;
    return 1;
}

static int one_data(void *settings, const char *s)
{
    config *c = (config *)settings;
    for (int d = 0; d < D_COUNT; d++)
        if (!strcmp(s, DATASET_NAMES[d])) {
            for (int i = 0; i < c->ndatas; i++)
                if (c->datas[i] == d) return 1; /* listed twice: once is enough */
            c->datas[c->ndatas++] = d;
            return 1;
        }
    return 0;
}

/* avg<N>, fixed<N> (N a size >= 1) or powerlaw. */
static int one_layout(void *settings, const char *s)
{
    config *c = (config *)settings;
    seg_layout l = {LAYOUT_POWERLAW, 0, ""};
    if (strlen(s) >= sizeof l.name) return 0;
    if (!strncmp(s, "avg", 3) || !strncmp(s, "fixed", 5)) {
        l.kind = s[0] == 'a' ? LAYOUT_AVG : LAYOUT_FIXED;
        if (!cli_parse_size(s + (s[0] == 'a' ? 3 : 5), &l.len) || l.len == 0 || l.len > SIZE_MAX / 4) return 0;
    } else if (strcmp(s, "powerlaw")) {
        return 0;
    }
    snprintf(l.name, sizeof l.name, "%s", s);
    for (int i = 0; i < c->nlayouts; i++)
        if (c->layouts[i].kind == l.kind && c->layouts[i].len == l.len) return 1; /* listed twice */
    if (c->nlayouts >= MAX_LAYOUTS) return 0;
    c->layouts[c->nlayouts++] = l;
    return 1;
}

/* ---- help ----------------------------------------------------------------- */

/* The names of the algorithms but auto, wrapped at 79 columns after the
 * text "                   or names: ". */
static void print_algorithm_names(void)
{
    char names[512] = "";
    size_t line = 28; /* "                   or names: " */
    for (int a = 1; a < PP_ALGO_COUNT; a++) {
        size_t len = strlen(names);
        const char *nm = pp_algorithm_name((pp_algorithm)a);
        int wrap = a > 1 && line + 2 + strlen(nm) > 79;
        snprintf(names + len, sizeof names - len, "%s%s%s", a > 1 ? "," : "", a == 1 ? "" : wrap ? "\n                   " : " ",
                 nm);
        line = wrap ? 19 + strlen(nm) : line + (a > 1 ? 2 : 0) + strlen(nm);
    }
    fputs(names, stdout);
}

static void bench_help(void);

#define FIELD(f) offsetof(config, f)

/* The options, in the order of the help. */
static const cli_option BENCH_OPTIONS[] = {
    {.name = "--help", .short_name = "-h", .kind = CLI_HELP},
    {.name = "--backend", .metavar = "B", .kind = CLI_CHOICE, .item = one_backend, .what = "unknown backend",
     .help = "auto (default; PARPRIM_BACKEND decides if set), cpu, cuda, opencl"},
    {.name = "--device", .metavar = "D", .kind = CLI_INT, .offset = FIELD(device), .hi = CLI_INT_MAX,
     .help = "GPU index on cuda and opencl (default 0)"},
    {.name = "--threads", .metavar = "T", .kind = CLI_INT, .offset = FIELD(threads), .hi = CLI_INT_MAX,
     .help = "cpu worker threads (default 0: all cores)"},
    {.name = "--primitive", .alias = "--primitives", .metavar = "P", .kind = CLI_LIST, .item = one_primitive,
     .what = "primitive",
     .help = "the five primitives (default: every variant from reduce to\n"
             "sort_keys_copy), all (those and the ones below), or groups\n"
             "reduce, scan, histogram, select, sort,\n"
             "segmented, bykey, or variants scan_inclusive, scan_exclusive,\n"
             "histogram_even, histogram_range, select_if, select_flagged,\n"
             "unique, partition_if, sort_keys, sort_pairs, segmented_reduce,\n"
             "segmented_scan (inclusive), segmented_sort, segmented_sort_pairs\n"
             "(group segmented), reduce_by_key, scan_by_key (inclusive),\n"
             "run_length_encode (group bykey), argsort (u64 indices);\n"
             "sort_keys_copy (pp_sort_copy from the input into another array;\n"
             "in no group but the default's)"},
    {.name = "--type", .alias = "--types", .metavar = "T", .kind = CLI_LIST, .item = one_type, .what = "type",
     .help = "u32,f32 (default), any of i8 u8 i16 u16 i32 u32 i64 u64 f32 f64,\n"
             "or all, ints, floats"},
    {.name = "--op", .alias = "--ops", .metavar = "O", .kind = CLI_LIST, .item = one_op, .what = "operator",
     .help = "operators of reduce and scan (and of their segmented and by-key\n"
             "forms): sum (default), prod, min, max, and, or, xor, or all\n"
             "(bitwise ones are skipped on floats)"},
    {.name = "--n", .metavar = "N", .kind = CLI_LIST, .item = one_size,
     .what = "size (sizes are >= 1, like 1000, 64K, 16M, 2^24; 16 at most)",
     .help = "sizes: 1000, 64K, 16M, 2^24 (default 2^24)"},
    {.name = "--sweep", .kind = CLI_FLAG, .offset = FIELD(sweep),
     .help = "sizes 2^10, 2^14, 2^18, 2^22, 2^24"},
    {.name = "--sweep-large", .kind = CLI_FLAG, .offset = FIELD(sweep_large), .help = "the sweep plus 2^26"},
    {.name = "--algorithm", .alias = "--algorithms", .metavar = "A", .kind = CLI_LIST, .item = one_algo,
     .what = "algorithm",
     .help = "auto (default); all: every algorithm the backend accepts for\n"
             "the primitive, one row each, with the ratio t / t(auto);\n"
             "or names: ",
     .help_tail = print_algorithm_names},
    {.name = "--bins", .metavar = "B", .kind = CLI_SIZE, .offset = FIELD(bins), .lo = 1, .hi = (double)MAX_BINS,
     .what = " (1 to 2^24)",
     .help = "bins of histogram_even and histogram_range (default " STR(HIST_EVEN_BINS) " and "
             STR(HIST_RANGE_BINS) ";\n"
             "1 to 2^24)"},
    {.name = "--data", .metavar = "D", .kind = CLI_LIST, .item = one_data, .what = "data set (rand, inc, const)",
     .help = "histogram samples, a list of data sets (rows for each, labelled\n"
             "histogram_even[D]): rand (default): uniform as below;\n"
             "inc: sample i = i mod B, range [0, B) (histogram_range: edges\n"
             "0, 1, ..., B), so that sample i lands in bin i mod B - for\n"
             "floats too (the samples are the integers 0 .. B-1 as floats);\n"
             "skipped where B does not fit the type (i8: B <= 127);\n"
             "(histogram_range rand and const are skipped where B + 1\n"
             "distinct edges do not fit the type: 8-bit types B <= 255)\n"
             "const: every sample the midpoint of the rand range (0.0 for\n"
             "floats), bounds as rand, so all samples fall in one bin"},
    {.name = "--segments", .metavar = "L", .kind = CLI_LIST, .item = one_layout,
     .what = "layout (avg<N>, fixed<N>, powerlaw; 8 at most)",
     .help = "segment layouts of the segmented variants, and the runs of equal\n"
             "keys of the by-key ones (a row each, labelled [L]): avg64,powerlaw\n"
             "(default); avgN: lengths uniform in [1, 2N-1]; fixedN: all N\n"
             "(N a size: 64, 4K, 2^12); powerlaw: lengths 1 to 2^24 - 1 with\n"
             "density about 1/length (an octave uniformly, then uniform in it);\n"
             "segments follow one another over [0, n), the last cut at n; the\n"
             "same seed, layout and n give the same segments"},
    {.name = "--repeat", .metavar = "R", .kind = CLI_INT, .offset = FIELD(plan.repeat), .lo = 1, .hi = 256,
     .help = "exactly R timed runs (default: adaptive, within the budget S:\n"
             "stop at " STR(ADAPTIVE_RUNS) " runs that took S/10, or " STR(MIN_REPEAT_ADAPTIVE) " that took S, or any\n"
             "number that took 3*S; " STR(MAX_REPEAT_ADAPTIVE) " at most)"},
    {.name = "--budget", .metavar = "S", .kind = CLI_DOUBLE, .offset = FIELD(plan.budget), .lo = 0, .hi = 3600,
     .help = "seconds of timed runs per row when adaptive (default 0.5)"},
    {.name = "--warmup", .metavar = "W", .kind = CLI_INT, .offset = FIELD(warmup), .hi = CLI_INT_MAX,
     .help = "untimed runs before timing (default 1; a check run that took\n"
             "over 0.2 s counts as the warm-up)"},
    {.name = "--load", .metavar = "N", .kind = CLI_INT, .offset = FIELD(load), .hi = LOAD_MAX,
     .help = "also time every row beside N busy processes (one spinning\n"
             "loop each, started before and killed after the row's loaded\n"
             "runs): columns 'loaded ms' and 'x idle' (loaded median / idle\n"
             "median); shows how a primitive shares the cores"},
    {.name = "--seed", .metavar = "X", .kind = CLI_U64, .offset = FIELD(seed),
     .help = "seed of the random input (default 1)"},
    {.name = "--json", .metavar = "FILE", .kind = CLI_STRING, .offset = FIELD(json),
     .help = "also write {\"header\": {...}, \"rows\": [...]} to FILE"},
    {.name = "--quiet", .short_name = "-q", .kind = CLI_FLAG, .offset = FIELD(quiet), .help = "print only the table"},
};

/* Inline values: "--n=1000" is "--n 1000". */
static const cli_command BENCH_COMMAND = {.name = "pp bench", .options = BENCH_OPTIONS,
    .count = sizeof BENCH_OPTIONS / sizeof BENCH_OPTIONS[0], .help = bench_help, .inline_values = 1};

static void bench_help(void)
{
    fputs("usage: pp bench [options]\n"
          "\n"
          "Checks each primitive against the sequential reference, then times it.\n"
          "With no options: every primitive variant for u32 and f32 at n = 2^24 on the\n"
          "auto backend.\n"
          "\n"
          "options (lists are comma separated; an option may be repeated):\n",
          stdout);
    cli_print_options(&BENCH_COMMAND);
    fputs("\n"
          "Each row: one run is checked against the reference (ref/reference.h); then,\n"
          "after the warm-up, every timed run is a monotonic clock around the call and\n"
          "pp_synchronize. The median and the minimum are printed. Sorts copy the\n"
          "unsorted input from a pristine buffer (pp_copy) before each run, untimed.\n"
          "\n"
          "Input: integers uniform over all their bits; floats uniform in [-1, 1), except\n"
          "for float sum and prod, which get small integers (or +-1 for prod) so that any\n"
          "order of evaluation gives the exact result and the check can be bit-exact.\n"
          "histogram_even (rand): B bins over the type's range (floats: [-1, 1));\n"
          "histogram_range (rand): B bins with evenly spaced edges over the same range;\n"
          "select_if and partition_if: x < midpoint (about half selected); select_flagged:\n"
          "random 0/1 flags; unique: each element repeats its predecessor with\n"
          "probability 1/2; sort_pairs: u32 values.\n"
          "Segmented variants: input as reduce and scan (sorts: as sort) over the\n"
          "--segments layout; by-key variants: keys of the row's type, one random value\n"
          "per run, different from the previous run's, values of the same type as\n"
          "reduce's input; segmented_sort_pairs: u32 values. Expected results: the\n"
          "reference per segment or run (ref_segmented_reduce, ref_segmented_scan,\n"
          "ref_sort_pairs; runs as ref_unique finds them).\n"
          "\n"
          "GB/s counts the bytes the primitive must move (s = element size, k = selected):\n"
          "  reduce n*s; scan 2*n*s; histogram n*s + nbins*8; select_if and unique\n"
          "  n*s + k*s; select_flagged n*s + n + k*s; partition_if 2*n*s;\n"
          "  sort 2*n*s (pairs: + 2*n*value_size): one read and one write;\n"
          "  with nseg segments or runs (offsets: (nseg+1)*8): segmented_reduce\n"
          "  n*s + offsets + nseg*s; segmented_scan and segmented_sort 2*n*s + offsets\n"
          "  (pairs: + 2*n*value_size); reduce_by_key 2*n*s + runs*2*s + 8; scan_by_key\n"
          "  3*n*s; run_length_encode n*s + runs*(s+8) + 8; argsort n*s + n*8.\n"
          "copy fraction = t_copy / t_primitive, t_copy being the time of pp_copy of\n"
          "bytes/2 (which moves the same bytes), timed the same way in the same run;\n"
          "1.0 = as fast as a copy.\n"
          "\n",
          stdout);
    fputs("ops: operator applications of the textbook algorithm on one array of n, as the\n"
          "course notes count them (exact 64-bit integers; '-' and JSON null where the\n"
          "notes count none or the count passes 2^64). The GPU versions scan large n in\n"
          "blocks and levels, so their real count differs; this is the algorithm's count.\n"
          "  reduce, every algorithm:  n - 1 (a reduction tree or the sequential chain)\n"
          "  scan sequential:          n - 1\n"
          "  scan naive:               n(n-1)/2 (output i combines i+1 inputs)\n"
          "  scan hillis-steele-horn:  sum of n - d over steps d = 1, 2, 4, ... < n\n"
          "                            = n*L - (2^L - 1), L = ceil(log2 n); for n a power\n"
          "                            of two the notes' n log2 n - (n - 1)\n"
          "  scan blelloch(-padded):   the inclusive work-efficient scan of the notes:\n"
          "                            reduction phase sum floor(n/2s), s = 1, 2, ... < n,\n"
          "                            plus distribution phase sum floor((n-s)/2s),\n"
          "                            s = 2^(L-2) .. 1; for n a power of two\n"
          "                            (n-1) + (n-2 - (log2 n - 1)) = 2n - log2 n - 2, the\n"
          "                            sum of the notes' per-step counts (one of them\n"
          "                            closes with 2n - log2 n - 1, one too many); the\n"
          "                            exclusive sweep with swaps would do 2(n-1)\n"
          "  scan_exclusive rows: the same counts (the inclusive algorithm run on the input\n"
          "  shifted by one). Others (warp-shuffle, reduce-then-scan, decoupled-lookback,\n"
          "  auto scan; histogram, select, sort): '-'.\n"
          "\n"
          "Exit status: 0 all checks passed (a primitive the backend does not support is\n"
          "reported and skipped), 1 a check failed or a library call failed, 2 bad usage.\n",
          stdout);
}

/* ---- reading the options ---------------------------------------------------- */

/* The defaults of what was not given, and the settings derived from the
 * options. Returns CLI_PROCEED or EXIT_USAGE. */
static int finish(config *cfg)
{
    static const unsigned exps[] = {10, 14, 18, 22, 24, 26};
    if (cfg->sweep_large) cfg->sweep = 1;
    if (cfg->sweep && cfg->nsizes) return cli_usage_error(&BENCH_COMMAND, "--n and --sweep exclude each other");
    if (cfg->sweep)
        for (int i = 0; i < (cfg->sweep_large ? 6 : 5); i++) cfg->sizes[cfg->nsizes++] = (size_t)1 << exps[i];
    if (!cfg->nsizes) cfg->sizes[cfg->nsizes++] = (size_t)1 << 24;
    int any_var = 0, any_type = 0, any_op = 0, nalgos = 0;
    for (int v = 0; v < V_COUNT; v++) any_var |= cfg->variants[v];
    for (int t = 0; t < PP_TYPE_COUNT; t++) any_type |= cfg->types[t];
    for (int o = 0; o < PP_OP_COUNT; o++) any_op |= cfg->ops[o];
    for (int a = 0; a < PP_ALGO_COUNT; a++) nalgos += cfg->algos[a];
    if (!any_var) /* the five primitives: the segmented, by-key and argsort ones by name, group or all */
        for (int v = 0; v < V_KEYED_FIRST; v++) cfg->variants[v] = 1;
    if (!any_type) cfg->types[PP_U32] = cfg->types[PP_F32] = 1;
    if (!any_op) cfg->ops[PP_SUM] = 1;
    if (!nalgos) cfg->algos[PP_ALGO_AUTO] = nalgos = 1;
    cfg->show_data = cfg->ndatas > 0;
    if (!cfg->ndatas) cfg->datas[cfg->ndatas++] = D_RAND;
    if (!cfg->nlayouts) {
        one_layout(cfg, "avg64");
        one_layout(cfg, "powerlaw");
    }
    cfg->show_vs_auto = nalgos > 1 && cfg->algos[PP_ALGO_AUTO];
    cfg->show_load = cfg->load > 0;
    return CLI_PROCEED;
}

int bench_options(config *cfg, int argc, char **argv)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->backend = PP_BACKEND_AUTO;
    cfg->warmup = 1;
    cfg->plan.budget = 0.5;
    cfg->seed = 1;
    int rc = cli_parse(&BENCH_COMMAND, cfg, argc, argv);
    return rc != CLI_PROCEED ? rc : finish(cfg);
}
