/* layout_test.c: the layout machinery tested alone (tests/layout.sh).
 *
 *   layout_test            thread-map invariants for every layout kind over
 *                          several shapes and warp counts, and known
 *                          fragments of mma.sync; prints [PASS]/[FAIL] lines
 *   layout_test FILE.tir   parse, verify, axis analysis, layout pass, verify,
 *                          and print the IR with its layouts (for FileCheck);
 *                          diagnostics go to stderr, exit 1 on errors
 *   layout_test --axis FILE.tir
 *                          the axis analysis of each integer / pointer value:
 *                          "%5: contiguity [128] divisibility [16] constancy [1]"
 *   layout_test --draw     the ownership maps docs/layouts.md shows */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"

static int npass, nfail;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("[%s] layout/", ok ? "PASS" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    ok ? npass++ : nfail++;
}

static Type blk(DType dt, int rank, int a, int b) {
    int32_t s[2] = {a, b};
    return ir_block(ir_scalar(dt), rank, s);
}

static int blocked(Function *f, int rank, const int *spt, const int *tpw, const int *wpc, const int *order) {
    Layout l = {.kind = LAYOUT_BLOCKED, .rank = rank};
    for (int d = 0; d < rank; d++) {
        l.size_per_thread[d] = spt[d];
        l.threads_per_warp[d] = tpw[d];
        l.warps_per_cta[d] = wpc[d];
        l.order[d] = order[d];
    }
    return layout_intern(f, &l);
}

static int mma(Function *f, int wm, int wn) {
    Layout l = {.kind = LAYOUT_MMA, .rank = 2, .warps_per_cta = {wm, wn}};
    return layout_intern(f, &l);
}

static int dot_op(Function *f, int parent, int idx, int kw) {
    Layout l = {.kind = LAYOUT_DOT_OPERAND, .rank = 2, .parent = parent, .op_idx = idx, .k_width = kw};
    return layout_intern(f, &l);
}

static int slice(Function *f, int parent, int dim) {
    Layout l = {.kind = LAYOUT_SLICE, .rank = f->layouts[parent].rank - 1, .parent = parent, .dim = dim};
    return layout_intern(f, &l);
}

/* ---- thread-map invariants ---- */

static int popcount(uint32_t x) { return __builtin_popcount(x); }

/* Every element is held, by the same number of (thread, register) pairs:
 * 2^(duplicate lane bits + duplicate warp bits), so exactly once when
 * nothing is replicated; no thread holds an element twice; contig runs are
 * consecutive. Returns a reason or NULL. */
static const char *invariants(const ThreadMap *tm, int nw, int64_t numel) {
    int *count = calloc((size_t)numel, sizeof *count);
    char *seen = calloc((size_t)numel, 1);
    const char *why = NULL;
    for (int t = 0; t < 32 * nw && !why; t++) {
        memset(seen, 0, (size_t)numel);
        for (int r = 0; r < tm->nregs && !why; r++) {
            int32_t idx[IR_MAX_RANK];
            layout_elem_index(tm, t % 32, t / 32, r, idx);
            int64_t e = 0;
            for (int d = 0; d < tm->rank; d++) {
                if (idx[d] < 0 || idx[d] >= tm->shape[d])
                    why = "index out of bounds";
                e = e * tm->shape[d] + idx[d];
            }
            if (why)
                break;
            if (seen[e]++)
                why = "a thread holds an element twice";
            count[e]++;
            if (tm->contig > 1 && r % tm->contig) {
                int32_t prev[IR_MAX_RANK];
                layout_elem_index(tm, t % 32, t / 32, r - 1, prev);
                for (int d = 0; d < tm->rank; d++)
                    if (idx[d] != prev[d] + (d == tm->contig_dim))
                        why = "contig run not consecutive";
            }
        }
    }
    int copies = 1 << (popcount(tm->lane_dup) + popcount(tm->warp_dup));
    for (int64_t e = 0; e < numel && !why; e++)
        if (count[e] != copies)
            why = count[e] ? "element held a wrong number of times" : "element held by no thread";
    free(count);
    free(seen);
    return why;
}

/* Map checks are many; they report one line per layout kind and warp count,
 * naming the first case that failed. */
typedef struct Group {
    const char *kind;
    int nw, cases;
    Buf first_failure;
} Group;

static Group groups[16];
static int ngroups;

