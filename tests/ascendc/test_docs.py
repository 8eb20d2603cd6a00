"""docs/pyasc.md is generated from the declaration table and up to date; the table names every pyasc 1.1.1 API."""
import pathlib

from asc.ascendc import api, docs

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_docs_up_to_date():
    path = ROOT / "docs" / "pyasc.md"
    assert path.read_text() == docs.render(), "regenerate: python -m asc.ascendc.docs > docs/pyasc.md"


def test_table_is_complete_and_unique():
    names = [a.name for a in api.TABLE]
    assert len(names) == len(set(names))
    for must in ("add", "data_copy", "data_copy_pad", "duplicate", "adds", "axpy", "copy", "transpose", "cast",
                 "compare", "select", "reduce_sum", "whole_reduce_sum", "block_reduce_max", "set_flag", "wait_flag",
                 "pipe_barrier", "printf", "dump_tensor", "adv.softmax", "TQue.alloc_tensor", "TBuf.get_with_offset",
                 "LocalTensor.get_value", "GlobalTensor.set_global_buffer", "adv.Matmul.iterate"):
        assert must in names, must
    for a in api.TABLE:
        assert a.status in (api.SUPPORTED, api.NOT_YET)
        if a.status == api.SUPPORTED:
            assert a.cname, a.name
