"""Golden projects (tinygrad's process-replay idea): every change to the emitted code shows as a diff.

Five small seeded models built in code (`golden_models.py`: an MLP, a CNN, a ResNet block, a SOM and a
top-k MoE router) are converted for every backend (Vitis, oneAPI, Catapult) and IO type (io_parallel,
io_stream), written into a temporary folder, and every generated file -- firmware, weights, bridge,
testbench, build scripts, CMakeLists, config yml, tb_data -- is compared with the checked-in tree
`test/golden_projects/<model>/<backend>_<io_type>/` (backend in lower case). Not compared: the static
libraries copied verbatim from hls4ml/templates (firmware/ap_types, firmware/nnet_utils: their diffs show
in the templates themselves) and the lock file `.hls4ml.lock`. The projects are written from inside the
temporary folder with a relative output_dir, so no machine path reaches them. Nothing is compiled.

After an intended change of the emitted code, regenerate every tree with one command and review the diff:

    HLS4ML_UPDATE_GOLDEN=1 .venv/bin/pytest test/unit/writer      (or: bash scripts/update_goldens.sh)
    git diff --stat test/golden_projects

Regenerating rewrites the files that changed, deletes the files the writer no longer produces and the
folders of cases that no longer exist; run twice, it changes nothing.

Skipped combinations: none. Every backend writes all five models in both IO types today. A combination
that a backend comes to refuse (`Backend.unsupported_io`, `unsupported_kinds`) goes into `REFUSED` with
the words of its error, and the test then checks that conversion refuses it instead of comparing a tree.
"""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

import pytest
from golden_models import MODELS

from hls4ml.writer import static_library_files
from hls4ml.writer.files import LOCK_NAME

GOLDEN_ROOT = Path(__file__).resolve().parents[2] / 'golden_projects'
README = 'README.md'  # the one file of GOLDEN_ROOT that no case writes
BACKENDS = ('Vitis', 'oneAPI', 'Catapult')
IO_TYPES = ('io_parallel', 'io_stream')
REFUSED: dict[tuple[str, str, str], str] = {}  # (model, backend, io_type) -> a regex of the ValueError
CASES = [(model, backend, io_type) for model in MODELS for backend in BACKENDS for io_type in IO_TYPES]
UPDATE = os.environ.get('HLS4ML_UPDATE_GOLDEN') == '1'
REGENERATE = 'HLS4ML_UPDATE_GOLDEN=1 .venv/bin/pytest test/unit/writer (or bash scripts/update_goldens.sh)'
DIFFS_SHOWN, DIFF_LINES = 2, 60  # unified diffs of the first two differing files, 60 lines each at most


def case_folder(model: str, backend: str, io_type: str) -> Path:
    return GOLDEN_ROOT / model / f'{backend.lower()}_{io_type}'


def read_tree(folder: Path, left_out: frozenset[str] = frozenset()) -> dict[str, str]:
    """Relative path -> text of every file below `folder` except those in `left_out`."""
    if not folder.is_dir():
        return {}
    files = (path for path in sorted(folder.rglob('*')) if path.is_file())
    relative = {path.relative_to(folder).as_posix(): path for path in files}
    return {name: path.read_bytes().decode() for name, path in relative.items() if name not in left_out}


def copied_verbatim(source_dir: str) -> frozenset[str]:
    """The project paths the writer copies from hls4ml/templates unchanged, and the lock file. Only these
    exact paths are left out: a generated file that lands in firmware/nnet_utils is still compared."""
    firmware = f'{source_dir}/firmware' if source_dir else 'firmware'
    return frozenset({LOCK_NAME, *(f'{firmware}/{path}' for path in static_library_files())})


def write_tree(folder: Path, files: dict[str, str]) -> None:
    """Make `folder` hold exactly `files`: stale files (and folders left empty) go, changed files are
    rewritten, unchanged ones are left alone."""
    for stale in set(read_tree(folder)) - set(files):
        (folder / stale).unlink()
    for directory in sorted((path for path in folder.rglob('*') if path.is_dir()), reverse=True):
        if not any(directory.iterdir()):
            directory.rmdir()
    for name, text in files.items():
        path = folder / name
        if not path.is_file() or path.read_bytes() != text.encode():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode())


