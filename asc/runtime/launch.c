/* _asc_launch: the compiled entry point of asc kernels.
 *
 * A Launcher holds, for each compiled specialization of one kernel, a table describing its arguments (dtype
 * number, rank, fixed sizes or size symbols, written or not) and its outputs. A call with NumPy arrays and Python
 * numbers that matches a row is checked, its outputs are allocated, and the kernel runs, all without Python code.
 * A scalar row takes either Python numbers or NumPy scalars of one type, as the specialization it serves was
 * made for. Anything else (keywords, defaults, a new signature, an error to report) goes to the Python fallback,
 * which is the one place that explains what is wrong.
 *
 * Over 600 lines on purpose: it is one job, the call path (match a row, convert the arguments, run, build the
 * result) with the module around it, kept in one translation unit so that the per-call helpers inline. The memory
 * of the outputs is output_cache.c's.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#include <numpy/arrayobject.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <time.h>

#define MAXP 24
#define MAXD 8
#define MAXS 6
#define MAXCODE 64      /* the words of a row's derived sizes' program (see derive()) */
#define MAXSTACK 8

typedef int (*entry_fn)(void *const *, const int64_t *);

typedef struct {
    char kind;          /* 't' tensor; scalars: 'd' double, 'D' double from a Python float only, 'f' float,
                           'e' float16, 'E' bfloat16, 'q' int64, 'i' int32, 'h' int16, 'b' int8, 'B' uint8,
                           '?' bool, 'x' never (Python path) */
    int type_num;       /* tensors: the NumPy type number; scalars: that of the NumPy scalar type the row takes,
                           or -1 for Python numbers */
    PyTypeObject *src;  /* scalars from NumPy: the scalar type (np.float32, ...); NULL for Python numbers */
    int ndim;
    npy_intp dims[MAXD];/* >= 0: that size; < 0: size symbol -(d + 1) */
    char written;
} PSpec;

typedef struct {
    int type_num;
    int ndim;
    npy_intp dims[MAXD];
} OSpec;

/* One row: built by add(), never changed afterwards. A call that runs with the GIL released keeps its row alive
 * (a reference) while other threads add rows or clear the table; the row is freed when nobody holds it. */
typedef struct {
    long refs;          /* tables holding it + calls using it; changed only with the GIL held */
    entry_fn entry;
    int dynamic;
    int nparams, nsyms, nalloc, nsout, nret, tuple;
    PSpec p[MAXP];
    OSpec a[MAXP];
    int sout_type[MAXP];
    char ret_kind[MAXP];  /* 'p' argument, 'a' allocation, 's' scalar */
    int ret_index[MAXP];
    int ncode;            /* sizes computed from sizes (lang.empty((n + 1,))): a program over syms, see derive() */
    int64_t code[MAXCODE];
} Spec;

/* (Reference counts of rows and tables change only with the GIL held; on a free-threaded Python the module, which
 * does not declare Py_mod_gil, runs with the GIL enabled.)
 * The table a call reads: an immutable, reference-counted list of rows, newest first. add() and clear() publish
 * a new table (copy-on-write) and release the old one; a call in flight keeps the table it started with. */
typedef struct {
    long refs;
    int n;
    Spec *rows[MAXS];
} Table;

static void spec_release(Spec *s) {
    if (s && --s->refs == 0) PyMem_Free(s);
}

static void table_release(Table *t) {
    if (!t || --t->refs > 0) return;
    for (int i = 0; i < t->n; ++i) spec_release(t->rows[i]);
    PyMem_Free(t);
}

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *fallback;
    PyObject *on_error;     /* on_error(entry address, code): raises the kernel's error */
    PyObject *observer;     /* None, or observer(entry address, seconds, sizes) after each call (the profiler) */
    long long calls;
    int nspecs;             /* rows in the current table (read-only attribute) */
    Table *table;           /* NULL: empty */
} Launcher;

