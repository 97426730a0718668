/* Operators of the user's own on cpu: the text is compiled by the system's
 * C compiler, with the loops of the reduce and the scan written around it
 * (so that pp_combine is inlined into them), into a shared object that is
 * loaded with dlopen. Why a compiler: the operator is a C function of the
 * user's type; calling it through a pointer per element would cost a call
 * per element, and an interpreter more; a compiler already on the machine
 * gives the loops the speed of the built-in ones, and the cache below
 * makes a second process, or a second context, skip it.
 *
 * The cache: PARPRIM_CACHE_DIR, else $XDG_CACHE_HOME/parprim, else
 * $HOME/.cache/parprim, else the temporary directory; one file per text,
 * named by a 64-bit hash of the text, the element size, the compiler
 * command and flags, and the library's version; written under a temporary
 * name and renamed, so that processes compiling the same text at once
 * each load a whole file. In memory, the context keeps every object it
 * loaded (pp_cpu_state.op_cache) until pp_destroy.
 *
 * The parallel structure stays here: the reduce folds one chunk per thread
 * and then the chunks' results in order; the scan reduces the chunks,
 * folds their carries in order, then scans each chunk from its carry. The
 * order of the elements is kept everywhere (non-commutative operators). */
#define _POSIX_C_SOURCE 200809L
#include "cpu_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The loops written around the user's text (pp_elem, pp_combine). A fold
 * is a chain of dependent calls of pp_combine; the reduce and the scan
 * shorten it to one call per block of 8 consecutive elements: the block's
 * own fold (a tree) or its own scan does not depend on the running value,
 * so the processor overlaps it with the chain, and the running value then
 * takes the block in one call (the scan's 8 outputs are 8 independent
 * calls). Blocks in order and results combined left to right:
 * associativity alone, never commutation. (Lanes over 8 distant parts of
 * the range lost: 8 streams a power of two apart collide in the caches.)
 * Compiled with hidden visibility, so that pp_combine is inlined. */
