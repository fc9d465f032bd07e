/* ir.c: types, the op table, and IR construction. See ir.h. */
#include "ir.h"

#include <string.h>

const OpInfo ir_ops[IR__NUM] = {
#define X(id, text, nargs, flags) [IR_##id] = {text, nargs, flags},
    IR_OPS(X)
#undef X
};

static const char *dt_names[DT__COUNT] = {
    [DT_VOID] = "void", [DT_I1] = "i1",   [DT_I8] = "i8",   [DT_I16] = "i16", [DT_I32] = "i32",
    [DT_I64] = "i64",   [DT_U8] = "u8",   [DT_U16] = "u16", [DT_U32] = "u32", [DT_U64] = "u64",
    [DT_F16] = "f16",   [DT_BF16] = "bf16", [DT_F32] = "f32", [DT_F64] = "f64", [DT_PTR] = "ptr",
    [DT_F8E4NV] = "f8e4nv", [DT_F8E5] = "f8e5", [DT_F8E4B15] = "f8e4b15",
};

Type ir_scalar(DType dt) { return (Type){.dtype = (uint8_t)dt}; }

Type ir_ptr(DType pointee) { return (Type){.dtype = DT_PTR, .pointee = (uint8_t)pointee}; }

Type ir_block(Type elem, int rank, const int32_t *shape) {
    Type t = ir_elem(elem);
    t.rank = (uint8_t)rank;
    for (int i = 0; i < rank; i++)
        t.shape[i] = shape[i];
    return t;
}

Type ir_elem(Type t) {
    Type e = {.dtype = t.dtype, .pointee = t.pointee};
    return e;
}

Type ir_with_dtype(Type t, DType dt) {
    t.dtype = (uint8_t)dt;
    if (dt != DT_PTR)
        t.pointee = 0;
    return t;
}

bool ir_type_eq(Type a, Type b) {
    if (a.dtype != b.dtype || a.rank != b.rank || a.mem != b.mem || (a.dtype == DT_PTR && a.pointee != b.pointee))
        return false;
    for (int i = 0; i < a.rank; i++)
        if (a.shape[i] != b.shape[i])
            return false;
    return true;
}

int64_t ir_numel(Type t) {
    int64_t n = 1;
    for (int i = 0; i < t.rank; i++)
        n *= t.shape[i];
    return n;
}

bool dt_is_int(DType dt) { return dt >= DT_I1 && dt <= DT_U64; }
bool dt_is_signed(DType dt) { return dt >= DT_I8 && dt <= DT_I64; }
bool dt_is_float(DType dt) { return dt >= DT_F16 && dt <= DT_F64; }
bool dt_is_fp8(DType dt) { return dt >= DT_F8E4NV && dt <= DT_F8E4B15; }
bool dt_is_nv_fp8(DType dt) { return dt == DT_F8E4NV || dt == DT_F8E5; }
bool dt_is_fp(DType dt) { return dt_is_float(dt) || dt_is_fp8(dt); }

int dt_bits(DType dt) {
    switch (dt) {
    case DT_I1: return 1;
    case DT_I8: case DT_U8: case DT_F8E4NV: case DT_F8E5: case DT_F8E4B15: return 8;
    case DT_I16: case DT_U16: case DT_F16: case DT_BF16: return 16;
    case DT_I32: case DT_U32: case DT_F32: return 32;
    case DT_I64: case DT_U64: case DT_F64: case DT_PTR: return 64;
    default: return 0;
    }
}

const char *dt_name(DType dt) { return dt < DT__COUNT ? dt_names[dt] : "?"; }

