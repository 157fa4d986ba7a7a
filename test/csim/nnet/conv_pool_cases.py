"""The convolution and pooling cases of the C-simulation tests (`nnet_conv.h`, `nnet_pooling.h`).

Built with `nnet_cases.CaseFactory`, like the other kernels. Geometries cover non-square images,
strides above 1, even kernels with the asymmetric padding of Keras 'same', 'valid' windows that
leave inputs unused, and a single channel; conv cases run the Latency loop (`nnet::conv`, as
C-simulation does for both strategies), the Resource loop (`nnet::conv_resource`) for several reuse
factors (one not dividing the number of weights) and parallelization factors above 1. The four
convolution layers share these kernels; their config bases differ.
"""

from __future__ import annotations

from dataclasses import dataclass

from nnet_cases import T16, CaseFactory
from nnet_harness import DriverArray, DriverCase

from hls4ml.model.reference import conv, pooling

CONV_TYPES = [
    # data, weight, bias, accum, result
    (T16, T16, T16, 'fixed<32,16>', T16),
    ('ufixed<6,2>', 'fixed<4,1>', 'fixed<6,2>', 'fixed<10,4,RND,SAT>', 'fixed<8,3,RND,SAT>'),
    ('fixed<12,4>', 'fixed<8,1>', 'fixed<8,3>', 'fixed<14,5,RND_CONV,SAT>', 'fixed<6,2,RND,WRAP>'),
]


@dataclass(frozen=True)
class Geometry:
    """One spatial layout; 1-D geometries have in_height = window height = stride height = 1."""

    in_height: int
    in_width: int
    n_chan: int
    window: tuple[int, int]
    strides: tuple[int, int]
    same: bool  # Keras 'same' padding, else 'valid'

    @property
    def padding(self) -> tuple[int, int, int, int]:
        if not self.same:
            return (0, 0, 0, 0)
        top_bottom = conv.same_padding(self.in_height, self.window[0], self.strides[0])
        return (*top_bottom, *conv.same_padding(self.in_width, self.window[1], self.strides[1]))

    @property
    def out_shape(self) -> tuple[int, int]:
        top, bottom, left, right = self.padding
        return (
            conv.output_size(self.in_height, self.window[0], self.strides[0], top, bottom),
            conv.output_size(self.in_width, self.window[1], self.strides[1], left, right),
        )

    @property
    def n_in(self) -> int:
        return self.in_height * self.in_width * self.n_chan

    def constants(self, dimensions: int, window_name: str) -> dict[str, int]:
        """The geometry members of a config struct (`window_name` 'filt' or 'pool')."""
        top, bottom, left, right = self.padding
        out_height, out_width = self.out_shape
        width = {'in_width': self.in_width, f'{window_name}_width': self.window[1]}
        width |= {'stride_width': self.strides[1], 'pad_left': left, 'pad_right': right, 'out_width': out_width}
        if dimensions == 1:
            assert self.in_height == self.window[0] == self.strides[0] == 1
            return width
        height = {'in_height': self.in_height, f'{window_name}_height': self.window[0]}
        height |= {'stride_height': self.strides[0], 'pad_top': top, 'pad_bottom': bottom, 'out_height': out_height}
        return height | width


# (geometry, n_filt or depth_multiplier, (strategy, reuse factor, parallelization factor)...)
CONV2D = [
    (
        Geometry(5, 7, 2, (3, 2), (2, 1), True),
        3,
        [
            ('latency', 1, 1),
            ('latency', 5, 3),
            ('resource', 1, 1),
            ('resource', 7, 1),
            ('resource', 36, 7),
            ('resource', 4, 21),
        ],
    ),
    (Geometry(6, 4, 1, (2, 2), (1, 1), True), 2, [('latency', 1, 1), ('resource', 3, 4)]),
    (Geometry(4, 5, 3, (3, 3), (1, 2), False), 1, [('latency', 1, 2), ('resource', 5, 1)]),
]
CONV1D = [
    (Geometry(1, 9, 2, (1, 4), (1, 2), True), 3, [('latency', 1, 1), ('resource', 5, 1), ('resource', 24, 5)]),
    (Geometry(1, 6, 1, (1, 3), (1, 1), False), 2, [('latency', 2, 2), ('resource', 2, 1)]),
]
DEPTHWISE2D = [
    (Geometry(5, 6, 3, (3, 3), (1, 1), True), 1, [('latency', 1, 1), ('resource', 4, 1), ('resource', 27, 6)]),
    (Geometry(5, 4, 2, (2, 3), (2, 2), False), 2, [('latency', 1, 1), ('resource', 5, 2)]),
]
DEPTHWISE1D = [(Geometry(1, 8, 2, (1, 3), (1, 2), True), 1, [('latency', 1, 1), ('resource', 4, 2)])]


def _conv_kernel(strategy: str) -> str:
    # nnet::conv is the call the lowering emits (C-simulation runs the Latency loop for both
    # strategies); the Resource loop is called directly to test it.
    return 'conv_resource' if strategy == 'resource' else 'conv'


