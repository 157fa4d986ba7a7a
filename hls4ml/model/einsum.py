"""Einsum equations of two tensors: parsing, normalizing and the loop plan the Einsum kernel runs.

An IR `Einsum` layer holds an equation over its two inputs' IR axes, without the batch axis, in the
explicit form `'hqd,hkd->hqk'` (letters only, an output after '->'). Every letter is one of four
roles, and each role is one loop of the kernel (`nnet_einsum.h`):

* batch: in both inputs and the output (`h` above): a product of its own per index;
* rows: in the first input and the output only (`q`);
* columns: in the second input and the output only (`k`);
* inner: in both inputs, not in the output (`d`): summed over.

A role with several letters is one loop when its axes are adjacent and in the same order in every
tensor that holds them (`'abcd,cde->abe'`: inner `cd`); each role then advances by one stride per
tensor. The frontends fold any transposes of the operands into the equation, so most products
need no data movement. What cannot be planned is refused with the reason (`EinsumError`).
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass

ROLES = ('batch', 'rows', 'columns', 'inner')


class EinsumError(ValueError):
    """An einsum equation (or operand shapes) the Einsum kernel cannot compute."""


@dataclass(frozen=True)
class EinsumPlan:
    """The four loops of the kernel: their sizes and each tensor's stride per loop (0: not in it)."""

    sizes: tuple[int, int, int, int]  # batch, rows, columns, inner
    first: tuple[int, int, int]  # strides of input 1 along batch, rows, inner
    second: tuple[int, int, int]  # strides of input 2 along batch, inner, columns
    output: tuple[int, int, int]  # strides of the output along batch, rows, columns
    output_shape: tuple[int, ...]

    @property
    def products(self) -> int:
        """Multiplications of one evaluation: batch * rows * columns * inner."""
        return math.prod(self.sizes)


def split_equation(equation: str) -> tuple[str, str, str]:
    """('ab', 'bc', 'ac') of an explicit two-operand equation 'ab,bc->ac' (spaces ignored)."""
    text = equation.replace(' ', '')
    if '->' not in text or text.count('->') != 1:
        raise EinsumError(f"einsum {equation!r}: write the output explicitly ('ab,bc->ac')")
    operands, output = text.split('->')
    parts = operands.split(',')
    if len(parts) != 2:
        raise EinsumError(f'einsum {equation!r}: {len(parts)} operands; only products of two tensors are supported')
    for part in (*parts, output):
        if not all(letter in string.ascii_letters for letter in part):
            raise EinsumError(
                f'einsum {equation!r}: only letters may name axes (ellipses are expanded by the frontend)'
            )
        if len(set(part)) != len(part):
            raise EinsumError(f'einsum {equation!r}: a letter repeated in {part!r} (a diagonal) is not supported')
    return parts[0], parts[1], output


def explicit(equation: str, ranks: tuple[int, ...]) -> str:
    """`equation` with its ellipses expanded for operands of `ranks` and its output written out
    (numpy's implicit output: the ellipsis axes, then the letters seen once, sorted)."""
    text = equation.replace(' ', '')
    operands_text, arrow, output = text.partition('->')
    operands = operands_text.split(',')
    if len(operands) != len(ranks):
        raise EinsumError(f'einsum {equation!r}: {len(operands)} operands, {len(ranks)} tensors given')
    spans = {rank - (len(part) - 3) for part, rank in zip(operands, ranks, strict=True) if '...' in part}
    if len(spans) > 1 or any(span < 0 for span in spans):
        raise EinsumError(f'einsum {equation!r}: the ellipses of operands of ranks {ranks} differ (no broadcasting)')
    spare = [letter for letter in string.ascii_uppercase if letter not in text]
    fill = ''.join(spare[: spans.pop() if spans else 0])
    operands = [part.replace('...', fill) for part in operands]
    if not arrow:
        letters = ''.join(operands)
        once = sorted(letter for letter in set(letters) if letters.count(letter) == 1 and letter not in fill)
        output = fill + ''.join(once)
    return f'{",".join(operands)}->{output.replace("...", fill)}'


def matmul_equation(first_shape: tuple[int, ...], second_shape: tuple[int, ...]) -> str:
    """The einsum of a batched matrix product (..., m, k) @ (..., k, n) -> (..., m, n) of operands of
    these shapes without the batch axis: the same rank, at least 2, the leading axes batch axes."""
    rank = len(first_shape)
    if rank < 2 or len(second_shape) != rank:
        raise EinsumError(
            f'a matrix product of tensors of shapes {first_shape} and {second_shape} (without the batch axis) '
            'is supported for operands of the same rank, at least 2 (a batched matrix product; no broadcasting)'
        )
    leading = string.ascii_uppercase[: rank - 2]
    return f'{leading}mk,{leading}kn->{leading}mn'