static int read_dims(PyObject *t, npy_intp *dims, int *ndim) {
    Py_ssize_t n = PyTuple_Size(t);
    if (n < 0 || n > MAXD) { PyErr_SetString(PyExc_ValueError, "too many dimensions"); return -1; }
    *ndim = (int)n;
    for (Py_ssize_t k = 0; k < n; ++k) {
        dims[k] = (npy_intp)PyLong_AsLongLong(PyTuple_GET_ITEM(t, k));
        if (dims[k] == -1 && PyErr_Occurred()) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------
 * Output memory: NumPy allocates a kernel's outputs through output_cache.c's allocator (large blocks kept for reuse
 * when NumPy frees them; see there).
 * ------------------------------------------------------------------------------------------------------------ */
#include "output_cache.h"

static PyDataMem_Handler handler = {
    "asc_output_cache", 1, {NULL, asc_oc_malloc, asc_oc_calloc, asc_oc_realloc, asc_oc_free}};
static PyObject *handler_capsule = NULL;

/* a new C-contiguous array from the output cache */
static PyObject *new_output(int ndim, npy_intp *dims, int type_num) {
    PyObject *old = PyDataMem_SetHandler(handler_capsule);
    if (!old) return NULL;
    PyObject *a = PyArray_SimpleNew(ndim, dims, type_num);
    PyObject *back = PyDataMem_SetHandler(old);
    Py_DECREF(old);
    Py_XDECREF(back);
    return a;
}

static PyObject *mod_empty(PyObject *m, PyObject *args) {
    PyObject *shape;
    int type_num;
    if (!PyArg_ParseTuple(args, "O!i", &PyTuple_Type, &shape, &type_num)) return NULL;
    npy_intp dims[MAXD];
    int ndim;
    if (read_dims(shape, dims, &ndim) < 0) return NULL;
    return new_output(ndim, dims, type_num);
}

static PyObject *mod_set_cache_limit(PyObject *m, PyObject *args) {
    unsigned long long limit;
    if (!PyArg_ParseTuple(args, "K", &limit)) return NULL;
    asc_oc_set_limit((size_t)limit);
    Py_RETURN_NONE;
}

static PyObject *mod_cache_stats(PyObject *m, PyObject *unused) {
    AscOcStats st;
    asc_oc_stats(&st);
    return Py_BuildValue("{s:n,s:n,s:n,s:L,s:L,s:n}", "cached_blocks", (Py_ssize_t)st.cached_blocks, "cached_bytes",
                         (Py_ssize_t)st.cached_bytes, "live_blocks", (Py_ssize_t)st.live_blocks, "reuses", st.reuses,
                         "maps", st.maps, "limit", (Py_ssize_t)st.limit);
}

/* ---- torch tensors: recognized by type; their dtype, shape, strides and data pointer read through attributes */
static PyObject *torch_tensor_type = NULL;   /* torch.Tensor, once torch is imported (set_torch) */
static PyObject *torch_from_numpy = NULL;    /* torch.from_numpy */
static PyObject *torch_dtypes = NULL;        /* dict: NumPy type number -> torch dtype */
static int torch_no_from_numpy = -1;         /* the type number torch.from_numpy cannot take (bfloat16) */

static PyObject *mod_set_torch(PyObject *m, PyObject *args) {
    PyObject *tt, *fn, *dt;
    if (!PyArg_ParseTuple(args, "OOO!i", &tt, &fn, &PyDict_Type, &dt, &torch_no_from_numpy)) return NULL;
    Py_XDECREF(torch_tensor_type); Py_XDECREF(torch_from_numpy); Py_XDECREF(torch_dtypes);
    Py_INCREF(tt); Py_INCREF(fn); Py_INCREF(dt);
    torch_tensor_type = tt; torch_from_numpy = fn; torch_dtypes = dt;
    Py_RETURN_NONE;
}

/* the attribute and method names torch_view reads, interned once (a name made per call costs a string and its hash) */
static PyObject *s_dtype, *s_is_cpu, *s_requires_grad, *s_is_contiguous, *s_is_neg, *s_shape, *s_data_ptr;

static int intern_names(void) {
    if (s_dtype) return 0;
    s_dtype = PyUnicode_InternFromString("dtype");
    s_is_cpu = PyUnicode_InternFromString("is_cpu");
    s_requires_grad = PyUnicode_InternFromString("requires_grad");
    s_is_contiguous = PyUnicode_InternFromString("is_contiguous");
    s_is_neg = PyUnicode_InternFromString("is_neg");
    s_shape = PyUnicode_InternFromString("shape");
    s_data_ptr = PyUnicode_InternFromString("data_ptr");
    return (s_dtype && s_is_cpu && s_requires_grad && s_is_contiguous && s_is_neg && s_shape && s_data_ptr) ? 0 : -1;
}

/* a CPU torch tensor matching (type_num, ndim): its data pointer, shape and byte size; 0 when it does not match */
static int torch_view(PyObject *o, int type_num, int ndim, int written, void **data, npy_intp *shape,
                      npy_intp *nbytes) {
    if (!torch_tensor_type || (PyObject *)Py_TYPE(o) != torch_tensor_type) return 0;
    PyObject *key = PyLong_FromLong(type_num);
    PyObject *want = key ? PyDict_GetItem(torch_dtypes, key) : NULL;   /* borrowed */
    Py_XDECREF(key);
    PyObject *dt = PyObject_GetAttr(o, s_dtype);
    int ok = dt && want && dt == want;
    Py_XDECREF(dt);
    if (!ok) { PyErr_Clear(); return 0; }
    PyObject *r = PyObject_GetAttr(o, s_is_cpu);
    ok = r == Py_True; Py_XDECREF(r);
    r = PyObject_GetAttr(o, s_requires_grad);
    ok = ok && r == Py_False; Py_XDECREF(r);      /* grad-requiring tensors: the Python path decides */
    if (!ok) { PyErr_Clear(); return 0; }
    r = PyObject_CallMethodNoArgs(o, s_is_contiguous);
    ok = r == Py_True; Py_XDECREF(r);
    if (!ok) { PyErr_Clear(); return 0; }
    /* the negative bit (torch._neg_view, t.conj().imag): memory holds the values unsigned; the Python path refuses */
    r = PyObject_CallMethodNoArgs(o, s_is_neg);
    ok = r == Py_False; Py_XDECREF(r);
    if (!ok) { PyErr_Clear(); return 0; }
    PyObject *sh = PyObject_GetAttr(o, s_shape);
    if (!sh || PySequence_Size(sh) != ndim) { Py_XDECREF(sh); PyErr_Clear(); return 0; }
    npy_intp n = 1;
    for (int d = 0; d < ndim; ++d) {
        PyObject *v = PySequence_GetItem(sh, d);
        shape[d] = v ? (npy_intp)PyLong_AsLongLong(v) : -1;
        Py_XDECREF(v);
        n *= shape[d];
    }
    Py_DECREF(sh);
    r = PyObject_CallMethodNoArgs(o, s_data_ptr);
    if (!r || PyErr_Occurred()) { Py_XDECREF(r); PyErr_Clear(); return 0; }
    *data = (void *)(uintptr_t)PyLong_AsUnsignedLongLong(r);
    Py_DECREF(r);
    PyArray_Descr *descr = PyArray_DescrFromType(type_num);
    *nbytes = n * (descr ? (npy_intp)PyDataType_ELSIZE(descr) : 0);
    Py_XDECREF(descr);
    /* no memory behind a non-empty tensor (freed storage, a fake tensor): the Python path refuses it */
    if (*data == NULL && *nbytes != 0) return 0;
    return 1;
}

/* the row described by add()'s arguments, into sp (zeroed); -1 with an exception set */
static int add_parse(Spec *sp, unsigned long long entry, int dynamic, int nsyms, int tuple, PyObject *params,
                     PyObject *allocs, PyObject *souts, PyObject *rets) {
    sp->entry = (entry_fn)(uintptr_t)entry;
    sp->dynamic = dynamic; sp->nsyms = nsyms; sp->tuple = tuple;
    sp->nparams = (int)PyTuple_GET_SIZE(params);
    for (int i = 0; i < sp->nparams; ++i) {
        PyObject *d;
        const char *kind;
        int written;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(params, i), "siO!p", &kind, &sp->p[i].type_num, &PyTuple_Type, &d,
                              &written))
            return -1;
        sp->p[i].kind = kind[0];
        sp->p[i].written = (char)written;
        if (kind[0] != 't' && sp->p[i].type_num >= 0) {
            /* a builtin NumPy scalar type: static, so the reference is simply kept */
            sp->p[i].src = (PyTypeObject *)PyArray_TypeObjectFromType(sp->p[i].type_num);
            if (!sp->p[i].src) return -1;
        }
        if (read_dims(d, sp->p[i].dims, &sp->p[i].ndim) < 0) return -1;
    }
    sp->nalloc = (int)PyTuple_GET_SIZE(allocs);
    for (int i = 0; i < sp->nalloc; ++i) {
        PyObject *d;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(allocs, i), "iO!", &sp->a[i].type_num, &PyTuple_Type, &d)) return -1;
        if (read_dims(d, sp->a[i].dims, &sp->a[i].ndim) < 0) return -1;
    }
    sp->nsout = (int)PyTuple_GET_SIZE(souts);
    for (int i = 0; i < sp->nsout; ++i) {
        sp->sout_type[i] = (int)PyLong_AsLong(PyTuple_GET_ITEM(souts, i));
        if (PyErr_Occurred()) return -1;
    }
    sp->nret = (int)PyTuple_GET_SIZE(rets);
    for (int i = 0; i < sp->nret; ++i) {
        const char *kind;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(rets, i), "si", &kind, &sp->ret_index[i])) return -1;
        sp->ret_kind[i] = kind[0];
    }
    return 0;
}

