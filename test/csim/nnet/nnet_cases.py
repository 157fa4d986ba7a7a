"""The kernel cases of the C-simulation tests: types, sizes, data and the reference result of each.

Types are written in the neutral hls4ml spelling and printed per family. The type configurations
cover the default ap_fixed<16,6>, narrow and unsigned inputs, rounding + saturating results and
accumulators, an auto-widened fixed<38,18> into softmax, negative integer bits (fixed<8,-2>) and
an LSB above 1 (fixed<6,8>).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from nnet_harness import DriverArray, DriverCase

from hls4ml.model import reference, tables
from hls4ml.model.einsum import plan
from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.einsum import einsum
from hls4ml.model.types import FixedPrecisionType, parse_precision

N_SAMPLES = 48
T16 = 'fixed<16,6>'


def _type(text: str) -> FixedPrecisionType:
    parsed = parse_precision(text)
    assert isinstance(parsed, FixedPrecisionType)
    return parsed


class CaseFactory:
    """Makes the DriverCases of one family with reproducible data."""

    def __init__(self, family: str, seed: int = 2024) -> None:
        self.family = family
        self.rng = np.random.default_rng(seed)
        self.cases: list[DriverCase] = []

    def spell(self, text: str) -> str:
        return _type(text).spelling(self.family)

    def random(self, text: str, shape: tuple[int, ...]) -> FixedArray:
        kind = _type(text)
        raw = self.rng.integers(kind.raw_min, kind.raw_max, size=shape, endpoint=True)
        return FixedArray.from_raw(raw, kind, self.family)

    def inputs(self, text: str, n_in: int, special: tuple[float, ...] = ()) -> FixedArray:
        """Random samples whose first entries are the type's edges and the `special` values."""
        kind = _type(text)
        edges = [kind.raw_min, kind.raw_min + 1, -1, 0, 1, kind.raw_max - 1, kind.raw_max]
        edges += [int(np.floor(value * 2.0**kind.fractional)) for value in special]
        edges = [raw for raw in edges if kind.raw_min <= raw <= kind.raw_max]
        raw = self.random(text, (N_SAMPLES, n_in)).raw.astype(object).ravel()
        raw[: len(edges)] = edges
        return FixedArray.from_raw(self.rng.permutation(raw).reshape(N_SAMPLES, n_in), kind, self.family)

    def add(
        self,
        name: str,
        kernel: str,
        base: str,
        constants: dict[str, int],
        typedefs: dict[str, str],
        io_types: tuple[str, str],
        inputs: FixedArray,
        reference: Callable[[FixedArray], FixedArray],
        arguments: tuple[DriverArray | tuple[str, float], ...] = (),
    ) -> None:
        """One case: `kernel<data_t, res_t, config>(data, res, arguments...)`."""
        lines = [f'static const {_constant_type(key)} {key} = {value};' for key, value in constants.items()]
        lines += [f'typedef {self.spell(text)} {key};' for key, text in typedefs.items()]
        names = [argument.name if isinstance(argument, DriverArray) else argument[0] for argument in arguments]
        call = f'nnet::{kernel}<data_t, res_t, config>({", ".join(["data", "res", *names])})'
        self.cases.append(
            DriverCase(
                name=f'{self.family}-{name}',
                base=f'nnet::{base}',
                config_lines=lines,
                data_type=self.spell(io_types[0]),
                result_type=self.spell(io_types[1]),
                call=call,
                inputs=inputs,
                expected=reference(inputs),
                arrays=[argument for argument in arguments if isinstance(argument, DriverArray)],
                scalars=[argument for argument in arguments if not isinstance(argument, DriverArray)],
            )
        )


def _constant_type(name: str) -> str:
    return 'int' if name.endswith(('_shift', '_start')) else 'unsigned'


# ---- dense and batch normalization ------------------------------------------------------------------

DENSE_TYPES = [
    # data, weight, bias, accum, result
    (T16, T16, T16, 'fixed<32,16>', T16),
    ('ufixed<6,2>', 'fixed<4,1>', 'fixed<6,2>', 'fixed<10,4,RND,SAT>', 'fixed<8,3,RND,SAT>'),
    ('fixed<12,4>', 'fixed<8,1>', 'fixed<8,3>', 'fixed<14,5,RND_CONV,SAT>', 'fixed<6,2,RND,WRAP>'),
]
DENSE_SHAPES = {0: (7, 5, (1, 5, 6, 35)), 1: (6, 4, (1, 3, 24)), 2: (5, 3, (1, 2, 15))}