def _add_conv_family(factory: CaseFactory, name: str, geometries: list, dimensions: int, depthwise: bool) -> None:
    for number, (geometry, width, runs) in enumerate(geometries):
        data, weight, bias, accum, result = CONV_TYPES[(number + 1) % len(CONV_TYPES)]
        multiplier = width if depthwise else None
        n_filt = geometry.n_chan * width if depthwise else width
        window = geometry.window if dimensions == 2 else geometry.window[1:]
        weights = factory.random(weight, (*window, geometry.n_chan, width))
        biases = factory.random(bias, (n_filt,))
        inputs = factory.inputs(data, geometry.n_in)
        top, bottom, left, right = geometry.padding
        if dimensions == 2:
            keywords = {'in_height': geometry.in_height, 'in_width': geometry.in_width}
            keywords |= {'strides': geometry.strides, 'padding': geometry.padding}
        else:
            keywords = {'stride': geometry.strides[1], 'padding': (left, right)}
        function = getattr(conv, name)
        for strategy, reuse_factor, parallelization in runs:
            constants = geometry.constants(dimensions, 'filt') | {'n_chan': geometry.n_chan, 'n_filt': n_filt}
            constants |= {'strategy': int(strategy == 'resource'), 'reuse_factor': reuse_factor}
            constants |= {'parallelization_factor': parallelization}
            if depthwise:
                constants['depth_multiplier'] = multiplier
            factory.add(
                f'{name}{number}-{strategy}-rf{reuse_factor}-pf{parallelization}',
                _conv_kernel(strategy),
                f'{name}_config',
                constants,
                {'accum_t': accum, 'weight_t': weight, 'bias_t': bias},
                (data, result),
                inputs,
                lambda x, f=function, w=weights, b=biases, a=accum, r=result, k=keywords: f(x, w, b, a, r, **k),
                (
                    DriverArray('weights', 'config::weight_t', weights),
                    DriverArray('biases', 'config::bias_t', biases),
                ),
            )


def add_convolutions(factory: CaseFactory) -> None:
    _add_conv_family(factory, 'conv2d', CONV2D, 2, depthwise=False)
    _add_conv_family(factory, 'conv1d', CONV1D, 1, depthwise=False)
    _add_conv_family(factory, 'depthwise_conv2d', DEPTHWISE2D, 2, depthwise=True)
    _add_conv_family(factory, 'depthwise_conv1d', DEPTHWISE1D, 1, depthwise=True)


POOL_TYPES = [
    # data, accum, result
    (T16, 'fixed<24,10>', T16),
    ('ufixed<6,2>', 'ufixed<12,5>', 'fixed<8,3,RND,SAT>'),
    ('fixed<8,3>', 'fixed<10,4,RND,SAT>', 'fixed<6,2,RND,SAT>'),
    ('fixed<8,-2>', 'fixed<14,1,RND_CONV,SAT>', 'fixed<10,-1,RND,SAT>'),
]
POOL2D = [
    Geometry(5, 7, 2, (2, 3), (2, 2), True),
    Geometry(6, 5, 3, (2, 2), (2, 2), False),
    Geometry(4, 4, 1, (3, 3), (1, 1), True),
    Geometry(7, 3, 2, (3, 2), (2, 1), True),
]
POOL1D = [
    Geometry(1, 9, 2, (1, 2), (1, 2), True),
    Geometry(1, 7, 1, (1, 3), (1, 1), True),
    Geometry(1, 8, 3, (1, 3), (1, 2), False),
]
GLOBAL = [(2, (3, 5), 3), (1, (1, 7), 2), (2, (2, 2), 1), (1, (1, 5), 4)]  # dimensions, (height, width), n_filt


def add_pooling(factory: CaseFactory) -> None:
    for dimensions, geometries in ((2, POOL2D), (1, POOL1D)):
        for number, geometry in enumerate(geometries):
            data, accum, result = POOL_TYPES[number % len(POOL_TYPES)]
            inputs = factory.inputs(data, geometry.n_in)
            for op_number, op in enumerate(pooling.POOL_OPS):
                constants = geometry.constants(dimensions, 'pool') | {'n_filt': geometry.n_chan, 'pool_op': op_number}
                if dimensions == 2:
                    keywords = {'in_height': geometry.in_height, 'in_width': geometry.in_width}
                    keywords |= {'pool_size': geometry.window, 'strides': geometry.strides}
                    keywords |= {'padding': geometry.padding}
                else:
                    keywords = {'n_filt': geometry.n_chan, 'pool_size': geometry.window[1]}
                    keywords |= {'stride': geometry.strides[1], 'padding': geometry.padding[2:]}
                function = getattr(pooling, f'pooling{dimensions}d')
                factory.add(
                    f'{op}_pooling{dimensions}d{number}',
                    'pooling',  # Pooling1D and Pooling2D: the config base differs
                    f'pooling{dimensions}d_config',
                    constants,
                    {'accum_t': accum} if op == 'average' else {},  # max pooling needs no accum_t
                    (data, result),
                    inputs,
                    lambda x, f=function, o=op, r=result, a=accum, k=keywords: f(x, o, r, a, **k),
                )
    for number, (dimensions, (height, width), n_filt) in enumerate(GLOBAL):
        data, accum, result = POOL_TYPES[number % len(POOL_TYPES)]
        inputs = factory.inputs(data, height * width * n_filt)
        for op_number, op in enumerate(pooling.POOL_OPS):
            constants = {'in_width': width, 'n_filt': n_filt, 'pool_op': op_number}
            if dimensions == 2:
                constants['in_height'] = height
            function = getattr(pooling, f'global_pooling{dimensions}d')
            factory.add(
                f'global_{op}_pooling{dimensions}d{number}',
                'global_pooling',
                f'global_pooling{dimensions}d_config',
                constants,
                {'accum_t': accum} if op == 'average' else {},
                (data, result),
                inputs,
                lambda x, f=function, o=op, r=result, a=accum, n=n_filt: f(x, o, r, a, n_filt=n),
            )


GROUPS = {'conv': add_convolutions, 'pooling': add_pooling}


def group_cases(group: str, family: str) -> list[DriverCase]:
    factory = CaseFactory(family, seed=4242)
    GROUPS[group](factory)
    return factory.cases
