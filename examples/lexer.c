/* A lexer by composition of automaton steps (examples/lexer.md): the
 * field and record boundaries of CSV text with quoted fields (a quoted
 * field may hold commas, newlines and "" for a quote), checked against a
 * plain sequential pass of the same automaton.
 *
 * The automaton has four states: START (a field begins here: at the start
 * of the text and after a separator), UNQ (inside an unquoted field), Q
 * (inside quotes) and QQ (a quote seen inside quotes: the closing one, or
 * the first of ""). Each character is a function from states to states, a
 * table of four entries; running the automaton over a text is composing
 * its characters' tables, and composition is associative (not
 * commutative), so an inclusive scan of the tables gives at i the map from
 * the state before the text to the state after character i. A comma or
 * newline is a separator exactly where that state, from START, is START.
 *
 * Each element also carries its character's position, combined by max
 * (identity 0): the scan leaves at i the position i beside the table, and
 * one pp_select_if on the elements read as u64 (the table's START entry is
 * the top byte) collects the separators with their positions, in order.
 * pp_reduce_op of the tables gives the whole text's map, whose START entry
 * is the state at the end (Q there: the text ends inside quotes). */
#include "example_common.h"

enum { UNQ = 0, Q = 1, QQ = 2, START = 3, NSTATES = 4 };

/* pos, then the table: read as a little-endian u64 the table's entry for
 * START is the top byte. The same layout on the host (lex_elem). */
static const char source[] = "typedef struct { unsigned pos; unsigned char t[4]; } pp_elem;\n"
                             "pp_elem pp_combine(pp_elem x, pp_elem y)\n"
                             "{\n"
                             "    pp_elem r;\n"
                             "    for (int s = 0; s < 4; s++) r.t[s] = y.t[x.t[s]]; /* x, then y */\n"
                             "    r.pos = x.pos > y.pos ? x.pos : y.pos;\n"
                             "    return r;\n"
                             "}\n";

typedef struct {
    uint32_t pos;
    unsigned char t[NSTATES];
} lex_elem;

/* The step of each class of character: next[s] for every state s. */
enum { C_SEP, C_QUOTE, C_OTHER, NCLASSES };
static const unsigned char steps[NCLASSES][NSTATES] = {
    /*            UNQ    Q   QQ      START */
    [C_SEP] = {START, Q, START, START}, /* ',' or '\n' */
    [C_QUOTE] = {UNQ, QQ, Q, Q},        /* literal in an unquoted field; "" */
    [C_OTHER] = {UNQ, Q, UNQ, UNQ},     /* after a closing quote: lenient */
};

static int char_class(unsigned char c) { return c == ',' || c == '\n' ? C_SEP : c == '"' ? C_QUOTE : C_OTHER; }

/* Random CSV of exactly n bytes: records of 1 to 8 fields, each empty,
 * unquoted, or quoted with commas, newlines and "" inside. The last record
 * may be cut anywhere, inside quotes included. */
static void make_csv(char *text, size_t n, uint64_t *rng)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyz0123456789 .-";
    static const char quoted[] = "abcdefghij ,,\n\n\"";
    size_t i = 0;
    while (i < n) {
        const unsigned nf = 1 + (unsigned)ex_below(rng, 8);
        for (unsigned f = 0; f < nf && i < n; f++) {
            const uint64_t kind = ex_below(rng, 10), len = ex_below(rng, 13);
            if (kind >= 2 && kind < 6)
                for (uint64_t k = 0; k < len && i < n; k++) text[i++] = plain[ex_below(rng, sizeof plain - 1)];
            else if (kind >= 6) {
                text[i++] = '"';
                for (uint64_t k = 0; k < len && i < n; k++) {
                    const char c = quoted[ex_below(rng, sizeof quoted - 1)];
                    text[i++] = c;
                    if (c == '"' && i < n) text[i++] = '"'; /* "" inside quotes */
                }
                if (i < n) text[i++] = '"';
            }
            if (i < n) text[i++] = f + 1 < nf ? ',' : '\n';
        }
    }
}

/* The sequential pass: the separators' positions into seps; returns their
 * count, the end state in *end. */
static size_t lex_sequential(const char *text, size_t n, uint64_t *seps, int *end)
{
    size_t m = 0;
    int s = START;
    for (size_t i = 0; i < n; i++) {
        s = steps[char_class((unsigned char)text[i])][s];
        if (s == START) seps[m++] = i;
    }
    *end = s;
    return m;
}

/* The separators of the scanned elements d (n of them, context memory) into
 * seps; returns their count. */
static size_t collect(pp_context *ctx, const void *d, size_t n, uint64_t *seps, void *dsel, uint64_t *dcount)
{
    const uint64_t min = (uint64_t)START << 56; /* START entry == START */
    ex_ok(ctx, pp_select_if(ctx, PP_U64, d, n, PP_GE, &min, dsel, dcount), "pp_select_if");
    uint64_t m = 0;
    ex_ok(ctx, pp_download(ctx, &m, dcount, sizeof m), "pp_download");
    ex_ok(ctx, pp_download(ctx, seps, dsel, m * sizeof *seps), "pp_download");
    for (uint64_t k = 0; k < m; k++) seps[k] &= 0xffffffffu; /* the position */
    return (size_t)m;
}

