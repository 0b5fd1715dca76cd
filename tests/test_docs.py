"""The documentation site: the generated scenario reference is complete and up to date,
and every code block the pages mark as runnable runs.

A page marks a fenced block with an HTML comment on the line before it:

    <!-- file: NAME -->     the block is written to NAME (used by the blocks after it)
    <!-- run -->            the block runs (sh: bash -euo pipefail; python: a fresh interpreter)
    <!-- run: needs ns -->  the same, skipped when `ns` (ns-2.35) is missing, unless under CI

Shell blocks run under `set -o pipefail`, so do not pipe cclab into `head`: cclab ends
with exit code 1 when its reader closes the pipe early. Blocks of one page run in order,
in one empty directory where the repository's
`experiments/` and `examples/` are linked, with this environment's `cclab` first on PATH.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import IN_CI, REPO

DOCS = REPO / "docs"
BIN = Path(sys.executable).parent
_MARK = re.compile(r"^<!--\s*(file|run)(?::\s*(.*?))?\s*-->\s*$")
_FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)")


def _reference_module():
    spec = importlib.util.spec_from_file_location("scenario_reference", REPO / "tools" / "scenario_reference.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def marked_blocks(page: Path) -> list[tuple[str, str, str, str, int]]:
    """(kind, argument, language, code, line) of each marked block, in page order."""
    lines = page.read_text().splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        mark = _MARK.match(lines[i].strip())
        if mark and i + 1 < len(lines) and (fence := _FENCE.match(lines[i + 1].strip())):
            end = next(j for j in range(i + 2, len(lines)) if lines[j].strip() == fence.group(1))
            blocks.append((mark.group(1), mark.group(2) or "", fence.group(2), "\n".join(lines[i + 2:end]) + "\n", i + 1))
            i = end
        elif mark:
            raise AssertionError(f"{page}:{i + 1}: a '{mark.group(0)}' mark must be followed by a fenced block")
        i += 1
    return blocks


PAGES = sorted(p for p in DOCS.rglob("*.md") if any(k == "run" for k, *_ in marked_blocks(p)))


def test_pages_with_runnable_code_exist():
    names = {p.relative_to(DOCS).as_posix() for p in PAGES}
    for expected in ("get-started/first-scenario.md", "tutorials/dumbbell.md", "tutorials/sweep.md"):
        assert expected in names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_runnable_blocks(page: Path, tmp_path: Path):
    for name in ("experiments", "examples"):
        (tmp_path / name).symlink_to(REPO / name)
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), env.get("PYTHONPATH")]))
    for kind, argument, language, code, line in marked_blocks(page):
        where = f"{page.relative_to(REPO)}:{line}"
        if kind == "file":
            assert argument, f"{where}: file: needs a name"
            (tmp_path / argument).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / argument).write_text(code)
            continue
        if argument == "needs ns" and not shutil.which("ns"):
            if IN_CI:
                pytest.fail(f"{where}: needs ns-2.35, which CI must have")
            continue
        if language in ("sh", "bash", "console"):
            command = ["bash", "-euo", "pipefail", "-c", code]
        elif language == "python":
            command = [sys.executable, "-c", code]
        else:
            raise AssertionError(f"{where}: cannot run a {language!r} block")
        done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{where} failed ({done.returncode}):\n{code}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"


# ------------------------------------------------------------------ scenario reference
def test_scenario_reference_is_up_to_date():
    ref = _reference_module()
    import cclab

    for page, text in ((ref.PAGE, ref.render(cclab.validate)), (ref.ALGORITHMS_PAGE, ref.render_algorithms())):
        assert page.read_text() == text, (
            f"{page.relative_to(REPO)} is out of date: run .venv/bin/python tools/scenario_reference.py")


def test_every_schema_struct_and_field_is_documented():
    """A new struct needs a section in tools/scenario_reference.py; a new field needs a
    doc comment in the Rust source. UNDESCRIBED lists the fields that had none when the
    reference was introduced: it may only shrink."""
    ref = _reference_module()
    problems = ref.problems()
    missing_doc = {p.split(" ")[0] for p in problems if p.endswith("has no doc comment")}
    others = [p for p in problems if not p.endswith("has no doc comment")]
    assert not others, "\n".join(others)
    new = sorted(missing_doc - UNDESCRIBED)
    assert not new, "fields without a doc comment (write one in the Rust source):\n" + "\n".join(new)
    described = sorted(UNDESCRIBED - missing_doc)
    assert not described, "these fields now have a doc comment; remove them from UNDESCRIBED:\n" + "\n".join(described)


def _keys(value, path=""):
    if isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key}" if path else key
            yield from _keys(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item, path)


def test_every_field_of_every_experiment_is_in_the_reference():
    """The parser of the Rust source found every field a real scenario uses."""
    import cclab

    page = (DOCS / "reference" / "scenario.md").read_text()
    documented = set(re.findall(r"^\| `([^`]+)` \|", page, flags=re.M))
    documented |= {"kind", "model", "algorithm"}  # the tags that name a table's variant
    missing = {}
    for path in sorted((REPO / "experiments").rglob("*.toml")):
        if "sweeps" in path.parts:
            continue
        for key in _keys(cclab.validate(path)):
            name = key.rsplit(".", 1)[-1]
            if name not in documented:
                missing.setdefault(key, path.relative_to(REPO).as_posix())
    assert not missing, f"fields used by experiment files but missing from docs/reference/scenario.md: {missing}"


UNDESCRIBED = {
    "AimdConfig.decrease", "AppSpec::Cbr.rate", "AppSpec::Onoff.off", "AppSpec::Onoff.on",
    "BinomialConfig.decrease", "ExternalConfig.params", "InverseB.b", "InverseB.decrease",
    "MrAimdConfig.restore_rate_after_timeout_only", "Ns2Switches.ecn", "Ns2Switches.go_back_n",
    "Ns2Switches.integer_ssthresh", "Ns2Switches.newreno_recovery", "Ns2Switches.sack1_recovery",
    "Ns2Switches.tick_clock", "PieSpec.alpha", "PieSpec.beta", "PieSpec.max_burst", "PresetParams.a",
    "PresetParams.b", "PresetParams.decrease", "RedSpec.mode", "WestwoodAbseConfig.cumulative_cap",
    "WestwoodAbseConfig.sampling", "WestwoodCrbConfig.cumulative_cap", "WestwoodReConfig.cumulative_cap",
}
