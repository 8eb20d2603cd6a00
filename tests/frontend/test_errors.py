"""Compile errors: the class, the user's line and column, the message, the caret, and a clean traceback.

Each kernel line an error must point at ends with a marker comment `# <name>`; `line_of(name)` finds it, so the
expected line numbers follow any edit of this file.
"""
import os
import traceback

import numpy as np
import pytest

import asc.language as lang
from asc.errors import AscError, CompileError, KernelTypeError, UnsupportedError

N = lang.dim("N")
G = 3

THIS_FILE = os.path.realpath(__file__)
with open(THIS_FILE, encoding="utf-8") as _f:
    LINES = _f.read().splitlines()

INTERNAL_DIRS = tuple(os.sep + os.path.join("asc", d) + os.sep for d in ("frontend", "backends", "passes"))


def line_of(marker: str) -> int:
    """The 1-based line of this file that carries the comment `# <marker>`."""
    tag = f"# <{marker}>"
    hits = [n for n, text in enumerate(LINES, 1) if tag in text]
    assert len(hits) == 1, f"marker {tag!r} found {len(hits)} times"
    return hits[0]


def vec(n=4, dtype=np.float32):
    return np.arange(n, dtype=dtype)


def check_clean_traceback(e: BaseException):
    frames = traceback.extract_tb(e.__traceback__)
    internal = [f"{f.filename}:{f.lineno}" for f in frames if any(d in f.filename for d in INTERNAL_DIRS)]
    assert not internal, f"asc-internal frames in the traceback: {internal}"
    assert e.__cause__ is None
    assert e.__context__ is None or e.__suppress_context__
    assert "builder.py" not in str(e)
    assert "Traceback" not in str(e)


def check_error(excinfo, cls, marker, msg, at=None, span=True, after=None):
    """The error raised is exactly `cls`, at the line marked `marker`, its message contains `msg`, and when `at`
    is given the caret points at the first occurrence of `at` on that line (after the text `after`, if given),
    and underlines all of it when `span`."""
    e = excinfo.value
    assert type(e) is cls, f"expected {cls.__name__}, got {type(e).__name__}: {e}"
    assert isinstance(e, CompileError)
    line = line_of(marker)
    assert e.loc is not None, f"no location: {e}"
    assert os.path.realpath(e.loc.file) == THIS_FILE
    assert e.loc.line == line, f"error at line {e.loc.line}, expected {line}:\n{e}"
    assert msg in e.msg, f"{msg!r} not in {e.msg!r}"
    text = str(e).splitlines()
    src = LINES[line - 1]
    stripped = src.strip()
    assert text[1] == "    " + stripped
    if at is not None:
        col = src.index(at, 0 if after is None else src.index(after) + len(after))
        assert e.loc.col == col, f"error at column {e.loc.col} (0-based), expected {col} ({at!r}):\n{e}"
        assert text[0] == f"{e.loc.file}:{line}:{col + 1}: {e.msg}"
        lead = len(src) - len(src.lstrip())
        caret = "    " + " " * (col - lead) + "^"
        if span:
            caret += "~" * (len(at) - 1)
            assert text[2] == caret, f"caret line {text[2]!r}, expected {caret!r}"
        else:
            assert text[2].startswith(caret) and set(text[2][len(caret):]) <= {"~"}, text[2]
    else:
        assert text[0].startswith(f"{e.loc.file}:{line}:")
    check_clean_traceback(e)
    return e


# ---------------------------------------------------------------------------------------------- unsupported Python


@lang.kernel
def k_try(x: lang.float32[N]):
    for i in range(N):
        try:  # <try>
            x[i] = 1.0
        except Exception:
            x[i] = 2.0


def test_try_except():
    x = vec()
    with pytest.raises(UnsupportedError) as ei:
        k_try(x)
    check_error(ei, UnsupportedError, "try", "unsupported Python feature: try-except", at="try", span=False)
    np.testing.assert_array_equal(x, vec())


@lang.kernel
def k_eval(x: lang.float32[N]):
    for i in range(N):
        x[i] = eval("1.0")  # <eval>


@lang.kernel
def k_exec(x: lang.float32[N]):
    for i in range(N):
        exec("x[i] = 1.0")  # <exec>


def test_eval():
    with pytest.raises(UnsupportedError) as ei:
        k_eval(vec())
    e = check_error(ei, UnsupportedError, "eval", "unsupported Python feature: eval", at="eval")
    assert e.msg == "unsupported Python feature: eval"


def test_exec():
    with pytest.raises(UnsupportedError) as ei:
        k_exec(vec())
    e = check_error(ei, UnsupportedError, "exec", "unsupported Python feature: exec", at="exec")
    assert e.msg == "unsupported Python feature: exec"


