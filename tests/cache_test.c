/* cache_test.c: the disk cache (runtime/cache.c) on its own, against what
 * issue 23 found: a directory or entry someone else can write, a FIFO or a
 * symlink planted at an entry's or a temporary file's path, threads sharing
 * one temporary name, a file-size limit killing the host with SIGXFSZ.
 * Built by tests/cache.sh from cache.c and util.c alone. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache.h"

static int failures;

static void check(const char *name, int ok, const char *detail) {
    printf("[%s] cache/%s\n", ok ? "PASS" : "FAIL", name);
    if (!ok) {
        printf("    %s\n", detail ? detail : "");
        failures++;
    }
}

static char root[] = "/tmp/tl-cache-test-XXXXXX";

/* Files in dir whose name holds ".tmp." (temporaries left behind). */
static int temps_left(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strstr(e->d_name, ".tmp.") != NULL;
    if (d)
        closedir(d);
    return n;
}

static void dir_tests(void) {
    char path[256], detail[512];
    Buf dir = {0}, why = {0};
    snprintf(path, sizeof path, "%s/new/sub", root);
    setenv("TL_CACHE_DIR", path, 1);
    umask(022);
    struct stat a, b;
    snprintf(path, sizeof path, "%s/new", root);
    int ok = cache_dir(&dir, &why) && !stat(path, &a) && !stat(dir.data, &b);
    snprintf(detail, sizeof detail, "modes %o %o: %s", a.st_mode & 0777, b.st_mode & 0777, why.data ? why.data : "");
    check("dir_created_0700", ok && (a.st_mode & 0777) == 0700 && (b.st_mode & 0777) == 0700, detail);

    chmod(dir.data, 0770);
    dir.len = why.len = 0;
    ok = !cache_dir(&dir, &why);
    snprintf(path, sizeof path, "the disk cache is off: '%s' is writable by other users (chmod go-w, or a "
             "TL_CACHE_DIR of your own)", dir.data);
    check("dir_group_writable_refused", ok && why.data && !strcmp(why.data, path), why.data);
    chmod(dir.data, 01777);
    dir.len = why.len = 0;
    check("dir_world_writable_refused", !cache_dir(&dir, &why) && why.data && !strcmp(why.data, path), why.data);
    chmod(dir.data, 0700);
    if (geteuid() == 0) { /* only root can give a directory away */
        chown(dir.data, 65534, 65534);
        dir.len = why.len = 0;
        snprintf(path, sizeof path, "the disk cache is off: '%s' is owned by another user", dir.data);
        check("dir_other_owner_refused", !cache_dir(&dir, &why) && why.data && !strcmp(why.data, path), why.data);
        chown(dir.data, 0, 0);
    }
    dir.len = why.len = 0;
    check("dir_own_accepted", cache_dir(&dir, &why) && !why.len, why.data);
    buf_free(&dir);
    buf_free(&why);
}