/* add(entry, dynamic, nsyms, params, allocs, scalar_outs, rets, tuple[, derived])
 *   params: ((kind, type_num, dims, written), ...); allocs: ((type_num, dims), ...); rets: ((kind, index), ...);
 *   derived: the program of derive() as a flat tuple of ints (launcher.size_program) */
static PyObject *Launcher_add(Launcher *self, PyObject *args) {
    unsigned long long entry;
    int dynamic, nsyms, tuple;
    PyObject *params, *allocs, *souts, *rets, *derived = NULL;
    if (!PyArg_ParseTuple(args, "KiiO!O!O!O!p|O!", &entry, &dynamic, &nsyms, &PyTuple_Type, &params, &PyTuple_Type,
                          &allocs, &PyTuple_Type, &souts, &PyTuple_Type, &rets, &tuple, &PyTuple_Type, &derived))
        return NULL;
    if (PyTuple_GET_SIZE(params) > MAXP || PyTuple_GET_SIZE(allocs) > MAXP || PyTuple_GET_SIZE(souts) > MAXP ||
        PyTuple_GET_SIZE(rets) > MAXP || nsyms > MAXP || (derived && PyTuple_GET_SIZE(derived) > MAXCODE))
        Py_RETURN_FALSE;  /* too big for the table: the Python path serves it */
    Spec *row = PyMem_Calloc(1, sizeof(Spec));
    if (!row) return PyErr_NoMemory();
    if (add_parse(row, entry, dynamic, nsyms, tuple, params, allocs, souts, rets) < 0) { PyMem_Free(row); return NULL; }
    row->ncode = derived ? (int)PyTuple_GET_SIZE(derived) : 0;
    for (int i = 0; i < row->ncode; ++i) {
        row->code[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(derived, i));
        if (row->code[i] == -1 && PyErr_Occurred()) { PyMem_Free(row); return NULL; }
    }
    /* newest first; the oldest row falls off a full table (its calls take the Python path) */
    Table *old = self->table;
    Table *t = PyMem_Calloc(1, sizeof(Table));
    if (!t) { PyMem_Free(row); return PyErr_NoMemory(); }
    t->refs = 1;
    row->refs = 1;
    t->rows[0] = row;
    int keep = old ? (old->n < MAXS ? old->n : MAXS - 1) : 0;
    for (int i = 0; i < keep; ++i) { t->rows[i + 1] = old->rows[i]; old->rows[i]->refs++; }
    t->n = keep + 1;
    self->table = t;
    self->nspecs = t->n;
    table_release(old);
    Py_RETURN_TRUE;
}

