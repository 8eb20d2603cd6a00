"""Every example of README.md and docs/*.md runs as written, so a doc cannot drift from the code.

Each fenced block of those files has a language, and the language says what happens to it:

- ```python: run (exec'd from a file whose lines are the doc's lines, so a kernel error names the doc's line);
- ```sh: run with bash -e (the block as one script, from a scratch folder; `asc` and `python` are this
  interpreter's; stdin is empty);
- ```c: compiled as C99 against asc/include (-fsyntax-only);
- ```text: a listing (output, a diagram, pseudo-code): never run.

A block that must not run says why, in an HTML comment directly above its fence: `<!-- not run: REASON -->`.
What a block needs but does not define is declared, visibly, in HTML comments directly above (or below) it:

- `<!-- setup: CODE -->` (one line, or CODE on the lines after `setup:`): run just before the block, in its
  language (Python names such as `x`, a shell `cd`, C `#include`s);
- `<!-- then: CODE -->` directly below the closing fence: run just after it (a call of a kernel the block only
  defines, the closing brace of a C fragment);
- `<!-- continues -->`: the block runs after the previous block of its language in the same file, in the same
  namespace (Python) or the same scratch folder (sh): the blocks form one chain, one test.

The harness never guesses a name: a block runs with what the doc and its declared setup give it, and nothing else
(the scratch folder is the current folder; `$ASC_CHECKOUT` is the root of this checkout, for commands that the doc
runs from a checkout). Compiled kernels go through asc's disk cache as in any test.
"""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys
import traceback
from dataclasses import dataclass, field

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN = ("python", "sh", "c")
LANGS = RUN + ("text",)
KEYS = ("not run:", "setup:", "then:", "continues")


@dataclass
class Block:
    doc: pathlib.Path
    line: int                  # the line of the opening fence (1-based)
    lang: str
    code: list                 # (line number, text) of the block's lines, the fence's indentation removed
    not_run: str | None = None
    setup: list = field(default_factory=list)
    then: list = field(default_factory=list)
    continues: bool = False

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def _comment(lines, i):
    """The HTML comment starting at line i: (its key, its text as (line number, text) pairs, the next line)."""
    first = lines[i].strip()[len("<!--"):]
    body, j = [], i
    text = first
    while True:
        end = text.find("-->")
        body.append((j + 1, text if end < 0 else text[:end]))
        if end >= 0:
            break
        j += 1
        if j == len(lines):
            raise ValueError(f"line {i + 1}: an HTML comment that is never closed")
        text = lines[j]
    head = body[0][1].strip()
    key = next((k for k in KEYS if head.startswith(k)), None)
    if key is not None:
        rest = body[0][1].split(key, 1)[1]
        body[0] = (body[0][0], rest.strip())
        body = [(n, t) for n, t in body if t.strip()]
    return key, body, j + 1


def parse(doc: pathlib.Path) -> list:
    """The fenced blocks of a Markdown file with their markers; a malformed marker or fence raises ValueError."""
    lines = doc.read_text().splitlines()
    blocks, pending, i = [], [], 0
    while i < len(lines):
        s = lines[i].strip()
        if s.startswith("<!--"):
            key, body, i = _comment(lines, i)
            if key is not None:
                pending.append((key, body))
            continue
        if s.startswith("```"):
            indent = len(lines[i]) - len(lines[i].lstrip())
            lang = s[3:].strip().split(" ")[0]
            if lang not in LANGS:
                raise ValueError(f"{doc.name}:{i + 1}: a fence must say its language, one of {LANGS} "
                                 f"(```text for a listing that is not run); this one says {lang!r}")
            b = Block(doc, i + 1, lang, [])
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                b.code.append((i + 1, lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i]))
                i += 1
            if i == len(lines):
                raise ValueError(f"{doc.name}:{b.line}: a fence that is never closed")
            i += 1
            for key, body in pending:
                if key == "not run:":
                    b.not_run = " ".join(t.strip() for _, t in body)
                elif key == "setup:":
                    b.setup += body
                elif key == "continues":
                    b.continues = True
                else:
                    raise ValueError(f"{doc.name}:{b.line}: `then:` belongs directly below a block")
            pending = []
            while i < len(lines) and lines[i].strip().startswith("<!-- then:"):
                _, body, i = _comment(lines, i)
                b.then += body
            if b.not_run is not None and (b.setup or b.then or b.continues):
                raise ValueError(f"{doc.name}:{b.line}: a block that is not run declares a setup")
            if b.not_run is not None and not b.not_run:
                raise ValueError(f"{doc.name}:{b.line}: `not run:` must give the reason")
            blocks.append(b)
            continue
        if s and pending:
            raise ValueError(f"{doc.name}:{i + 1}: markers {[k for k, _ in pending]} are not directly above a fence")
        i += 1
    return blocks


def chains(doc: pathlib.Path) -> list:
    """The runnable blocks of a doc, grouped: a block that continues joins the previous chain of its language."""
    out, last = [], {}
    for b in parse(doc):
        if b.lang not in RUN or b.not_run is not None:
            continue
        if b.continues:
            if b.lang not in last:
                raise ValueError(f"{b.where}: `continues`, but no {b.lang} block runs above it")
            last[b.lang].append(b)
        else:
            last[b.lang] = [b]
            out.append(last[b.lang])
    return out


