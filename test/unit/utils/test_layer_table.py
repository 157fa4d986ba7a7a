"""docs/layers.md is the generated table: regenerate it with `python -m hls4ml.utils.layer_table > docs/layers.md`."""

from pathlib import Path

from hls4ml.converters.keras.handlers import HANDLERS, PRODUCES, register_all
from hls4ml.model.kinds import LAYER_KINDS
from hls4ml.utils.layer_table import layer_table

DOCS = Path(__file__).resolve().parents[3] / 'docs' / 'layers.md'


def test_docs_layers_md_is_up_to_date() -> None:
    assert DOCS.read_text() == layer_table(), 'run: python -m hls4ml.utils.layer_table > docs/layers.md'


def test_every_handler_declares_kinds_that_exist() -> None:
    register_all()
    assert set(PRODUCES) == set(HANDLERS)
    for kinds in PRODUCES.values():
        assert kinds and set(kinds) <= set(LAYER_KINDS)
