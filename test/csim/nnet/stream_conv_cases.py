"""The cases of the io_stream convolution and pooling tests (`nnet_conv_stream.h`, `nnet_pooling_stream.h`).

Streaming convolutions take no padding, so their cases are those of `conv_pool_cases` whose padding
is all zero; streaming pooling supports padding, so all the io_parallel pooling cases run (Keras
'same' layouts with asymmetric padding included). Same data and references as the io_parallel
tests, plus more geometries built the same way: strides above 1 (also larger than the window,
leaving inputs unused), non-square images and windows, 1x1 windows, windows as tall or wide as the
image, Keras 'same' layouts whose padding is zero and, for pooling, padded ones (also windows larger
than the image, padded on both sides). Resource-strategy configs call the dispatching kernel (its
streaming schedule does not depend on the strategy).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from conv_pool_cases import POOL_TYPES, Geometry, _add_conv_family, group_cases
from nnet_cases import CaseFactory
from nnet_harness import DriverCase

from hls4ml.model.reference import pooling

EXTRA_CONV2D = [
    (Geometry(7, 9, 3, (3, 2), (2, 3), False), 4, [('latency', 1, 1), ('resource', 6, 1)]),
    (Geometry(5, 4, 2, (1, 1), (1, 1), False), 3, [('latency', 1, 1)]),
    (Geometry(6, 5, 1, (6, 2), (1, 2), False), 2, [('latency', 3, 1)]),
    (Geometry(8, 3, 2, (2, 1), (3, 1), False), 2, [('latency', 1, 1)]),
    (Geometry(4, 4, 2, (2, 2), (2, 2), True), 3, [('latency', 1, 1)]),  # 'same' without padding
]
EXTRA_CONV1D = [
    (Geometry(1, 11, 3, (1, 3), (1, 3), False), 2, [('latency', 1, 1), ('resource', 4, 1)]),
    (Geometry(1, 5, 2, (1, 5), (1, 1), False), 3, [('latency', 1, 1)]),
    (Geometry(1, 7, 1, (1, 1), (1, 2), True), 2, [('latency', 1, 1)]),
]
EXTRA_DEPTHWISE2D = [
    (Geometry(6, 7, 2, (3, 2), (1, 3), False), 2, [('latency', 1, 1), ('resource', 5, 1)]),
    (Geometry(5, 5, 3, (2, 2), (2, 2), False), 1, [('latency', 1, 1)]),
]
EXTRA_DEPTHWISE1D = [
    (Geometry(1, 9, 2, (1, 2), (1, 3), False), 3, [('latency', 1, 1)]),
    (Geometry(1, 6, 3, (1, 3), (1, 1), False), 1, [('latency', 2, 1)]),
]
EXTRA_POOL2D = [
    Geometry(6, 8, 2, (2, 2), (2, 2), False),
    Geometry(5, 7, 3, (3, 3), (1, 2), False),
    Geometry(7, 5, 1, (2, 2), (3, 2), False),
    Geometry(4, 6, 2, (4, 3), (1, 3), False),
]
EXTRA_POOL1D = [
    Geometry(1, 10, 2, (1, 3), (1, 3), False),
    Geometry(1, 7, 3, (1, 2), (1, 1), False),
    Geometry(1, 8, 1, (1, 2), (1, 2), True),  # 'same' without padding
]
# Keras 'same' pooling with padding (asymmetric, strides, non-square; windows larger than the image).
EXTRA_PADDED_POOL2D = [
    Geometry(6, 5, 2, (3, 4), (2, 3), True),
    Geometry(3, 2, 1, (4, 3), (1, 1), True),
    Geometry(5, 8, 3, (2, 5), (3, 2), True),
    Geometry(7, 4, 1, (3, 2), (1, 2), True),
]
EXTRA_PADDED_POOL1D = [
    Geometry(1, 3, 2, (1, 5), (1, 1), True),
    Geometry(1, 10, 1, (1, 4), (1, 3), True),
]
EXTRA_GLOBAL = [(2, (4, 3), 3), (1, (1, 9), 2)]  # dimensions, (height, width), n_filt

_CONSTANT = re.compile(r'static const (?:unsigned|int) (\w+) = (-?\d+);')


@dataclass(frozen=True)
class StreamCase:
    """A DriverCase run through streams of `nnet::array<T, in_chan>` / `nnet::array<T, out_chan>`."""

    case: DriverCase
    in_chan: int
    out_chan: int

    @property
    def name(self) -> str:
        return self.case.name

    @property
    def n_in_pixels(self) -> int:
        return self.case.n_in // self.in_chan

    @property
    def n_out_pixels(self) -> int:
        return self.case.n_out // self.out_chan


def constants(case: DriverCase) -> dict[str, int]:
    return {match[1]: int(match[2]) for line in case.config_lines if (match := _CONSTANT.fullmatch(line))}


def _add_pool_family(factory: CaseFactory, geometries: list[Geometry], dimensions: int) -> None:
    for number, geometry in enumerate(geometries):
        data, accum, result = POOL_TYPES[number % len(POOL_TYPES)]
        inputs = factory.inputs(data, geometry.n_in)
        function = getattr(pooling, f'pooling{dimensions}d')
        for op_number, op in enumerate(pooling.POOL_OPS):
            members = geometry.constants(dimensions, 'pool') | {'n_filt': geometry.n_chan, 'pool_op': op_number}
            if dimensions == 2:
                keywords = {'in_height': geometry.in_height, 'in_width': geometry.in_width}
                keywords |= {'pool_size': geometry.window, 'strides': geometry.strides, 'padding': geometry.padding}
            else:
                keywords = {'n_filt': geometry.n_chan, 'pool_size': geometry.window[1]}
                keywords |= {'stride': geometry.strides[1], 'padding': geometry.padding[2:]}
            factory.add(
                f'{op}_pooling{dimensions}d{number}',
                'pooling',  # Pooling1D and Pooling2D: the config base differs
                f'pooling{dimensions}d_config',
                members,
                {'accum_t': accum} if op == 'average' else {},
                (data, result),
                inputs,
                lambda x, f=function, o=op, r=result, a=accum, k=keywords: f(x, o, r, a, **k),
            )


def _add_global_family(factory: CaseFactory) -> None:
    for number, (dimensions, (height, width), n_filt) in enumerate(EXTRA_GLOBAL):
        data, accum, result = POOL_TYPES[(number + 1) % len(POOL_TYPES)]
        inputs = factory.inputs(data, height * width * n_filt)
        function = getattr(pooling, f'global_pooling{dimensions}d')
        for op_number, op in enumerate(pooling.POOL_OPS):
            members = {'in_width': width, 'n_filt': n_filt, 'pool_op': op_number}
            if dimensions == 2:
                members['in_height'] = height
            factory.add(
                f'global_{op}_pooling{dimensions}d{number}',
                'global_pooling',
                f'global_pooling{dimensions}d_config',
                members,
                {'accum_t': accum} if op == 'average' else {},
                (data, result),
                inputs,
                lambda x, f=function, o=op, r=result, a=accum, n=n_filt: f(x, o, r, a, n_filt=n),
            )


def _extra_cases(group: str, family: str) -> list[DriverCase]:
    factory = CaseFactory(family, seed=5151)
    if group == 'conv':
        _add_conv_family(factory, 'conv2d', EXTRA_CONV2D, 2, depthwise=False)
        _add_conv_family(factory, 'conv1d', EXTRA_CONV1D, 1, depthwise=False)
        _add_conv_family(factory, 'depthwise_conv2d', EXTRA_DEPTHWISE2D, 2, depthwise=True)
        _add_conv_family(factory, 'depthwise_conv1d', EXTRA_DEPTHWISE1D, 1, depthwise=True)
    else:
        _add_pool_family(factory, EXTRA_POOL2D, 2)
        _add_pool_family(factory, EXTRA_POOL1D, 1)
        _add_global_family(factory)
    padded = CaseFactory(family, seed=6262)
    if group == 'pooling':
        _add_pool_family(padded, EXTRA_PADDED_POOL2D, 2)
        _add_pool_family(padded, EXTRA_PADDED_POOL1D, 1)
        assert all(not _unpadded(case) for case in padded.cases), 'a padded pooling geometry has no padding'
    prefix = f'{family}-'
    assert all(_unpadded(case) for case in factory.cases), 'an unpadded streaming geometry has padding'
    return [replace(case, name=prefix + 'x.' + case.name[len(prefix) :]) for case in factory.cases] + [
        replace(case, name=prefix + 'p.' + case.name[len(prefix) :]) for case in padded.cases
    ]


def _unpadded(case: DriverCase) -> bool:
    return all(value == 0 for key, value in constants(case).items() if key.startswith('pad_'))


def _as_stream_case(case: DriverCase, group: str) -> StreamCase:
    members = constants(case)
    in_chan = members['n_chan'] if group == 'conv' else members['n_filt']
    # The streaming schedule has no strategy: every config calls the dispatching kernel.
    call = re.sub(r'_(resource|latency)<', '<', case.call)
    return StreamCase(replace(case, call=call), in_chan, members['n_filt'])


GROUPS = ('conv', 'pooling')


def stream_cases(group: str, family: str) -> list[StreamCase]:
    """The io_parallel cases (convolutions: those without padding), then the extra streaming geometries."""
    cases = [case for case in group_cases(group, family) if group == 'pooling' or _unpadded(case)]
    cases += _extra_cases(group, family)
    return [_as_stream_case(case, group) for case in cases]