def _all_chains() -> list:
    out = []
    for doc in DOCS:
        try:
            out += chains(doc)
        except ValueError:      # reported by test_every_block_runs_or_says_why_not
            pass
    return out


CHAINS = _all_chains()


def _source(chain, total: int) -> str:
    """The chain's setup, code and then-lines at their line numbers in the doc; every other line blank."""
    out = [""] * total
    for b in chain:
        for n, text in b.setup + b.code + b.then:
            out[n - 1] = text
    return "\n".join(out) + "\n"


def _env() -> dict:
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["ASC_CHECKOUT"] = str(ROOT)
    return env


def _run_python(chain, tmp_path, monkeypatch):
    doc = chain[0].doc
    path = tmp_path / (doc.name + ".py")
    path.write_text(_source(chain, len(doc.read_text().splitlines())))
    monkeypatch.chdir(tmp_path)
    ns = {"__name__": "__doc_example__", "__file__": str(path)}
    try:
        exec(compile(path.read_text(), str(path), "exec", dont_inherit=True), ns)
    except Exception as e:          # the doc's lines, not the harness's blank ones
        tb = traceback.format_exception(e)
        pytest.fail(f"{chain[0].where}: the example fails\n" + "".join(tb[:1] + tb[2:]), pytrace=False)


def _run_sh(chain, tmp_path):
    for b in chain:
        script = "\n".join(t for _, t in b.setup + b.code + b.then) + "\n"
        r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=tmp_path, env=_env(),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, f"{b.where}: exit {r.returncode}\n{script}\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"


def _run_c(chain, tmp_path):
    cc = shutil.which("gcc") or shutil.which("cc")
    assert cc, "no C compiler"
    for b in chain:
        src = tmp_path / f"{b.doc.stem}_{b.line}.c"
        src.write_text("\n".join(t for _, t in b.setup + b.code + b.then) + "\n")
        r = subprocess.run([cc, "-std=c99", "-Wall", "-Werror", "-fsyntax-only", f"-I{ROOT / 'asc' / 'include'}",
                            str(src)], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, f"{b.where}: does not compile as C99\n{r.stderr[-4000:]}"


@pytest.mark.parametrize("chain", CHAINS, ids=lambda c: c[0].where)
def test_doc_example_runs(chain, tmp_path, monkeypatch):
    {"python": lambda: _run_python(chain, tmp_path, monkeypatch), "sh": lambda: _run_sh(chain, tmp_path),
     "c": lambda: _run_c(chain, tmp_path)}[chain[0].lang]()


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(ROOT)))
def test_every_block_runs_or_says_why_not(doc):
    """Every fence has a language; one that is not a listing runs, or a marker above it gives the reason."""
    for b in parse(doc):
        assert b.lang in LANGS
        if b.lang == "text":
            assert b.not_run is None, f"{b.where}: a ```text block is never run; drop the marker"


def test_the_harness_reads_markers(tmp_path):
    doc = tmp_path / "d.md"
    doc.write_text("intro\n<!-- setup: x = 2 -->\n```python\ny = x + 1\n```\n<!-- then: assert y == 3 -->\n\n"
                   "<!-- continues -->\n```python\nassert y == 3\n```\n<!-- not run: needs an NPU -->\n```sh\nmsprof\n"
                   "```\n```text\noutput\n```\n")
    a, b, c, d = parse(doc)
    assert (a.setup, a.code, a.then, a.continues) == ([(2, "x = 2")], [(4, "y = x + 1")], [(6, "assert y == 3")],
                                                      False)
    assert b.continues and c.not_run == "needs an NPU" and d.lang == "text"
    assert [[x.line for x in ch] for ch in chains(doc)] == [[3, 9]]
    src = _source(chains(doc)[0], 16).splitlines()
    assert src[1] == "x = 2" and src[3] == "y = x + 1" and src[9] == "assert y == 3"
    for bad in ("```\ncode\n```\n", "<!-- not run: -->\n```sh\nx\n```\n", "<!-- setup: x -->\n\ntext\n```c\n```\n",
                "```python\nnever closed\n"):
        doc.write_text(bad)
        with pytest.raises(ValueError):
            parse(doc)


def test_architecture_stage_table_is_the_pipeline():
    """docs/architecture.md's table of stages is `asc.compiler.stages(target)` for every compiled target."""
    import asc.compiler
    text = (ROOT / "docs" / "architecture.md").read_text()
    rows = re.findall(r"^\| ([\w, -]+) \| (`frontend`.*) \|$", text, re.M)
    seen = set()
    for targets, stages in rows:
        listed = tuple(re.findall(r"`(\w+)`", stages))
        for t in targets.split(", "):
            assert listed == asc.compiler.stages(t), f"docs/architecture.md lists {listed} for {t}"
            seen.add(t)
    assert seen == set(asc.compiler.TARGETS), f"the table covers {sorted(seen)}, not {sorted(asc.compiler.TARGETS)}"