static PyObject *Launcher_clear(Launcher *self, PyObject *unused) {
    Table *old = self->table;
    self->table = NULL;
    self->nspecs = 0;
    table_release(old);
    Py_RETURN_NONE;
}

/* double -> float16 bits rounded to nearest even once, as NumPy casts (np.array(v, np.float16)); overflow gives
 * inf as there (the Python path silences NumPy's warning); 0 for NaN (the Python path keeps NumPy's NaN bits) */
static int d2h_bits(double v, uint16_t *out) {
    uint64_t b;
    memcpy(&b, &v, 8);
    uint16_t sign = (uint16_t)((b >> 48) & 0x8000u);
    int e = (int)((b >> 52) & 0x7ff) - 1023;
    if (e == 1024) {                               /* inf or NaN */
        if (b & 0x000fffffffffffffull) return 0;
        *out = sign | 0x7c00u;
        return 1;
    }
    if (e < -25) { *out = sign; return 1; }        /* below half the smallest subnormal (2^-25): +-0 */
    uint64_t m = (b & 0x000fffffffffffffull) | (1ull << 52);
    int q = e < -14 ? -14 : e;                     /* the result's quantum is 2^(q - 10) */
    int s = 42 + (q - e);                          /* bits of m below that quantum: 42..53 */
    uint64_t n = m >> s, rem = m & ((1ull << s) - 1), half = 1ull << (s - 1);
    if (rem > half || (rem == half && (n & 1))) n++;
    uint32_t bits = ((uint32_t)(q + 14) << 10) + (uint32_t)n;   /* a carry out of the significand bumps the exponent */
    if (bits >= 0x7c00u) bits = 0x7c00u;
    *out = sign | (uint16_t)bits;
    return 1;
}

/* double -> bfloat16 bits rounded once to nearest even, as the Python path (asc.dtypes.to_bfloat16): to float32
 * rounded to odd (toward zero, the lowest bit set when inexact: float32 keeps 16 more bits, so the final rounding
 * is that of v itself), then to nearest even; 0 for NaN and beyond float32's range (the Python path decides) */
static int d2bf_bits(double v, uint16_t *out) {
    if (v != v || v > 3.4028234663852886e38 || v < -3.4028234663852886e38) return 0;
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((double)f != v) {
        if (fabs((double)f) > fabs(v)) u -= 1u;     /* one step toward zero */
        u |= 1u;
    }
    *out = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    return 1;
}

/* a NumPy scalar of exactly the row's type into the slot, converted to the parameter's type as the Python path
 * does (np.array(value, dtype)); 0 when it does not fit (another type, an int out of range, a float for an int or
 * bool parameter: the Python path decides, or explains) */