DType dt_from_name(const char *s) {
    static const struct { const char *name; DType dt; } aliases[] = {
        {"int1", DT_I1},     {"bool", DT_I1},     {"int8", DT_I8},     {"int16", DT_I16},
        {"int32", DT_I32},   {"int64", DT_I64},   {"uint8", DT_U8},    {"uint16", DT_U16},
        {"uint32", DT_U32},  {"uint64", DT_U64},  {"fp16", DT_F16},    {"float16", DT_F16},
        {"fp32", DT_F32},    {"float32", DT_F32}, {"fp64", DT_F64},    {"float64", DT_F64},
        {"bfloat16", DT_BF16}, {"bf16", DT_BF16},
        {"fp8e4nv", DT_F8E4NV}, {"float8e4nv", DT_F8E4NV}, {"fp8e5", DT_F8E5}, {"float8e5", DT_F8E5},
        {"fp8e4b15", DT_F8E4B15}, {"float8e4b15", DT_F8E4B15},
    };
    for (int d = DT_I1; d < DT_PTR; d++)
        if (!strcmp(s, dt_names[d]))
            return (DType)d;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(s, aliases[i].name))
            return aliases[i].dt;
    return DT_VOID;
}

void ir_type_print(Buf *b, Type t) {
    if (ir_is_smem(t))
        buf_puts(b, "!smem");
    if (t.rank || ir_is_smem(t))
        buf_putc(b, '<');
    for (int i = 0; i < t.rank; i++)
        buf_printf(b, "%dx", t.shape[i]);
    if (t.dtype == DT_PTR)
        buf_printf(b, "!ptr<%s>", dt_name(t.pointee));
    else
        buf_puts(b, dt_name(t.dtype));
    if (t.rank || ir_is_smem(t))
        buf_putc(b, '>');
}

Function *ir_func_new(Arena *a, const char *name) {
    Function *f = arena_alloc(a, sizeof *f);
    f->name = arena_strdup(a, name);
    f->arena = a;
    f->nvalues = 1; /* value 0 is reserved as "no value" */
    f->values = arena_grow(a, NULL, 0, &f->cap_values, sizeof(Value));
    f->body = ir_block_new(f);
    f->num_warps = 4;
    f->num_stages = 3;
    return f;
}

ValueId ir_value_new(Function *f, Type t) {
    f->values = arena_grow(f->arena, f->values, f->nvalues, &f->cap_values, sizeof(Value));
    ValueId v = f->nvalues++;
    f->values[v] = (Value){.type = t};
    return v;
}

ValueId ir_param(Function *f, const char *name, Type t) {
    Param *p = arena_alloc(f->arena, sizeof(Param) * (size_t)(f->nparams + 1));
    if (f->nparams)
        memcpy(p, f->params, sizeof(Param) * (size_t)f->nparams);
    p[f->nparams] = (Param){.name = arena_strdup(f->arena, name), .type = t, .divisibility = 1};
    f->params = p;
    f->nparams++;
    ValueId v = ir_value_new(f, t);
    f->values[v].name = p[f->nparams - 1].name;
    f->values[v].block = f->body;
    return v;
}

/* Every value id >= from in b and below moves by delta. */
static void shift_ids(Block *b, ValueId from, int delta) {
    for (int i = 0; b && i < b->nargs; i++)
        b->args[i] += b->args[i] >= from ? delta : 0;
    for (int i = 0; b && i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int k = 0; k < in->nargs; k++)
            in->args[k] += in->args[k] >= from ? delta : 0;
        for (int k = 0; k < in->nresults; k++)
            in->results[k] += in->results[k] >= from ? delta : 0;
        for (int r = 0; r < in->nregions; r++)
            shift_ids(in->regions[r], from, delta);
    }
}

ValueId ir_param_late(Function *f, const char *name, Type t) {
    ValueId at = f->nparams + 1;
    shift_ids(f->body, at, 1);
    ir_param(f, name, t); /* appended as the last value: rotate it into place */
    Value nv = f->values[f->nvalues - 1];
    memmove(&f->values[at + 1], &f->values[at], sizeof(Value) * (size_t)(f->nvalues - 1 - at));
    f->values[at] = nv;
    return at;
}