def tree_differences(expected: dict[str, str], generated: dict[str, str]) -> list[str]:
    """What differs between the golden tree and the generated files, with unified diffs of the first
    differing files; empty when they are equal."""
    lines = []
    for what, names in (
        ('generated, not in the golden tree', sorted(set(generated) - set(expected))),
        ('in the golden tree, no longer generated', sorted(set(expected) - set(generated))),
        ('differ', [name for name in sorted(set(expected) & set(generated)) if expected[name] != generated[name]]),
    ):
        if names:
            lines.append(f'{len(names)} file(s) {what}: {", ".join(names)}')
            if what == 'differ':
                lines += [line for name in names[:DIFFS_SHOWN] for line in unified_diff(name, expected, generated)]
    return lines


def unified_diff(name: str, expected: dict[str, str], generated: dict[str, str]) -> list[str]:
    diff = difflib.unified_diff(
        expected[name].splitlines(), generated[name].splitlines(), f'golden/{name}', f'generated/{name}', lineterm=''
    )
    lines = list(diff)
    if len(lines) > DIFF_LINES:
        return [*lines[:DIFF_LINES], f'... ({len(lines) - DIFF_LINES} more diff lines)']
    return lines


@pytest.mark.parametrize(
    'model, backend, io_type', CASES, ids=[f'{model}-{backend.lower()}_{io}' for model, backend, io in CASES]
)
def test_golden_project(model: str, backend: str, io_type: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # the models' output_dir is relative: no temporary path in the files
    refused = REFUSED.get((model, backend, io_type))
    if refused is not None:
        with pytest.raises(ValueError, match=refused):
            MODELS[model](backend, io_type)
        return
    hls_model = MODELS[model](backend, io_type)
    project = Path(hls_model.write())
    generated = read_tree(project, copied_verbatim(hls_model.backend.source_dir))
    folder = case_folder(model, backend, io_type)
    if UPDATE:
        write_tree(folder, generated)
    expected = read_tree(folder)
    where = folder.relative_to(GOLDEN_ROOT.parents[1]).as_posix()
    assert expected, f'{where} is missing; create it with {REGENERATE}'
    differences = tree_differences(expected, generated)
    if differences:
        message = [f'the generated project differs from {where}:', *differences]
        pytest.fail('\n'.join([*message, f'If the change is intended: {REGENERATE}, and review the diff.']))


def test_golden_root_holds_only_the_cases() -> None:
    """A model or case that was removed leaves no folder behind (regeneration deletes it)."""
    cases = {case_folder(*case) for case in CASES if case not in REFUSED}
    models = {folder.parent for folder in cases}
    entries = list(GOLDEN_ROOT.iterdir()) if GOLDEN_ROOT.is_dir() else []  # none yet: the cases say so
    stale = [path for path in entries if path not in models and path.name != README]
    stale += [path for model in models if model.is_dir() for path in model.iterdir() if path not in cases]
    if UPDATE:
        for path in stale:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        stale = []
    if stale:
        names = ', '.join(sorted(path.relative_to(GOLDEN_ROOT).as_posix() for path in stale))
        pytest.fail(f'test/golden_projects holds what no case writes: {names}; remove it with {REGENERATE}')


def test_tree_differences_name_the_files_and_show_a_diff() -> None:
    expected = {'a.h': 'one\ntwo\n', 'b.h': 'same\n', 'gone.h': 'x\n'}
    generated = {'a.h': 'one\n2\n', 'b.h': 'same\n', 'new.h': 'y\n'}
    lines = tree_differences(expected, generated)
    assert lines[:3] == [
        '1 file(s) generated, not in the golden tree: new.h',
        '1 file(s) in the golden tree, no longer generated: gone.h',
        '1 file(s) differ: a.h',
    ]
    assert lines[3:] == ['--- golden/a.h', '+++ generated/a.h', '@@ -1,2 +1,2 @@', ' one', '-two', '+2']
    assert tree_differences(expected, dict(expected)) == []


def test_write_tree_makes_the_folder_hold_exactly_the_files(tmp_path: Path) -> None:
    (tmp_path / 'old' / 'deep').mkdir(parents=True)
    (tmp_path / 'old' / 'deep' / 'stale.h').write_text('stale\n')
    (tmp_path / 'kept.h').write_text('old\n')
    write_tree(tmp_path, {'kept.h': 'new\n', 'firmware/weights/w2.h': 'w\n'})
    assert read_tree(tmp_path) == {'kept.h': 'new\n', 'firmware/weights/w2.h': 'w\n'}
    assert not (tmp_path / 'old').exists()
