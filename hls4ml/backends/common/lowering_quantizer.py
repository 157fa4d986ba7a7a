"""Lowering of the heterogeneous quantizer (kind FixedPointQuantizer, `nnet_quantizer.h`): the per-triple
constant tables and the internal types of `hls4ml.model.quantizer.kernel_constants`."""

from __future__ import annotations

from hls4ml.backends.common.context import LoweringContext
from hls4ml.backends.common.records import LayerImpl, const_array
from hls4ml.backends.common.registry import lowering
from hls4ml.model.ir import Layer
from hls4ml.model.kinds import Kind
from hls4ml.model.quantizer import kernel_constants, triples_of

# the tables each kernel reads, in argument order, and the config typedef each is stored in
SATURATE_TABLES = (('scale', 'scale'), ('lsb', 'lsb'), ('low', 'rounded'), ('high', 'rounded'))
WRAP_TABLES = (('scale', 'scale'), ('lsb', 'lsb'), ('low', 'rounded'), ('modulus', 'modulus'), ('inverse', 'inverse'))
PREFIXES = {'scale': 'qs', 'lsb': 'ql', 'low': 'qlo', 'high': 'qhi', 'modulus': 'qm', 'inverse': 'qi'}


@lowering(Kind.FIXED_POINT_QUANTIZER, stream='nnet_quantizer_stream.h')
def lower_quantizer(layer: Layer, context: LoweringContext) -> LayerImpl:
    triples = triples_of(layer)
    wrap = triples.overflow == 'WRAP'
    function = 'nnet::quantize_wrap' if wrap else 'nnet::quantize_saturate'
    impl = context.start(layer, 'nnet_quantizer.h', 'nnet::quantizer_config', function)
    impl.statics += [
        ('unsigned', 'n_params', str(triples.keep_negative.size)),
        ('unsigned', 'io_type', context.io_type),
    ]
    constants = kernel_constants(triples)
    typedefs = ('rounded', 'scale', 'lsb', 'modulus', 'inverse', 'wrapped') if wrap else ('rounded', 'scale', 'lsb')
    impl.typedefs += [(f'{name}_t', constants.types[name].spelling(context.family)) for name in typedefs]
    index = context.index[layer.name]
    for table, type_key in WRAP_TABLES if wrap else SATURATE_TABLES:
        name = f'{PREFIXES[table]}{index}'
        precision = constants.types[type_key]
        where = f"{layer.describe()}, table '{table}'"
        values = constants.arrays[table]
        spelled = precision.spelling(context.family)
        impl.arrays.append(const_array(name, spelled, values, precision, context.family, where))
        impl.arguments.append(name)
    return impl