void ir_param_remove(Function *f, int i) {
    ValueId v = i + 1;
    memmove(&f->values[v], &f->values[v + 1], sizeof(Value) * (size_t)(f->nvalues - v - 1));
    f->nvalues--;
    shift_ids(f->body, v + 1, -1);
    memmove(&f->params[i], &f->params[i + 1], sizeof(Param) * (size_t)(f->nparams - i - 1));
    f->nparams--;
    for (int p = 0; p < f->nparams; p++) {
        int32_t *refs[8];
        ir_tma_refs(&f->params[p].tma, refs);
        for (int k = 0; k < 8 && f->params[p].tma.base; k++)
            *refs[k] -= *refs[k] > v ? 1 : 0;
    }
}

Block *ir_block_new(Function *f) { return arena_alloc(f->arena, sizeof(Block)); }

ValueId ir_block_arg(Function *f, Block *b, Type t) {
    ValueId v = ir_value_new(f, t);
    ValueId *args = arena_alloc(f->arena, sizeof(ValueId) * (size_t)(b->nargs + 1));
    if (b->nargs)
        memcpy(args, b->args, sizeof(ValueId) * (size_t)b->nargs);
    args[b->nargs++] = v;
    b->args = args;
    f->values[v].block = b;
    return v;
}

Inst *ir_inst_new(Function *f, Block *b, OpCode op, const ValueId *args, int nargs,
                  const Type *rtypes, int nresults, Span sp) {
    Inst *in = arena_alloc(f->arena, sizeof *in);
    in->op = op;
    in->span = sp;
    in->nargs = nargs;
    if (nargs) {
        in->args = arena_alloc(f->arena, sizeof(ValueId) * (size_t)nargs);
        memcpy(in->args, args, sizeof(ValueId) * (size_t)nargs);
    }
    in->nresults = nresults;
    if (nresults) {
        in->results = arena_alloc(f->arena, sizeof(ValueId) * (size_t)nresults);
        for (int i = 0; i < nresults; i++) {
            in->results[i] = ir_value_new(f, rtypes[i]);
            f->values[in->results[i]].def = in;
        }
    }
    if (b) {
        b->insts = arena_grow(f->arena, b->insts, b->ninsts, &b->cap, sizeof(Inst *));
        b->insts[b->ninsts++] = in;
    }
    return in;
}

/* What a warp_specialize producer may hold (the verifier's rule, the
 * warp-spec pass's test, warpspec.c): its warps meet no one at a bar.sync
 * and own no element of a distributed block the others use, so no barrier, no op with scratch
 * or a result spread over the consumers' threads (loads, dots, reductions,
 * converts), no store; scalar and pure elementwise ops, loops and ifs, ring
 * views, mbarrier waits and arrivals, and TMA copies. */
bool ir_producer_op(OpCode op) {
    switch (op) {
    case IR_FOR: case IR_IF: case IR_YIELD: case IR_MEMDESC_INDEX: case IR_MBAR_WAIT: case IR_MBAR_EXPECT:
    case IR_MBAR_ARRIVE: case IR_TMA_LOAD:
        return true;
    case IR_DOT: case IR_REDUCE: case IR_SCAN: case IR_REDUCE_FN: case IR_GATHER: case IR_HISTOGRAM:
    case IR_CONVERT_LAYOUT: case IR_MEMDESC_TRANS:
        return false;
    default:
        return (ir_ops[op].flags & OPF_PURE) != 0;
    }
}

void ir_set_regions(Inst *in, Block *r0, Block *r1) {
    in->regions[0] = r0;
    in->regions[1] = r1;
    in->nregions = r1 ? 2 : 1;
    r0->parent = in;
    if (r1)
        r1->parent = in;
}

ValueId ir_emit(Function *f, Block *b, OpCode op, Type rtype, const ValueId *args, int nargs, Span sp) {
    Inst *in = ir_inst_new(f, b, op, args, nargs, &rtype, 1, sp);
    return in->results[0];
}

ValueId ir_emit_const(Function *f, Block *b, Type t, int64_t v, Span sp) {
    Inst *in = ir_inst_new(f, b, IR_CONST, NULL, 0, &t, 1, sp);
    in->attr.i = v;
    return in->results[0];
}

