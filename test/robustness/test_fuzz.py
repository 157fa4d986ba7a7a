"""Fuzzing what users hand to hls4ml: "a clear exception or the correct result, never a crash".

(a) Random HLSConfig dictionaries (the real keys and values, typos, wrong types, nested garbage, huge
    numbers, NaN, booleans, None) applied to a tiny Keras model: conversion raises a clear exception (a
    ValueError, TypeError or KeyError whose message names one of the config's keys or a layer), or
    gives a model that the reference interpreter runs; a sample of those is compiled, and predict()
    equals the interpreter bit for bit.
(b) Random predict() inputs (shapes, dtypes including bool, complex, object, strings and dates, lists,
    NaN/inf, empty batches, non-contiguous and read-only views, scalars) to one compiled model: a
    ValueError, or the result of predict() on the same values as a contiguous float64 (n, 4) array, which
    equals the interpreter (NaN, inf and out-of-range values included).

Derandomized (the same examples in every run) with a bounded budget; a crash of the C++ (a segfault)
kills the worker and fails the run.
"""

from __future__ import annotations

import warnings
from typing import Any

import keras
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hls4ml
from hls4ml.model.interpreter import interpret

pytestmark = pytest.mark.csim


def fuzz(examples: int) -> settings:
    """The same examples in every run (derandomized, no example database), a bounded count, no deadline."""
    return settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.generate, Phase.shrink),  # no 'explain': it re-runs a failure many times
    )


COMPILE_BUDGET = 6  # distinct converted models compiled by the config property (each a g++ run)
LAYER_NAMES = ('fc1', 'fc2', 'act')
CLEAR = (ValueError, TypeError, KeyError)
IO_TYPES = ('io_parallel', 'io_stream')
SAMPLES = np.random.default_rng(0).uniform(-4, 4, (16, 4))

# ---- strategies: values ---------------------------------------------------------------------------------------
widths, integers = st.integers(1, 40), st.integers(-6, 24)
rounding = st.sampled_from(['TRN', 'RND', 'RND_CONV', 'RND_ZERO', 'RND_INF', 'RND_MIN_INF', 'TRN_ZERO'])
saturation = st.sampled_from(['WRAP', 'SAT', 'SAT_SYM', 'SAT_ZERO'])
precision_text = st.one_of(
    st.builds('fixed<{},{}>'.format, widths, integers),
    st.builds('ap_fixed<{},{},AP_{},AP_{}>'.format, widths, integers, rounding, saturation),
    st.builds('ufixed<{},{},{},{}>'.format, widths, integers, rounding, saturation),
    st.builds('ap_int<{}>'.format, widths),
    st.builds('ac_fixed<{},{},true>'.format, widths, integers),
    st.sampled_from(['auto', 'fixed<16,6>', 'ap_fixed<8,3>', 'fixed<2000,10>', 'float', 'fixed<16>', 'int8']),
)
garbage = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=10),
    st.lists(st.integers(-3, 3), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)
precision_entry = st.one_of(
    precision_text,
    st.dictionaries(
        st.sampled_from(['weight', 'bias', 'result', 'accum', 'table', 'default', 'maximum', 'weigth']),
        st.one_of(precision_text, precision_text, garbage),
        max_size=3,
    ),
    garbage,
)


def sometimes_garbage(valid: st.SearchStrategy) -> st.SearchStrategy:
    """A real value two times in three, anything otherwise."""
    return st.one_of(valid, valid, garbage)


