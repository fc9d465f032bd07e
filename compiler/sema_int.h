/* sema_int.h: the private interface between the files of semantic analysis.
 *
 *   sema.c        names and scopes, statements, expressions, structured
 *                 control flow, error recovery
 *   sema_call.c   calls: arguments, builtins, inlining of @jit helpers,
 *                 namedtuple classes, attributes, decorators
 *   sema_spec.c   the entry points: kernel lookup, specialisation (signature,
 *                 -D, autotune config, defaults), the kernel-info query
 *   sema_const.c  compile-time values: Python arithmetic on them, truthiness,
 *                 equality, printing, and the literals of signatures and -D
 *   sema_ops.c    tensor semantics (Triton's type promotion, broadcasting,
 *                 casts, operators) and the table of tl.* / Python builtins
 *   sema_mem.c    tl.load, tl.store and the atomics
 *   sema_attr.c   attributes of tensors and dtypes (x.dtype, x.shape, x.T)
 *   sema_heur.c   @triton.heuristics: its lambdas over the kernel's arguments
 *   sema_scaled.c tl.dot_scaled, decomposed into upcasts, scaling and a dot
 *   sema_std.c, sema_extra.c, sema_desc.c  scans and reductions with combine
 *                 functions, sort, random numbers, core.add/sub/mul and
 *                 to_tensor; math, libdevice, inline
 *                 asm; block pointers and tensor descriptors
 *
 * The model is Triton's code generator: evaluating an expression gives a Val,
 * which is either a compile-time value (Python int/float/bool/str/None, a
 * dtype, a tuple, a dict, a function, a module, ...) or a runtime SSA value of
 * the IR (V_TENSOR: a scalar or a block). Arithmetic on compile-time values
 * folds with Python's rules; as soon as a tensor takes part, Triton's rules
 * apply and IR is emitted into the current block.
 *
 * Errors: sema_fail() reports an error and longjmps to the nearest recovery
 * point; everything lives in the arena, so nothing leaks. In the kernel's own
 * body each statement is one (sema.c, "recovery"): the statement is skipped,
 * the names it assigns are poisoned (V_POISON), a later statement that reads
 * one is skipped silently, and analysis goes on to report the next error. A
 * kernel with an error never yields IR. Inside an inlined helper or a
 * static_range loop the error still ends the enclosing kernel statement
 * (as in Triton, where it is an exception). */
#ifndef TL_SEMA_INT_H
#define TL_SEMA_INT_H

#include <setjmp.h>

#include "sema.h"
#include "suggest.h"

enum {
    SEMA_MAX_INLINE = 64,     /* nested @jit calls before "recursion too deep" */
    SEMA_MAX_NEST = 1000,     /* nested expressions / statements (all inlined calls together) */
    SEMA_MAX_UNROLL = 1 << 16, /* static_range iterations */
    SEMA_MAX_WORK = 1 << 22,   /* statements executed in all (unrolling, inlining) */
    SEMA_MAX_TUPLE = 1 << 12,  /* items of a tuple built by + or * */
    SEMA_MAX_STR = 1 << 20,    /* bytes of a string built by + */
    SEMA_MAX_TUPLE_DEPTH = 32, /* tuples inside tuples */
    SEMA_MAX_DUP = 10          /* nested runtime ifs that copy what follows them into both branches */
};