static Group *group(const char *kind, int nw) {
    for (int i = 0; i < ngroups; i++)
        if (!strcmp(groups[i].kind, kind) && groups[i].nw == nw)
            return &groups[i];
    groups[ngroups] = (Group){.kind = kind, .nw = nw};
    return &groups[ngroups++];
}

static void check_map(Function *f, int li, Type t, int nw) {
    static const char *kinds[] = {"none", "blocked", "slice", "mma", "dot_op", "shared"};
    Group *g = group(kinds[f->layouts[li].kind], nw);
    const ThreadMap *tm = layout_thread_map(f, li, t, nw);
    const char *why = tm ? invariants(tm, nw, ir_numel(t)) : "no map";
    g->cases++;
    if (why && !g->first_failure.len) {
        layout_print(&g->first_failure, f, li);
        buf_puts(&g->first_failure, " on ");
        ir_type_print(&g->first_failure, t);
        buf_printf(&g->first_failure, ": %s", why);
    }
}

static void report_groups(void) {
    for (int i = 0; i < ngroups; i++) {
        Group *g = &groups[i];
        bool ok = !g->first_failure.len;
        check(ok, "map %s num_warps=%d (%d shapes)%s%s", g->kind, g->nw, g->cases, ok ? "" : ": ",
              ok ? "" : g->first_failure.data);
        buf_free(&g->first_failure);
    }
}

static void test_maps(void) {
    Arena a = {0};
    static const int nws[] = {1, 2, 4, 8};
    static const int32_t sizes[] = {1, 2, 8, 16, 64, 256};
    for (size_t wi = 0; wi < 4; wi++) {
        int nw = nws[wi];
        Function *f = ir_func_new(&a, "maps");
        /* Blocked layouts as the pass builds them, and some odd ones. */
        int b1 = blocked(f, 1, (int[]){4}, (int[]){32}, (int[]){nw}, (int[]){0});
        int b2 = blocked(f, 2, (int[]){1, 4}, (int[]){8, 4}, (int[]){nw, 1}, (int[]){1, 0});
        int b3 = blocked(f, 2, (int[]){2, 1}, (int[]){4, 8}, (int[]){1, nw}, (int[]){0, 1});
        int b4 = blocked(f, 3, (int[]){1, 1, 2}, (int[]){2, 4, 4}, (int[]){nw, 1, 1}, (int[]){2, 1, 0});
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            check_map(f, b1, blk(DT_F32, 1, sizes[i], 0), nw);
            check_map(f, slice(f, b2, 0), blk(DT_F32, 1, sizes[i], 0), nw);
            check_map(f, slice(f, b2, 1), blk(DT_F32, 1, sizes[i], 0), nw);
            for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j += 2) {
                check_map(f, b2, blk(DT_F32, 2, sizes[i], sizes[j]), nw);
                check_map(f, b3, blk(DT_F32, 2, sizes[j], sizes[i]), nw);
                check_map(f, slice(f, b4, 1), blk(DT_F32, 2, sizes[i], sizes[j]), nw);
            }
        }
        int32_t s3[3] = {4, 8, 16};
        check_map(f, b4, ir_block(ir_scalar(DT_F32), 3, s3), nw);
        /* Rank 5 (IR_MAX_RANK), the fastest dim not the last, and its slices
         * (rank 4) at every dim: blocks smaller and larger than the tile. */
        int b5 = blocked(f, 5, (int[]){1, 2, 1, 1, 2}, (int[]){2, 2, 2, 2, 2}, (int[]){1, nw, 1, 1, 1},
                         (int[]){3, 4, 2, 0, 1});
        static const int32_t s5[][5] = {{2, 4, 8, 2, 16}, {1, 1, 1, 1, 1}, {4, 2, 16, 8, 2}, {8, 8, 8, 8, 8}};
        for (size_t i = 0; i < 4; i++) {
            check_map(f, b5, ir_block(ir_scalar(DT_F32), 5, s5[i]), nw);
            for (int d = 0; d < 5; d++) {
                int32_t s4[4];
                for (int k = 0, j = 0; k < 5; k++)
                    if (k != d)
                        s4[j++] = s5[i][k];
                check_map(f, slice(f, b5, d), ir_block(ir_scalar(DT_F32), 4, s4), nw);
            }
        }
        /* MMA and its operands, as warpsPerTile picks them for nw. */
        int wm = nw >= 4 ? nw / 2 : nw, wn = nw / wm;
        int m = mma(f, wm, wn);
        static const int shapes[][3] = {{16, 8, 16}, {16, 16, 16}, {32, 32, 32}, {64, 128, 32}, {128, 64, 64}};
        for (size_t i = 0; i < 5; i++) {
            int M = shapes[i][0], N = shapes[i][1], K = shapes[i][2];
            check_map(f, m, blk(DT_F32, 2, M, N), nw);
            check_map(f, slice(f, m, 0), blk(DT_F32, 1, N, 0), nw);
            check_map(f, slice(f, m, 1), blk(DT_F32, 1, M, 0), nw);
            for (int kw = 1; kw <= 4; kw *= 2) {
                if (K < 8 * kw)
                    continue;
                check_map(f, dot_op(f, m, 0, kw), blk(DT_F16, 2, M, K), nw);
                check_map(f, dot_op(f, m, 1, kw), blk(DT_F16, 2, K, N), nw);
            }
            check_map(f, dot_op(f, b2, 0, 0), blk(DT_F32, 2, M, K), nw);
            check_map(f, dot_op(f, b2, 1, 0), blk(DT_F32, 2, K, N), nw);
        }
    }
    arena_free(&a);
}