LAYER_VALUES = {
    'Precision': precision_entry,
    'ReuseFactor': sometimes_garbage(st.integers(1, 16)),
    'Strategy': sometimes_garbage(st.sampled_from(['Latency', 'Resource', 'resource', 'Fast'])),
    'Trace': sometimes_garbage(st.booleans()),
    'TableSize': sometimes_garbage(st.sampled_from([2, 64, 1024, 4096, 1000])),
    'weight_t': sometimes_garbage(precision_text),
    'result_t': sometimes_garbage(precision_text),
    'Implementation': sometimes_garbage(st.sampled_from(['stable', 'latency'])),
    'Reuse_Factor': st.integers(1, 4),  # a typo
}
MODEL_VALUES = {
    'Precision': precision_entry,
    'ReuseFactor': sometimes_garbage(st.integers(1, 16)),
    'Strategy': sometimes_garbage(st.sampled_from(['Latency', 'Resource'])),
    'TraceOutput': sometimes_garbage(st.booleans()),
    'BramFactor': sometimes_garbage(st.integers(1, 10**9)),
    'PipelineStyle': sometimes_garbage(st.sampled_from(['auto', 'pipeline', 'dataflow'])),
    'PipelineInterval': sometimes_garbage(st.integers(1, 8)),
    'Precison': precision_text,  # a typo
}


def entries(values: dict[str, st.SearchStrategy]) -> st.SearchStrategy:
    """A dict of some of the keys, each with its value strategy; or, rarely, not a dict at all."""
    keys = st.lists(st.sampled_from(sorted(values)), unique=True, max_size=3)
    as_dict = keys.flatmap(lambda chosen: st.fixed_dictionaries({key: values[key] for key in chosen}))
    return st.one_of(as_dict, as_dict, as_dict, garbage)


hls_configs = st.fixed_dictionaries(
    {},
    optional={
        'Model': entries(MODEL_VALUES),
        'LayerName': st.dictionaries(st.sampled_from([*LAYER_NAMES, 'fc3']), entries(LAYER_VALUES), max_size=2),
        'LayerType': st.dictionaries(st.sampled_from(['Dense', 'Activation', 'Dnese']), entries(LAYER_VALUES), max_size=1),  # noqa: E501
        'Flows': st.just([]),
    },
)  # fmt: skip


# ---- (a) configs ------------------------------------------------------------------------------------------------
@pytest.fixture(scope='module')
def keras_model() -> keras.Model:
    keras.utils.set_random_seed(3)
    return keras.Sequential(
        [
            keras.Input((4,)),
            keras.layers.Dense(3, activation='relu', name='fc1'),
            keras.layers.Dense(2, name='fc2'),
            keras.layers.Activation('sigmoid', name='act'),
        ]
    )


def config_keys(config: Any) -> set[str]:
    """Every key in the (nested) config, as text: a clear message names one of them."""
    if not isinstance(config, dict):
        return set()
    keys = {str(key) for key in config}
    return keys.union(*(config_keys(value) for value in config.values()))


def assert_clear(error: Exception, config: dict) -> None:
    """A clear refusal: one of the expected classes, naming a key of the config or a layer of the model."""
    assert isinstance(error, CLEAR), f'{type(error).__name__}: {error}'
    message = str(error)
    named = {key for key in config_keys(config) | {'hls_config', *LAYER_NAMES} if key and key in message}
    assert named, f'the message names no key of {config!r} and no layer: {message}'


@fuzz(100)
@given(config=hls_configs, backend=st.sampled_from(['Vitis', 'Catapult']), io_type=st.sampled_from(IO_TYPES))
def test_a_random_config_converts_correctly_or_is_refused_clearly(
    keras_model, config, backend, io_type, tmp_path_factory
) -> None:
    output_dir = tmp_path_factory.mktemp('fuzz')
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # reuse factors snapped to valid ones: reported, not errors
            hls_model = hls4ml.converters.convert_from_keras_model(
                keras_model, hls_config=config, output_dir=str(output_dir), backend=backend, io_type=io_type
            )
    except Exception as error:  # noqa: BLE001 - the property is about which exceptions
        event(f'refused: {type(error).__name__}')
        assert_clear(error, config)
        return
    event('converted')
    (interpreted,), _ = interpret(hls_model, SAMPLES)
    assert interpreted.to_double().shape == (16, 2)
    if COMPILED.count < COMPILE_BUDGET:
        COMPILED.count += 1
        event('compiled')
        np.testing.assert_array_equal(hls_model.predict(SAMPLES), interpreted.to_double())