static const char driver[] =
    "\n#line 1 \"parprim-operator-driver\"\n"
    "typedef __SIZE_TYPE__ pp_size_t_;\n"
    "#define PP_API_ __attribute__((visibility(\"default\")))\n"
    "PP_API_ pp_size_t_ pp_op_elem_size(void) { return sizeof(pp_elem); }\n"
    "PP_API_ pp_size_t_ pp_op_elem_align(void) { return _Alignof(pp_elem); }\n"
    "PP_API_ void pp_op_combine(const void *x, const void *y, void *out)\n"
    "{ pp_elem r = pp_combine(*(const pp_elem *)x, *(const pp_elem *)y); *(pp_elem *)out = r; }\n"
    "static inline pp_elem pp_tree8_(const pp_elem *x)\n"
    "{ return pp_combine(pp_combine(pp_combine(x[0], x[1]), pp_combine(x[2], x[3])),\n"
    "                    pp_combine(pp_combine(x[4], x[5]), pp_combine(x[6], x[7]))); }\n"
    "/* out = in[0] . ... . in[n-1], n >= 1 */\n"
    "PP_API_ void pp_op_reduce(const void *in_, pp_size_t_ n, void *out)\n"
    "{ const pp_elem *in = (const pp_elem *)in_; pp_elem acc; pp_size_t_ i;\n"
    "  if (n >= 8) { acc = pp_tree8_(in); i = 8; } else { acc = in[0]; i = 1; }\n"
    "  for (; i + 8 <= n; i += 8) acc = pp_combine(acc, pp_tree8_(in + i));\n"
    "  for (; i < n; i++) acc = pp_combine(acc, in[i]);\n"
    "  *(pp_elem *)out = acc; }\n"
    "/* out[i] = carry . in[0] . ... . in[i] (exclusive: carry . ... . in[i-1]); in == out allowed */\n"
    "#define PP_SCAN_BODY_(EXCL)                                                                        \\\n"
    "  pp_elem acc = *(const pp_elem *)carry, l[8]; pp_size_t_ i = 0;                                     \\\n"
    "  for (; i + 8 <= n; i += 8) {                                                                       \\\n"
    "    l[0] = in[i];                                                                                    \\\n"
    "    for (int j = 1; j < 8; j++) l[j] = pp_combine(l[j - 1], in[i + j]);                              \\\n"
    "    if (EXCL) { out[i] = acc; for (int j = 1; j < 8; j++) out[i + j] = pp_combine(acc, l[j - 1]); } \\\n"
    "    else for (int j = 0; j < 8; j++) out[i + j] = pp_combine(acc, l[j]);                             \\\n"
    "    acc = pp_combine(acc, l[7]); }                                                                   \\\n"
    "  if (EXCL) for (; i < n; i++) { pp_elem x = in[i]; out[i] = acc; acc = pp_combine(acc, x); }        \\\n"
    "  else for (; i < n; i++) { acc = pp_combine(acc, in[i]); out[i] = acc; }\n"
    "static void pp_scan_incl_(const pp_elem *in, pp_elem *out, pp_size_t_ n, const void *carry) { PP_SCAN_BODY_(0) }\n"
    "static void pp_scan_excl_(const pp_elem *in, pp_elem *out, pp_size_t_ n, const void *carry) { PP_SCAN_BODY_(1) }\n"
    "static void pp_scan_incl_r_(const pp_elem *restrict in, pp_elem *restrict out, pp_size_t_ n, const void *carry)\n"
    "{ PP_SCAN_BODY_(0) }\n"
    "static void pp_scan_excl_r_(const pp_elem *restrict in, pp_elem *restrict out, pp_size_t_ n, const void *carry)\n"
    "{ PP_SCAN_BODY_(1) }\n"
    "PP_API_ void pp_op_scan(const void *in_, void *out_, pp_size_t_ n, const void *carry, int exclusive)\n"
    "{ const pp_elem *in = (const pp_elem *)in_; pp_elem *out = (pp_elem *)out_;\n"
    "  if (in_ == out_) { if (exclusive) pp_scan_excl_(in, out, n, carry); else pp_scan_incl_(in, out, n, carry); }\n"
    "  else if (exclusive) pp_scan_excl_r_(in, out, n, carry); else pp_scan_incl_r_(in, out, n, carry); }\n";

typedef void (*combine_fn)(const void *x, const void *y, void *out);
typedef void (*reduce_fn)(const void *in, size_t n, void *out);
typedef void (*scan_fn)(const void *in, void *out, size_t n, const void *carry, int exclusive);


typedef struct cpu_program {
    struct cpu_program *next;
    uint64_t hash;
    void *handle;
    size_t elem, align;
    combine_fn combine;
    reduce_fn reduce;
    scan_fn scan;
} cpu_program;

#define CC_FLAGS "-O3", "-fPIC", "-shared", "-fvisibility=hidden", "-std=c11", "-w"