static int body(pp_context *ctx, const ex_args *a)
{
    const size_t n = a->n;
    if (n == 0) return 0;
    if (n > UINT32_MAX) {
        fprintf(stderr, "lexer: --n at most 2^32 - 1 (positions are 32-bit here)\n");
        exit(2);
    }
    uint64_t rng = a->seed;
    char *text = malloc(n);
    lex_elem *e = malloc(n * sizeof *e);
    uint64_t *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    if (!text || !e || !want || !got) exit(2);
    make_csv(text, n, &rng);

    double t0 = ex_now();
    int want_end = START;
    const size_t nwant = lex_sequential(text, n, want, &want_end);
    const double t_seq = ex_now() - t0;

    const lex_elem id = {0, {UNQ, Q, QQ, START}};
    pp_operator *op = NULL;
    t0 = ex_now();
    pp_status st = pp_operator_create(ctx, source, sizeof(lex_elem), &id, 0, &op);
    const double t_create = ex_now() - t0;
    if (st == PP_ERROR_UNSUPPORTED) {
        printf("  lexer: %s\n  (skipped on this backend)\n", pp_last_error(ctx));
        free(text), free(e), free(want), free(got);
        return 0;
    }
    ex_ok(ctx, st, "pp_operator_create");

    /* Each character's step (a map over the text: parprim has no map
     * primitive, so the host writes it). */
    t0 = ex_now();
    for (size_t i = 0; i < n; i++) {
        e[i].pos = (uint32_t)i;
        memcpy(e[i].t, steps[char_class((unsigned char)text[i])], NSTATES);
    }
    const double t_map = ex_now() - t0;
    lex_elem *d = ex_alloc(ctx, n * sizeof *e), *dsum = ex_alloc(ctx, sizeof *e);
    void *dsel = ex_alloc(ctx, n * sizeof(uint64_t));
    uint64_t *dcount = ex_alloc(ctx, sizeof(uint64_t));
    t0 = ex_now();
    ex_ok(ctx, pp_upload(ctx, d, e, n * sizeof *e), "pp_upload");
    ex_ok(ctx, pp_synchronize(ctx), "pp_synchronize");
    const double t_up = ex_now() - t0;

    /* One untimed round (first-call costs), then the timed one. */
    double t_red = 0, t_scan = 0, t_sel = 0;
    lex_elem whole;
    size_t ngot = 0;
    for (int round = 0; round < 2; round++) {
        if (round) ex_ok(ctx, pp_upload(ctx, d, e, n * sizeof *e), "pp_upload");
        ex_ok(ctx, pp_synchronize(ctx), "pp_synchronize");
        t0 = ex_now();
        ex_ok(ctx, pp_reduce_op(ctx, op, d, n, dsum), "pp_reduce_op");
        ex_ok(ctx, pp_download(ctx, &whole, dsum, sizeof whole), "pp_download");
        const double t1 = ex_now();
        ex_ok(ctx, pp_scan_op(ctx, op, PP_INCLUSIVE, d, d, n), "pp_scan_op");
        ex_ok(ctx, pp_synchronize(ctx), "pp_synchronize");
        const double t2 = ex_now();
        ngot = collect(ctx, d, n, got, dsel, dcount);
        t_red = t1 - t0, t_scan = t2 - t1, t_sel = ex_now() - t2;
    }

    int rc = 0;
    if (ngot != nwant || whole.t[START] != want_end || whole.pos != n - 1) {
        fprintf(stderr, "lexer: %zu separators, end state %d; the sequential pass: %zu, %d\n", ngot, whole.t[START],
                nwant, want_end);
        rc = 1;
    }
    for (size_t k = 0; !rc && k < nwant; k++)
        if (got[k] != want[k]) {
            fprintf(stderr, "lexer: separator %zu at %llu, the sequential pass's at %llu\n", k,
                    (unsigned long long)got[k], (unsigned long long)want[k]);
            rc = 1;
        }
    size_t records = 0, quoted = 0;
    for (size_t k = 0; k < ngot; k++) { /* field k: [start, got[k]) */
        const uint64_t start = k ? got[k - 1] + 1 : 0;
        records += text[got[k]] == '\n';
        quoted += start < got[k] && text[start] == '"';
    }
    printf("  %zu bytes: %zu fields (%zu quoted), %zu records, ends %s\n", n, ngot + 1, quoted, records,
           whole.t[START] == Q ? "inside quotes" : "outside quotes");
    printf("  reduce %.3f ms + scan %.3f ms + select %.3f ms (the steps written on the host %.3f ms, uploaded "
           "%.3f ms); sequential pass %.3f ms; operator created in %.1f ms\n",
           t_red * 1e3, t_scan * 1e3, t_sel * 1e3, t_map * 1e3, t_up * 1e3, t_seq * 1e3, t_create * 1e3);
    pp_free(ctx, d), pp_free(ctx, dsum), pp_free(ctx, dsel), pp_free(ctx, dcount);
    pp_operator_destroy(op);
    free(text), free(e), free(want), free(got);
    return rc;
}

int main(int argc, char **argv)
{
    ex_args a = ex_parse(argc, argv, 4000037);
    return ex_run(&a, "lexer", body);
}
