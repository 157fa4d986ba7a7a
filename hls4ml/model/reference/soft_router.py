"""Reference of `nnet::soft_router` (nnet_router_soft.h): the sparse-soft-top-k MoE router (seed-layers.md
B.5.8), token choice, bit for bit; and `soft_router_exact`, its float64 definition.

Per token (a row of n_in expert logits r):
  e = exp_table(r - r_max); p = e * inv_table(sum e)       (the stable softmax, as the Router's gates)
  m = soft top-k mask (p = 2 or 4/3, strength l) of r, or of p   (`mask_on`: 'logits' or 'probabilities')
  kept = m > 0 and the expert among the k_max best keys    (ties to the lower index)
  gate = m e / sum_kept(m e)   (renormalize)   or   m p    (no renormalisation: k_max must be n_in)
  overflow = |supp m| - |kept|

The support of m is data dependent (at least k, up to n_in experts); `k_max` bounds it in hardware.
Overflow policy: keep the k_max largest m (the best keys; m is order-preserving in the keys) and
renormalise, which the renormalised gates do by their definition. Without renormalisation a dropped
expert would leave the gates summing short, so that combination needs k_max = n_in (refused otherwise).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hls4ml.model.fixed import FixedArray
from hls4ml.model.ir import Layer
from hls4ml.model.reference.arrays import as_samples, integer, select, take
from hls4ml.model.reference.soft_topk import SoftTopKTypes, soft_topk, soft_topk_power, soft_topk_types
from hls4ml.model.reference.soft_topk_cubic import CUBIC_POWER, CubicTypes, soft_topk_cubic, soft_topk_cubic_types
from hls4ml.model.reference.soft_topk_exact import soft_topk_mask_exact, soft_topk_mask_general
from hls4ml.model.tables import TableSpec, make_table, softmax_tables
from hls4ml.model.types import FixedPrecisionType, parse_precision

# what the soft top-k mask is taken of, the default first
SOFT_ROUTER_MASK_ON = ('logits', 'probabilities')
# what the layer writes per token: the dense gates (n_in), or the overflow count (1)
SOFT_ROUTER_OUTPUTS = ('gates', 'overflow')
SOFT_ROUTER_P_CHOICES = (
    'expected p = 2 (a linear ramp, nnet_softtopk.h) or p = 4/3 (a cubic ramp, nnet_softtopk_cubic.h)'
)

MaskTypes = SoftTopKTypes | CubicTypes


def is_cubic(p: float) -> bool:
    """True for p = 4/3 (the cubic kernel), False for p = 2; any other p is refused with a ValueError."""
    power = soft_topk_power(p, 'mask')
    if power is None:
        raise ValueError(f'p={p}: {SOFT_ROUTER_P_CHOICES}')
    return power == CUBIC_POWER


def soft_mask_types(
    keys: FixedPrecisionType,
    mask: FixedPrecisionType,
    sizes: tuple[int, int],
    strength: float,
    iterations: int,
    p: float,
) -> MaskTypes:
    """The internal types of the soft top-k mask of n keys (sizes = (n, k)): SoftTopK's for p = 2, the
    cubic kernel's for p = 4/3 (the same functions SoftTopK's lowering and interpreter use)."""
    n_values, k = sizes
    if is_cubic(p):
        return soft_topk_cubic_types(keys, mask, n_values, k, strength, iterations)
    return soft_topk_types(keys, mask, n_values, k, strength, iterations, 'mask')


def soft_mask(
    keys: FixedArray, k: int, strength: float, iterations: int, types: MaskTypes, mask: FixedPrecisionType
) -> FixedArray:
    """The soft top-k mask of each row of keys by the kernel its types belong to."""
    if isinstance(types, CubicTypes):
        return soft_topk_cubic(keys, k, strength, iterations, types, mask)
    return soft_topk(keys, k, strength, 'mask', iterations, types, mask)


def soft_mask_exact(keys: np.ndarray, k: int, strength: float, p: float) -> np.ndarray:
    """Float64 soft top-k mask of each row: the closed form for p = 2, the general-p solver otherwise."""
    if is_cubic(p):
        return soft_topk_mask_general(keys, k, strength, 4 / 3)
    return soft_topk_mask_exact(keys, k, strength)


@dataclass(frozen=True)
class SoftRouterSettings:
    """One layer's attributes, types and tables, as the kernel's config struct carries them."""

    k: int
    strength: float
    p: float  # 2 or 4/3: which soft top-k kernel computes the mask
    iterations: int
    k_max: int
    mask_on: str
    renormalize: bool
    output: str
    mask: FixedPrecisionType  # mask_t: the soft top-k output
    probability: FixedPrecisionType  # prob_t: p, written when the mask or the gates read it
    weight: FixedPrecisionType  # weight_t: m e and their sum, exact
    accum: FixedPrecisionType  # accum_t: sum e
    result: FixedPrecisionType
    exp_spec: TableSpec
    inv_spec: TableSpec
    norm_spec: TableSpec


def check_soft_router(attributes: dict) -> None:
    """Refuse what the kernel does not compute: the ValueError names the attribute and what to do."""
    n_in, k, k_max = attributes['n_in'], attributes['k'], attributes['k_max']
    is_cubic(attributes.get('p', 2.0))
    if not 1 <= k <= n_in:
        raise ValueError(f'k={k} must be between 1 and the {n_in} experts')
    if not k <= k_max <= n_in:
        raise ValueError(f'k_max={k_max} must be between k={k} and the {n_in} experts')
    if k_max < n_in and not attributes['renormalize']:
        raise ValueError(
            f'k_max={k_max} < {n_in} experts needs renormalize=True (the overflow policy renormalises the '
            'kept gates); use renormalize=True or k_max=n_in'
        )
    if attributes['mask_on'] not in SOFT_ROUTER_MASK_ON or attributes['output'] not in SOFT_ROUTER_OUTPUTS:
        raise ValueError(
            f'mask_on={attributes["mask_on"]!r}, output={attributes["output"]!r}: expected one of '
            f'{SOFT_ROUTER_MASK_ON} and one of {SOFT_ROUTER_OUTPUTS}'
        )
    if not 1 <= attributes['iterations'] <= 64:
        raise ValueError(f'iterations={attributes["iterations"]} must be 1..64')
    # the soft top-k decides which l its kernel computes: ask it
    probe, mask = FixedPrecisionType(16, 6), FixedPrecisionType(13, 1, False)
    soft_mask_types(probe, mask, (n_in, k), attributes['l'], attributes['iterations'], attributes.get('p', 2.0))


def soft_router_settings(
    num_experts: int,
    k: int,
    strength: float,
    p: float,
    k_max: int | None,
    routing: tuple[str, bool, str, int],
) -> dict:
    """The framework routers' settings, checked as the IR checks them: k, l, p, iterations, k_max (None:
    num_experts, nothing dropped) and `routing` = (mask_on, renormalize, output, iterations)."""
    mask_on, renormalize, output, iterations = routing
    settings = {
        'k': int(k),
        'l': float(strength),
        'p': float(p),
        'iterations': int(iterations),
        'k_max': int(num_experts if k_max is None else k_max),
        'mask_on': mask_on,
        'renormalize': bool(renormalize),
        'output': output,
    }
    check_soft_router({'n_in': int(num_experts), **settings})
    return settings


def mask_key_types(settings: SoftRouterSettings, source: FixedPrecisionType, n_in: int) -> MaskTypes:
    """The soft top-k's internal types for the keys the mask is taken of (logits or probabilities)."""
    keys = source if settings.mask_on == 'logits' else settings.probability
    sizes = (n_in, settings.k)
    return soft_mask_types(keys, settings.mask, sizes, settings.strength, settings.iterations, settings.p)


