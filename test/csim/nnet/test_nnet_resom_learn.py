"""The learning kernels of nnet_som_learn.h against hls4ml/model/reference/resom_learn.py: random
sequences of samples, the lateral matrix (Hebbian) or the codebook and BMU (Kohonen) compared bit for
bit after every sample, in both type families with our own and (when present) the vendor headers."""

from __future__ import annotations

import subprocess
import zlib
from dataclasses import dataclass
from pathlib import Path

import jinja2
import numpy as np
import pytest
from nnet_harness import NNET, WARNING_FLAGS, HeaderSet, compile_source

from hls4ml.model.fixed import FixedArray, quantize
from hls4ml.model.reference.resom_learn import hebbian_update, hebbian_update_bmu, kohonen_update, neighbourhood_table
from hls4ml.model.types import FixedPrecisionType, parse_precision

pytestmark = pytest.mark.csim
N_SAMPLES = 60


@dataclass
class LearnCase:
    name: str
    rule: str  # 'hebb', 'oja' or 'bmu'
    n_x: int
    n_y: int
    lateral: str
    activity: str
    rate: str
    family: str = 'ap'

    def spell(self, text: str) -> str:
        parsed = parse_precision(text)
        assert isinstance(parsed, FixedPrecisionType)
        return parsed.spelling(self.family)

    @property
    def bmu(self) -> bool:
        return self.rule == 'bmu'

    @property
    def lateral_t(self) -> str:
        return self.spell(self.lateral)

    @property
    def activity_t(self) -> str:
        return self.spell(self.activity)

    @property
    def rate_t(self) -> str:
        return self.spell(self.rate)


CASES = [
    LearnCase('hebb_sat', 'hebb', 5, 4, 'ufixed<12,2,RND,SAT>', 'ufixed<10,1>', 'ufixed<8,0>'),
    LearnCase('hebb_wrap_trn', 'hebb', 3, 6, 'ufixed<9,1>', 'ufixed<8,1,RND>', 'ufixed<6,-1>'),
    LearnCase('oja_sat', 'oja', 4, 4, 'ufixed<14,3,RND,SAT>', 'ufixed<12,1>', 'ufixed<10,0>'),
    LearnCase('oja_signed', 'oja', 2, 5, 'fixed<16,4,TRN,SAT>', 'ufixed<9,1>', 'fixed<8,1>'),
    LearnCase('bmu_sat', 'bmu', 4, 3, 'ufixed<8,3,TRN,SAT>', 'ufixed<8,1>', 'ufixed<6,0>'),
]


@dataclass
class KohonenCase:
    name: str
    distance: str
    rows: int
    cols: int
    n_in: int
    data: str
    codebook: str
    accum: str  # exact for these data and codebook types
    neighbourhood: str
    rate: str
    factor: str
    sigma: float
    family: str = 'ap'

    def spell(self, text: str) -> str:
        parsed = parse_precision(text)
        assert isinstance(parsed, FixedPrecisionType)
        return parsed.spelling(self.family)


KOHONEN_CASES = [
    KohonenCase(
        'kohonen_euclidean',
        'squared_euclidean',
        3,
        4,
        3,
        'fixed<10,3>',
        'fixed<16,3,RND,SAT>',
        'ufixed<36,9>',
        'ufixed<12,1,RND>',
        'ufixed<10,0>',
        'ufixed<14,1>',
        1.3,
    ),
    KohonenCase(
        'kohonen_manhattan',
        'manhattan',
        2,
        3,
        4,
        'ufixed<8,0>',
        'ufixed<12,0,TRN,SAT>',
        'ufixed<16,3>',
        'ufixed<8,1>',
        'ufixed<8,0,RND>',
        'ufixed<10,0,RND,SAT>',
        0.8,
    ),
]


def _kohonen_run(case: KohonenCase) -> tuple[list[str], list[tuple[int, np.ndarray]]]:
    """The driver's input lines and the expected (bmu, codebook) after every sample."""
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    data_type = parse_precision(case.data)
    assert isinstance(data_type, FixedPrecisionType)
    low, high = data_type.min, data_type.max
    codebook = quantize(rng.uniform(low, high, (case.rows * case.cols, case.n_in)), case.codebook, case.family)
    tables = tuple(neighbourhood_table(n, case.sigma, case.neighbourhood, case.family) for n in (case.rows, case.cols))
    lines = [_hex(codebook.value), _hex(tables[0].value), _hex(tables[1].value), float(N_SAMPLES).hex()]
    expected = []
    for _ in range(N_SAMPLES):
        x = quantize(rng.uniform(low, high, case.n_in), case.data, case.family)
        rate = quantize(rng.random() * 0.9, case.rate, case.family)
        lines.append(_hex([*x.value, float(rate.value)]))
        types = (case.accum, case.factor)
        codebook, bmu = kohonen_update(x, codebook, tables, rate, (case.rows, case.cols), case.distance, types)
        expected.append((bmu, codebook.value.reshape(-1)))
    return lines, expected