def add_dense(factory: CaseFactory) -> None:
    for number, (data, weight, bias, accum, result) in enumerate(DENSE_TYPES):
        n_in, n_out, reuse_factors = DENSE_SHAPES[number]
        weights, biases = factory.random(weight, (n_in, n_out)), factory.random(bias, (n_out,))
        inputs = factory.inputs(data, n_in)
        for strategy in ('latency', 'resource'):
            for reuse_factor in reuse_factors if strategy == 'resource' else (1, reuse_factors[1]):
                factory.add(
                    f'dense{number}-{strategy}-rf{reuse_factor}',
                    # the Resource loop itself: in C-simulation nnet::dense runs the Latency loop for both
                    'dense_resource' if strategy == 'resource' else 'dense',
                    'dense_config',
                    {
                        'n_in': n_in,
                        'n_out': n_out,
                        'reuse_factor': reuse_factor,
                        'strategy': int(strategy == 'resource'),
                    },
                    {'accum_t': accum, 'weight_t': weight, 'bias_t': bias},
                    (data, result),
                    inputs,
                    lambda x, w=weights, b=biases, a=accum, r=result: reference.dense(x, w, b, a, r),
                    (
                        DriverArray('weights', 'config::weight_t', weights),
                        DriverArray('biases', 'config::bias_t', biases),
                    ),
                )


def add_einsum_dense(factory: CaseFactory) -> None:
    """EinsumDense 'bc,cde->bde' (rows b, columns de, inner c) and 'bc,bcd->d' (every input axis summed):
    Latency and the Resource loop (RF 5: a partial last block), rounding and saturating accumulators."""
    strides = {'first': ('batch', 'row', 'inner'), 'second': ('batch', 'inner', 'column')}
    strides['out'] = ('batch', 'row', 'column')
    for number, (equation, shape, kernel_shape) in enumerate(
        [('bc,cde->bde', (3, 4), (4, 2, 3)), ('bc,bcd->d', (3, 4), (3, 4, 5))]
    ):
        loops = plan(equation, shape, kernel_shape)
        n_out = int(np.prod(loops.output_shape))
        constants = {'n_in': int(np.prod(shape)), 'n_in2': int(np.prod(kernel_shape)), 'n_out': n_out}
        constants |= dict(zip(('n_batch', 'n_rows', 'n_columns', 'n_inner'), loops.sizes, strict=True))
        for tensor, names in strides.items():
            values = getattr(loops, 'output' if tensor == 'out' else tensor)
            constants |= {f'{tensor}_{name}_stride': value for name, value in zip(names, values, strict=True)}
        for data, weight, bias, accum, result in DENSE_TYPES[:2]:
            weights, biases = factory.random(weight, (1, constants['n_in2'])), factory.random(bias, (n_out,))
            for kernel, reuse_factor in (('einsum_dense', 1), ('einsum_dense_resource', 5)):
                factory.add(
                    f'{kernel}{number}-{weight}-rf{reuse_factor}',
                    kernel,
                    'einsum_config',
                    constants | {'reuse_factor': reuse_factor, 'strategy': int(kernel != 'einsum_dense')},
                    {'accum_t': accum, 'weight_t': weight, 'bias_t': bias},
                    (data, result),
                    factory.inputs(data, constants['n_in']),
                    lambda x, w=weights, b=biases, p=loops, a=accum, r=result: einsum(x, w, p, a, r, b),
                    (
                        DriverArray('weights', 'config::weight_t', weights),
                        DriverArray('biases', 'config::bias_t', biases),
                    ),
                )


def add_batchnorm(factory: CaseFactory) -> None:
    for number, (data, n_scale_bias, result) in enumerate(((T16, 8, 'fixed<12,4,RND,SAT>'), ('ufixed<6,2>', 4, T16))):
        scale, bias = factory.random('fixed<10,3>', (n_scale_bias,)), factory.random('fixed<8,2>', (n_scale_bias,))
        factory.add(
            f'batchnorm{number}',
            'normalize',
            'batchnorm_config',
            {'n_in': 8, 'n_scale_bias': n_scale_bias},
            {'scale_t': 'fixed<10,3>', 'bias_t': 'fixed<8,2>'},
            (data, result),
            factory.inputs(data, 8),
            lambda x, s=scale, b=bias, r=result: reference.normalize(x, s, b, r),
            (DriverArray('scale', 'config::scale_t', scale), DriverArray('bias', 'config::bias_t', bias)),
        )


