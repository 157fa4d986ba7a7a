"""The backend side of every layer kind, one record each: its lowering and its streaming header.

The IR side of a kind is its `KindRecord` (`hls4ml/model/layers.py`); its estimator rule is in
`hls4ml/estimate/model.py`. A port (the model's inputs) is not lowered, so it has no record here;
`test/unit/test_kind_records.py` fails naming any other kind without one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from hls4ml.backends.common import lowering, lowering_quantizer, lowering_resom, lowering_spatial, lowering_topk
from hls4ml.backends.common import lowering_structure as structure
from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.records import LayerImpl
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind

Lowering = Callable[[Layer, LoweringContext], LayerImpl]


@dataclass(frozen=True)
class KindLowering:
    """How one kind becomes C++: `lower` builds its `LayerImpl` (which names the array kernel's header);
    in io_stream the project also includes `stream_header`, the header of its streaming kernel."""

    kind: Kind
    lower: Lowering
    stream_header: str


def _records(lower: Lowering, stream_header: str, *kinds: Kind) -> list[KindLowering]:
    return [KindLowering(kind, lower, stream_header) for kind in kinds]


_LOWERINGS = [
    # matrix products
    *_records(lowering.lower_dense, 'nnet_dense_stream.h', Kind.DENSE),
    *_records(structure.lower_combine, 'nnet_merge_stream.h', Kind.DOT, Kind.MERGE, Kind.CONCATENATE),
    *_records(
        lowering_spatial.lower_convolution,
        'nnet_conv_stream.h',
        Kind.CONV1D,
        Kind.CONV2D,
        Kind.DEPTHWISE_CONV1D,
        Kind.DEPTHWISE_CONV2D,
    ),
    *_records(
        lowering_spatial.lower_pooling,
        'nnet_pooling_stream.h',
        Kind.POOLING1D,
        Kind.POOLING2D,
        Kind.GLOBAL_POOLING1D,
        Kind.GLOBAL_POOLING2D,
    ),
    # moving values
    *_records(
        structure.lower_move,
        'nnet_array_stream.h',
        Kind.RESHAPE,
        Kind.TRANSPOSE,
        Kind.ZERO_PADDING1D,
        Kind.ZERO_PADDING2D,
        Kind.CROPPING1D,
        Kind.CROPPING2D,
        Kind.RESIZE,
        Kind.RESIZE2D,
    ),
    *_records(structure.lower_clone, 'nnet_stream.h', Kind.CLONE),  # a stream kernel already
    # element-wise arithmetic and activations
    *_records(lowering.lower_batchnorm, 'nnet_activation_stream.h', Kind.BATCH_NORMALIZATION),
    *_records(lowering_quantizer.lower_quantizer, 'nnet_quantizer_stream.h', Kind.FIXED_POINT_QUANTIZER),
    *_records(lowering.lower_activation, 'nnet_activation_stream.h', Kind.ACTIVATION),
    *_records(lowering.lower_unary_lut, 'nnet_activation_stream.h', Kind.UNARY_LUT),
    *_records(lowering.lower_parametrized, 'nnet_activation_stream.h', Kind.PARAMETRIZED_ACTIVATION),
    *_records(lowering.lower_prelu, 'nnet_activation_stream.h', Kind.PRELU),
    *_records(lowering.lower_hard_activation, 'nnet_activation_stream.h', Kind.HARD_ACTIVATION),
    *_records(lowering.lower_softmax_layer, 'nnet_activation_stream.h', Kind.SOFTMAX),
    # maps and selection
    *_records(lowering.lower_som, 'nnet_som_stream.h', Kind.SOM),
    *_records(lowering_resom.lower_resom, 'nnet_resom_stream.h', Kind.RESOM),
    *_records(lowering.lower_topk, 'nnet_topk_stream.h', Kind.TOPK),
    *_records(lowering_topk.lower_soft_topk, 'nnet_softtopk_stream.h', Kind.SOFT_TOPK),
    *_records(lowering_topk.lower_router, 'nnet_router_stream.h', Kind.ROUTER),
    *_records(lowering_topk.lower_expert_choice, 'nnet_router_stream.h', Kind.EXPERT_CHOICE_ROUTER),
]

KIND_LOWERINGS: Mapping[str, KindLowering] = MappingProxyType({record.kind: record for record in _LOWERINGS})