@lang.kernel
def k_lambda(x: lang.float32[N]):
    f = lambda a: a + 1.0  # <lambda>  # noqa: E731
    for i in range(N):
        x[i] = f(x[i])


@lang.kernel
def k_listcomp(x: lang.float32[N]):
    v = [j for j in range(3)]  # <listcomp>
    x[0] = v[0]


@lang.kernel
def k_genexp(x: lang.float32[N]):
    g = (j for j in range(3))  # <genexp>
    x[0] = g


@lang.kernel
def k_global(x: lang.float32[N]):
    global G  # <global>
    x[0] = G


@lang.kernel
def k_dict(x: lang.float32[N]):
    d = {"a": 1.0}  # <dict>
    x[0] = d["a"]


@lang.kernel
def k_list(x: lang.float32[N]):
    v = [1.0, 2.0]  # <list>
    x[0] = v[0]


@lang.kernel
def k_set(x: lang.float32[N]):
    s = {1.0, 2.0}  # <set>
    x[0] = s


@lang.kernel
def k_yield(x: lang.float32[N]):
    for i in range(N):
        yield x[i]  # <yield>


@lang.kernel
def k_class(x: lang.float32[N]):
    class P:  # <class>
        pass
    x[0] = 1.0


@lang.kernel
def k_with(x: lang.float32[N]):
    with open(os.devnull) as fh:  # <with>
        x[0] = 1.0
    del fh


@lang.kernel
def k_raise(x: lang.float32[N]):
    for i in range(N):
        if x[i] < 0.0:
            raise ValueError("negative")  # <raise>


@lang.kernel
def k_fstring(x: lang.float32[N]):
    for i in range(N):
        s = f"{i}"  # <fstring>
        print(s)


UNSUPPORTED_CASES = [
    # kernel, marker, feature named in the message, the node the caret points at, caret spans the node
    (k_lambda, "lambda", "lambda", "lambda a: a + 1.0", True),
    (k_listcomp, "listcomp", "list comprehension", "[j for j in range(3)]", True),
    (k_genexp, "genexp", "generator expression", "(j for j in range(3))", True),
    (k_global, "global", "global", "global G", True),
    (k_dict, "dict", "dict literal", '{"a": 1.0}', True),
    (k_list, "list", "list literal", "[1.0, 2.0]", True),
    (k_set, "set", "set literal", "{1.0, 2.0}", True),
    (k_yield, "yield", "yield", "yield x[i]", True),
    (k_class, "class", "class definition", "class", False),
    (k_with, "with", "with statement", "with", False),
    (k_raise, "raise", "raise", 'raise ValueError("negative")', True),
    (k_fstring, "fstring", "f-string", 'f"{i}"', True),
]


@pytest.mark.parametrize("kern, marker, feature, at, span", UNSUPPORTED_CASES,
                         ids=[c[1] for c in UNSUPPORTED_CASES])
def test_unsupported_feature(kern, marker, feature, at, span):
    x = vec()
    with pytest.raises(UnsupportedError) as ei:
        kern(x)
    check_error(ei, UnsupportedError, marker, f"unsupported Python feature: {feature}", at=at, span=span)
    np.testing.assert_array_equal(x, vec())


def _make_nonlocal_kernel():
    total = 0.0

    @lang.kernel
    def k_nonlocal(x: lang.float32[N]):
        nonlocal total  # <nonlocal>
        for i in range(N):
            x[i] = total

    return k_nonlocal


def test_nonlocal_in_nested_kernel():
    kern = _make_nonlocal_kernel()
    with pytest.raises(UnsupportedError) as ei:
        kern(vec())
    # the column is the one in the file, not in the dedented source of the nested function
    check_error(ei, UnsupportedError, "nonlocal", "unsupported Python feature: nonlocal", at="nonlocal total")


def test_unsupported_error_is_a_compile_error():
    with pytest.raises(CompileError):
        k_lambda(vec())
    with pytest.raises(AscError):
        k_lambda(vec())


# ---------------------------------------------------------------------------------------------- types and names


@lang.kernel
def k_changes_type(x: lang.float32[N], n: lang.int32[N]):
    for i in range(N):
        y = 1.5 * x[i]
        x[i] = y
        y = n[i]  # <changes-type>
        x[i] = y


def test_variable_changes_type():
    x, n = vec(), np.arange(4, dtype=np.int32)
    with pytest.raises(KernelTypeError) as ei:
        k_changes_type(x, n)
    e = check_error(ei, KernelTypeError, "changes-type", "variable 'y' changes type from float32 to int32", at="y")
    assert isinstance(e, TypeError)
    np.testing.assert_array_equal(x, vec())


