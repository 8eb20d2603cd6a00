"""The kernel .cpp of a phased plan (phases.py): each phase's kernel class as its own renderer writes it (a vector
phase's class counts its blocks in `phaseBlocks_`, not GetBlockNum(), since it runs on the AIVs of a MIX launch),
then one MIX 1:2 entry that runs the cube phases on the AICs and the vector phases on the AIVs with SyncAll<false>()
between them. The tiling is the phases' tilings one after the other, each followed by its block count."""
from __future__ import annotations

from .emitter import AscendSource, Out, entry_params, header, launch_wrapper, names, param_name


def _split(text: str):
    """(the classes and structs of a rendered kernel, the lines of its entry body) -- header and launch dropped."""
    lines = text.split("\n")
    start = next(i for i, ln in enumerate(lines) if ln.startswith("using namespace AscendC;")) + 1
    ent = next(i for i, ln in enumerate(lines) if ln.startswith('extern "C" __global__'))
    end = next(i for i in range(ent, len(lines)) if lines[i] == "}")
    body = [ln.strip() for ln in lines[ent + 2:end] if ln.strip()]
    body = [ln for ln in body if not ln.startswith("KERNEL_TASK_TYPE_DEFAULT")]
    return lines[start:ent], body, start


def phase_fields(p, sources) -> list:
    out = []
    for i, s in enumerate(sources):
        out += [(f"p{i}_{f}", ct) for f, ct in s.tiling_fields] + [(f"p{i}_blocks", "uint32_t")]
    return out


def render_phased(p, kinds: dict) -> AscendSource:
    """The kernel .cpp of a phased plan; `kinds`: the plan kinds (kinds.KINDS), whose renderers write each phase
    and whose `unit` says where it runs (AIC or AIV)."""
    kernel = p.kernel
    name, _, _ = names(kernel)
    out = Out()
    header(out, kernel, "matrix product on the cube units, in phases with element code on the vector units (MIX 1:2)")
    sources = [kinds[q.kind].render(q) for q in p.phases]
    calls = []
    offset = 0
    for i, (q, s) in enumerate(zip(p.phases, sources)):
        on_aic = kinds[q.kind].unit == "aic"
        classes, body, start = _split(s.text)
        text = "\n".join(classes)
        if not on_aic:
            text = text.replace("GetBlockNum()", "phaseBlocks_")
            text = text.replace("public:\n", "public:\n  int64_t phaseBlocks_ = 1;   // the blocks of this phase\n", 1)
            body = [ln + (f" op.phaseBlocks_ = static_cast<int64_t>(blocks);" if ln.endswith(" op;") else "")
                    for ln in body]
        base = len(out.lines)
        for ln in text.split("\n"):
            out.emit(ln)
        for cpp_line, loc in s.line_locs.items():
            if cpp_line > start:
                out.locs[base + cpp_line - start] = loc
        _, _, sname = names(q.kernel)
        body = [ln.replace(f"Load{sname}(tiling, t);", f"Load{sname}(tiling + {offset}, t);") for ln in body]
        nwords = len(s.tiling_fields)
        guard = "ASCEND_IS_AIC" if on_aic else "ASCEND_IS_AIV"
        calls.append(f"if {guard} {{                // phase {i}: {q.kind} on the {guard[-3:]}s")
        calls.append(f"  const uint32_t blocks = reinterpret_cast<__gm__ uint32_t*>(tiling)[{offset // 4 + nwords}];")
        calls.append("  if (GetBlockIdx() < blocks) {")
        calls.append(f"    {sname} t;")
        calls.extend("    " + ln for ln in body if not ln.startswith(f"{sname} t;"))
        calls.append("  }")
        if not on_aic and i + 1 < len(p.phases):
            calls.append("  PipeBarrier<PIPE_ALL>();      // its UB->GM copies are done before a later phase reads GM")
        calls.append("}")
        if i + 1 < len(p.phases):
            calls.append("SyncAll<false>();              // every AIC and AIV: the phase's GM writes are done")
        offset += 4 * (nwords + 1)
    params = _entry_params(p)
    _entry(out, name, params, calls)
    src = AscendSource(name, out.text(), p, out.locs, phase_fields(p, sources), params)
    src.workspaces = [(n, int(_numel(s)) * d.itemsize) for n, d, s in p.workspaces]
    src.phase_sources = sources
    return src


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _entry_params(p) -> list:
    params = entry_params(p)[:-1]
    params += [("gm", n, "GM_ADDR") for n, _, _ in p.workspaces]
    return params + [("tiling", "tiling", "GM_ADDR")]


def _entry(out: Out, name: str, params: list, calls: list):
    decl = ", ".join(f"{ct} {param_name(k, n)}" for k, n, ct in params)
    out.emit(f'extern "C" __global__ __aicore__ void {name}({decl})')
    out.emit("{")
    out.depth += 1
    out.emit("KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);")
    for ln in calls:
        out.emit(ln)
    out.depth -= 1
    out.emit("}")
    out.emit()
    launch_wrapper(out, name, params)
