"""The writer's Jinja2 environments and where their compiled templates are kept between processes.

Compiling the templates of a project (lex, parse, generate Python, compile it) took 0.09 s of the 0.3 s a
fresh process spent converting and writing the jet-tagging MLP. Jinja's bytecode cache keeps the compiled
code; it lives beside the templates, as Python keeps `__pycache__` beside its sources, so a process with an
empty compile cache (`HLS4ML_CACHE_DIR`) still finds them; where the package folder is not writable, under
the cache root. The folder's name holds the Jinja version and the environment's options, and every entry the
SHA-1 of its template's source, which Jinja compares before use: a changed template is compiled again,
never served stale. `precompile_templates()` fills it for every backend (an install step, as compileall).
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

import jinja2

from hls4ml.csim.cache import cache_root

TEMPLATES = Path(__file__).resolve().parents[1] / 'templates'
SETTINGS = (  # what the compiled code depends on beyond the template's source
    'block_start_string', 'block_end_string', 'variable_start_string', 'variable_end_string', 'comment_start_string',
    'comment_end_string', 'line_statement_prefix', 'line_comment_prefix', 'trim_blocks', 'lstrip_blocks',
    'newline_sequence', 'keep_trailing_newline', 'optimized', 'autoescape', 'undefined', 'extensions',
)  # fmt: skip


def compiled_folder_name(environment: jinja2.Environment) -> str:
    """`jinja-<version>-<digest of the environment's settings>`."""
    values = [(name, getattr(environment, name)) for name in SETTINGS]
    described = repr([(name, _described(value)) for name, value in values])
    return f'jinja-{jinja2.__version__}-{hashlib.sha256(described.encode()).hexdigest()[:12]}'


def _described(value: object) -> object:
    """A setting as stable text: a class by its name, the extensions by their import names."""
    return sorted(value) if isinstance(value, dict) else getattr(value, '__name__', value)


def _bytecode_cache(name: str) -> jinja2.BytecodeCache | None:
    """The first writable of the package's `templates/__pycache__/<name>` and `<cache root>/jinja/<name>`;
    None (compile in every process) when neither can be made."""
    for folder in (TEMPLATES / '__pycache__' / name, cache_root() / 'jinja' / name):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK | os.X_OK):
            return jinja2.FileSystemBytecodeCache(str(folder))
    return None


@functools.cache
def template_environment(backend_dir: str) -> jinja2.Environment:
    """One environment per backend and process: its own folder first (`dialect.j2`, its project files),
    then templates/ (so `common/...` names the shared templates)."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(TEMPLATES / backend_dir), str(TEMPLATES)]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    environment.bytecode_cache = _bytecode_cache(compiled_folder_name(environment))
    return environment


def precompile_templates(backend_dirs: list[str]) -> int:
    """Compile every `.j2` template each backend's environment sees into the bytecode cache; returns
    how many were compiled or found compiled."""
    count = 0
    for backend_dir in backend_dirs:
        environment = template_environment(backend_dir)
        for name in environment.list_templates(filter_func=lambda name: name.endswith('.j2')):
            if name.startswith('common/') or (TEMPLATES / backend_dir / name).is_file():  # not another backend's
                environment.get_template(name)
                count += 1
    return count