/* layout_xor_plan against a recount: every element's partner (its index
 * along axis xor c) is register plan[r] of lane ^ m; and where the plan
 * must fall for a 1-D blocked layout of 4 registers a thread: distances 1
 * and 2 in the thread, 4 .. 64 across lanes, past a warp none. Returns
 * the lane xor found, -1 for none, -2 when the plan is wrong. */
static int xor_case(Function *f, int li, Type t, int nw, int axis, int c) {
    const ThreadMap *tm = layout_thread_map(f, li, t, nw);
    int plan[1024], m = -1;
    if (!tm || tm->nregs > 1024 || !layout_xor_plan(tm, axis, c, nw, plan, &m))
        return -1;
    for (int w = 0; w < nw; w++)
        for (int l = 0; l < 32; l++)
            for (int r = 0; r < tm->nregs; r++) {
                int32_t want[IR_MAX_RANK], got[IR_MAX_RANK];
                layout_elem_index(tm, l, w, r, want);
                want[axis] ^= c;
                layout_elem_index(tm, l ^ m, w, plan[r], got);
                if (memcmp(want, got, sizeof want[0] * (size_t)t.rank))
                    return -2;
            }
    return m;
}

static void test_xor_plans(void) {
    Arena a = {0};
    for (int nw = 1; nw <= 4; nw *= 2) {
        Function *f = ir_func_new(&a, "xor");
        int b1 = blocked(f, 1, (int[]){4}, (int[]){32}, (int[]){nw}, (int[]){0});
        int n = 128 * nw;
        bool ok = true;
        for (int c = 1; c < n; c *= 2) {
            int want = c < 4 ? 0 : c < 128 ? c / 4 : -1, got = xor_case(f, b1, blk(DT_F32, 1, n, 0), nw, 0, c);
            if (got != want) {
                check(false, "xor plan 1-D %d at %d warps, xor %d: lane xor %d, want %d", n, nw, c, got, want);
                ok = false;
            }
        }
        /* flip's mirror (n - 1): every bit at once, the warps' too */
        int mirror = xor_case(f, b1, blk(DT_F32, 1, n, 0), nw, 0, n - 1);
        ok &= nw == 1 ? mirror == 31 : mirror == -1;
        /* a block smaller than the tile (replicated lanes), a 2-D block along
         * either axis, an MMA accumulator: any plan found must be right */
        int b2 = blocked(f, 2, (int[]){1, 4}, (int[]){8, 4}, (int[]){nw, 1}, (int[]){1, 0});
        int mm = mma(f, nw >= 4 ? nw / 2 : nw, nw >= 4 ? 2 : 1);
        static const int shapes[][2] = {{16, 8}, {2, 64}, {16, 1024}, {64, 32}, {32, 128}};
        for (size_t i = 0; i < 5; i++)
            for (int axis = 0; axis < 2; axis++)
                for (int c = 1; c < shapes[i][axis]; c *= 2) {
                    Type t = blk(DT_F32, 2, shapes[i][0], shapes[i][1]);
                    ok &= xor_case(f, b2, t, nw, axis, c) != -2 && xor_case(f, mm, t, nw, axis, c) != -2;
                }
        ok &= xor_case(f, b1, blk(DT_F32, 1, 8, 0), nw, 0, 4) != -2;
        check(ok, "xor plans at %d warps (registers, lanes, none past a warp; each plan recounted)", nw);
    }
    arena_free(&a);
}