static int numpy_scalar_in(const PSpec *p, PyObject *o, uint64_t *slot) {
    if (Py_TYPE(o) != p->src) return 0;
    union { double d; float f; int64_t q; int32_t i; int16_t h; int8_t b; uint8_t B; npy_bool t; npy_half e; } raw;
    PyArray_ScalarAsCtype(o, &raw);
    if (p->kind == 'e' || p->kind == 'E') {        /* 16-bit float parameters: from float16 / 32 / 64 scalars */
        if (p->type_num == NPY_HALF && p->kind == 'e') { memcpy(slot, &raw.e, 2); return 1; }
        if (p->type_num != NPY_FLOAT && p->type_num != NPY_DOUBLE) return 0;
        double v = p->type_num == NPY_FLOAT ? raw.f : raw.d;
        return p->kind == 'e' ? d2h_bits(v, (uint16_t *)slot) : d2bf_bits(v, (uint16_t *)slot);
    }
    int is_float = 0;
    double dv = 0;
    long long iv = 0;
    switch (p->type_num) {
    case NPY_DOUBLE: is_float = 1; dv = raw.d; break;
    case NPY_FLOAT: is_float = 1; dv = raw.f; break;
    case NPY_INT64: iv = raw.q; break;
    case NPY_INT32: iv = raw.i; break;
    case NPY_INT16: iv = raw.h; break;
    case NPY_INT8: iv = raw.b; break;
    case NPY_UINT8: iv = raw.B; break;
    case NPY_BOOL: iv = raw.t != 0; break;
    default: return 0;          /* float16, unsigned 16-64 bit, ...: the Python path */
    }
    switch (p->kind) {
    case 'd': { double v = is_float ? dv : (double)iv; memcpy(slot, &v, 8); return 1; }
    case 'f': { float v = is_float ? (float)dv : (float)iv; memcpy(slot, &v, 4); return 1; }
    case '?':
        if (p->type_num != NPY_BOOL) return 0;
        *(unsigned char *)slot = (unsigned char)iv;
        return 1;
    }
    if (is_float) return 0;
    switch (p->kind) {
    case 'q': memcpy(slot, &iv, 8); return 1;
    case 'i': if (iv < INT32_MIN || iv > INT32_MAX) return 0; { int32_t x = (int32_t)iv; memcpy(slot, &x, 4); } return 1;
    case 'h': if (iv < INT16_MIN || iv > INT16_MAX) return 0; { int16_t x = (int16_t)iv; memcpy(slot, &x, 2); } return 1;
    case 'b': if (iv < INT8_MIN || iv > INT8_MAX) return 0; { int8_t x = (int8_t)iv; memcpy(slot, &x, 1); } return 1;
    case 'B': if (iv < 0 || iv > 255) return 0; { uint8_t x = (uint8_t)iv; memcpy(slot, &x, 1); } return 1;
    }
    return 0;
}

/* a Python number into the scalar slot; 0 when it does not fit this row (the Python path decides) */
static int scalar_in(const PSpec *p, PyObject *o, uint64_t *slot) {
    if (p->src) return numpy_scalar_in(p, o, slot);
    char kind = p->kind;
    if (kind == 'D') {        /* a parameter typed from a Python float argument: only a float matches */
        if (!PyFloat_CheckExact(o)) return 0;
        double v = PyFloat_AS_DOUBLE(o);
        memcpy(slot, &v, sizeof v);
        return 1;
    }
    if (kind == 'd' || kind == 'f' || kind == 'e' || kind == 'E') {
        double v;
        if (PyFloat_CheckExact(o)) v = PyFloat_AS_DOUBLE(o);
        else if (PyLong_CheckExact(o)) {
            v = PyLong_AsDouble(o);
            if (v == -1.0 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
            /* 16-bit floats from ints beyond 2^53 (rounded twice through double?): the Python path */
            if ((kind == 'e' || kind == 'E') && (v > 9007199254740992.0 || v < -9007199254740992.0)) return 0;
        }
        else return 0;
        if (kind == 'd') memcpy(slot, &v, sizeof v);
        else if (kind == 'f') { float f = (float)v; memcpy(slot, &f, sizeof f); }
        else return kind == 'e' ? d2h_bits(v, (uint16_t *)slot) : d2bf_bits(v, (uint16_t *)slot);
        return 1;
    }
    if (kind == '?') {
        if (o == Py_True || o == Py_False) { *(unsigned char *)slot = (unsigned char)(o == Py_True); return 1; }
        return 0;
    }
    if (!PyLong_CheckExact(o)) return 0;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) { PyErr_Clear(); return 0; }
    switch (kind) {
    case 'q': memcpy(slot, &v, 8); return 1;
    case 'i': if (v < INT32_MIN || v > INT32_MAX) return 0; { int32_t x = (int32_t)v; memcpy(slot, &x, 4); } return 1;
    case 'h': if (v < INT16_MIN || v > INT16_MAX) return 0; { int16_t x = (int16_t)v; memcpy(slot, &x, 2); } return 1;
    case 'b': if (v < INT8_MIN || v > INT8_MAX) return 0; { int8_t x = (int8_t)v; memcpy(slot, &x, 1); } return 1;
    case 'B': if (v < 0 || v > 255) return 0; { uint8_t x = (uint8_t)v; memcpy(slot, &x, 1); } return 1;
    }
    return 0;
}