def plain_helper(v):
    return v * 2.0


@lang.kernel
def k_plain_call(x: lang.float32[N]):
    for i in range(N):
        x[i] = plain_helper(x[i])  # <plain-call>


def test_call_to_plain_python_function():
    with pytest.raises(CompileError) as ei:
        k_plain_call(vec())
    e = check_error(ei, CompileError, "plain-call", "'plain_helper' is a plain Python function", at="plain_helper")
    assert "decorate it with @lang.func" in e.msg


@lang.kernel
def k_undefined(x: lang.float32[N]):
    for i in range(N):
        x[i] = foo + 1.0  # <undefined>  # noqa: F821


def test_undefined_name():
    with pytest.raises(CompileError) as ei:
        k_undefined(vec())
    e = check_error(ei, CompileError, "undefined", "name 'foo' is not defined", at="foo")
    assert e.msg == "name 'foo' is not defined"


@lang.kernel
def k_unicode_col(x: lang.float32[N]):
    for i in range(N):
        σ = 2.0
        x[i] = σ * bar  # <unicode-col>  # noqa: F821


def test_error_column_after_non_ascii_text():
    with pytest.raises(CompileError) as ei:
        k_unicode_col(vec())
    check_error(ei, CompileError, "unicode-col", "name 'bar' is not defined", at="bar")


# ---------------------------------------------------------------------------------------------- indexing


@lang.kernel
def k_negative_index(x: lang.float32[N]):
    x[-1] = 0.0  # <negative-index>


@lang.kernel
def k_negative_load(x: lang.float32[N], y: lang.float32[N]):
    for i in range(N):
        y[i] = x[-2]  # <negative-load>


def test_negative_constant_index_store():
    with pytest.raises(CompileError) as ei:
        k_negative_index(vec())
    e = check_error(ei, CompileError, "negative-index", "negative index -1", at="-1")
    assert "do not wrap negative indices" in e.msg


def test_negative_constant_index_load():
    x, y = vec(), vec()
    with pytest.raises(CompileError) as ei:
        k_negative_load(x, y)
    check_error(ei, CompileError, "negative-load", "negative index -2", at="-2")
    np.testing.assert_array_equal(y, vec())


@lang.kernel
def k_too_many_indices(x: lang.float32[N]):
    for i in range(N):
        x[i, 0] = 1.0  # <too-many-indices>


@lang.kernel
def k_too_few_indices(m: lang.float32[N, N], y: lang.float32[N]):
    for i in range(N):
        y[i] = m[i]  # <too-few-indices>


def test_too_many_indices():
    with pytest.raises(CompileError) as ei:
        k_too_many_indices(vec())
    check_error(ei, CompileError, "too-many-indices", "tensor 'x' has 1 dimension(s) but is indexed with 2",
                at="x[i, 0]")


def test_too_few_indices():
    with pytest.raises(CompileError) as ei:
        k_too_few_indices(np.zeros((4, 4), np.float32), vec())
    check_error(ei, CompileError, "too-few-indices", "tensor 'm' has 2 dimension(s) but is indexed with 1",
                at="m[i]")


# ---------------------------------------------------------------------------------------------- loops and returns


@lang.kernel
def k_for_over_tensor(x: lang.float32[N]):
    for v in x:  # <for-tensor>
        print(v)


@lang.kernel
def k_for_over_enumerate(x: lang.float32[N]):
    for v in enumerate(x):  # <for-enumerate>
        print(v)


@lang.kernel
def k_for_over_tuple(x: lang.float32[N]):
    for v in (1, 2, 3):  # <for-tuple>
        x[v] = 0.0


@pytest.mark.parametrize("kern, marker, at", [
    (k_for_over_tensor, "for-tensor", "x"),
    (k_for_over_enumerate, "for-enumerate", "enumerate(x)"),
    (k_for_over_tuple, "for-tuple", "(1, 2, 3)"),
], ids=["tensor", "enumerate", "tuple"])
def test_for_loop_not_over_range(kern, marker, at):
    x = vec()
    with pytest.raises(UnsupportedError) as ei:
        kern(x)
    check_error(ei, UnsupportedError, marker, "a kernel for loop must iterate over range(...) or lang.range(...)",
                at=at, after=" in ")
    np.testing.assert_array_equal(x, vec())


@lang.kernel
def k_return_loop_alloc(x: lang.float32[N]) -> lang.float32[N]:
    for i in range(N):
        out = lang.empty_like(x)
        out[i] = x[i]
    return out  # <return-loop-alloc>