/* The fragments mma.sync reads and writes (PTX ISA, "Matrix Fragments for
 * mma.m16n8k16"), checked register by register for warp 0. */
static void test_fragments(void) {
    Arena a = {0};
    Function *f = ir_func_new(&a, "frag");
    int m = mma(f, 1, 1);
    bool ok_c = true, ok_a = true, ok_b = true, ok_a8 = true;
    const ThreadMap *c = layout_thread_map(f, m, blk(DT_F32, 2, 16, 8), 1);
    const ThreadMap *A = layout_thread_map(f, dot_op(f, m, 0, 2), blk(DT_F16, 2, 16, 16), 1);
    const ThreadMap *B = layout_thread_map(f, dot_op(f, m, 1, 2), blk(DT_F16, 2, 16, 8), 1);
    const ThreadMap *A8 = layout_thread_map(f, dot_op(f, m, 0, 1), blk(DT_F32, 2, 16, 8), 1);
    for (int l = 0; l < 32; l++) {
        int g = l / 4, t = l % 4;
        int32_t i[IR_MAX_RANK];
        for (int r = 0; r < 4; r++) { /* c0..c3 */
            layout_elem_index(c, l, 0, r, i);
            ok_c &= c->nregs == 4 && i[0] == g + 8 * (r / 2) && i[1] == 2 * t + r % 2;
        }
        for (int r = 0; r < 8; r++) { /* a0..a7 */
            layout_elem_index(A, l, 0, r, i);
            ok_a &= A->nregs == 8 && i[0] == g + 8 * ((r / 2) % 2) && i[1] == 2 * t + r % 2 + 8 * (r / 4);
        }
        for (int r = 0; r < 4; r++) { /* b0..b3 */
            layout_elem_index(B, l, 0, r, i);
            ok_b &= B->nregs == 4 && i[0] == 2 * t + r % 2 + 8 * (r / 2) && i[1] == g;
        }
        for (int r = 0; r < 4; r++) { /* tf32 a0..a3 */
            layout_elem_index(A8, l, 0, r, i);
            ok_a8 &= A8->nregs == 4 && i[0] == g + 8 * (r % 2) && i[1] == t + 4 * (r / 2);
        }
    }
    check(ok_c, "fragment mma m16n8 accumulator c0..c3");
    check(ok_a, "fragment m16n8k16 A a0..a7");
    check(ok_b, "fragment m16n8k16 B b0..b3");
    check(ok_a8, "fragment m16n8k8 tf32 A a0..a3");
    check(c->contig == 2 && c->contig_dim == 1 && A->contig == 2 && A->contig_dim == 1,
          "fragment contig: 2 along N (acc) and K (A)");
    arena_free(&a);
}

static void test_print(void) {
    Arena a = {0};
    Function *f = ir_func_new(&a, "print");
    int b = blocked(f, 2, (int[]){1, 4}, (int[]){8, 4}, (int[]){4, 1}, (int[]){1, 0});
    int b2 = blocked(f, 2, (int[]){1, 4}, (int[]){8, 4}, (int[]){4, 1}, (int[]){1, 0});
    int m = mma(f, 2, 2);
    int s = slice(f, b, 1), d = dot_op(f, m, 0, 2);
    Buf out = {0};
    layout_print(&out, f, b);
    buf_putc(&out, '\n');
    layout_print(&out, f, s);
    buf_putc(&out, '\n');
    layout_print(&out, f, m);
    buf_putc(&out, '\n');
    layout_print(&out, f, d);
    buf_putc(&out, '\n');
    layout_print_ref(&out, f, d);
    buf_putc(&out, '\n');
    const char *want = "#blocked<{spt = [1, 4], tpw = [8, 4], wpc = [4, 1], order = [1, 0]}>\n"
                       "#slice<{dim = 1, parent = #blocked<{spt = [1, 4], tpw = [8, 4], wpc = [4, 1], order = [1, 0]}>}>\n"
                       "#mma<{version = 2, wpc = [2, 2], instr = [16, 8]}>\n"
                       "#dot_op<{op_idx = 0, k_width = 2, parent = #mma<{version = 2, wpc = [2, 2], instr = [16, 8]}>}>\n"
                       "#dot_op<{op_idx = 0, k_width = 2, parent = #mma}>\n";
    check(b == b2 && b == 1, "intern: equal layouts share an index");
    check(!strcmp(out.data, want), "print: Triton-like text");
    if (strcmp(out.data, want))
        printf("    got:\n%s", out.data);
    buf_free(&out);
    arena_free(&a);
}