def drop_batch(equation: str) -> str:
    """The equation without the batch axis: every operand and the output must start with the same
    letter, used nowhere else (each sample is computed alone)."""
    first, second, output = split_equation(equation)
    batch = output[:1]
    if not batch or first[:1] != batch or second[:1] != batch or (first + second + output).count(batch) != 3:
        raise EinsumError(
            f'einsum {equation!r}: the batch axis must be the first axis of both operands and of the output '
            'and appear nowhere else (each sample is computed on its own)'
        )
    return f'{first[1:]},{second[1:]}->{output[1:]}'


def drop_batch_of_input(equation: str) -> str:
    """The equation of a product with a constant (EinsumDense) without the batch axis: the first
    operand and the output start with the same letter, which the constant does not have."""
    first, second, output = split_equation(equation)
    batch = output[:1]
    if not batch or first[:1] != batch or (first + second + output).count(batch) != 2:
        raise EinsumError(
            f'einsum {equation!r}: the batch axis must be the first axis of the input and of the output and '
            'appear nowhere else (each sample is computed on its own)'
        )
    return f'{first[1:]},{second}->{output[1:]}'


def plan(equation: str, first_shape: tuple[int, ...], second_shape: tuple[int, ...]) -> EinsumPlan:
    """The loop plan of `equation` (IR axes, no batch axis) for operands of these shapes."""
    first, second, output = split_equation(equation)
    sizes = _letter_sizes(equation, (first, second), (first_shape, second_shape))
    _check_letters(equation, first, second, output)
    roles = {
        'batch': [letter for letter in output if letter in first and letter in second],
        'rows': [letter for letter in output if letter in first and letter not in second],
        'columns': [letter for letter in output if letter in second and letter not in first],
        'inner': [letter for letter in first if letter in second and letter not in output],
    }
    tensors = {'first': first, 'second': second, 'output': output}

    def strides_of(name: str, order: tuple[str, str, str]) -> tuple[int, int, int]:
        letters = tensors[name]
        strides = _strides(letters, sizes)
        outer, middle, inner = (_role_stride(equation, roles[role], letters, strides, sizes) for role in order)
        return outer, middle, inner

    batch, rows, columns, inner = (math.prod(sizes[letter] for letter in roles[role]) for role in ROLES)
    return EinsumPlan(
        sizes=(batch, rows, columns, inner),
        first=strides_of('first', ('batch', 'rows', 'inner')),
        second=strides_of('second', ('batch', 'inner', 'columns')),
        output=strides_of('output', ('batch', 'rows', 'columns')),
        output_shape=tuple(sizes[letter] for letter in output),
    )


def _letter_sizes(equation: str, operands: tuple[str, str], shapes: tuple[tuple[int, ...], ...]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for letters, shape in zip(operands, shapes, strict=True):
        if len(letters) != len(shape):
            raise EinsumError(
                f'einsum {equation!r}: operand {letters!r} names {len(letters)} axes, its shape is {shape}'
            )
        for letter, size in zip(letters, shape, strict=True):
            if sizes.setdefault(letter, int(size)) != int(size):
                raise EinsumError(
                    f'einsum {equation!r}: axis {letter!r} has sizes {sizes[letter]} and {size} '
                    '(broadcasting is not supported; give both operands the same size)'
                )
    return sizes


def _check_letters(equation: str, first: str, second: str, output: str) -> None:
    for letter in output:
        if letter not in first and letter not in second:
            raise EinsumError(f'einsum {equation!r}: output axis {letter!r} is in no operand')
    for letter in first + second:
        if letter not in output and (letter not in first or letter not in second):
            raise EinsumError(
                f'einsum {equation!r}: axis {letter!r} is summed within one operand; sum it before the product'
            )


def _strides(letters: str, sizes: dict[str, int]) -> dict[str, int]:
    """Row-major strides of a tensor whose axes are `letters`."""
    strides, step = {}, 1
    for letter in reversed(letters):
        strides[letter] = step
        step *= sizes[letter]
    return strides


def _role_stride(equation: str, role: list[str], letters: str, strides: dict[str, int], sizes: dict[str, int]) -> int:
    """The one stride of a role's letters in a tensor (0 when the tensor has none of them)."""
    held = [letter for letter in role if letter in letters]
    if not held:
        return 0
    for outer, inner in zip(held, held[1:], strict=False):
        if strides[outer] != strides[inner] * sizes[inner]:
            raise EinsumError(
                f'einsum {equation!r}: axes {"".join(role)} are not adjacent and in one order in {letters!r}; '
                'transpose an operand so that they are'
            )
    return strides[held[-1]]