ValueId ir_emit_cmp(Function *f, Block *b, int pred, ValueId x, ValueId y, Span sp) {
    Inst *in = ir_inst_new(f, b, IR_CMP, (ValueId[]){x, y}, 2, (Type[]){ir_scalar(DT_I1)}, 1, sp);
    in->attr.pred = pred;
    return in->results[0];
}

Module *ir_module_new(Arena *a) {
    Module *m = arena_alloc(a, sizeof *m);
    m->arena = a;
    return m;
}

void ir_module_add(Module *m, Function *f) {
    Function **fs = arena_alloc(m->arena, sizeof(Function *) * (size_t)(m->nfuncs + 1));
    if (m->nfuncs)
        memcpy(fs, m->funcs, sizeof(Function *) * (size_t)m->nfuncs);
    fs[m->nfuncs++] = f;
    m->funcs = fs;
}

bool ir_warp_spec_on(const Function *f, int ws) { return ws ? ws > 0 : f->warp_spec; }

/* The then-branch of an if of the function's body: the one other place a
 * producer's loop may stand (the producer, at the body's top, runs it only
 * when the if's condition holds). */
static Block *guarded(const Inst *in) { return in->op == IR_IF && in->nregions ? in->regions[0] : NULL; }

Block *ir_ws_block(const Function *f, const Inst *loop, Inst **guard) {
    *guard = NULL;
    for (int i = 0; i < f->body->ninsts; i++) {
        Inst *in = f->body->insts[i];
        if (in == loop)
            return f->body;
        Block *t = guarded(in);
        for (int k = 0; t && k < t->ninsts; k++)
            if (t->insts[k] == loop) {
                *guard = in;
                return t;
            }
    }
    return NULL;
}

Inst *ir_ws_next(const Function *f, const Inst *after) {
    bool past = !after;
    for (int i = 0; i < f->body->ninsts; i++) {
        Inst *in = f->body->insts[i];
        Block *t = guarded(in);
        if (in->op == IR_FOR && past)
            return in;
        past |= in == after;
        for (int k = 0; t && k < t->ninsts; k++) {
            if (t->insts[k]->op == IR_FOR && past)
                return t->insts[k];
            past |= t->insts[k] == after;
        }
    }
    return NULL;
}

bool ir_is_zero(const Function *f, ValueId v) {
    const Inst *def = f->values[v].def;
    /* through the ops that keep zero zero (sema makes other=0.0 for fp16 as cast(splat(0.0))) */
    while (def && (def->op == IR_SPLAT || def->op == IR_BROADCAST || def->op == IR_CAST ||
                   def->op == IR_CONVERT_LAYOUT) && def->nargs == 1)
        def = f->values[def->args[0]].def;
    if (!def || def->op != IR_CONST)
        return false;
    DType dt = (DType)f->values[def->results[0]].type.dtype;
    return dt_is_float(dt) ? def->attr.f == 0.0 : def->attr.i == 0;
}

int ir_inst_index(const Block *b, const Inst *in) {
    for (int i = 0; b && i < b->ninsts; i++)
        if (b->insts[i] == in)
            return i;
    return -1;
}

void ir_mark_defs(const Block *b, int from, uint8_t *in) {
    for (int i = from; i < b->ninsts; i++) {
        const Inst *x = b->insts[i];
        for (int r = 0; r < x->nresults; r++)
            in[x->results[r]] = 1;
        for (int k = 0; k < x->nregions; k++) {
            for (int a = 0; a < x->regions[k]->nargs; a++)
                in[x->regions[k]->args[a]] = 1;
            ir_mark_defs(x->regions[k], 0, in);
        }
    }
}

void ir_count_uses(const Block *b, int *uses) {
    for (int i = 0; b && i < b->ninsts; i++) {
        const Inst *in = b->insts[i];
        for (int k = 0; k < in->nargs; k++)
            uses[in->args[k]]++;
        for (int r = 0; r < in->nregions; r++)
            ir_count_uses(in->regions[r], uses);
    }
}

