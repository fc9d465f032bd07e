/* cache.h: the on-disk kernel cache.
 *
 * Directory: $TL_CACHE_DIR, else $XDG_CACHE_HOME/tl, else ~/.cache/tl.
 * An entry is named by a 128-bit hash of its key (the caller puts in the key
 * everything that changes the output: compiler build id, LLVM version, source,
 * signature, options, arch, environment). The file repeats the full key and a
 * checksum of the payload, so a hash collision or a torn/corrupted file is
 * detected; such an entry is deleted and reported as a miss. Writes go to a
 * temporary file renamed into place, so readers never see half an entry.
 * Entries are 0600; a file that is not regular, not ours, or writable by
 * others is never a hit; a failed write (disk full, file-size limit) is
 * only a miss. */
#ifndef TL_CACHE_H
#define TL_CACHE_H

#include "util.h"

/* The cache directory, created 0700 if needed; false when there is none
 * usable: not ours, or writable by other users (then why, if given, says so). */
bool cache_dir(Buf *dir, Buf *why);
/* Look up key. On a hit returns true with a malloc'd payload. corrupt is set
 * when an entry existed but was dropped. */
bool cache_get(const char *dir, const char *key, void **data, size_t *len, bool *corrupt);
/* Store key -> payload atomically. Failure only means no caching. */
bool cache_put(const char *dir, const char *key, const void *data, size_t len);
/* The entry's path (for tests that corrupt it on purpose). */
void cache_entry_path(const char *dir, const char *key, Buf *path);
/* 64-bit FNV-1a, also used to hash the key. */
uint64_t cache_hash(const void *data, size_t len, uint64_t seed);

#endif
