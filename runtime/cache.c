/* cache.c: the on-disk kernel cache (see cache.h). */
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char MAGIC[8] = {'T', 'L', 'C', 'A', 'C', 'H', 'E', '1'};

uint64_t cache_hash(const void *data, size_t len, uint64_t seed) {
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull ^ seed;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* mkdir -p; what it creates is the user's alone (0700), as the entries
 * hold kernel sources. */
static bool make_dirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        int r = mkdir(path, 0700);
        *p = '/';
        if (r && errno != EEXIST)
            return false;
    }
    return mkdir(path, 0700) == 0 || errno == EEXIST;
}

/* A cache directory someone else can write is one they can plant a cubin
 * in, which a GPU would then load and run: the directory must be ours and
 * writable by nobody else. */
bool cache_dir(Buf *dir, Buf *why) {
    const char *d = getenv("TL_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (d && *d)
        buf_puts(dir, d);
    else if (xdg && *xdg)
        buf_printf(dir, "%s/tl", xdg);
    else if (home && *home)
        buf_printf(dir, "%s/.cache/tl", home);
    else
        return false;
    if (!dir->data || !make_dirs(dir->data)) {
        if (why && dir->data)
            buf_printf(why, "cannot create the cache directory '%s': %s", dir->data, strerror(errno));
        return false;
    }
    struct stat st;
    const char *bad = NULL;
    if (stat(dir->data, &st))
        bad = strerror(errno);
    else if (!S_ISDIR(st.st_mode))
        bad = "not a directory";
    else if (st.st_uid != geteuid())
        bad = "owned by another user";
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        bad = "writable by other users (chmod go-w, or a TL_CACHE_DIR of your own)";
    if (bad && why)
        buf_printf(why, "the disk cache is off: '%s' is %s", dir->data, bad);
    return !bad;
}

void cache_entry_path(const char *dir, const char *key, Buf *path) {
    size_t n = strlen(key);
    buf_printf(path, "%s/%016llx%016llx.tlc", dir, (unsigned long long)cache_hash(key, n, 0),
               (unsigned long long)cache_hash(key, n, 0x9e3779b97f4a7c15ull));
}

static bool read_all(int fd, void *p, size_t n) {
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r <= 0)
            return false;
        p = (char *)p + r;
        n -= (size_t)r;
    }
    return true;
}

static bool write_all(int fd, const void *p, size_t n) {
    while (n) {
        ssize_t r = write(fd, p, n);
        if (r <= 0)
            return false;
        p = (const char *)p + r;
        n -= (size_t)r;
    }
    return true;
}

/* Entry layout: MAGIC, u64 key length, key, u64 payload length, u64 payload
 * checksum, payload. */
/* A file of ours that only we can write: one another user wrote (or could
 * have) is not a hit. Non-regular files (a FIFO would block the read, a
 * device would never end) are not entries. */
static bool our_entry(int fd) {
    struct stat st;
    return !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

bool cache_get(const char *dir, const char *key, void **data, size_t *len, bool *corrupt) {
    Buf path = {0};
    cache_entry_path(dir, key, &path);
    *corrupt = false;
    /* O_NONBLOCK: opening a FIFO with no writer would wait forever */
    int fd = open(path.data, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0 && !our_entry(fd)) {
        close(fd);
        fd = -1;
    }
    if (fd < 0) {
        buf_free(&path);
        return false;
    }
    size_t klen = strlen(key);
    char magic[8];
    uint64_t hdr[1], plen = 0, sum = 0;
    char *kbuf = NULL;
    void *payload = NULL;
    bool ok = read_all(fd, magic, 8) && !memcmp(magic, MAGIC, 8) && read_all(fd, hdr, 8) && hdr[0] == klen &&
              (kbuf = malloc(klen + 1)) && read_all(fd, kbuf, klen) && !memcmp(kbuf, key, klen) &&
              read_all(fd, &plen, 8) && read_all(fd, &sum, 8) && plen < ((uint64_t)1 << 32) &&
              (payload = malloc(plen ? plen : 1)) && read_all(fd, payload, plen) &&
              cache_hash(payload, plen, 0) == sum;
    char extra;
    if (ok && read(fd, &extra, 1) != 0)
        ok = false; /* trailing bytes: not a file we wrote */
    close(fd);
    free(kbuf);
    if (!ok) {
        free(payload);
        *corrupt = true;
        unlink(path.data);
    } else {
        *data = payload;
        *len = plen;
    }
    buf_free(&path);
    return ok;
}

/* A temporary name no other thread or process uses: pid, thread id and a
 * per-process count. Created O_EXCL|O_NOFOLLOW, so a file or link planted at
 * the name is never written through; another name is tried then. */
static int open_temp(const char *path, Buf *tmp) {
    static _Atomic unsigned long counter;
    for (int tries = 0; tries < 16; tries++) {
        tmp->len = 0;
        buf_printf(tmp, "%s.tmp.%ld.%ld.%lu", path, (long)getpid(), (long)syscall(SYS_gettid), counter++);
        int fd = open(tmp->data, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

bool cache_put(const char *dir, const char *key, const void *data, size_t len) {
    Buf path = {0}, tmp = {0};
    cache_entry_path(dir, key, &path);
    int fd = open_temp(path.data, &tmp);
    bool ok = fd >= 0;
    if (ok) {
        /* A file-size limit (ulimit -f) would kill the host with SIGXFSZ:
         * ignored here, the write fails with EFBIG and the entry is simply
         * not stored. The disposition is process-wide; it is restored at once. */
        struct sigaction ign = {.sa_handler = SIG_IGN}, old;
        sigemptyset(&ign.sa_mask);
        sigaction(SIGXFSZ, &ign, &old);
        uint64_t klen = strlen(key), plen = len, sum = cache_hash(data, len, 0);
        ok = fchmod(fd, 0600) == 0 && /* whatever the umask: the user's alone */
             write_all(fd, MAGIC, 8) && write_all(fd, &klen, 8) && write_all(fd, key, klen) &&
             write_all(fd, &plen, 8) && write_all(fd, &sum, 8) && write_all(fd, data, len);
        sigaction(SIGXFSZ, &old, NULL);
        ok = close(fd) == 0 && ok;
        ok = ok && rename(tmp.data, path.data) == 0;
        if (!ok) /* ENOSPC, EFBIG, ...: a soft miss, nothing left behind */
            unlink(tmp.data);
    }
    buf_free(&path);
    buf_free(&tmp);
    return ok;
}
