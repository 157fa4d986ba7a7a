"""Einsum equations (hls4ml/model/einsum.py) and the einsum reference kernel (reference/einsum.py):
plans of the equations the frontends produce, the refusals, and the reference against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.model.einsum import EinsumError, drop_batch, drop_batch_of_input, explicit, matmul_equation, plan
from hls4ml.model.fixed import FixedArray
from hls4ml.model.reference.einsum import einsum

CASES = [  # equation, first shape, second shape (IR axes, no batch axis)
    ('mk,kn->mn', (3, 4), (4, 5)),
    ('hqd,hkd->hqk', (2, 3, 4), (2, 5, 4)),
    ('hqk,hkd->hqd', (2, 3, 5), (2, 5, 4)),
    ('ecd,bcd->cbe', (5, 2, 4), (3, 2, 4)),
    ('abcd,cde->abe', (2, 1, 3, 2), (3, 2, 4)),
    ('ab,cb->ca', (3, 4), (5, 4)),
    ('i,j->ij', (3,), (4,)),
    ('i,i->', (6,), (6,)),
]


def test_plan_of_q_times_k_transposed() -> None:
    """Batch h (2), rows q (3), columns k (5), inner d (4): strides of 'hqd', 'hkd' and 'hqk'."""
    loops = plan('hqd,hkd->hqk', (2, 3, 4), (2, 5, 4))
    assert loops.sizes == (2, 3, 5, 4)
    assert loops.first == (12, 4, 1)  # q: h, q, d
    assert loops.second == (20, 1, 4)  # k: h, d, k (d is the last axis, k steps over rows of 4)
    assert loops.output == (15, 5, 1)
    assert loops.output_shape == (2, 3, 5) and loops.products == 120


def test_roles_of_several_letters_merge_into_one_loop() -> None:
    loops = plan('abcd,cde->abe', (2, 1, 3, 2), (3, 2, 4))
    assert loops.sizes == (1, 2, 4, 6)  # no batch, rows ab, columns e, inner cd
    assert loops.first == (0, 6, 1) and loops.second == (0, 4, 1) and loops.output == (0, 4, 1)


@pytest.mark.parametrize(
    ('equation', 'shapes', 'message'),
    [
        ('ab,bc', ((2, 3), (3, 4)), 'explicitly'),
        ('ab,bc,cd->ad', ((2, 3), (3, 4)), 'two tensors'),
        ('aa,ab->b', ((2, 2), (2, 3)), 'diagonal'),
        ('ab,bc->ac', ((2, 3), (4, 5)), 'broadcasting'),
        ('ab,bc->a', ((2, 3), (3, 4)), 'summed within one operand'),
        ('ab,bc->ad', ((2, 3), (3, 4)), 'in no operand'),
        ('abc,cba->ac', ((2, 3, 4), (4, 3, 2)), 'not adjacent'),
        ('ab,bc->ac', ((2, 3, 1), (3, 4)), 'names 2 axes'),
    ],
)
def test_refusals_name_the_reason(equation: str, shapes: tuple, message: str) -> None:
    with pytest.raises(EinsumError, match=message):
        plan(equation, *shapes)


def test_frontend_forms() -> None:
    assert explicit('...ij,...jk', (4, 4)) == 'ABij,ABjk->ABik'
    assert explicit('bij,bjk', (3, 3)) == 'bij,bjk->ik'  # numpy's implicit output sums the repeated b
    assert drop_batch('bqd,bkd->bqk') == 'qd,kd->qk'
    assert matmul_equation((2, 3, 4), (2, 4, 5)) == 'Amk,Akn->Amn'
    with pytest.raises(EinsumError, match='batch axis'):
        drop_batch('qd,bkd->bqk')
    with pytest.raises(EinsumError, match='same rank'):
        matmul_equation((3, 4), (2, 4, 5))
    assert drop_batch_of_input('abc,cde->abde') == 'bc,cde->bde'  # EinsumDense: the kernel has no batch
    with pytest.raises(EinsumError, match='batch axis'):
        drop_batch_of_input('abc,acd->abd')


def _operands(shapes: tuple, seed: int) -> tuple[FixedArray, FixedArray]:
    rng = np.random.default_rng(seed)
    first = FixedArray.from_raw(rng.integers(-512, 512, (9, int(np.prod(shapes[0])))), 'fixed<10,2>')
    second = FixedArray.from_raw(rng.integers(0, 256, (9, int(np.prod(shapes[1])))), 'ufixed<8,3>')
    return first, second


@pytest.mark.parametrize(('equation', 'first_shape', 'second_shape'), CASES)
def test_reference_with_exact_types_is_numpy_einsum(equation: str, first_shape: tuple, second_shape: tuple) -> None:
    """fixed<10,2> x ufixed<8,3>: 13 fraction bits per product, |sum| < inner * 2 * 8 -> fixed<40,12> is exact."""
    first, second = _operands((first_shape, second_shape), 0)
    loops = plan(equation, first_shape, second_shape)
    got = einsum(first, second, loops, 'fixed<40,12>', 'fixed<40,12>')
    a, b = first.value.reshape(-1, *first_shape), second.value.reshape(-1, *second_shape)
    expected = np.einsum(f'z{equation.replace(",", ",z").replace("->", "->z")}', a, b).reshape(9, -1)
    np.testing.assert_array_equal(got.value, expected)


def test_reference_rounds_each_accumulation_in_order() -> None:
    """A 2-fraction-bit truncating accumulator: acc = trunc(acc + a_k b_k) term by term, k increasing."""
    first = FixedArray.from_raw(np.array([[3, 1]]), 'fixed<8,4>')  # 0.1875, 0.0625
    second = FixedArray.from_raw(np.array([[3, 5]]), 'fixed<8,4>')  # 0.1875, 0.3125
    got = einsum(first, second, plan('k,k->', (2,), (2,)), 'fixed<8,6>', 'fixed<16,8>')
    # 0.03515625 -> 0; 0 + 0.01953125 -> 0: a wider accumulator would hold 0.0546875
    assert got.value.tolist() == [[0.0]]
    exact = einsum(first, second, plan('k,k->', (2,), (2,)), 'fixed<16,8>', 'fixed<16,8>')
    assert exact.value.tolist() == [[0.0546875]]