/* The cache directory (created), in dir (cap bytes); 0 where none works. */
static int cache_dir(char *dir, size_t cap)
{
    const char *env = getenv("PARPRIM_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    const char *tmp = getenv("TMPDIR");
    char cand[4][1024];
    int nc = 0;
    if (env && *env) snprintf(cand[nc++], sizeof cand[0], "%s", env);
    if (xdg && *xdg) snprintf(cand[nc++], sizeof cand[0], "%s/parprim", xdg);
    if (home && *home) snprintf(cand[nc++], sizeof cand[0], "%s/.cache/parprim", home);
    snprintf(cand[nc++], sizeof cand[0], "%s/parprim-%lu", tmp && *tmp ? tmp : "/tmp", (unsigned long)getuid());
    for (int i = 0; i < nc; i++) {
        if (strlen(cand[i]) + 64 >= cap) continue;
        if (!strcmp(cand[i] + strlen(cand[i]) - 8, "/parprim")) { /* .cache/parprim: make .cache first */
            char parent[1024];
            snprintf(parent, sizeof parent, "%.*s", (int)(strlen(cand[i]) - 8), cand[i]);
            mkdir(parent, 0700);
        }
        if (mkdir(cand[i], 0700) != 0 && errno != EEXIST) continue;
        if (access(cand[i], W_OK | X_OK) != 0) continue;
        snprintf(dir, cap, "%s", cand[i]);
        return 1;
    }
    return 0;
}

/* Runs the compiler on src into so; *log: its messages (malloc'd, or NULL).
 * Returns 0 on success, 127 where the compiler could not be started, else
 * its exit status (or 126 for a signal). */
static int compile(const char *cc, const char *src, const char *so, const char *logf)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, logf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    char *argv[] = {(char *)cc, CC_FLAGS, "-o", (char *)so, (char *)src, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, cc, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return 127;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return 126;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 126;
}

/* The first part of the compiler's messages, one line per line, for the
 * context's message (which has room for a few hundred characters). */
static void read_log(const char *logf, char *buf, size_t cap)
{
    buf[0] = 0;
    FILE *f = fopen(logf, "r");
    if (!f) return;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = 0;
    fclose(f);
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\n') buf[i] = ' ';
}

static pp_status load(pp_context *ctx, const char *fn, const char *so, cpu_program *p)
{
    p->handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!p->handle) return pp_fail(ctx, PP_ERROR_BACKEND, "%s: dlopen of the compiled operator failed: %s", fn, dlerror());
    size_t (*size)(void) = NULL, (*align)(void) = NULL;
    *(void **)&size = dlsym(p->handle, "pp_op_elem_size");
    *(void **)&align = dlsym(p->handle, "pp_op_elem_align");
    *(void **)&p->combine = dlsym(p->handle, "pp_op_combine");
    *(void **)&p->reduce = dlsym(p->handle, "pp_op_reduce");
    *(void **)&p->scan = dlsym(p->handle, "pp_op_scan");
    if (!size || !align || !p->combine || !p->reduce || !p->scan) {
        dlclose(p->handle);
        return pp_fail(ctx, PP_ERROR_BACKEND, "%s: the compiled operator %s lacks the driver's functions", fn, so);
    }
    p->elem = size();
    p->align = align();
    return PP_SUCCESS;
}

pp_status pp_cpu_operator_build(pp_context *ctx, pp_operator *op, const char *source)
{
    static const char fn[] = "pp_operator_create";
    pp_cpu_state *cs = (pp_cpu_state *)ctx->impl;
    const char *cc = getenv("PARPRIM_CC");
    if (!cc || !*cc) cc = "cc";
    static const char *const flags[] = {CC_FLAGS};
    uint64_t h = pp_hash_bytes(op->hash, cc, strlen(cc) + 1);
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) h = pp_hash_bytes(h, flags[i], strlen(flags[i]) + 1);
    unsigned version = pp_version();
    h = pp_hash_bytes(h, &version, sizeof version);
    h = pp_hash_bytes(h, driver, sizeof driver);
    cpu_program *p = (cpu_program *)cs->op_cache;
    while (p && p->hash != h) p = p->next;
    if (!p) {
        char dir[1100], so[1200], src[1200], tmp[1300], logf[1300];
        if (!cache_dir(dir, sizeof dir))
            return pp_fail(ctx, PP_ERROR_BACKEND, "%s: no writable directory for the compiled operator "
                           "(PARPRIM_CACHE_DIR, XDG_CACHE_HOME, HOME, TMPDIR)", fn);
        snprintf(so, sizeof so, "%s/op-%016llx.so", dir, (unsigned long long)h);
        cpu_program *np = (cpu_program *)calloc(1, sizeof *np);
        if (!np) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
        np->hash = h;
        if (access(so, R_OK) != 0) { /* not cached yet: compile it */
            const long id = (long)getpid();
            snprintf(src, sizeof src, "%s/op-%016llx-%ld.c", dir, (unsigned long long)h, id);
            snprintf(tmp, sizeof tmp, "%s/op-%016llx-%ld.so", dir, (unsigned long long)h, id);
            snprintf(logf, sizeof logf, "%s/op-%016llx-%ld.log", dir, (unsigned long long)h, id);
            FILE *f = fopen(src, "w");
            int ok = f && fputs("#line 1 \"operator\"\n", f) >= 0 && fputs(source, f) >= 0 && fputs(driver, f) >= 0;
            if (f && fclose(f) != 0) ok = 0;
            if (!ok) {
                remove(src);
                free(np);
                return pp_fail(ctx, PP_ERROR_BACKEND, "%s: cannot write %s", fn, src);
            }
            const int rc = compile(cc, src, tmp, logf);
            char msg[400];
            read_log(logf, msg, sizeof msg);
            remove(src);
            remove(logf);
            if (rc == 127) {
                remove(tmp);
                free(np);
                return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: no C compiler to build the operator on cpu ('%s' "
                               "could not be run; set PARPRIM_CC)", fn, cc);
            }
            if (rc != 0) {
                remove(tmp);
                free(np);
                return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'source' does not compile (%s): %s", fn,
                               cc, msg);
            }
            if (rename(tmp, so) != 0) {
                remove(tmp);
                free(np);
                return pp_fail(ctx, PP_ERROR_BACKEND, "%s: cannot move the compiled operator to %s", fn, so);
            }
        }
        pp_status st = load(ctx, fn, so, np);
        if (st != PP_SUCCESS) {
            free(np);
            return st;
        }
        np->next = (cpu_program *)cs->op_cache;
        cs->op_cache = np;
        p = np;
    }
    op->impl = p;
    op->compiled_elem = p->elem;
    op->align = p->align;
    return PP_SUCCESS;
}