def _row_sum(values: FixedArray, accum: FixedPrecisionType) -> FixedArray:
    """Sum of each row in index order, each partial sum written into `accum` (as the kernel's loop)."""
    total = integer(0, values.family).cast(accum)
    for column in range(values.shape[1]):
        total = (total + take(values, (slice(None), column))).cast(accum)
    return take(total, (slice(None), np.newaxis))


def _probabilities(settings: SoftRouterSettings, exponentials: FixedArray) -> FixedArray:
    inverse = settings.inv_spec.lookup(_row_sum(exponentials, settings.accum))
    return (exponentials * inverse).cast(settings.probability)


def _gates(settings: SoftRouterSettings, mask: FixedArray, exponentials, probabilities, kept) -> FixedArray:
    zero = integer(0, mask.family)
    if not settings.renormalize:
        return select(kept, (mask * probabilities).cast(settings.result), zero.cast(settings.result))
    weights = select(kept, (mask * exponentials).cast(settings.weight), zero.cast(settings.weight))
    inverse = settings.norm_spec.lookup(_row_sum(weights, settings.weight))
    return select(kept, (weights * inverse).cast(settings.result), zero.cast(settings.result))


def soft_router(x: FixedArray, settings: SoftRouterSettings, n_in: int) -> FixedArray:
    """The gates (n_in per token) or the overflow count (1 per token) of each row of n_in logits; a
    sample of n_rows tokens (n_rows * n_in values, row-major) gives its results in that order."""
    samples = as_samples(x)
    n_samples = samples.shape[0]
    rows = FixedArray(samples.raw.reshape(-1, n_in), samples.type, samples.family)
    top = take(rows, (np.arange(rows.shape[0]), np.argmax(rows.raw, axis=1)))
    exponentials = settings.exp_spec.lookup(rows - take(top, (slice(None), np.newaxis)))
    needs_p = settings.mask_on == 'probabilities' or not settings.renormalize
    probabilities = _probabilities(settings, exponentials) if needs_p else None
    keys = rows if settings.mask_on == 'logits' else probabilities
    assert keys is not None
    types = mask_key_types(settings, rows.type, n_in)
    mask = soft_mask(keys, settings.k, settings.strength, settings.iterations, types, settings.mask)
    rank = np.argsort(np.argsort(-keys.raw, axis=1, kind='stable'), axis=1, kind='stable')
    support = mask.raw > 0
    kept = support & (rank < settings.k_max)
    if settings.output == 'overflow':
        overflow = (support.sum(axis=1) - kept.sum(axis=1))[:, np.newaxis]
        routed = FixedArray.from_raw(overflow.astype(np.int64), 'int<32>', rows.family).cast(settings.result)
    else:
        routed = _gates(settings, mask, exponentials, probabilities, kept)
    return FixedArray(routed.raw.reshape(n_samples, -1), routed.type, routed.family)