# ---- activations ------------------------------------------------------------------------------------

# (a result type equal to the input type takes relu's raw-integer path in the C-simulation build)
ACTIVATION_TYPES = [
    (T16, T16),
    ('ufixed<6,2>', 'fixed<8,3,RND,SAT>'),
    ('fixed<8,-2>', 'fixed<10,-1,RND,SAT>'),
    ('fixed<8,3,RND,SAT>', 'fixed<8,3,RND,SAT>'),
]
PARAM = 'fixed<12,2,RND,SAT>'


def add_simple_activations(factory: CaseFactory) -> None:
    for number, (data, result) in enumerate(ACTIVATION_TYPES):
        n_in = 6
        inputs = factory.inputs(data, n_in, special=(0.3, -0.3))
        alpha = factory.random(PARAM, (n_in,))
        kernels = {
            'linear': ((), lambda x, r=result: reference.linear(x, r)),
            'relu': ((), lambda x, r=result: reference.relu(x, r)),
            'bipolar': ((), lambda x, r=result: reference.bipolar(x, r)),
            'leaky_relu': ((('alpha', 0.3),), lambda x, r=result: reference.leaky_relu(x, 0.3, PARAM, r)),
            'thresholded_relu': ((('theta', 0.3),), lambda x, r=result: reference.thresholded_relu(x, 0.3, PARAM, r)),
            'prelu': (
                (DriverArray('alpha', 'config::param_t', alpha),),
                lambda x, r=result, a=alpha: reference.prelu(x, a, r),
            ),
            'hard_sigmoid': (
                (('slope', 1 / 6), ('shift', 0.5)),
                lambda x, r=result: reference.hard_sigmoid(x, 1 / 6, 0.5, PARAM, r),
            ),
            'hard_swish': (
                (('slope', 1 / 6), ('shift', 0.5)),
                lambda x, r=result: reference.hard_swish(x, 1 / 6, 0.5, PARAM, r),
            ),
            'clipped_relu': ((('ceiling', 0.3),), lambda x, r=result: reference.clipped_relu(x, 0.3, PARAM, r)),
        }
        for kernel, (arguments, reference_function) in kernels.items():
            factory.add(
                f'{kernel}{number}',
                kernel,
                'activ_config',
                {'n_in': n_in},
                {'param_t': PARAM},
                (data, result),
                inputs,
                reference_function,
                arguments,
            )


# the inferred fixed<2,2>, and -1 written into unsigned (wraps / saturates) and too-narrow types
BIPOLAR_RESULTS = ['fixed<2,2>', 'ufixed<3,2>', 'ufixed<3,2,RND,SAT>', 'fixed<4,-1>', 'fixed<4,-1,RND,SAT>']


def add_bipolar(factory: CaseFactory) -> None:
    inputs = factory.inputs(T16, 6)  # holds the raw values -1, 0 and 1
    for number, result in enumerate(BIPOLAR_RESULTS):
        factory.add(
            f'bipolar-result{number}',
            'bipolar',
            'activ_config',
            {'n_in': 6},
            {},
            (T16, result),
            inputs,
            lambda x, r=result: reference.bipolar(x, r),
        )


TABLE_TYPES = {
    'sigmoid': 'ufixed<10,1,RND,SAT>',
    'tanh': 'fixed<12,2,RND,SAT>',
    'softsign': 'fixed<12,2,RND,SAT>',
    'softplus': 'fixed<14,5,RND,SAT>',
    'elu': 'fixed<12,2,RND,SAT>',
    'selu': 'fixed<12,2,RND,SAT>',
}
TABLE_INPUTS = [(T16, T16, 1024), ('fixed<38,18>', 'fixed<16,6,RND,SAT>', 256), ('ufixed<6,2>', T16, 64)]
TABLE_INPUTS += [('fixed<6,8>', 'fixed<10,4,RND,SAT>', 128), ('fixed<8,-2>', 'fixed<12,1,RND,SAT>', 512)]