/* ---- shared layouts ---- */

/* Every element of a buffer gets its own offset in [0, numel). */
static bool bijective(Function *f, int li, Type t) {
    int64_t n = ir_numel(t);
    uint8_t *seen = calloc((size_t)n, 1);
    bool ok = seen != NULL;
    int32_t idx[IR_MAX_RANK] = {0};
    for (int64_t e = 0; ok && e < n; e++) {
        int64_t rest = e;
        for (int d = t.rank - 1; d >= 0; d--) {
            idx[d] = (int32_t)(rest % t.shape[d]);
            rest /= t.shape[d];
        }
        int64_t o = layout_shared_offset(f, li, t, idx);
        ok = o >= 0 && o < n && !seen[o];
        if (ok)
            seen[o] = 1;
    }
    free(seen);
    return ok;
}

/* An ldmatrix (or any 8 lanes reading 16 bytes each down 8 consecutive rows
 * of one 16-byte column) touches 8 different groups of 4 banks. */
static bool conflict_free(Function *f, int li, Type t, int bytes) {
    int per = 16 / bytes, rows = t.shape[0], cols = t.shape[1];
    for (int r0 = 0; r0 + 8 <= rows; r0 += 8)
        for (int c = 0; c < cols; c += per) {
            unsigned groups = 0;
            for (int r = r0; r < r0 + 8; r++) {
                int64_t o = layout_shared_offset(f, li, t, (int32_t[]){r, c}) * bytes;
                if (o % 16)
                    return false; /* a 16-byte column stays one aligned chunk */
                groups |= 1u << ((o / 16) % 8);
            }
            if (groups != 0xff)
                return false;
        }
    return true;
}

static void test_shared(void) {
    Arena a = {0};
    Function *f = ir_func_new(&a, "t");
    static const int shapes[][3] = {{16, 16, 2}, {32, 16, 2}, {128, 32, 2}, {32, 64, 2}, {64, 128, 2},
                                    {32, 256, 2}, {128, 8, 4}, {64, 32, 4}, {16, 64, 1}, {64, 64, 4}};
    bool bij = true, cf = true;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        int R = shapes[i][0], C = shapes[i][1], bytes = shapes[i][2];
        DType dt = bytes == 1 ? DT_I8 : bytes == 2 ? DT_F16 : DT_F32;
        Layout l = layout_swizzled_for(R, C, bytes);
        int li = layout_intern(f, &l);
        Type t = blk(dt, 2, R, C);
        bij &= bijective(f, li, t);
        if (C * bytes >= 16 && R >= 8 && !conflict_free(f, li, t, bytes)) {
            cf = false;
            fprintf(stderr, "conflicts: %dx%d of %d bytes\n", R, C, bytes);
        }
        Type staged = t; /* with 3 stages in front */
        staged.mem = IR_MEM_SHARED;
        staged.rank = 3, staged.shape[0] = 3, staged.shape[1] = R, staged.shape[2] = C;
        bij &= bijective(f, li, staged);
    }
    check(bij, "shared: swizzled layouts give each element its own place (with and without stages)");
    check(cf, "shared: swizzled layouts read 8 rows of a 16-byte column from 8 bank groups");
    bool nv = true;
    for (int sw = 0; sw <= 128; sw = sw ? sw * 2 : 32)
        for (int tr = 0; tr < 2; tr++) {
            Layout l = {.kind = LAYOUT_NVMMA, .rank = 2, .swizzle = sw, .elem_bits = 16, .transposed = tr};
            int li = layout_intern(f, &l);
            nv &= bijective(f, li, blk(DT_F16, 2, 64, 128)) && bijective(f, li, blk(DT_F16, 2, 128, 64));
            if (sw == 128 && !tr)
                nv &= conflict_free(f, li, blk(DT_F16, 2, 64, 64), 2);
        }
    check(nv, "shared: nvmma swizzles are permutations; 128B reads 8 rows from 8 bank groups");
    Layout sw = layout_swizzled_for(128, 32, 2);
    check(sw.vec == 8 && sw.per_phase == 2 && sw.max_phase == 4, "shared: 128x32 fp16 swizzle vec 8, per_phase 2, max_phase 4");
    arena_free(&a);
}

/* ---- the ownership maps of docs/layouts.md ---- */