def soft_router_exact(
    logits: np.ndarray, k: int, strength: float, mask_on: str, renormalize: bool, k_max: int, p: float = 2.0
) -> tuple[np.ndarray, np.ndarray]:
    """Float64 definition (B.5.8): the (n_tokens, n_in) gates and the (n_tokens,) overflow counts, the
    mask the soft top-k with p = 2 or 4/3."""
    rows = np.atleast_2d(np.asarray(logits, dtype=np.float64))
    exponentials = np.exp(rows - rows.max(axis=1, keepdims=True))
    probabilities = exponentials / exponentials.sum(axis=1, keepdims=True)
    keys = rows if mask_on == 'logits' else probabilities
    mask = soft_mask_exact(keys, k, strength, p)
    rank = np.argsort(np.argsort(-keys, axis=1, kind='stable'), axis=1, kind='stable')
    kept = (mask > 0) & (rank < k_max)
    gates = np.where(kept, mask * probabilities, 0.0)
    if renormalize:
        gates = gates / gates.sum(axis=1, keepdims=True)
    return gates, (mask > 0).sum(axis=1) - kept.sum(axis=1)


def soft_router_tables(layer: Layer, source: FixedPrecisionType) -> dict[str, TableSpec]:
    """The stable softmax's exp and reciprocal tables (sums of n_in exponentials, in [1, n_in]) and the
    renormalisation's reciprocal table over sum_kept(m e): at most about k, and at least the largest
    key's m (e = 1), itself at least k / n_in since the mask sums to k; the grid reaches down to half that."""
    attributes, types = layer.attributes, layer.types
    n_in, k, size = attributes['n_in'], attributes['k'], attributes.get('table_size', 1024)
    exp_spec, inv_spec = softmax_tables(
        source, types['exp_table'], types['inv_table'], types['accum'], n_in, size, 'stable'
    )
    weight = parse_precision(types['weight'])
    assert isinstance(weight, FixedPrecisionType), f'{layer.describe()}: weight type {weight}'
    lsb = 2.0**-weight.fractional
    norm_spec = make_table('reciprocal', k / (2 * n_in), k + 1, lsb, size, types['norm_table'], 'low')
    return {'exp_': exp_spec, 'inv_': inv_spec, 'norm_': norm_spec}


