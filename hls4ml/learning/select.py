"""`hls_model.learner(name)`: the learner of a layer's kind (hls4ml/learning/learners.py, resom_maps.py)."""

from __future__ import annotations

from hls4ml.learning.learners import ModelGraph, SOMLearner, find_layer
from hls4ml.learning.resom import ReSOMLearner
from hls4ml.learning.resom_maps import ReSOMMapsLearner
from hls4ml.model.kinds import Kind

LEARNERS: dict[str, type[SOMLearner] | type[ReSOMLearner] | type[ReSOMMapsLearner]] = {
    Kind.SOM: SOMLearner,
    Kind.RESOM: ReSOMLearner,
    Kind.RESOM_MAPS: ReSOMMapsLearner,
}


def learner_for(model: ModelGraph, layer_name: str) -> SOMLearner | ReSOMLearner | ReSOMMapsLearner:
    """The learner of a SOM (Kohonen), ReSOM or ReSOMMaps (Hebbian) layer of a compiled model."""
    layer = find_layer(model, layer_name)
    if layer.kind not in LEARNERS:
        raise ValueError(
            f'{layer.describe()}: on-chip learning is for SOM, ReSOM and ReSOMMaps layers, not {layer.kind}'
        )
    return LEARNERS[layer.kind](model, layer_name)