/* the value of an integer scalar slot of kind p->kind; 0 for another kind */
static int int_slot(const PSpec *p, const uint64_t *slot, npy_intp *v) {
    switch (p->kind) {
    case 'q': { int64_t x; memcpy(&x, slot, 8); *v = (npy_intp)x; return 1; }
    case 'i': { int32_t x; memcpy(&x, slot, 4); *v = x; return 1; }
    case 'h': { int16_t x; memcpy(&x, slot, 2); *v = x; return 1; }
    case 'b': { int8_t x; memcpy(&x, slot, 1); *v = x; return 1; }
    case 'B': { uint8_t x; memcpy(&x, slot, 1); *v = x; return 1; }
    }
    return 0;
}

/* 1 when `shape` fits the row's sizes (fixed, or size symbols bound consistently across arguments) */
static int bind_dims(const PSpec *p, const npy_intp *shape, int64_t *syms) {
    for (int d = 0; d < p->ndim; ++d) {
        npy_intp want = p->dims[d];
        if (want >= 0) { if (shape[d] != want) return 0; }
        else {
            int64_t *sym = &syms[-want - 1];
            if (*sym < 0) *sym = shape[d];
            else if (*sym != shape[d]) return 0;
        }
    }
    return 1;
}

/* The sizes of row s computed from its other sizes (lang.empty((n + 1,)), dynamic_shape=True), into syms: a
 * program of (op, argument) words, op 0 pushes the constant argument, 1 pushes size argument, 2..6 replace the
 * two on top by their + - * // % (Python's: // and % round toward minus infinity), 7 pops the top into size
 * argument. 0 (the Python path, which names the values) on a negative size, a division by zero, an overflow. */
static int derive(const Spec *s, int64_t *syms) {
    int64_t st[MAXSTACK];
    int n = 0;
    for (int i = 0; i + 1 < s->ncode; i += 2) {
        int64_t op = s->code[i], arg = s->code[i + 1];
        if (op == 0 || op == 1) {
            if (n == MAXSTACK || (op == 1 && (arg < 0 || arg >= s->nsyms))) return 0;
            st[n++] = op == 0 ? arg : syms[arg];
            continue;
        }
        if (op == 7) {
            if (n < 1 || arg < 0 || arg >= s->nsyms || st[n - 1] < 0) return 0;
            syms[arg] = st[--n];
            continue;
        }
        if (n < 2) return 0;
        int64_t a = st[n - 2], b = st[n - 1], r;
        switch (op) {
        case 2: if (__builtin_add_overflow(a, b, &r)) return 0; break;
        case 3: if (__builtin_sub_overflow(a, b, &r)) return 0; break;
        case 4: if (__builtin_mul_overflow(a, b, &r)) return 0; break;
        case 5: case 6: {
            if (b == 0 || (a == INT64_MIN && b == -1)) return 0;
            int64_t q = a / b, m = a % b;
            if (m != 0 && ((m < 0) != (b < 0))) { q -= 1; m += b; }
            r = op == 5 ? q : m;
            break;
        }
        default: return 0;
        }
        st[n - 2] = r;
        n -= 1;
    }
    return 1;
}

/* 1: the call matches row s and is ready (slots, sizes filled); 0: not this row */
static int match(const Spec *s, PyObject *const *args, void **slots, uint64_t *sbuf, int64_t *syms,
                 char **lo, char **hi, int *any_torch) {
    *any_torch = 0;
    for (int k = 0; k < s->nsyms; ++k) syms[k] = -1;
    for (int i = 0; i < s->nparams; ++i) {
        const PSpec *p = &s->p[i];
        PyObject *o = args[i];
        if (p->kind != 't') {
            if (!scalar_in(p, o, &sbuf[i])) return 0;
            slots[i] = &sbuf[i];
            lo[i] = hi[i] = NULL;
            if (p->ndim == 1) {         /* an int argument used as a size: its value, or the size symbol it binds */
                npy_intp v;
                if (!int_slot(p, &sbuf[i], &v) || v < 0 || !bind_dims(p, &v, syms)) return 0;
            }
            continue;
        }
        if (!PyArray_CheckExact(o)) {
            void *data;
            npy_intp shape[MAXD], nbytes;
            if (!torch_view(o, p->type_num, p->ndim, p->written, &data, shape, &nbytes)) return 0;
            if (!bind_dims(p, shape, syms)) return 0;
            slots[i] = data;
            lo[i] = nbytes ? (char *)data : NULL;
            hi[i] = lo[i] + nbytes;
            *any_torch = 1;
            continue;
        }
        PyArrayObject *a = (PyArrayObject *)o;
        if (PyArray_TYPE(a) != p->type_num || PyArray_NDIM(a) != p->ndim) return 0;
        /* byte order is not in the type number ('>f4' is NPY_FLOAT too): a swapped array is the Python path's */
        if (!PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISNOTSWAPPED(a)) return 0;
        if (p->written && !PyArray_ISWRITEABLE(a)) return 0;
        if (!bind_dims(p, PyArray_DIMS(a), syms)) return 0;
        slots[i] = PyArray_DATA(a);
        npy_intp nbytes = PyArray_NBYTES(a);
        lo[i] = nbytes ? (char *)PyArray_DATA(a) : NULL;
        hi[i] = lo[i] + nbytes;
    }
    /* arguments that share memory, when the kernel writes one of them: the Python path refuses the call */
    for (int i = 0; i < s->nparams; ++i) {
        if (!lo[i]) continue;
        for (int j = i + 1; j < s->nparams; ++j) {
            if (!lo[j] || !(s->p[i].written || s->p[j].written)) continue;
            if (lo[i] < hi[j] && lo[j] < hi[i]) return 0;
        }
    }
    return s->ncode == 0 || derive(s, syms);
}

