/* Runs LLVMFuzzerTestOneInput over every file named on the command line and
 * every file of every directory named (not recursive): the fuzz corpus as a
 * plain regression test, built with the normal compiler. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void fuzz_api_cleanup(void);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = (uint8_t *)malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *nb = (uint8_t *)realloc(buf, cap *= 2);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "replay: out of memory reading %s\n", path);
        return 1;
    }
    /* an exact-size copy, so that reading past the input is caught by ASan */
    uint8_t *exact = (uint8_t *)malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return 1;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    size_t files = 0;
    int errors = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s does not exist\n", argv[i]);
            errors++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            errors += run_file(argv[i]);
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            fprintf(stderr, "replay: cannot read directory %s\n", argv[i]);
            errors++;
            continue;
        }
        char **names = NULL;
        size_t n = 0, cap = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                char **nn = (char **)realloc(names, cap * sizeof *names);
                if (!nn) break;
                names = nn;
            }
            size_t l = strlen(argv[i]) + strlen(e->d_name) + 2;
            names[n] = (char *)malloc(l);
            if (!names[n]) break;
            snprintf(names[n], l, "%s/%s", argv[i], e->d_name);
            n++;
        }
        closedir(d);
        qsort(names, n, sizeof *names, cmp_names); /* a stable order for reproducible logs */
        for (size_t k = 0; k < n; k++) {
            struct stat fs;
            if (stat(names[k], &fs) == 0 && S_ISREG(fs.st_mode)) {
                errors += run_file(names[k]);
                files++;
            }
            free(names[k]);
        }
        free(names);
    }
    fuzz_api_cleanup();
    printf("replay: %zu inputs run, %d errors\n", files, errors);
    if (files == 0) {
        fprintf(stderr, "replay: no input files\n");
        return 1;
    }
    return errors ? 1 : 0;
}
