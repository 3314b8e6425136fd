/*
 * replay.c -- runs a fuzz target over files, without libFuzzer: the driver
 * make check uses, so every corpus file is an ordinary regression test.
 *
 *   replay_TARGET                  every file under the corpus directory
 *                                  compiled in (NCS_FUZZ_CORPUS)
 *   replay_TARGET FILE|DIR...      those files, and the files in those
 *                                  directories
 *
 * A finding aborts inside the target (fuzz_read.h), which fails the test;
 * a handler of the fatal signals then prints the name of the input, so the
 * log says which.  With NCS_FUZZ_VERBOSE set every file name is printed.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int nrun;
static const char *current;

/* Names the input that crashed, then lets the signal do what it does. */
static void on_fatal(int sig)
{
    static const char msg[] = "\nreplay: crashed on input ";
    if (current != NULL) {
        ssize_t r = write(2, msg, sizeof msg - 1);
        r = write(2, current, strlen(current));
        r = write(2, "\n", 1);
        (void)r;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        if (f != NULL)
            fclose(f);
        return 1;
    }
    buf = malloc((size_t)n + 1);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(buf);
        fclose(f);
        return 1;
    }
    fclose(f);
    if (getenv("NCS_FUZZ_VERBOSE") != NULL)
        fprintf(stderr, "replay: %s\n", path);
    current = path;
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    current = NULL;
    free(buf);
    nrun++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of a directory in name order (so every run is the same), skipping
 * dot files (README and the like are not inputs: they end in .md). */
static int run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int bad = 0;
    if (d == NULL) {
        fprintf(stderr, "replay: cannot open directory %s\n", dir);
        return 1;
    }
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || (len > 3 && strcmp(e->d_name + len - 3, ".md") == 0))
            continue;
        if (n == cap) {
            char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *nn);
            if (nn == NULL)
                abort();
            names = nn;
        }
        names[n] = malloc(strlen(dir) + len + 2);
        if (names[n] == NULL)
            abort();
        sprintf(names[n], "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISDIR(st.st_mode))
            bad |= run_dir(names[i]);
        else
            bad |= run_file(names[i]);
        free(names[i]);
    }
    free(names);
    return bad;
}

static int run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: no such file or directory: %s\n", path);
        return 1;
    }
    return S_ISDIR(st.st_mode) ? run_dir(path) : run_file(path);
}

int main(int argc, char **argv)
{
    int bad = 0;
    /* where a sanitizer runtime handles a signal already, leave it to it */
    {
        static const int sigs[] = { SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL };
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
            struct sigaction old;
            if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
                signal(sigs[i], on_fatal);
        }
    }
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            bad |= run_path(argv[i]);
    } else {
#ifdef NCS_FUZZ_CORPUS
        bad = run_path(NCS_FUZZ_CORPUS);
#else
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
#endif
    }
    fprintf(stderr, "replay: %d inputs run%s\n", nrun, bad ? ", some unreadable" : "");
    /* an empty corpus is a packaging mistake, not a pass */
    return bad || nrun == 0 ? 1 : 0;
}