/* runs the matched row s (slots, sizes filled by match()) and builds its result; called with the GIL held, s
 * held by the caller (it stays valid while the GIL is released, whatever other threads do to the table) */
static PyObject *run_row(Launcher *self, const Spec *s, PyObject *const *args, void **slots, uint64_t *sout,
                         int64_t *syms, int any_torch) {
    PyObject *allocs[MAXP];
    for (int k = 0; k < s->nalloc; ++k) {
        const OSpec *o = &s->a[k];
        npy_intp dims[MAXD];
        for (int d = 0; d < o->ndim; ++d) dims[d] = o->dims[d] >= 0 ? o->dims[d] : syms[-o->dims[d] - 1];
        allocs[k] = new_output(o->ndim, dims, o->type_num);
        if (!allocs[k]) { for (int j = 0; j < k; ++j) Py_DECREF(allocs[j]); return NULL; }
        slots[s->nparams + k] = PyArray_DATA((PyArrayObject *)allocs[k]);
    }
    for (int k = 0; k < s->nsout; ++k) { sout[k] = 0; slots[s->nparams + s->nalloc + k] = &sout[k]; }
    int rc;
    entry_fn fn = s->entry;
    struct timespec t0, t1;
    int observed = self->observer != NULL && self->observer != Py_None;
    if (observed) clock_gettime(CLOCK_MONOTONIC, &t0);
    Py_BEGIN_ALLOW_THREADS
    rc = fn(slots, syms);
    Py_END_ALLOW_THREADS
    self->calls++;
    if (observed && rc == 0) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        PyObject *sizes = PyTuple_New(s->nsyms);
        if (!sizes) { for (int k = 0; k < s->nalloc; ++k) Py_DECREF(allocs[k]); return NULL; }
        for (int k = 0; k < s->nsyms; ++k) PyTuple_SET_ITEM(sizes, k, PyLong_FromLongLong(syms[k]));
        PyObject *r = PyObject_CallFunction(self->observer, "KdN", (unsigned long long)(uintptr_t)s->entry,
                                            sec, sizes);
        if (!r) { for (int k = 0; k < s->nalloc; ++k) Py_DECREF(allocs[k]); return NULL; }
        Py_DECREF(r);
    }
    if (rc != 0) {
        for (int k = 0; k < s->nalloc; ++k) Py_DECREF(allocs[k]);
        PyObject *r = PyObject_CallFunction(self->on_error, "Ki", (unsigned long long)(uintptr_t)s->entry, rc);
        if (r) {
            Py_DECREF(r);
            PyErr_Format(PyExc_RuntimeError, "asc kernel failed with code %d", rc);
        }
        return NULL;
    }
    PyObject *outs[MAXP];
    int nout = s->nret;
    for (int k = 0; k < nout; ++k) {
        int ix = s->ret_index[k];
        if (s->ret_kind[k] == 'p') { outs[k] = args[ix]; Py_INCREF(outs[k]); }
        else if (s->ret_kind[k] == 'a') { outs[k] = allocs[ix]; Py_INCREF(outs[k]); }
        else {
            PyArray_Descr *descr = PyArray_DescrFromType(s->sout_type[ix]);
            outs[k] = descr ? PyArray_Scalar(&sout[ix], descr, NULL) : NULL;
            Py_XDECREF(descr);
            if (!outs[k]) {
                for (int j = 0; j < k; ++j) Py_DECREF(outs[j]);
                for (int j = 0; j < s->nalloc; ++j) Py_DECREF(allocs[j]);
                return NULL;
            }
        }
    }
    for (int k = 0; k < s->nalloc; ++k) Py_DECREF(allocs[k]);
    if (any_torch) {       /* outputs come back as the inputs' kind: torch tensors sharing the memory */
        for (int k = 0; k < nout; ++k) {
            if (s->ret_kind[k] != 'a') continue;
            PyObject *t = PyObject_CallOneArg(torch_from_numpy, outs[k]);
            Py_DECREF(outs[k]);
            outs[k] = t;
            if (!t) { for (int j = 0; j < nout; ++j) if (j != k) Py_XDECREF(outs[j]); return NULL; }
        }
    }
    if (s->tuple) {
        PyObject *t = PyTuple_New(nout);
        if (!t) { for (int k = 0; k < nout; ++k) Py_DECREF(outs[k]); return NULL; }
        for (int k = 0; k < nout; ++k) PyTuple_SET_ITEM(t, k, outs[k]);
        return t;
    }
    if (nout == 0) Py_RETURN_NONE;
    return outs[0];
}