@lang.kernel
def k_return_branch_alloc(x: lang.float32[N]) -> lang.float32[N]:
    if N > 2:
        out = lang.zeros_like(x)
    else:
        out = lang.zeros_like(x)
    return out  # <return-branch-alloc>


def test_return_tensor_allocated_in_loop():
    with pytest.raises(CompileError) as ei:
        k_return_loop_alloc(vec())
    e = check_error(ei, CompileError, "return-loop-alloc", "the returned tensor 'out' must be an argument or "
                    "allocated at the top level of the kernel", at="return out")
    assert "not inside a loop or branch" in e.msg


def test_return_tensor_allocated_in_branch_is_refused():
    # `out` is assigned twice: refused where the second allocation is bound
    with pytest.raises(KernelTypeError) as ei:
        k_return_branch_alloc(vec())
    assert "tensor variable 'out' is assigned more than once" in ei.value.msg
    check_clean_traceback(ei.value)


# ---------------------------------------------------------------------------------------------- device functions


@lang.func
def bad_func(a):
    return a + undefined_in_func  # <in-func>  # noqa: F821


@lang.kernel
def k_calls_bad_func(x: lang.float32[N]):
    for i in range(N):
        x[i] = bad_func(x[i])  # <call-bad-func>


@lang.func
def middle_func(a):
    return 2.0 * bad_func(a)  # <middle-calls-bad>


@lang.kernel
def k_calls_middle(x: lang.float32[N]):
    for i in range(N):
        x[i] = middle_func(x[i])  # <call-middle>


@lang.func
def two_args(a, b):
    return a + b


@lang.kernel
def k_wrong_arity(x: lang.float32[N]):
    for i in range(N):
        x[i] = two_args(x[i])  # <wrong-arity>


def _note_for(marker, at):
    line = line_of(marker)
    col = LINES[line - 1].index(at)
    return f"note: called from {THIS_FILE}:{line}:{col + 1}"


def test_error_in_func_points_inside_func_with_called_from_note():
    x = vec()
    with pytest.raises(CompileError) as ei:
        k_calls_bad_func(x)
    e = check_error(ei, CompileError, "in-func", "name 'undefined_in_func' is not defined", at="undefined_in_func")
    assert len(e.notes) == 1
    assert e.notes[0].startswith("called from ")
    assert str(e).splitlines()[-1] == _note_for("call-bad-func", "bad_func(x[i])")
    np.testing.assert_array_equal(x, vec())


def test_error_in_nested_func_has_one_note_per_call():
    with pytest.raises(CompileError) as ei:
        k_calls_middle(vec())
    e = check_error(ei, CompileError, "in-func", "name 'undefined_in_func' is not defined", at="undefined_in_func")
    assert str(e).splitlines()[-2:] == [_note_for("middle-calls-bad", "bad_func(a)"),
                                        _note_for("call-middle", "middle_func(x[i])")]


def test_func_called_with_wrong_number_of_arguments():
    with pytest.raises(CompileError) as ei:
        k_wrong_arity(vec())
    e = check_error(ei, CompileError, "wrong-arity", "two_args() takes 2 argument(s) but 1 were given",
                    at="two_args(x[i])")
    assert e.notes == ()


# ---------------------------------------------------------------------------------------------- source


def _make_kernel_with_unindented_docstring_line():
    @lang.kernel
    def k_doc(x: lang.float32[N]):
        """A docstring whose second line starts at column 0:
this one."""
        d = {}  # <after-docstring>
        x[0] = d

    return k_doc


def test_nested_kernel_with_unindented_docstring_line():
    kern = _make_kernel_with_unindented_docstring_line()
    with pytest.raises(UnsupportedError) as ei:
        kern(vec())
    check_error(ei, UnsupportedError, "after-docstring", "unsupported Python feature: dict literal", at="{}")


def test_kernel_without_source_file():
    ns = {"lang": lang, "N": N}
    exec("@lang.kernel\ndef k_nosrc(x: lang.float32[N]):\n    x[0] = 1.0\n", ns)  # noqa: S102
    with pytest.raises(CompileError) as ei:
        ns["k_nosrc"](vec())
    assert "cannot read the source of 'k_nosrc'" in str(ei.value)
    assert "defined in a file" in str(ei.value)
    check_clean_traceback(ei.value)


def test_compile_error_is_raised_again_on_the_next_call():
    for _ in range(2):
        with pytest.raises(UnsupportedError) as ei:
            k_dict(vec())
        check_error(ei, UnsupportedError, "dict", "unsupported Python feature: dict literal", at='{"a": 1.0}')
