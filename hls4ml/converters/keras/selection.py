"""Selection: `keras.ops.top_k(x, k, sorted=True)` (an operation of class TopK in a functional model).

Keras returns (values, indices); the IR has one output per layer, so the handler emits a values
layer (named after the operation) and an indices layer (`<name>_indices`), and the parser drops
whichever the model does not read. Ties: the lower index first, as in Keras and TensorFlow.
"""

from __future__ import annotations

from hls4ml.converters.keras.handlers import Source, UnsupportedLayer, handles
from hls4ml.model.ir import Layer


@handles('TopK', produces=('TopK',))
def top_k(source: Source) -> list[Layer]:
    """Both outputs, in Keras's output order (the parser maps output tensor i to layer i)."""
    shape, k = source.input_shapes[0], int(source.layer.k)
    if len(shape) != 1:
        raise UnsupportedLayer(f'{source.origin}: top_k of shape {shape} is not supported (only vectors)')
    if not 1 <= k <= shape[0]:
        raise UnsupportedLayer(f'{source.origin}: k={k} must be between 1 and {shape[0]}')
    attributes = {'n_in': shape[0], 'k': k, 'magnitude': False}
    values = source.make('TopK', output='values', **attributes)
    indices = source.make('TopK', output='indices', **attributes)
    indices.name, indices.outputs = f'{source.name}_indices', [f'{source.name}_indices']
    return [values, indices]
