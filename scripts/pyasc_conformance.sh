#!/usr/bin/env bash
# pyasc conformance: runs pyasc's own tests (tutorials 01 to 05, kernels/test_vadd.py and test_matmul*.py,
# kernels/insert_sync/test_vadd*.py, test_softmax.py, test_matmul.py, test_quant.py and test_quant_dynamic.py,
# generalization/basic/*.py and generalization/adv/*.py (test_quant.py among them)) against this
# checkout of asc, and prints a pass/fail table.
#
#   scripts/pyasc_conformance.sh PYASC_CHECKOUT      (a git checkout of hicann/pyasc, or its git dir)
#
# The tests are copied (git archive) into a temporary folder outside this repository and run unmodified, except
# that in generalization/basic/*.py and generalization/adv/*.py the one list entry `config.Backend.NPU,` becomes
# `config.Backend.Model,` (their BACKENDS list names only the NPU, with Model commented out beside it). Not part
# of CI.
#
# With ASC_CANN_TWIN set (and the twin's TWIN_* variables: ../shared/cann_twin/README.md), every kernel launch that
# succeeds on asc is captured (ASC_PYASC_CAPTURE: the emitted Ascend C, its inputs and asc's outputs), and after
# the table scripts/pyasc_twin.py --captured runs each distinct captured source through the CANN twin and prints a
# second table (kernel, test, |twin - asc|, pass/fail, reason). Without ASC_CANN_TWIN that step is skipped.
set -u
SRC=${1:?usage: scripts/pyasc_conformance.sh PYASC_CHECKOUT}
ASC_ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/pyasc-conformance.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
git -C "$SRC" archive HEAD python/tutorials python/test | tar -x -C "$WORK" || { echo "cannot read $SRC"; exit 2; }
for f in "$WORK"/python/test/generalization/basic/*.py "$WORK"/python/test/generalization/adv/*.py; do
    sed -i 's/^\(\s*\)config\.Backend\.NPU,\s*$/\1config.Backend.Model,/' "$f"
done
export PYTHONPATH="$ASC_ROOT${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
if [ -n "${ASC_CANN_TWIN:-}" ]; then
    export ASC_PYASC_CAPTURE="${ASC_PYASC_CAPTURE:-$WORK/captured}"   # set it to keep the captures
    mkdir -p "$ASC_PYASC_CAPTURE"; CAPTURED=$ASC_PYASC_CAPTURE
fi
rows=()
reasons=()
run_pytest() {   # dir file
    local dir=$1 file=$2 out rc summary
    out=$(cd "$dir" && python -m pytest -q -n 0 -p no:cacheprovider -p no:randomly --tb=line "$file" 2>&1)
    rc=$?
    summary=$(printf '%s\n' "$out" | grep -E '^[0-9]+ (passed|failed)|^[0-9]+ failed|passed|failed|error' | tail -1)
    # --tb=line: one "PATH:LINE: Error: message" line per failing case (PATH is where it was raised), in order
    while IFS= read -r l; do
        l=${l#*: }                                   # the error and its message
        reasons+=("${file}: $(printf '%s' "${l//$WORK\/python\//}" | cut -c1-400)")
    done < <(printf '%s\n' "$out" | grep -E "^/[^ ]*:[0-9]+: [A-Za-z_.]*(Error|Exception)")
    rows+=("$(printf '%-55s %-6s %s' "${dir#$WORK/python/}/$file" "$([ $rc = 0 ] && echo PASS || echo FAIL)" "$summary")")
}
for t in 01_add/add.py 02_add_framework/add_framework.py 03_matmul_mix/matmul_mix.py \
         04_matmul_cube_only/matmul_cube_only.py 05_matmul_leakyrelu/matmul_leakyrelu.py; do
    d="$WORK/python/tutorials/$(dirname "$t")"
    if (cd "$d" && python "$(basename "$t")" >/dev/null 2>&1); then r=PASS; else r=FAIL; fi
    rows+=("$(printf '%-55s %-6s %s' "tutorials/$t" "$r" "python $(basename "$t")")")
done
for f in test_vadd.py test_matmul.py test_matmul_torch.py; do
    run_pytest "$WORK/python/test/kernels" "$f"
done
for f in test_vadd.py test_vadd_scalar.py test_softmax.py test_matmul.py test_quant.py test_quant_dynamic.py; do
    # each file on its own: pyasc's two test_vadd.py have one basename (pytest's rootdir-less import mode clashes)
    cp "$WORK/python/test/kernels/conftest.py" "$WORK/python/test/kernels/insert_sync/conftest.py"
    run_pytest "$WORK/python/test/kernels/insert_sync" "$f"
done
for d in basic adv; do
    for f in "$WORK"/python/test/generalization/$d/*.py; do
        run_pytest "$WORK/python/test/generalization/$d" "$(basename "$f")"
    done
done
printf '%-55s %-6s %s\n' "test" "result" "pytest summary"
printf '%s\n' "${rows[@]}"
if [ ${#reasons[@]} -gt 0 ]; then
    echo
    echo "each failing case, in order (the first line of its error):"
    printf '  %s\n' "${reasons[@]}"
fi
if [ -n "${ASC_CANN_TWIN:-}" ]; then
    echo
    echo "the emitted Ascend C of these kernels on the CANN twin (each distinct source, its first launch):"
    ASC_PYASC_CAPTURE= python "$ASC_ROOT/scripts/pyasc_twin.py" --captured "$CAPTURED"
else
    echo "(ASC_CANN_TWIN is not set: the CANN twin run of these kernels is skipped)"
fi