void pp_cpu_operators_free(pp_cpu_state *cs)
{
    cpu_program *p = (cpu_program *)cs->op_cache;
    while (p) {
        cpu_program *next = p->next;
        dlclose(p->handle);
        free(p);
        p = next;
    }
    cs->op_cache = NULL;
}

/* The chunks of n elements for the context's threads: at least this many
 * elements each (below it one chunk, on the calling thread). */
#define OP_CHUNK_MIN 16384

static int chunks_of(const pp_context *ctx, size_t n)
{
    size_t t = ctx->threads > 0 ? (size_t)ctx->threads : 1, c = n / OP_CHUNK_MIN;
    return (int)(c < 1 ? 1 : c < t ? c : t);
}

pp_status pp_cpu_reduce_op(pp_context *ctx, const pp_op_reduce_args *a)
{
    const cpu_program *p = (const cpu_program *)a->op->impl;
    const size_t e = a->op->elem, n = a->n;
    if (n == 0) {
        memcpy(a->out, a->op->identity, e);
        return PP_SUCCESS;
    }
    const int c = chunks_of(ctx, n);
    if (c == 1) {
        unsigned char r[256] __attribute__((aligned(64)));
        p->reduce(a->in, n, r);
        memcpy(a->out, r, e);
        return PP_SUCCESS;
    }
    unsigned char *part = (unsigned char *)pp_cpu_scratch(ctx, (size_t)c * e + 64, a->fn);
    if (!part) return PP_ERROR_OUT_OF_MEMORY;
    const unsigned char *in = (const unsigned char *)a->in;
#pragma omp parallel for num_threads(c) schedule(static, 1)
    for (int i = 0; i < c; i++) {
        size_t lo = n * (size_t)i / (size_t)c, hi = n * (size_t)(i + 1) / (size_t)c;
        p->reduce(in + lo * e, hi - lo, part + (size_t)i * e);
    }
    unsigned char r[256] __attribute__((aligned(64)));
    p->reduce(part, (size_t)c, r); /* the chunks' results, in order */
    memcpy(a->out, r, e);
    return PP_SUCCESS;
}