typedef enum {
    V_UNDEF,   /* no value: an absent optional argument */
    V_NONE,
    V_BOOL,    /* i */
    V_INT,     /* i (Python ints are kept in 64 bits; overflow is an error) */
    V_FLOAT,   /* f */
    V_STR,     /* s (NUL-terminated), n = length */
    V_DTYPE,   /* ty: a scalar type, possibly a pointer (tl.float16, x.dtype) */
    V_TUPLE,   /* items[n]: Python tuples and lists; i2 = nesting depth */
    V_DICT,    /* keys[n] (strings) -> items[n]: dict literals, **meta (i = 1), an object
                  whose attributes are the keys (i = SEMA_DICT_OBJECT) */
    V_FUNC,    /* fn: a def of the file (N_FUNCDEF), called by inlining */
    V_BUILTIN, /* bi: a tl.* or Python builtin */
    V_MODULE,  /* s: dotted module path ("triton.language") */
    V_CONFIG,  /* triton.Config: items[0] = kwargs dict, i = num_warps, i2 = num_stages */
    V_SLICE,   /* ':' inside a subscript */
    V_TENSOR,  /* id: an SSA value of type ty (scalar or block) */
    V_POISON,  /* only in a scope: a name whose statement failed; reading it skips the
                  reader's statement without a further error */
    V_BLOCKPTR,   /* tl.make_block_ptr: a struct of fields items[i] (i of them), rank n, ty the
                     element pointer type (sema_desc.c) */
    V_TENSORDESC, /* a tensor descriptor, made in the kernel or passed from the host: as V_BLOCKPTR */
    V_CLASS,      /* fn: a typing.NamedTuple class of the file (N_CLASSDEF); calling it makes a named
                     tuple (a V_TUPLE with keys, s = the class name) */
} VKind;

typedef struct Builtin Builtin;
enum { SEMA_DICT_OBJECT = 2 }; /* Val.i of a V_DICT read by attribute: x.backend */
enum { SEMA_DICT_ARGS = 3 };   /* Val.i of the `args` dict of a @triton.heuristics lambda (sema_heur.c) */
/* Val.i of Triton's constexpr_type(v), the .type of a compile-time value:
 * one key "value" -> v; equal when the values are (sema_constexpr_type) */
enum { SEMA_DICT_CTYPE = 4 };

typedef struct Val {
    VKind k;
    Type ty;
    ValueId id;
    int64_t i, i2;
    double f;
    const char *s;
    int n;
    struct Val *items;
    const char **keys;
    const Node *fn;
    const Builtin *bi;
    /* V_BOOL / V_INT / V_FLOAT that Triton holds as a scalar tensor of type ty:
     * a name assigned a number (`v = 1`, see sema_number_as_tensor). Its value
     * is known, so tl still takes it where a constexpr is needed; everywhere a
     * tensor shows (x.dtype, methods, promotion, arithmetic) it is that tensor. */
    bool as_tensor;
} Val;

typedef struct Binding {
    const char *name;
    Val v;
} Binding;

/* Names of one function activation, in order of first binding, with a hash
 * index (built once a scope has more than a few names) so a lookup is O(1).
 * Never copied whole: recovery points and runtime if/for/while keep the
 * struct as a mark (sema.c, ScopeMark) and roll back to it. A copy of the
 * struct may share b and ix with the scope it came from: the scope only
 * appends past its own n, and an index slot counts only where b[pos] still
 * has its name (sema.c, "scopes"), so neither disturbs the other. */
typedef struct ScopeIndex ScopeIndex;
typedef struct Scope {
    Binding *b;
    int n, cap;
    ScopeIndex *ix; /* NULL: not built yet */
} Scope;

/* A binding's value before sema_scope_set replaced it in place: statement
 * recovery takes back a failed statement's writes from this log instead of
 * copying the scope before every statement (which made sema quadratic). */
typedef struct ScopeUndo {
    Binding *b;
    Val old;
} ScopeUndo;

/* One activation of a kernel or an inlined helper. */
typedef struct Frame {
    const Node *fn;       /* N_FUNCDEF */
    Scope scope;
    Span call_span;       /* where it was called (for "note: in call to") */
    struct Frame *caller; /* NULL for the kernel */
    int loop_nest;        /* runtime for/while around the current statement */
    bool returned;        /* a `return` ran, or the rest of the function ran inside a runtime if */
    Val ret;
    Span ret_span;        /* the `return` that gave ret */
    bool fell_off;        /* ret is None only because every path ran off the end (no `return`) */
} Frame;

/* A module-level name: def, import or constant assignment (evaluated lazily). */
typedef struct Global {
    const char *name;
    const Node *def;      /* N_FUNCDEF, N_ALIAS (with from_mod), N_ASSIGN value, N_ANNASSIGN */
    const char *from_mod; /* import: the module path the alias refers into, or NULL */
    int state;            /* 0 not evaluated, 1 being evaluated, 2 done */
    Val v;
} Global;

