"""The RTL port codec (hls4ml/model/fixed/ports.py): inputs written into their types as port integers,
packed into hex words value by value, and read back as values, bit for bit."""

import numpy as np
import pytest

from hls4ml.model.fixed.ports import PortFormat, pack_words, port_values, raw_inputs, unpack_words
from hls4ml.model.types import FixedPrecisionType


def test_inputs_are_written_into_their_type_then_scaled():
    port = PortFormat(signed=1, integer=2, fraction=3, count=3)
    precision = FixedPrecisionType(6, 3, rounding_mode='RND', saturation_mode='SAT')
    raw, single = raw_inputs([np.array([0.3, -1.0, 9.0])], [precision], [3], port)
    assert single
    assert raw.tolist() == [[2, -8, 31]]  # 0.3 rounds to 0.25; 9 saturates to 3.875


def test_words_pack_value_k_at_bits_width_times_k():
    port = PortFormat(signed=1, integer=1, fraction=2, count=3)
    words = pack_words(np.array([[1, -1, 5]]), port)
    assert words == [f'{1 | (0xF << 4) | (5 << 8):03x}']


def test_a_round_trip_keeps_every_value():
    port = PortFormat(signed=1, integer=4, fraction=5, count=7)
    rng = np.random.default_rng(0)
    raw = rng.integers(-(1 << 9), 1 << 9, (50, 7))
    back = unpack_words(pack_words(raw, port), port)
    np.testing.assert_array_equal(port_values(back, port), raw * 2.0**-5)


def test_unsigned_ports_are_not_sign_extended():
    port = PortFormat(signed=0, integer=3, fraction=1, count=1)
    assert port_values(np.array([[15]]), port).tolist() == [[7.5]]


def test_samples_of_two_inputs_must_agree():
    port = PortFormat(1, 3, 0, 2)
    precision = FixedPrecisionType(4, 4)
    with pytest.raises(ValueError, match='different numbers of samples'):
        raw_inputs([np.zeros((2, 1)), np.zeros((3, 1))], [precision, precision], [1, 1], port)