pp_status pp_cpu_scan_op(pp_context *ctx, const pp_op_scan_args *a)
{
    const cpu_program *p = (const cpu_program *)a->op->impl;
    const size_t e = a->op->elem, n = a->n;
    const int excl = a->kind == PP_EXCLUSIVE, c = chunks_of(ctx, n);
    if (c == 1) {
        p->scan(a->in, a->out, n, a->op->identity, excl);
        return PP_SUCCESS;
    }
    /* part[i]: chunk i's fold, then carry[i]: the fold of the chunks before it */
    unsigned char *part = (unsigned char *)pp_cpu_scratch(ctx, 2 * (size_t)c * e + 64, a->fn);
    if (!part) return PP_ERROR_OUT_OF_MEMORY;
    unsigned char *carry = part + (size_t)c * e;
    const unsigned char *in = (const unsigned char *)a->in;
    unsigned char *out = (unsigned char *)a->out;
#pragma omp parallel num_threads(c)
    {
        /* the team may be smaller than c: chunks by its size */
        const int i = omp_get_thread_num(), t = omp_get_num_threads();
        const size_t lo = n * (size_t)i / (size_t)t, hi = n * (size_t)(i + 1) / (size_t)t;
        p->reduce(in + lo * e, hi - lo, part + (size_t)i * e);
#pragma omp barrier
#pragma omp single
        {
            memcpy(carry, a->op->identity, e);
            for (int j = 1; j < t; j++)
                p->combine(carry + (size_t)(j - 1) * e, part + (size_t)(j - 1) * e, carry + (size_t)j * e);
        }
        p->scan(in + lo * e, out + lo * e, hi - lo, carry + (size_t)i * e, excl);
    }
    return PP_SUCCESS;
}

/* ---- the segmented forms -----------------------------------------------------
 * The element range [0, n) is cut into the same chunks as the scan's, one
 * per thread. A chunk owns the segments that start in it (the last chunk
 * also those that start at n, and empty ones); a segment that runs into a
 * chunk from an earlier one crosses it. 1: per chunk (in parallel), the
 * fold of the crossing segment's piece in it (part), and for the scan the
 * fold of its own last segment's piece where that segment runs on into the
 * next chunk (head); the reduce also folds each owned segment's piece in
 * the chunk into out. 2: in order, by one thread, each crossing segment's
 * carry into each chunk (scan: the head, then the parts left to right;
 * reduce: the parts combined into out). 3 (scan): per chunk, the crossing
 * piece scanned from its carry and the owned pieces from the identity.
 * Each chunk reads and writes only its own elements in phase 3, after
 * phase 1 has read them (in == out allowed). */
typedef struct seg_op_job {
    const cpu_program *p;
    const pp_operator *op;
    const unsigned char *in;
    unsigned char *out;
    size_t n, nseg, chunks;
    const uint64_t *off;
    int scan, excl;
    size_t *cross;                      /* per chunk: the crossing segment, or nseg */
    unsigned char *part, *head, *carry; /* per chunk: one element each */
} seg_op_job;

/* The first s in [0, nseg] with off[s] >= x (nseg + 1 where none). */
static size_t first_offset_from(const uint64_t *off, size_t nseg, uint64_t x)
{
    return pp_cpu_first_offset_at(off, nseg + 1, x);
}

static size_t chunk_lo(const seg_op_job *j, size_t c) { return j->n * c / j->chunks; }

/* The segment crossing into chunk c >= 1 (starting before it, ending after
 * its start), or nseg. */
static size_t crossing(const seg_op_job *j, size_t c)
{
    const size_t lo = chunk_lo(j, c), t = first_offset_from(j->off, j->nseg, lo);
    return t >= 1 && t <= j->nseg && j->off[t] > lo ? t - 1 : j->nseg;
}