typedef struct Sema {
    Arena *a;
    Diag *d;
    const Source *src;
    const Node *module;
    const SemaOptions *opt;
    Function *f;
    Block *blk;      /* insertion block; NULL while evaluating module-level constants */
    Frame *fr;
    int depth;       /* inlined calls */
    int nest;        /* expression / statement nesting */
    long work;       /* statements executed so far (SEMA_MAX_WORK) */
    int dup;         /* runtime ifs with a return around, both of whose branches run what follows (SEMA_MAX_DUP) */
    Span cur;        /* the node being evaluated, for errors of helpers without one */
    Global *globals;
    int nglobals, cap_globals;
    Scope global_index; /* each global's name -> its index in globals (the last definition) */
    jmp_buf *jb;
    bool quiet;      /* probing a kernel: fail without a diagnostic */
    KernelInfo *info; /* sema_kernel_info: record the parameters, allow untyped runtime ones */
    bool recover;    /* statements of the kernel's body are recovery points */
    int no_recover;  /* static_range loops being unrolled around the statement */
    bool failed;     /* an error was recovered from: the kernel yields no IR */
    const char **undef; /* names reported undefined in the kernel's body: once is enough */
    int nundef;
    const char **reported; /* "line:col:message" of each error shown (no repeats) */
    int nreported;
    struct HeurRun *heur; /* the kernel's @triton.heuristics (sema_heur.c), or NULL */
    ScopeUndo *undo;      /* in-place writes since the outermost recovery point began */
    int nundo, cap_undo;
    int recovering;       /* recovery points open (exec_stmt_recovering) */
    /* cptr[v]: SSA value v is one of Triton's const pointers (a `tl.const`
     * parameter or a pointer made from one): storing through it is an error,
     * and a runtime merge with a plain pointer a type mismatch. Sema's alone:
     * the IR has no const pointers. */
    uint8_t *cptr;
    int ncptr;
} Sema;

/* Call arguments after evaluation; spans point at each argument. */
typedef struct Args {
    Val *pos;
    Span *pos_sp;
    int npos;
    const char **kw;
    Val *kwv;
    Span *kw_sp;
    int nkw;
} Args;

/* A builtin: bound by name like a Python function. `params` lists parameter
 * names separated by spaces: "name" required, "name?" optional (absent ones
 * arrive as V_UNDEF), "*name" collects the remaining positionals into a tuple.
 * At most 12 parameters (tl.dot_scaled has 11). */
enum { B_MAX_PARAMS = 12 };
typedef Val (*BuiltinFn)(Sema *s, const Builtin *bi, Val *arg, const Span *sp, Span call);
enum {
    B_TL = 1,     /* in the triton.language namespace (tl.name) and bare */
    B_METHOD = 2, /* also a tensor method: x.name(...) passes x first */
    B_PY = 4,     /* a Python builtin: bare name only (range, min, float, ...) */
    B_TRITON = 8, /* in the triton namespace (triton.cdiv, triton.Config) */
    B_DRIVER = 16, /* triton.runtime.driver.active.NAME (get_current_target) */
    B_CUDA = 32,   /* triton.language.extra.cuda.NAME (smid, globaltimer, ...) */
};
struct Builtin {
    const char *name;
    const char *params;
    BuiltinFn fn;
    int aux; /* handler-specific: IR opcode, reduction kind, ... */
    unsigned flags;
};

/* ---- sema.c ---- */
/* An error after which analysis can go on (reported; the kernel yields no
 * IR); where nothing recovers, the same as sema_fail. */
