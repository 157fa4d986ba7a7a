"""What the recurrent csim tests share: the sequence size, the config of each backend (another
implementation per backend) and the tolerance against the framework.

Tolerance (`framework_tolerance`): states and accumulators are 24-bit with 16 fraction bits, so a write
loses at most 2^-16. A table reads its left grid point: at most one step (TableSize 8192) times the
slope (1 for tanh and softsign, 1/4 for sigmoid), plus the table type's LSB. A state value passes
through at most three lookups per step; with weights below 0.3 in magnitude a layer does not amplify
an error it reads (each gate's row sums are below 1 and the gates are contractions), so the errors of
the layers and the steps add up: bound = layers x steps x (3 x table error + state LSB). It is a worst
case: on the Keras model of test/csim/keras/test_recurrent_csim.py it is 0.147 and the measured error
1.7e-4; the semantics are checked tightly by test/unit/converters/test_recurrent_frontends.py.
"""

from __future__ import annotations

import hls4ml
from hls4ml.model.kinds import RECURRENT
from hls4ml.model.layer_tables import layer_tables

STEPS, FEATURES = 5, 3
TABLES = {
    'SimpleRNN': ('act_table',),
    'GRU': ('act_table', 'rec_table'),
    'LSTM': ('act_table', 'rec_table', 'cell_table'),
}
SLOPES = {'tanh': 1.0, 'softsign': 1.0, 'sigmoid': 0.25}
IMPLEMENTATIONS = {
    'Vitis': {'Strategy': 'Latency', 'Static': True},
    'oneAPI': {'Strategy': 'Resource', 'Static': False, 'ReuseFactor': 2, 'RecurrentReuseFactor': 3},
    'Catapult': {'Strategy': 'Resource', 'Static': True},
}


def hls_config(backend: str) -> dict:
    """24-bit states, tables of 8192 entries, the backend's implementation for every recurrent kind."""
    layer_types = {
        kind: {'Precision': dict.fromkeys(TABLES[kind], 'fixed<20,2>'), 'TableSize': 8192, **IMPLEMENTATIONS[backend]}
        for kind in TABLES
    }
    return {'Model': {'Precision': 'fixed<24,8>', 'ReuseFactor': 1, 'Strategy': 'Latency'}, 'LayerType': layer_types}


def framework_tolerance(model: hls4ml.model.ModelGraph) -> float:
    """The bound of the module docstring, from the layers' own tables and state types."""
    layers = [layer for layer in model.graph.layers.values() if layer.kind in RECURRENT]
    worst = 0.0
    for layer in layers:
        tables = layer_tables(layer, layer.types['accum'])
        errors = [spec.step * SLOPES[spec.function] + 2.0**-spec.table_type.fractional for spec in tables.values()]
        worst = max(worst, 3 * max(errors, default=0.0) + 2.0 ** -layer.types['state'].fractional)
    return len(layers) * STEPS * worst