class COMPILED:
    count = 0


# ---- (b) predict inputs ---------------------------------------------------------------------------------------
@pytest.fixture(scope='module')
def compiled(keras_model, tmp_path_factory) -> Any:
    config = {'Model': {'Precision': 'fixed<16,6>', 'ReuseFactor': 1}}
    hls_model = hls4ml.converters.convert_from_keras_model(
        keras_model, hls_config=config, output_dir=str(tmp_path_factory.mktemp('predict')), backend='Vitis'
    )
    hls_model.compile()
    return hls_model


DTYPES = [
    'float64', 'float32', 'float16', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint64', 'bool',
    'complex128', 'object', 'U3', 'S3', 'datetime64[s]', 'timedelta64[s]',
]  # fmt: skip
SHAPES = st.one_of(
    st.sampled_from([(), (4,), (1, 4), (0, 4), (2, 2), (5,), (3,), (1, 5), (4, 1), (2, 2, 2)]),
    st.tuples(st.integers(0, 6), st.just(4)),
    st.tuples(st.integers(0, 3), st.just(2), st.just(2)),
    st.tuples(st.integers(0, 3), st.just(4), st.just(1)),
)
numbers = st.one_of(
    st.floats(-8, 8, width=32),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 31.99, -32.0, 32.0, 1e300, -1e300, 5e-324, 2.0**63]),
)


@st.composite
def predict_inputs(draw: st.DrawFn) -> Any:
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = draw(SHAPES)
    values = np.asarray(draw(hnp.arrays(np.float64, shape, elements=numbers)))
    with np.errstate(all='ignore'), warnings.catch_warnings():
        warnings.simplefilter('ignore')
        array = values.astype(dtype) if dtype.kind not in 'USO' else values.astype(str).astype(dtype)
    return draw(st.sampled_from(['array', 'list', 'tuple', 'view', 'fortran', 'readonly', 'scalar']).map(
        lambda form: packaged(array, form)))  # fmt: skip


def packaged(array: np.ndarray, form: str) -> Any:
    """The same values handed over in another form: containers, strided views, flags, numpy scalars."""
    if form == 'list':
        return array.tolist()
    if form == 'tuple':
        return tuple(array.tolist()) if array.ndim else array.item()
    if form == 'view' and array.ndim:
        wider = np.repeat(array[..., None], 2, axis=-1)  # every other element of a wider array
        return wider[..., 0]
    if form == 'fortran':
        return np.asfortranarray(array)
    if form == 'readonly':
        array = array.copy()
        array.setflags(write=False)
        return array
    if form == 'scalar' and array.size:
        return array.reshape(-1)[0]
    return array


def normalised(x: Any) -> np.ndarray:
    """What the values are as a contiguous float64 (n, 4) batch."""
    return np.ascontiguousarray(np.asarray(x, dtype=np.float64).reshape(-1, 4))


@fuzz(200)
@given(x=predict_inputs())
def test_a_random_predict_input_gives_the_right_result_or_a_clear_error(compiled, x) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # NaN/inf inputs may warn
        try:
            predicted = compiled.predict(x)
        except ValueError as error:
            event(f'refused: {str(error)[:40]}')
            assert str(error), 'an empty message'
            return
        expected = compiled.predict(normalised(x))
    event('predicted')
    assert np.asarray(predicted).size == expected.size
    np.testing.assert_array_equal(np.asarray(predicted, dtype=np.float64).reshape(expected.shape),
                                  expected.astype(np.asarray(predicted).dtype).astype(np.float64))  # fmt: skip
    values = normalised(x)
    if len(values):  # NaN, inf and out-of-range values too: the twin converts them as the C++ does
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            (interpreted,), _ = interpret(compiled, values)
        np.testing.assert_array_equal(expected, interpreted.to_double())
