"""The lean front end: what `import cclab` and `cclab run --json` load, standard input,
exit codes, the version and shell completion. Each check runs in a fresh interpreter,
since an earlier test in this process may already have imported anything."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "experiments" / "tiny.toml"

# Libraries that only tables, plots, stores and clusters need.
HEAVY = ("pandas", "pyarrow", "matplotlib", "duckdb", "dask", "distributed", "ray", "numpy")


def loaded_modules(code: str) -> set[str]:
    """The top-level packages in sys.modules after running ``code`` in a fresh interpreter."""
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    return set(json.loads(completed.stdout.strip().splitlines()[-1]))


def test_import_cclab_loads_no_heavy_library():
    loaded = loaded_modules("import cclab")
    assert "cclab" in loaded
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_json_run_path_loads_no_heavy_library():
    # What `cclab run FILE --json` executes, minus the final os._exit (which would hide
    # sys.modules from the probe): build the app with the run command and invoke it.
    code = (
        "from cclab.cli import build_app\n"
        f"build_app(['scenarios'])(args=['run', {str(TINY)!r}, '--json'], prog_name='cclab', standalone_mode=False)\n"
        f"build_app(['scenarios'])(args=['validate', {str(TINY)!r}], prog_name='cclab', standalone_mode=False)\n"
    )
    loaded = loaded_modules(code)
    assert "cclab" in loaded and "typer" in loaded
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_the_probe_would_see_a_heavy_import():
    # The check above is only worth something if an import through cclab shows up.
    assert "pandas" in loaded_modules(f"import cclab\ncclab.run(cclab.load_scenario({str(TINY)!r})).flows")


def test_scenario_from_standard_input(cli):
    text = TINY.read_text()
    from_stdin = subprocess.run([sys.executable, "-m", "cclab", "run", "-", "--json"], input=text,
                                capture_output=True, text=True, timeout=120)
    assert from_stdin.returncode == 0, from_stdin.stderr
    from_file = cli("run", TINY, "--json")
    strip = lambda document: {k: v for k, v in json.loads(document).items() if k != "wall_time_s"}
    assert strip(from_stdin.stdout) == strip(from_file.stdout)
    # validate reads standard input too, once
    validated = subprocess.run([sys.executable, "-m", "cclab", "validate", "-"], input=text,
                               capture_output=True, text=True, timeout=120)
    assert validated.returncode == 0, validated.stderr
    assert 'name = "tiny"' in validated.stdout


def test_bad_standard_input_is_a_usage_error():
    completed = subprocess.run([sys.executable, "-m", "cclab", "run", "-", "--json"], input="duration = ",
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 2
    assert completed.stderr.startswith("error: ") and completed.stderr.count("\n") == 1
    assert completed.stdout == ""


def test_json_output_is_one_document_for_a_pipe(cli):
    # As `cclab run FILE --json | jq .system.goodput_mbps` would read it.
    completed = cli("run", TINY, "--json")
    assert completed.returncode == 0
    lines = completed.stdout.splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0])["system"]["goodput_mbps"] > 0


@pytest.mark.parametrize("arguments, code", [
    (["run", str(TINY), "--json"], 0),
    (["run", str(TINY), "--set", "duration=-1s"], 2),
    (["run", "/nonexistent/file.toml"], 2),
    (["run", str(TINY), "--no-such-option"], 2),
    (["no-such-command"], 2),
    (["run", str(TINY), "--set", "flows.0.cc=\"no-such-cc\""], 2),
])
def test_documented_exit_codes(cli, arguments, code):
    completed = cli(*arguments)
    assert completed.returncode == code, completed.stderr
    if code == 2:
        assert completed.stderr.startswith("error: ") and completed.stderr.count("\n") == 1


def test_closed_stdout_ends_quietly():
    # `cclab run --json | head -c 10`: the reader goes away; no traceback.
    reader = subprocess.Popen([sys.executable, "-m", "cclab", "run", str(REPO / "experiments" / "static-wired.toml"),
                               "--set", "duration=2s", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader.stdout.read(10)
    reader.stdout.close()
    stderr = reader.stderr.read().decode()
    reader.wait(timeout=120)
    assert "Traceback" not in stderr


def test_version(cli):
    from cclab.core import version

    completed = cli("--version")
    assert completed.returncode == 0
    assert completed.stdout.strip() == f"cclab {version()}"


def test_shell_completion_lists_every_command():
    environment = dict(os.environ, _CCLAB_COMPLETE="complete_bash", COMP_WORDS="cclab ", COMP_CWORD="1")
    completed = subprocess.run([sys.executable, "-c", "from cclab.cli import main; main()"], env=environment,
                               capture_output=True, text=True, timeout=120)
    for command in ("run", "validate", "reproduce", "sweep", "report", "export", "bench"):
        assert command in completed.stdout.split(), completed.stdout
    script = subprocess.run([sys.executable, "-m", "cclab", "--show-completion", "bash"], capture_output=True,
                            text=True, timeout=120, env=dict(os.environ, SHELL="/bin/bash"))
    assert script.returncode == 0, script.stderr
    assert "_CCLAB_COMPLETE" in script.stdout