static void entry_tests(const char *dir) {
    void *data;
    size_t len;
    bool corrupt;
    Buf path = {0};
    umask(0); /* entries are 0600 whatever the umask */
    int ok = cache_put(dir, "k1", "payload", 7);
    cache_entry_path(dir, "k1", &path);
    struct stat st;
    stat(path.data, &st);
    char detail[256];
    snprintf(detail, sizeof detail, "put %d, mode %o", ok, st.st_mode & 0777);
    check("entry_mode_0600", ok && (st.st_mode & 0777) == 0600, detail);
    umask(022);
    check("entry_hit", cache_get(dir, "k1", &data, &len, &corrupt) && len == 7 && !memcmp(data, "payload", 7), NULL);
    free(data);

    chmod(path.data, 0620);
    check("entry_group_writable_ignored", !cache_get(dir, "k1", &data, &len, &corrupt) && !corrupt, NULL);
    chmod(path.data, 0600);
    if (geteuid() == 0) {
        chown(path.data, 65534, 65534);
        check("entry_other_owner_ignored", !cache_get(dir, "k1", &data, &len, &corrupt) && !corrupt, NULL);
        chown(path.data, 0, 0);
    }

    /* A FIFO at the entry's path: a miss at once, not a read that waits for a writer. */
    unlink(path.data);
    mkfifo(path.data, 0600);
    alarm(10);
    check("fifo_entry_ignored", !cache_get(dir, "k1", &data, &len, &corrupt) && !corrupt, NULL);
    alarm(0);
    check("fifo_entry_replaced", cache_put(dir, "k1", "again", 5) && cache_get(dir, "k1", &data, &len, &corrupt) &&
          len == 5, NULL);
    free(data);

    /* Symlinks at the temporary names (the old one, ENTRY.tmp.PID, and the
     * new ones of this thread): the victim is never written. */
    char victim[256], link[512];
    snprintf(victim, sizeof victim, "%s/victim", root);
    FILE *f = fopen(victim, "w");
    fputs("precious", f);
    fclose(f);
    long tid = (long)syscall(SYS_gettid);
    snprintf(link, sizeof link, "%s.tmp.%ld", path.data, (long)getpid());
    symlink(victim, link);
    for (int n = 0; n < 64; n++) {
        snprintf(link, sizeof link, "%s.tmp.%ld.%ld.%d", path.data, (long)getpid(), tid, n);
        symlink(victim, link);
    }
    cache_put(dir, "k1", "overwrite", 9);
    f = fopen(victim, "r");
    char got[32] = "";
    fgets(got, sizeof got, f);
    fclose(f);
    check("temp_symlink_not_followed", !strcmp(got, "precious"), got);
    snprintf(link, sizeof link, "%s.tmp.%ld", path.data, (long)getpid());
    unlink(link);
    for (int n = 0; n < 64; n++) {
        snprintf(link, sizeof link, "%s.tmp.%ld.%ld.%d", path.data, (long)getpid(), tid, n);
        unlink(link);
    }
    buf_free(&path);
}

/* Threads putting one key at once: each name its own, every entry whole. */
enum { THREADS = 8, PUTS = 40, SIZE = 1 << 16 };
static const char *tdir;
static int bad_reads;

static void *putter(void *arg) {
    char *buf = malloc(SIZE);
    memset(buf, (int)(intptr_t)arg, SIZE);
    for (int i = 0; i < PUTS; i++) {
        void *data;
        size_t len;
        bool corrupt;
        cache_put(tdir, "shared", buf, SIZE);
        if (cache_get(tdir, "shared", &data, &len, &corrupt))
            free(data);
        if (corrupt)
            __atomic_add_fetch(&bad_reads, 1, __ATOMIC_RELAXED);
    }
    free(buf);
    return NULL;
}

static void thread_tests(const char *dir) {
    tdir = dir;
    pthread_t th[THREADS];
    for (intptr_t i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, putter, (void *)(i + 1));
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    char detail[64];
    snprintf(detail, sizeof detail, "%d torn entries read, %d temporaries left", bad_reads, temps_left(dir));
    check("threads_unique_temps", bad_reads == 0 && temps_left(dir) == 0, detail);
}

/* ulimit -f: the write fails (EFBIG) instead of SIGXFSZ killing the host;
 * a miss, no temporary left, the host's disposition back as it was. */
static void fsize_tests(const char *dir) {
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit rl = {4096, 4096};
        setrlimit(RLIMIT_FSIZE, &rl);
        char *big = calloc(1, SIZE);
        signal(SIGXFSZ, SIG_DFL); /* the default kills: what a host gets unless it says otherwise */
        bool ok = cache_put(dir, "big", big, SIZE);
        struct sigaction now;
        sigaction(SIGXFSZ, NULL, &now);
        _exit(ok ? 10 : temps_left(dir) ? 11 : now.sa_handler != SIG_DFL ? 12 : 0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    char detail[64];
    snprintf(detail, sizeof detail, "child %s %d", WIFSIGNALED(st) ? "killed by signal" : "exit",
             WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    check("file_size_limit_soft_miss", WIFEXITED(st) && WEXITSTATUS(st) == 0, detail);
}

int main(void) {
    if (!mkdtemp(root))
        return 2;
    dir_tests();
    char dir[256];
    snprintf(dir, sizeof dir, "%s/new/sub", root);
    entry_tests(dir);
    thread_tests(dir);
    fsize_tests(dir);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    system(cmd);
    return failures != 0;
}