def _hex(values) -> str:
    return ' '.join(float(v).hex() for v in np.ravel(values))


def _random(rng: np.random.Generator, text: str, shape: tuple[int, ...], family: str, high: float) -> FixedArray:
    return quantize(rng.random(shape) * high, text, family)


def _sequence(case: LearnCase, family: str) -> tuple[FixedArray, list[tuple]]:
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    lateral = _random(rng, case.lateral, (case.n_x, case.n_y), family, 1.0)
    samples = []
    for _ in range(N_SAMPLES):
        act_x = _random(rng, case.activity, (case.n_x,), family, 1.0)
        act_y = _random(rng, case.activity, (case.n_y,), family, 1.0)
        rate = _random(rng, case.rate, (), family, 0.6)
        samples.append((act_x, act_y, rate, int(rng.integers(case.n_x)), int(rng.integers(case.n_y))))
    return lateral, samples


def _expected(case: LearnCase, lateral: FixedArray, samples: list[tuple]) -> list[np.ndarray]:
    rows = []
    for act_x, act_y, rate, bmu_x, bmu_y in samples:
        if case.bmu:
            lateral = hebbian_update_bmu(lateral, bmu_x, bmu_y, rate)
        else:
            lateral = hebbian_update(lateral, act_x, act_y, rate, case.rule)
        rows.append(lateral.value.reshape(-1))
    return rows


def _stdin(lateral: FixedArray, samples: list[tuple]) -> list[str]:
    lines = [' '.join(float(v).hex() for v in lateral.value.reshape(-1)), float(len(samples)).hex()]
    for act_x, act_y, rate, bmu_x, bmu_y in samples:
        values = [*act_x.value, *act_y.value, float(rate.value), bmu_x, bmu_y]
        lines.append(' '.join(float(v).hex() for v in values))
    return lines


def test_hebbian_kernels_match_the_reference(header_set: HeaderSet) -> None:
    cases = [LearnCase(**{**case.__dict__, 'family': header_set.family}) for case in CASES]
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent), undefined=jinja2.StrictUndefined
    )
    kohonen_cases = [KohonenCase(**{**case.__dict__, 'family': header_set.family}) for case in KOHONEN_CASES]
    template = environment.get_template('resom_learn_driver.cpp.j2')
    source = template.render(cases=cases, kohonen_cases=kohonen_cases)
    flags = [*WARNING_FLAGS, *header_set.flags(), '-O1']
    executable = compile_source(source, flags, [header_set.include, NNET], f'resom-learn-{header_set}')
    sequences = [_sequence(case, header_set.family) for case in cases]
    kohonen_runs = [_kohonen_run(case) for case in kohonen_cases]
    lines = [line for lateral, samples in sequences for line in _stdin(lateral, samples)]
    lines += [line for run_lines, _ in kohonen_runs for line in run_lines]
    text = '\n'.join(lines) + '\n'
    process = subprocess.run([str(executable)], input=text, capture_output=True, text=True)
    assert process.returncode == 0, process.stderr[-3000:]
    rows = iter(process.stdout.splitlines())
    for case, (lateral, samples) in zip(cases, sequences, strict=True):
        for step, expected in enumerate(_expected(case, lateral, samples)):
            got = np.array([float.fromhex(value) for value in next(rows).split()])
            np.testing.assert_array_equal(got, expected, err_msg=f'{case.name} {header_set}, sample {step}')
    for case, (_, expected_rows) in zip(kohonen_cases, kohonen_runs, strict=True):
        for step, (bmu, codebook) in enumerate(expected_rows):
            first, *values = next(rows).split()
            where = f'{case.name} {header_set}, sample {step}'
            assert int(first) == bmu, where
            np.testing.assert_array_equal([float.fromhex(value) for value in values], codebook, err_msg=where)
