/* fuzz_frontend.c: libFuzzer target for the lexer and parser (make fuzz).
 * Any input must end in a module or in diagnostics: no crash, hang or leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    Source src = {.name = "fuzz.tl", .text = text, .len = size};
    Diag diag = {0};
    Arena arena = {0};
    Node *mod = parse_source(&arena, &diag, &src);
    if (mod) {
        Buf out = {0};
        ast_print(&out, mod);
        buf_free(&out);
    }
    buf_free(&diag.out);
    arena_free(&arena);
    free(text);
    return 0;
}