static PyObject *Launcher_vectorcall(PyObject *obj, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Launcher *self = (Launcher *)obj;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    void *slots[3 * MAXP];
    uint64_t sbuf[MAXP], sout[MAXP];
    int64_t syms[MAXP];
    char *lo[MAXP], *hi[MAXP];
    Table *t = self->table;
    if (t && (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0)) {
        t->refs++;          /* this call's table: add() or clear() from another thread publish a new one */
        for (int r = 0; r < t->n; ++r) {
            const Spec *s = t->rows[r];
            int any_torch;
            if (s->nparams != nargs || !match(s, args, slots, sbuf, syms, lo, hi, &any_torch)) continue;
            if (any_torch) {
                int convertible = 1;
                for (int k = 0; k < s->nalloc; ++k) convertible &= s->a[k].type_num != torch_no_from_numpy;
                if (!convertible) continue;
            }
            PyObject *res = run_row(self, s, args, slots, sout, syms, any_torch);
            table_release(t);
            return res;
        }
        table_release(t);
    }
    return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
}

static PyObject *Launcher_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    PyObject *fallback, *on_error;
    if (!PyArg_ParseTuple(args, "OO", &fallback, &on_error)) return NULL;
    if (!PyCallable_Check(fallback) || !PyCallable_Check(on_error)) {
        PyErr_SetString(PyExc_TypeError, "fallback and on_error must be callable");
        return NULL;
    }
    Launcher *self = (Launcher *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->vectorcall = Launcher_vectorcall;
    Py_INCREF(fallback);
    self->fallback = fallback;
    Py_INCREF(on_error);
    self->on_error = on_error;
    Py_INCREF(Py_None);
    self->observer = Py_None;
    self->nspecs = 0;
    self->table = NULL;
    self->calls = 0;
    return (PyObject *)self;
}

static int Launcher_traverse(Launcher *self, visitproc visit, void *arg) {
    Py_VISIT(self->fallback);
    Py_VISIT(self->on_error);
    Py_VISIT(self->observer);
    return 0;
}

static int Launcher_clear_refs(Launcher *self) {
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->on_error);
    Py_CLEAR(self->observer);
    return 0;
}

static void Launcher_dealloc(Launcher *self) {
    PyObject_GC_UnTrack(self);
    Launcher_clear_refs(self);
    table_release(self->table);
    self->table = NULL;
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Launcher_methods[] = {
    {"add", (PyCFunction)Launcher_add, METH_VARARGS, "add a compiled specialization (newest first)"},
    {"clear", (PyCFunction)Launcher_clear, METH_NOARGS, "forget every specialization"},
    {NULL}};

static PyMemberDef Launcher_members[] = {
    {"calls", T_LONGLONG, offsetof(Launcher, calls), READONLY, "calls served without Python"},
    {"nspecs", T_INT, offsetof(Launcher, nspecs), READONLY, "specializations in the table"},
    {"observer", T_OBJECT, offsetof(Launcher, observer), 0, "None, or called with (entry, seconds, sizes) per call"},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Launcher, vectorcall), READONLY},
    {NULL}};

static PyTypeObject LauncherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "_asc_launch.Launcher",
    .tp_basicsize = sizeof(Launcher),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = Launcher_new,
    .tp_dealloc = (destructor)Launcher_dealloc,
    .tp_traverse = (traverseproc)Launcher_traverse,
    .tp_clear = (inquiry)Launcher_clear_refs,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Launcher, vectorcall),
    .tp_methods = Launcher_methods,
    .tp_members = Launcher_members,
};

static PyMethodDef module_methods[] = {
    {"empty", mod_empty, METH_VARARGS, "empty(shape, type_num): a new array from the output cache"},
    {"set_cache_limit", mod_set_cache_limit, METH_VARARGS, "the most bytes of freed outputs kept for reuse"},
    {"cache_stats", mod_cache_stats, METH_NOARGS, "the output cache's counters"},
    {"set_torch", mod_set_torch, METH_VARARGS,
     "set_torch(torch.Tensor, torch.from_numpy, {type_num: dtype}, bfloat16 type_num)"},
    {NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_asc_launch", "asc's compiled kernel launcher", -1,
                                    module_methods};

PyMODINIT_FUNC PyInit__asc_launch(void) {
    import_array();
    if (intern_names() < 0) return NULL;
    if (PyType_Ready(&LauncherType) < 0) return NULL;
    handler_capsule = PyCapsule_New(&handler, "mem_handler", NULL);
    if (!handler_capsule) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&LauncherType);
    if (PyModule_AddObject(m, "Launcher", (PyObject *)&LauncherType) < 0) { Py_DECREF(m); return NULL; }
    if (PyModule_AddIntConstant(m, "TABLE_ROWS", MAXS) < 0) { Py_DECREF(m); return NULL; }
    return m;
}
