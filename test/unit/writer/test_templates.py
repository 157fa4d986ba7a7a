"""The writer's compiled-template cache (hls4ml/writer/templates.py): reused across processes, never stale."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from hls4ml.writer import templates


@pytest.fixture
def template_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A templates/ folder of our own with one backend folder, the environments made afresh for it."""
    tree = tmp_path / 'templates'
    (tree / 'backend').mkdir(parents=True)
    (tree / 'common').mkdir()
    (tree / 'backend' / 'top.j2').write_text('{% import "common/macros.j2" as m %}{{ m.twice(x) }}')
    (tree / 'common' / 'macros.j2').write_text('{% macro twice(value) %}{{ value }}{{ value }}{% endmacro %}')
    monkeypatch.setattr(templates, 'TEMPLATES', tree)
    monkeypatch.setenv('HLS4ML_CACHE_DIR', str(tmp_path / 'cache'))
    templates.template_environment.cache_clear()
    yield tree
    templates.template_environment.cache_clear()


def _fresh_render(name: str, **context: object) -> str:
    """Render as a new process would: a new environment, only the bytecode cache shared."""
    templates.template_environment.cache_clear()
    return templates.template_environment('backend').get_template(name).render(**context)


def test_compiled_templates_are_kept_beside_the_templates(template_tree: Path) -> None:
    assert _fresh_render('top.j2', x='ab') == 'abab'
    folder = template_tree / '__pycache__' / templates.compiled_folder_name(templates.template_environment('backend'))
    assert len(list(folder.iterdir())) == 2  # the template and the one it imports


def test_a_changed_template_is_compiled_again_never_served_stale(template_tree: Path) -> None:
    assert _fresh_render('top.j2', x='1') == '11'
    (template_tree / 'common' / 'macros.j2').write_text('{% macro twice(value) %}{{ value }}+{{ value }}{% endmacro %}')
    assert _fresh_render('top.j2', x='1') == '1+1'


def test_the_cache_root_serves_where_the_package_folder_cannot_be_written(
    template_tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (template_tree / '__pycache__').write_text('a file where the folder would be')  # mkdir fails below it
    assert _fresh_render('top.j2', x='z') == 'zz'
    name = templates.compiled_folder_name(templates.template_environment('backend'))
    assert list((tmp_path / 'cache' / 'jinja' / name).iterdir())


def test_the_folder_name_holds_the_jinja_version_and_the_settings(template_tree: Path, monkeypatch) -> None:
    environment = templates.template_environment('backend')
    name = templates.compiled_folder_name(environment)
    assert name.startswith(f'jinja-{jinja2.__version__}-')
    other = environment.overlay(keep_trailing_newline=False)
    assert templates.compiled_folder_name(other) != name
    monkeypatch.setattr(jinja2, '__version__', '0.0.1')
    assert templates.compiled_folder_name(environment).startswith('jinja-0.0.1-')


def test_precompile_compiles_each_backend_template_and_the_shared_ones(template_tree: Path) -> None:
    (template_tree / 'other').mkdir()
    (template_tree / 'other' / 'not_ours.j2').write_text('x')
    assert templates.precompile_templates(['backend']) == 2