void ir_remove_inst(Block *b, const Inst *in) {
    for (int i = 0; b && i < b->ninsts; i++)
        if (b->insts[i] == in) {
            memmove(b->insts + i, b->insts + i + 1, sizeof *b->insts * (size_t)(b->ninsts - i - 1));
            b->ninsts--;
            return;
        }
}

Inst *ir_clone_inst(Function *f, Block *b, const Inst *in, ValueId *map, int nmap) {
    ValueId *args = in->nargs ? arena_alloc(f->arena, sizeof *args * (size_t)in->nargs) : NULL;
    Type *rt = in->nresults ? arena_alloc(f->arena, sizeof *rt * (size_t)in->nresults) : NULL;
    for (int i = 0; i < in->nargs; i++) {
        ValueId v = in->args[i];
        args[i] = v < nmap && map[v] ? map[v] : v;
    }
    for (int i = 0; i < in->nresults; i++)
        rt[i] = f->values[in->results[i]].type;
    Inst *c = ir_inst_new(f, NULL, in->op, args, in->nargs, rt, in->nresults, in->span);
    c->attr = in->attr;
    for (int i = 0; i < in->nresults; i++) {
        f->values[c->results[i]].name = f->values[in->results[i]].name;
        f->values[c->results[i]].layout = f->values[in->results[i]].layout;
        if (in->results[i] < nmap)
            map[in->results[i]] = c->results[i];
    }
    Block *r[2] = {NULL, NULL};
    for (int k = 0; k < in->nregions; k++) {
        const Block *src = in->regions[k];
        r[k] = ir_block_new(f);
        for (int a = 0; a < src->nargs; a++) {
            ValueId na = ir_block_arg(f, r[k], f->values[src->args[a]].type);
            f->values[na].name = f->values[src->args[a]].name;
            f->values[na].layout = f->values[src->args[a]].layout;
            if (src->args[a] < nmap)
                map[src->args[a]] = na;
        }
        for (int i = 0; i < src->ninsts; i++) {
            Inst *x = ir_clone_inst(f, NULL, src->insts[i], map, nmap);
            r[k]->insts = arena_grow(f->arena, r[k]->insts, r[k]->ninsts, &r[k]->cap, sizeof(Inst *));
            r[k]->insts[r[k]->ninsts++] = x;
        }
    }
    if (in->nregions)
        ir_set_regions(c, r[0], r[1]);
    if (b) {
        b->insts = arena_grow(f->arena, b->insts, b->ninsts, &b->cap, sizeof(Inst *));
        b->insts[b->ninsts++] = c;
    }
    return c;
}

void ir_replace_uses(Block *b, ValueId from, ValueId to) {
    for (int i = 0; b && i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int a = 0; a < in->nargs; a++)
            if (in->args[a] == from)
                in->args[a] = to;
        for (int r = 0; r < in->nregions; r++)
            ir_replace_uses(in->regions[r], from, to);
    }
}

Inst *ir_inst_at(Function *f, Block *b, int *at, OpCode op, const ValueId *args, int nargs, const Type *rtypes,
                 int nresults, Span sp) {
    Inst *in = ir_inst_new(f, NULL, op, args, nargs, rtypes, nresults, sp);
    ir_insert_insts(f, b, (*at)++, &in, 1);
    return in;
}

void ir_insert_insts(Function *f, Block *b, int at, Inst *const *ins, int n) {
    if (b->ninsts + n > b->cap) {
        int cap = b->cap ? b->cap : 8;
        while (cap < b->ninsts + n)
            cap *= 2;
        Inst **a = arena_alloc(f->arena, sizeof *a * (size_t)cap);
        if (!a)
            return;
        if (b->ninsts)
            memcpy(a, b->insts, sizeof *a * (size_t)b->ninsts);
        b->insts = a, b->cap = cap;
    }
    memmove(b->insts + at + n, b->insts + at, sizeof *b->insts * (size_t)(b->ninsts - at));
    memcpy(b->insts + at, ins, sizeof *b->insts * (size_t)n);
    b->ninsts += n;
}
