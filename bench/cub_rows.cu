// The shared parts of bench_cub (cub_rows.cuh).
#include <cub/version.cuh>

#include "cub_rows.cuh"

#include <math.h>

cudaStream_t g_stream;
pp_context *g_ctx;
int g_repeat = 10;
int g_failures = 0;
char g_only[128] = "reduce,scan,histogram,select,sort,exact,segmented,bykey,argsort,segsort,topk,search,merge,scaninit,half";
pp_context *g_cpu;
char g_types[64] = "u32,f32,u64,f64,f16,bf16";
// what is one of the comma-separated words of list.
static bool in_list(const char *list, const char *what)
{
    const size_t len = strlen(what);
    for (const char *p = list; (p = strstr(p, what)) != NULL; p += len)
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == 0)) return true;
    return false;
}
bool want(const char *what) { return in_list(g_only, what); }
bool want_type(const char *t) { return in_list(g_types, t); }

// Rate of a device-to-device copy, bytes read + written per second.
double copy_rate(void *dst, const void *src, size_t bytes)
{
    double ms = time_median([&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g_stream)); });
    return 2.0 * (double)bytes / (ms * 1e-3);
}

struct Row {
    char name[48];
    char type[16];
    size_t n;
    double ours_ms, cub_ms, bytes, copy_gbs;
    double target; // minimum ours-over-CUB speed ratio
    int checked;   // results equal to CUB's
};
static Row rows[512];
static int nrows;

void add_row(const char *name, const char *type, size_t n, double ours, double cub, double bytes,
                    double copy, double target, int checked)
{
    if (nrows == (int)(sizeof rows / sizeof rows[0])) {
        fprintf(stderr, "bench_cub: more than %d rows\n", nrows);
        exit(3);
    }
    Row &r = rows[nrows++];
    snprintf(r.name, sizeof r.name, "%s", name);
    snprintf(r.type, sizeof r.type, "%s", type);
    r.n = n;
    r.ours_ms = ours;
    r.cub_ms = cub;
    r.bytes = bytes;
    r.copy_gbs = copy;
    r.target = target;
    r.checked = checked;
    double gbs = bytes / (ours * 1e-3) / 1e9;
    printf("  %-22s %-4s 2^%-2d  ours %8.3f ms %7.1f GB/s (%.2f of copy)  cub %8.3f ms  ratio %.2fx  %s%s\n", name,
           type, (int)(log2((double)n) + 0.5), ours, gbs, gbs / copy, cub, cub / ours,
           cub / ours >= target ? "met" : "MISSED", checked ? "" : "  RESULTS DIFFER");
    fflush(stdout);
}

int equal_dev(const void *a, const void *b, size_t bytes)
{
    // Compare on the host in chunks.
    const size_t chunk = 64u << 20;
    char *ha = (char *)malloc(chunk), *hb = (char *)malloc(chunk);
    int eq = 1;
    for (size_t off = 0; off < bytes && eq; off += chunk) {
        size_t len = bytes - off < chunk ? bytes - off : chunk;
        CK(cudaMemcpy(ha, (const char *)a + off, len, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hb, (const char *)b + off, len, cudaMemcpyDeviceToHost));
        eq = memcmp(ha, hb, len) == 0;
    }
    free(ha);
    free(hb);
    return eq;
}


__global__ void fill_u32(uint32_t *p, size_t n, uint64_t seed, uint32_t mask)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (uint32_t)bench_mix(seed ^ i) & mask;
}

// CUB's temporary storage, grown as rows need it (not timed).
void *g_temp;
size_t g_temp_bytes;
void *cub_temp(size_t bytes)
{
    if (bytes > g_temp_bytes) {
        if (g_temp) CK(cudaFree(g_temp));
        CK(cudaMalloc(&g_temp, bytes));
        g_temp_bytes = bytes;
    }
    return g_temp;
}


void finish_rows(const char *json)
{
    const int cubv = CUB_VERSION;
    printf("\n| primitive | type | n | parprim ms | GB/s | of copy | CUB ms | vs CUB | target | met |\n");
    printf("|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (int i = 0; i < nrows; i++) {
        Row &r = rows[i];
        double gbs = r.bytes / (r.ours_ms * 1e-3) / 1e9;
        const double ratio = r.cub_ms / r.ours_ms;
        char target[32], met[8];
        if (r.target > 0) { // three decimals, so that a miss by less than 0.5% does not print as 1.00x
            snprintf(target, sizeof target, ">= %.2fx", r.target);
            snprintf(met, sizeof met, "%s", ratio >= r.target ? "yes" : "no");
        } else {
            snprintf(target, sizeof target, "(reference)");
            met[0] = 0;
        }
        printf("| %s | %s | 2^%d | %.3f | %.0f | %.2f | %.3f | %.3fx | %s | %s%s |\n", r.name, r.type,
               (int)(log2((double)r.n) + 0.5), r.ours_ms, gbs, gbs / r.copy_gbs, r.cub_ms, ratio, target, met,
               r.checked ? "" : " (results differ)");
        if (!r.checked) g_failures++;
    }
    if (json) {
        FILE *f = fopen(json, "w");
        if (f) {
            // The records bench/render.py files under bench/data/<device>/
            // (it adds the commit measured).
            fprintf(f, "{\"tool\": \"bench_cub\", \"device\": ");
            harness::json_string(f, pp_context_device_name(g_ctx));
            fprintf(f, ", \"version\": ");
            harness::json_string(f, harness::pp_version_string());
            fprintf(f, ", \"cub_version\": \"%d.%d.%d\", \"date\": ", cubv / 100000, cubv / 100 % 1000, cubv % 100);
            harness::json_string(f, harness::utc_date());
            fprintf(f, ", \"repeat\": %d, \"rows\": [\n", g_repeat);
            for (int i = 0; i < nrows; i++) {
                Row &r = rows[i];
                const double gbs = r.bytes / (r.ours_ms * 1e-3) / 1e9;
                fprintf(f, "  {\"primitive\": \"%s\", \"type\": \"%s\", \"n\": %zu, \"parprim_ms\": %.6f, \"cub_ms\": %.6f, "
                        "\"vs_cub\": %.4f, \"bytes\": %.0f, \"gbps\": %.1f, \"copy_gbs\": %.3f, \"copy_fraction\": %.4f, "
                        "\"target\": %.2f, \"checked\": %s}%s\n",
                        r.name, r.type, r.n, r.ours_ms, r.cub_ms, r.cub_ms / r.ours_ms, r.bytes, gbs, r.copy_gbs,
                        gbs / r.copy_gbs, r.target, r.checked ? "true" : "false", i + 1 < nrows ? "," : "");
            }
            fprintf(f, "]}\n");
            fclose(f);
        }
    }
    if (g_temp) CK(cudaFree(g_temp));
    g_temp = NULL;
}