def layer_soft_router_settings(layer: Layer, source: FixedPrecisionType) -> SoftRouterSettings:
    """The settings of a SoftTopKRouter layer (shared by the lowering and the interpreter)."""
    attributes, types = layer.attributes, layer.types
    tables = soft_router_tables(layer, source)
    fixed = {}
    for name in ('mask', 'probability', 'weight', 'accum', 'result'):
        precision = parse_precision(types[name])
        assert isinstance(precision, FixedPrecisionType), f'{layer.describe()}: {name} type {precision}'
        fixed[name] = precision
    return SoftRouterSettings(
        k=attributes['k'],
        strength=attributes['l'],
        p=attributes.get('p', 2.0),
        iterations=attributes['iterations'],
        k_max=attributes['k_max'],
        mask_on=attributes['mask_on'],
        renormalize=attributes['renormalize'],
        output=attributes['output'],
        exp_spec=tables['exp_'],
        inv_spec=tables['inv_'],
        norm_spec=tables['norm_'],
        **fixed,
    )


# ---- soft expert choice: the soft top-k over each expert's column of tokens ---------------------------


def soft_expert_choice_types(
    probability: FixedPrecisionType, n_tokens: int, capacity: int, strength: float, iterations: int, p: float = 2.0
) -> tuple[FixedPrecisionType, MaskTypes]:
    """The mask type (as SoftTopK's of the probabilities) and the soft top-k's internal types (p = 2 or 4/3)
    over a column of n_tokens probabilities with k = capacity."""
    fraction = min(max(probability.fractional - round(math.log2(strength)), 8), 24)
    mask = FixedPrecisionType(fraction + 1, 1, False)
    return mask, soft_mask_types(probability, mask, (n_tokens, capacity), strength, iterations, p)


def soft_expert_choice(
    probabilities: FixedArray, n_experts: int, capacity: int, strength: float, iterations: int, p: float = 2.0
) -> FixedArray:
    """Gates M * P of groups of (n_tokens, n_experts) probabilities P (written in their type): M[:, e] is
    the soft top-k mask (k = capacity) of expert e's column of tokens; the twin of nnet::soft_expert_choice."""
    n_samples = probabilities.shape[0]
    grid = probabilities.raw.reshape(n_samples, -1, n_experts)  # (sample, token, expert)
    n_tokens = grid.shape[1]
    columns = FixedArray(grid.transpose(0, 2, 1).reshape(-1, n_tokens), probabilities.type, probabilities.family)
    mask_type, types = soft_expert_choice_types(probabilities.type, n_tokens, capacity, strength, iterations, p)
    mask = soft_mask(columns, capacity, strength, iterations, types, mask_type)
    mask_grid = mask.raw.reshape(n_samples, n_experts, n_tokens).transpose(0, 2, 1).reshape(n_samples, -1)
    return (FixedArray(mask_grid, mask_type, probabilities.family) * probabilities).cast(probabilities.type)


def soft_expert_choice_exact(logits: np.ndarray, capacity: int, strength: float, p: float = 2.0) -> np.ndarray:
    """Float64 soft expert choice of one group (n_tokens, n_experts) or a batch: P * M, M the soft top-k
    mask (k = capacity, strength l, p = 2 or 4/3) of every expert's column of P = softmax of each token's logits."""
    groups = np.asarray(logits, dtype=np.float64)
    exponentials = np.exp(groups - groups.max(axis=-1, keepdims=True))
    probabilities = exponentials / exponentials.sum(axis=-1, keepdims=True)
    columns = np.swapaxes(probabilities, -1, -2)
    mask = soft_mask_exact(columns.reshape(-1, columns.shape[-1]), capacity, strength, p).reshape(columns.shape)
    return probabilities * np.swapaxes(mask, -1, -2)