void sema_soft_fail(Sema *s, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Shared with sema_spec.c (specialisation and the entry points): */
const Node *sema_autotune_decorator(const Node *fn);
void sema_collect_globals(Sema *s);
Val sema_eval_in_module(Sema *s, const Node *n);
/* An expression where the kernel's statement stands (its frame and block). */
Val sema_eval_expr(Sema *s, const Node *n);
/* An f-string's value: its fields filled in at compile time (sema_fstr.c). */
Val sema_fstring(Sema *s, const Node *n);
/* Triton's str() of a scalar dtype: fp32, int8, bf16, fp8e5 (sema_attr.c). */
const char *sema_dtype_name(DType d);
Val sema_eval_with(Sema *s, const Node *n, const char *name, Val v);
void sema_exec_block(Sema *s, const NodeList *l);
bool sema_is_constexpr_annotation(const Node *a);
bool sema_is_jit(const Node *fn);
void sema_scope_set(Sema *s, Scope *sc, const char *name, Val v);
/* The value bound to name in sc, or NULL. */
Val *sema_scope_get(Sema *s, Scope *sc, const char *name);
_Noreturn void sema_fail(Sema *s, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "; did you mean 'x'?" for sg's unique closest name, else "" (arena). */
const char *sema_did_you_mean(Sema *s, const Suggest *sg);
/* A module-level name, or a builtin; found = false if neither. */
Val sema_lookup_global(Sema *s, const char *name, bool *found);
bool sema_dotted_value(Sema *s, const char *dotted, Val *out);
const Node *sema_jit_kwarg(const Node *fn, const char *name);
void sema_triton_str(Buf *b, Type t);
/* x.name as an expression gives it (an error if x has none); the try form
 * probes quietly (hasattr, getattr with a default). */
Val sema_eval_attr(Sema *s, Val x, const char *name, Span sp);
bool sema_try_attr(Sema *s, Val x, const char *name, Span sp, Val *out);
/* Call any callable value (inlines @jit functions). */
Val sema_call(Sema *s, Val callee, Args *args, Span call, const char *what);
/* Between sema.c and sema_call.c: a call node's arguments evaluated, the
 * call node's value, the error for a dropped result of a
 * @triton.must_use_result function (sema_call.c); an attribute of a module
 * (tl.float16, math.exp, ...; sema.c). */
Args sema_eval_args(Sema *s, const Node *call);
Val sema_eval_call(Sema *s, const Node *n);
void sema_check_result_used(Sema *s, const Node *call);
Val sema_module_attr(Sema *s, const char *mod, const char *name, Span sp);

/* ---- sema_const.c ---- */
static inline Val sema_none(void) { return (Val){.k = V_NONE}; }
static inline Val sema_bool(bool b) { return (Val){.k = V_BOOL, .i = b}; }
static inline Val sema_int(int64_t i) { return (Val){.k = V_INT, .i = i}; }
static inline Val sema_float(double f) { return (Val){.k = V_FLOAT, .f = f}; }
static inline Val sema_dtype(Type t) { return (Val){.k = V_DTYPE, .ty = t}; }
static inline bool sema_is_number(Val v) { return v.k == V_BOOL || v.k == V_INT || v.k == V_FLOAT; }
Val sema_str(Sema *s, const char *p, int n);
Val sema_tuple(Sema *s, const Val *items, int n);
/* True if v (or, for a tuple, any item) is a runtime value. */
bool sema_has_tensor(Val v);
/* Python truthiness of a compile-time value. */
bool sema_truthy(Sema *s, Val v, Span sp);
/* Python == on compile-time values (tensors: the same SSA value). */
bool sema_const_eq(Val a, Val b);
/* Triton's rule for `name = number` in a function: the number becomes a
 * scalar tensor of to_tensor's type (v = 1: i32, v = 1.0: f32, v = 2**40:
 * i64). Other values are returned as they are. */
Val sema_number_as_tensor(Sema *s, Val v, Span sp);
/* The tensor an as_tensor number stands for (an IR constant); v otherwise. */
Val sema_materialize(Sema *s, Val v, Span sp);
/* A scalar SSA value computed from constants only, folded to an as_tensor
 * number (with the GPU's integer wrap-around, truncating division and fp32
 * rounding); false where it cannot be folded exactly (it stays a tensor). */
bool sema_fold_scalar(Sema *s, ValueId v, Val *out);
/* Python semantics of a unary / binary operator on compile-time values. */
Val sema_const_unop(Sema *s, Op op, Val a, Span sp);
Val sema_const_binop(Sema *s, Op op, Val a, Val b, Span sp);
/* "int", "str", "tensor", ... as Python would name the type. */
const char *sema_kind_name(Val v);
/* A short description for messages: "int 5", "str 'relu'", "<128xf32>". */
const char *sema_describe(Sema *s, Val v);
/* The printed form of an IR type ("<128x64xf16>", "!ptr<f32>"). */
const char *sema_type_str(Sema *s, Type t);
/* Python repr() of a compile-time value into b (tensors print their type). */
void sema_repr(Buf *b, Val v);
/* Parse a literal of a signature entry or a -D value: ints, floats, 'str',
 * "str", True, False, None, tuples, dtype names and names of the file's
 * functions. Returns false if text is none of these. */
bool sema_parse_literal(Sema *s, const char *text, Val *out);
/* A dtype by name: "float16", "fp16", "f16", "i32", "int32", "bf16" ... */
bool sema_dtype_by_name(const char *name, Type *out);

/* ---- sema_ops.c ---- */
ValueId sema_emit(Sema *s, OpCode op, Type t, const ValueId *args, int nargs, Span sp);
Inst *sema_emit_inst(Sema *s, OpCode op, const ValueId *args, int nargs, const Type *rt, int nres, Span sp);
/* Triton's const pointers (Sema.cptr): marked at a `tl.const` parameter and
 * kept by the ops that make a pointer from one (addptr, splat, broadcast ...). */
bool sema_is_const_ptr(const Sema *s, ValueId v);
/* "fp8e4b8" / "fp8e5b16" for a name of Triton's AMD-only fp8 types, else
 * NULL; the error naming one (sema_const.c). */
const char *sema_amd_fp8(const char *name);
_Noreturn void sema_amd_fp8_fail(Sema *s, Span sp, const char *name);
void sema_mark_const_ptr(Sema *s, ValueId v);
/* " const" after a const pointer's type in messages, else "". */
const char *sema_const_word(const Sema *s, Val v);
static inline Val sema_tensor(Sema *s, ValueId id) {
    return (Val){.k = V_TENSOR, .id = id, .ty = s->f->values[id].type};
}
/* Triton's to_tensor: a number becomes a scalar constant of the type Triton
 * gives Python numbers (int -> i32/u32/i64, float -> f32/f64, bool -> i1). */
ValueId sema_to_tensor(Sema *s, Val v, Span sp);
bool sema_number_type(Sema *s, Val v, Type *t, Span sp);
/* A number as a constant of type t (scalar or block). */
ValueId sema_const_of(Sema *s, Val num, Type t, Span sp);
/* Convert to element type elem (shape kept). */
ValueId sema_cast(Sema *s, ValueId v, Type elem, Span sp);
ValueId sema_to_i1(Sema *s, ValueId v, Span sp);
/* Operators with Triton's semantics; compile-time operands fold. */
Val sema_binop(Sema *s, Op op, Val a, Val b, Span sp);
Val sema_unop(Sema *s, Op op, Val a, Span sp);
/* `and` / `or` when at least one side is a tensor. */
Val sema_logical(Sema *s, Op op, Val a, Val b, Span sp);
/* x[...] on a tensor with None / ':' items. */
Val sema_tensor_index(Sema *s, Val x, const Val *idx, const Span *isp, int n, Span sp);
/* Attributes of tensors and dtypes (x.dtype, x.shape, x.T, dt.element_ty). */
bool sema_value_attr(Sema *s, Val x, const char *name, Span sp, Val *out);
/* Builtins by name: in triton.language (tl.name / x.name()), bare, or triton.name. */
const Builtin *sema_builtin_tl(const char *name);
const Builtin *sema_builtin_bare(const char *name);
const Builtin *sema_builtin_triton(const char *name);
const Builtin *sema_builtin_driver(const char *name);
const Builtin *sema_builtin_cuda(const char *name);
bool sema_builtin_is(const Builtin *bi, const char *name);
/* Offer every builtin name with one of flags (B_TL also offers the dtype names). */
void sema_suggest_builtins(Suggest *sg, unsigned flags);
/* Offer Triton's dtype names (float16, int32, ...). */
void sema_suggest_dtypes(Suggest *sg);
/* A Triton name of triton.language (tl.cumsum, tl.math.erf) that tl does not
 * implement yet: reported as such, never as a typo. */
bool sema_builtin_unsupported(const char *name);
/* Offer those names (for a "did you mean" that says it is not supported yet). */
void sema_suggest_unsupported(Suggest *sg);
/* Bind call arguments to bi's parameters (vals/sps get B_MAX_PARAMS + 2 slots). */
void sema_bind_args(Sema *s, const Builtin *bi, Args *args, Span call, Val *vals, Span *sps);
Val sema_call_builtin(Sema *s, const Builtin *bi, Args *args, Span call);
/* x.name(args) for tensors (tensor methods), dtypes (is_floating()...) and dicts (get). */
bool sema_method(Sema *s, Val recv, const char *name, Args *args, Span call, Val *out);
/* tl.float16, tl.int32, ... (Triton's dtype names). */
bool sema_tl_dtype(const char *name, Type *out);
/* Arguments of builtins: given (not absent, not None), a compile-time int or
 * string (sema_fail otherwise, naming `what`), an optional compile-time bool. */
static inline bool sema_given(Val v) { return v.k != V_UNDEF && v.k != V_NONE; }
int64_t sema_need_int(Sema *s, Val v, Span sp, const char *what);
const char *sema_need_str(Sema *s, Val v, Span sp, const char *what); /* a str, else sema_fail */
/* An optional string argument; absent, None and "" give NULL. */
const char *sema_opt_str(Sema *s, Val v, Span sp, const char *what);
bool sema_opt_bool(Sema *s, Val v, Span sp, bool dflt, const char *what);
/* dtype.is_floating() and friends: false if name is no such predicate. */
bool sema_dtype_pred(Type t, const char *name, bool *res);
/* x with its dims permuted (tl.permute, x.T). */
ValueId sema_permute(Sema *s, ValueId x, const int *perm, int n, Span sp);
/* Triton's integer_promote_impl: width first, then unsigned wins at equal width. */
DType sema_int_promote(DType a, DType b);
/* Broadcast v to the shape of `to` (splat, leading 1s, stretched 1s); insert a
 * size-1 dim before `axis`. */
ValueId sema_broadcast_to(Sema *s, ValueId v, Type to, Span sp);
int sema_get_axis(Sema *s, Val v, Span sp, int rank);
ValueId sema_expand_dims(Sema *s, ValueId v, int axis, Span sp);

/* Triton's binary_op_type_checking_impl with arithmetic promotion: a and b
 * (tensors or numbers) to one element type and one shape. */
void sema_promote_pair(Sema *s, Val a, Val b, ValueId *x, ValueId *y, Span sp);
/* Broadcast two tensors to their common shape (types kept). */
void sema_broadcast_pair(Sema *s, ValueId *a, ValueId *b, Span sp);
/* Triton's broadcast_impl_shape: v to `to`'s shape (same rank or a scalar,
 * size-1 dims stretch); else an error naming `what`. */
ValueId sema_broadcast_exact(Sema *s, ValueId v, Type to, Span sp, const char *what);

/* ---- sema_mem.c: tl.load, tl.store, the atomics (sema_ops.c's table) ---- */
Val sema_h_load(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_store(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_atomic_rmw(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_atomic_cas(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
/* A mask argument as an i1 tensor (an error for other element types). */
ValueId sema_need_mask(Sema *s, Val m, Span sp);
/* tl.load / tl.store's cache_modifier and eviction_policy onto the op. */
void sema_mem_hints(Sema *s, Inst *in, Val cache, Span csp, Val evict, Span esp, bool load);

/* ---- sema_spec.c: triton.Config, next to the autotune decorator it feeds (sema_ops.c's table) ---- */
Val sema_h_config(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);

/* ---- sema_attr.c: Python's isinstance / hasattr / getattr (sema_ops.c's table) ---- */
Val sema_h_isinstance(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_constexpr_type(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_constexpr_type(Sema *s, Val v);
Val sema_h_hasattr(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_getattr(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
/* A tensor method's name (x.sum, x.to): tensors have it as an attribute. */
bool sema_is_tensor_method(const char *name);

/* ---- sema_extra.c: math.py, libdevice, inline asm, tl.assume, tl.extra.cuda ---- */
Val sema_h_umulhi(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_fdiv(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_sqrt_rn(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_softmax(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_libdevice(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_inline_asm(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_assume(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_cuda_const(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_intrinsic(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
/* r with the NaNs of xs[0..n) put back (propagate_nan=ALL), for float r. */
ValueId sema_propagate_nan(Sema *s, ValueId r, const ValueId *xs, int n, Span sp);
/* libdevice.NAME as a builtin, or NULL if tl lacks it. */
const Builtin *sema_libdevice_builtin(Sema *s, const char *name);

/* ---- sema_std.c: builtin handlers (in sema_ops.c's table) ---- */
Val sema_h_scan(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_reduce_fn(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_map_elementwise(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_cum(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_bitreduce(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_histogram(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_gather(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_sort(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_topk(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_flip(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_random(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_philox(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_philox_impl(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_arith(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_to_tensor(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_random_map(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_broadcast2(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_join(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_split(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_interleave(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_cat(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_item(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);

/* ---- sema_scaled.c: tl.dot_scaled, emulated as Triton does on Hopper (sema_ops.c's table) ---- */
Val sema_h_dot_scaled(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);

/* ---- sema_heur.c: @triton.heuristics ---- */
/* Read fn's heuristics decorators into s->heur (NULL without one). */
void sema_heur_collect(Sema *s, const Node *fn);
/* Does a heuristic set this name? (its parameter is bound by sema_heur_run) */
bool sema_heur_sets(Sema *s, const char *name);
int sema_heur_count(Sema *s);
/* After the parameters are bound: evaluate each heuristic over them (or take
 * its result from opt->heuristics) and bind it as a constexpr. */
void sema_heur_run(Sema *s, const Node *fn, const Node *meta);
/* args['name'] / args.get('name') of a heuristic's `args` dict: item k, or a
 * name that is not there. */
Val sema_heur_arg(Sema *s, Val args, int k, Span sp);
_Noreturn void sema_heur_missing(Sema *s, Val args, const char *name, Span sp);
/* The results and reads of the last sema_heur_run (sema_heuristic_values). */
void sema_heur_results(Sema *s, Buf *results, const char ***reads, int *nreads);

/* ---- sema_desc.c: block pointers and tensor descriptors ---- */
Val sema_h_make_block_ptr(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_advance(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_make_tensor_descriptor(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_load_tensor_descriptor(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
Val sema_h_store_tensor_descriptor(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call);
/* tl.load / tl.store on a block pointer (h_load's and h_store's arguments). */
Val sema_blockptr_load(Sema *s, Val *a, const Span *sp, Span call);
Val sema_blockptr_store(Sema *s, Val *a, const Span *sp, Span call);
/* desc.load(...), desc.store(...), desc.atomic_add(...); desc.shape, .strides, .block_shape, .dtype. */
bool sema_desc_method(Sema *s, Val recv, const char *name, Args *args, Span call, Val *out);
bool sema_desc_attr(Sema *s, Val x, const char *name, Span sp, Val *out);
/* A block pointer or a tensor descriptor: compile-time structs whose runtime
 * fields (leaves) loops carry and runtime ifs merge one by one. */
bool sema_is_struct(Val v);
int sema_struct_leaves(Val v, ValueId *out); /* their count; out may be NULL */
Val sema_struct_with(Sema *s, Val v, const ValueId *leaves); /* v with the leaves replaced */
/* NULL if b can stand where a stood (same kind and block, same compile-time
 * fields, runtime ones of the same types); "" if b is something else; else
 * which field differs. */
const char *sema_struct_mismatch(Sema *s, Val a, Val b);
void sema_struct_describe(Buf *b, Val v);
/* A signature entry `tensordesc<fp16[64, 32]>` (`:16` after it: every shape
 * dim a multiple of 16): the parameters it becomes (base, shape, strides but
 * the last, the NaN-padding flag for floats) and the descriptor bound to the
 * name; its dtype, rank, block shape and hint. */
bool sema_desc_entry(const char *entry);
Val sema_desc_param(Sema *s, const char *pname, const char *entry, Span sp, DType *elem, int *rank, int32_t *block,
                    int *hint);

#endif