/* The segments chunk c owns: [*s0, *s1). */
static void owned(const seg_op_job *j, size_t c, size_t *s0, size_t *s1)
{
    const size_t a = c == 0 ? 0 : first_offset_from(j->off, j->nseg, chunk_lo(j, c));
    const size_t b = c + 1 == j->chunks ? j->nseg : first_offset_from(j->off, j->nseg, chunk_lo(j, c + 1));
    *s0 = a < j->nseg ? a : j->nseg;
    *s1 = b < j->nseg ? b : j->nseg;
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static void seg_phase1(seg_op_job *j, size_t c)
{
    const size_t e = j->op->elem, lo = chunk_lo(j, c), hi = chunk_lo(j, c + 1);
    j->cross[c] = c ? crossing(j, c) : j->nseg;
    if (j->cross[c] != j->nseg)
        j->p->reduce(j->in + lo * e, (size_t)min_u64(j->off[j->cross[c] + 1], hi) - lo, j->part + c * e);
    if (j->scan) {
        const size_t x = c + 1 < j->chunks ? crossing(j, c + 1) : j->nseg;
        if (x != j->nseg && j->off[x] >= lo) j->p->reduce(j->in + j->off[x] * e, hi - j->off[x], j->head + c * e);
        return;
    }
    size_t s0, s1;
    owned(j, c, &s0, &s1);
    for (size_t s = s0; s < s1; s++) {
        const uint64_t b = j->off[s], end = min_u64(j->off[s + 1], hi);
        if (end > b)
            j->p->reduce(j->in + b * e, (size_t)(end - b), j->out + s * e);
        else
            memcpy(j->out + s * e, j->op->identity, e);
    }
}

static void seg_phase3(seg_op_job *j, size_t c)
{
    const size_t e = j->op->elem, lo = chunk_lo(j, c), hi = chunk_lo(j, c + 1);
    const size_t x = j->cross[c];
    if (x != j->nseg) {
        const size_t end = (size_t)min_u64(j->off[x + 1], hi);
        j->p->scan(j->in + lo * e, j->out + lo * e, end - lo, j->carry + c * e, j->excl);
    }
    size_t s0, s1;
    owned(j, c, &s0, &s1);
    for (size_t s = s0; s < s1; s++) {
        const uint64_t b = j->off[s], end = min_u64(j->off[s + 1], hi);
        if (end > b) j->p->scan(j->in + b * e, j->out + b * e, (size_t)(end - b), j->op->identity, j->excl);
    }
}

static pp_status cpu_segmented_op(pp_context *ctx, const pp_segmented_args *a, int scan)
{
    const pp_status st = pp_cpu_check_offsets(ctx, a->fn, a->offsets, a->nseg, a->n);
    if (st != PP_SUCCESS) return st;
    const size_t e = a->user_op->elem, chunks = (size_t)chunks_of(ctx, a->n);
    const size_t xbytes = (chunks * sizeof(size_t) + 63) / 64 * 64; /* the elements 64-aligned after cross */
    unsigned char *w = (unsigned char *)pp_cpu_scratch(ctx, xbytes + 3 * chunks * e + 64, a->fn);
    if (!w) return PP_ERROR_OUT_OF_MEMORY;
    seg_op_job j = {(const cpu_program *)a->user_op->impl,
                    a->user_op,
                    (const unsigned char *)a->in,
                    (unsigned char *)a->out,
                    a->n,
                    a->nseg,
                    chunks,
                    a->offsets,
                    scan,
                    a->kind == PP_EXCLUSIVE,
                    (size_t *)(void *)w,
                    w + xbytes,
                    NULL,
                    NULL};
    j.head = j.part + chunks * e;
    j.carry = j.head + chunks * e;
#pragma omp parallel for num_threads((int)chunks) schedule(static, 1)
    for (size_t c = 0; c < chunks; c++) seg_phase1(&j, c);
    for (size_t c = 1; c < chunks; c++) { /* phase 2, in order */
        const size_t x = j.cross[c];
        if (x == j.nseg) continue;
        if (!scan)
            j.p->combine(j.out + x * e, j.part + c * e, j.out + x * e); /* x's owner wrote it */
        else if (j.off[x] >= chunk_lo(&j, c - 1))
            memcpy(j.carry + c * e, j.head + (c - 1) * e, e);
        else
            j.p->combine(j.carry + (c - 1) * e, j.part + (c - 1) * e, j.carry + c * e);
    }
    if (scan) {
#pragma omp parallel for num_threads((int)chunks) schedule(static, 1)
        for (size_t c = 0; c < chunks; c++) seg_phase3(&j, c);
    }
    return PP_SUCCESS;
}

pp_status pp_cpu_segmented_reduce_op(pp_context *ctx, const pp_segmented_args *a)
{
    return cpu_segmented_op(ctx, a, 0);
}

pp_status pp_cpu_segmented_scan_op(pp_context *ctx, const pp_segmented_args *a)
{
    return cpu_segmented_op(ctx, a, 1);
}