static void draw(Function *f, int li, Type t, int nw) {
    Buf out = {0};
    layout_draw(&out, f, li, t, nw);
    fputs(out.data, stdout);
    putchar('\n');
    buf_free(&out);
}

static int draw_all(void) {
    Arena a = {0};
    Function *f = ir_func_new(&a, "docs");
    int b = blocked(f, 2, (int[]){1, 4}, (int[]){8, 4}, (int[]){4, 1}, (int[]){1, 0});
    int b1 = blocked(f, 1, (int[]){4}, (int[]){32}, (int[]){2}, (int[]){0});
    int m = mma(f, 2, 2);
    draw(f, b1, blk(DT_F32, 1, 256, 0), 2);
    draw(f, b, blk(DT_F32, 2, 32, 16), 4);
    draw(f, b, blk(DT_F32, 2, 16, 16), 4);
    draw(f, slice(f, b, 1), blk(DT_F32, 1, 32, 0), 4);
    draw(f, m, blk(DT_F32, 2, 32, 32), 4);
    draw(f, dot_op(f, m, 0, 2), blk(DT_F16, 2, 32, 16), 4);
    draw(f, dot_op(f, m, 1, 2), blk(DT_F16, 2, 16, 32), 4);
    draw(f, slice(f, m, 1), blk(DT_F32, 1, 32, 0), 4);
    Layout sw = layout_swizzled_for(16, 32, 2), nv = {.kind = LAYOUT_NVMMA, .rank = 2, .swizzle = 64, .elem_bits = 16};
    Buf out = {0};
    layout_draw_shared(&out, f, layout_intern(f, &sw), blk(DT_F16, 2, 16, 32));
    buf_putc(&out, '\n');
    layout_draw_shared(&out, f, layout_intern(f, &nv), blk(DT_F16, 2, 8, 64));
    fputs(out.data, stdout);
    buf_free(&out);
    arena_free(&a);
    return 0;
}

/* ---- a .tir file through the pass ---- */

static void put_vec(Buf *b, const char *name, const int64_t *v, int n) {
    buf_printf(b, " %s [", name);
    for (int d = 0; d < n; d++)
        buf_printf(b, "%s%lld", d ? ", " : "", (long long)v[d]);
    buf_putc(b, ']');
}

static void print_axis(Buf *out, const Function *f, const AxisInfo *ax) {
    buf_printf(out, "axis @%s\n", f->name);
    for (ValueId v = 1; v < f->nvalues; v++) {
        Type t = f->values[v].type;
        if (!dt_is_int(t.dtype) && t.dtype != DT_PTR)
            continue;
        int n = t.rank ? t.rank : 1;
        buf_printf(out, "%%%d:", v);
        put_vec(out, "contiguity", ax[v].contiguity, n);
        put_vec(out, "divisibility", ax[v].divisibility, n);
        put_vec(out, "constancy", ax[v].constancy, n);
        if (ax[v].has_value)
            buf_printf(out, " value %lld", (long long)ax[v].value);
        buf_putc(out, '\n');
    }
}

static int run_file(const char *path, bool axis_only) {
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        fprintf(stderr, "layout_test: cannot read '%s'\n", path);
        return 2;
    }
    Source src = {path, text, len};
    Arena a = {0};
    Diag d = {0};
    Buf out = {0};
    Module *mod = ir_parse(&a, &d, &src);
    bool ok = mod != NULL;
    for (int i = 0; ok && i < mod->nfuncs; i++) {
        Function *f = mod->funcs[i];
        AxisInfo *ax = ok && ir_verify(&d, f) ? axis_analyze(f) : NULL;
        if (ax && axis_only) {
            print_axis(&out, f, ax);
            continue;
        }
        ok = ax && layout_pass(&d, f, ax, ptx_arch(NULL)) && ir_verify(&d, f);
        if (ok)
            ir_print_func(&out, f);
    }
    if (out.data)
        fputs(out.data, stdout);
    if (d.out.data)
        fputs(d.out.data, stderr);
    buf_free(&out);
    buf_free(&d.out);
    arena_free(&a);
    free(text);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--draw"))
        return draw_all();
    if (argc > 2 && !strcmp(argv[1], "--axis"))
        return run_file(argv[2], true);
    if (argc > 1)
        return run_file(argv[1], false);
    test_print();
    test_fragments();
    test_shared();
    test_maps();
    test_xor_plans();
    report_groups();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
}