def _table_reference(kernel: str, spec: tables.TableSpec, result: str) -> Callable[[FixedArray], FixedArray]:
    if kernel == 'elu':
        return lambda x: reference.elu(x, 1.5, PARAM, spec, result)
    if kernel == 'selu':
        return lambda x: reference.selu(x, PARAM, spec, result)
    function = getattr(reference, kernel)
    return lambda x: function(x, spec, result)


def add_table_activations(factory: CaseFactory) -> None:
    for number, (data, result, size) in enumerate(TABLE_INPUTS):
        for kernel, table_type in TABLE_TYPES.items():
            spec = tables.activation_table(kernel, data, table_type, size)
            table = tables.table_values(spec, factory.family)
            arguments = (('alpha', 1.5),) if kernel == 'elu' else ()
            factory.add(
                f'{kernel}{number}',
                kernel,
                'activ_config',
                {'n_in': 6, 'table_size': size, 'table_shift': spec.shift, 'table_start': spec.start},
                {'param_t': PARAM, 'table_t': table_type, 'index_t': str(spec.index_type)},
                (data, result),
                factory.inputs(data, 6, special=(spec.lo, spec.hi, spec.lo - spec.step, spec.hi - spec.step)),
                _table_reference(kernel, spec, result),
                (*arguments, DriverArray('table', 'config::table_t', table)),
            )


# ---- softmax ----------------------------------------------------------------------------------------

SOFTMAX_TABLE = 'fixed<18,8,RND,SAT>'
SOFTMAX_TYPES = [
    # data, accum, result, table size, (n_in, n_slice): n_slice 0 is one row of n_in
    (T16, 'fixed<24,12,RND,SAT>', 'ufixed<16,0,RND,SAT>', 1024, (5, 0)),
    ('fixed<38,18>', 'fixed<24,12,RND,SAT>', T16, 1024, (6, 3)),
    ('ufixed<8,4>', 'fixed<20,10>', 'fixed<10,1,RND,SAT>', 256, (8, 4)),
    ('fixed<8,-2>', 'fixed<24,12,RND,SAT>', T16, 128, (5, 5)),
]


def add_softmax(factory: CaseFactory) -> None:
    for number, (data, accum, result, size, (n_in, n_slice)) in enumerate(SOFTMAX_TYPES):
        inputs = factory.inputs(data, n_in)
        for implementation in ('stable', 'latency'):
            exp_spec, inv_spec = tables.softmax_tables(
                data, SOFTMAX_TABLE, SOFTMAX_TABLE, accum, n_slice or n_in, size, implementation
            )
            kernel = getattr(reference, f'softmax_{implementation}')
            constants = {'n_in': n_in, 'n_slice': n_slice, 'table_size': size}
            constants |= {'exp_table_shift': exp_spec.shift, 'exp_table_start': exp_spec.start}
            constants |= {'inv_table_shift': inv_spec.shift, 'inv_table_start': inv_spec.start}
            factory.add(
                f'softmax_{implementation}{number}',
                f'softmax_{implementation}',
                'softmax_config',
                constants,
                {
                    'exp_table_t': SOFTMAX_TABLE,
                    'inv_table_t': SOFTMAX_TABLE,
                    'exp_index_t': str(exp_spec.index_type),
                    'inv_index_t': str(inv_spec.index_type),
                    'accum_t': accum,
                },
                (data, result),
                inputs,
                lambda x, e=exp_spec, i=inv_spec, a=accum, r=result, k=kernel, n=n_slice: k(x, e, i, a, r, n),
                (
                    DriverArray('exp_table', 'config::exp_table_t', tables.table_values(exp_spec, factory.family)),
                    DriverArray('inv_table', 'config::inv_table_t', tables.table_values(inv_spec, factory.family)),
                ),
            )
        factory.add(
            f'softmax_argmax{number}',
            'softmax_argmax',
            'softmax_config',
            {'n_in': n_in, 'n_slice': n_slice},
            {},
            (data, result),
            inputs if number != 2 else factory.inputs('ufixed<3,2>', n_in).cast(data),  # many ties
            lambda x, r=result, n=n_slice: reference.softmax_argmax(x, r, n),
        )


def all_cases(family: str) -> list[DriverCase]:
    factory = CaseFactory(family)
    for add in (
        add_dense,
        add_einsum_dense,
        add_batchnorm,
        add_simple_activations,
        add_bipolar,
        add_table_activations,
        add_softmax,
    ):
        add(factory)
    return factory.cases
