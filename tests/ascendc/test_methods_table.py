"""asc/ascendc/methods.py: every supported method of a kernel object in the API table (api.py) has a row, every row
is a supported method of the table, and each row's text names only parameters of that method's signatures, with a
role methods.py converts, and returns a kind it builds."""
import re

from asc.ascendc import api, data_types as dtypes, methods

ROLES = {"n", "n?", "s", "T", "lt", "ev", "shape"}
RETURNS = {"void", "elem", "gaddr", "phyaddr", "shapeinfo", "alloc", "buf", "view"}
OBJECTS = set(methods.CLASSES.values()) | {"TQueBind"}


def _methods_of_the_table():
    return {tuple(a.name.split(".", 1)) for a in api.TABLE
            if a.status == api.SUPPORTED and "." in a.name and a.name.split(".")[0] in OBJECTS}


def test_every_method_has_a_row_and_every_row_a_method():
    table = _methods_of_the_table()
    assert table == set(methods.METHODS), (sorted(table - set(methods.METHODS)), sorted(set(methods.METHODS) - table))


def test_rows_name_their_parameters_roles_and_results():
    for (cls, name), row in methods.METHODS.items():
        a = api.lookup(f"{cls}.{name}")
        params = {p.name for sig in a.sigs for p in sig.params}
        if row.special in ("set_global_buffer", "init_buffer"):
            assert row.text == "", (cls, name)
            continue
        assert row.text.startswith("{base}") or "({base}" in row.text, (cls, name, row.text)
        for param, role in re.findall(r"\{(\w+)(?::(\w+\??))?\}", row.text):
            if not role:
                assert param in ("base", "cname"), (cls, name, param)
                continue
            assert role in ROLES, (cls, name, role)
            assert param in params, (cls, name, param, sorted(params))
        assert row.returns in RETURNS or isinstance(getattr(dtypes, row.returns, None), dtypes.DataType), \
            (cls, name, row.returns)
        if row.returns in ("alloc", "buf", "view"):
            assert ":T}" in row.text, (cls, name)      # a LocalTensor result takes its element type from T
