/* ir_roundtrip.c: test harness for the IR text form (tests/ir.sh builds it).
 *
 *   ir_roundtrip FILE.tir
 *
 * Parses FILE, verifies every function, prints the module to stdout, then
 * parses and prints that output again: the two prints must be identical.
 * Exit 0 when all holds; with the diagnostics on stderr, 1 when FILE does not
 * parse and 4 when it does not verify (tlc's statuses for the same: the
 * verifier's are internal errors); 3 when the round trip differs. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "ir.h"

/* Parse and verify src; print the module into out. Diagnostics go to d.
 * Returns the exit status: 0, 1 (no parse) or 4 (no verify). */
static int load(Arena *a, Diag *d, const Source *src, Buf *out) {
    Module *m = ir_parse(a, d, src);
    if (!m)
        return 1;
    bool ok = true;
    for (int i = 0; i < m->nfuncs; i++)
        ok &= ir_verify(d, m->funcs[i]);
    if (!ok)
        return 4;
    ir_print_module(out, m);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fputs("usage: ir_roundtrip FILE.tir\n", stderr);
        return 2;
    }
    size_t len;
    char *text = read_file(argv[1], &len);
    if (!text) {
        fprintf(stderr, "ir_roundtrip: cannot read '%s': %s\n", argv[1], strerror(errno));
        return 2;
    }
    Arena arena = {0};
    Diag diag = {0};
    Buf first = {0}, second = {0};
    Source src = {argv[1], text, len};
    int rc = load(&arena, &diag, &src, &first);
    if (rc == 0) {
        Source again = {"<printed>", first.data ? first.data : "", first.len};
        if (load(&arena, &diag, &again, &second) || first.len != second.len ||
            (first.len && memcmp(first.data, second.data, first.len))) {
            fprintf(stderr, "round trip differs; first print:\n%s\nsecond print:\n%s\n",
                    first.data ? first.data : "", second.data ? second.data : "");
            rc = 3;
        }
        fwrite(first.data ? first.data : "", 1, first.len, stdout);
    }
    fputs(diag.out.data ? diag.out.data : "", stderr);
    buf_free(&first);
    buf_free(&second);
    buf_free(&diag.out);
    arena_free(&arena);
    free(text);
    return rc;
}
