"""The router subgraph of hand-written MoE blocks (HF Mixtral, Qwen-MoE, OLMoE) as one fx node.

    probabilities = F.softmax(logits, dim=-1)
    weights, experts = torch.topk(probabilities, k, dim=-1)
    weights = weights / weights.sum(dim=-1, keepdim=True)   # optional: the renormalisation

is token-choice gating (docs/moe.md). Before the walk, `match_routers` rewrites the top-k node of each
such subgraph into a call of `softmax_topk` (the softmax, sum and division nodes go), which the
selection handlers convert to Router layers: the weights named after the top-k node, the indices
`<name>_indices`. Spellings: `F.softmax`, `torch.softmax`, `x.softmax`, `nn.Softmax`; `torch.topk`,
`x.topk`; `.sum(...)` or `torch.sum(...)` with keepdim=True; `/`, `/=`, `torch.div`, `x.div`.

The rewrite happens only when the probabilities feed nothing but the top-k and (with the
renormalisation) the top-k values nothing but the sum and the division. Otherwise the softmax and
the top-k convert as they are (Softmax and TopK layers); the division by a computed sum has no IR
form, so its sum is reported with the reason. Axes are checked by the handler (the trace has no
shapes): the three must be the last axis of a vector of logits.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import fx

from hls4ml.converters.pytorch.trace import origin_of
from hls4ml.converters.router_matches import renormalisation_refused

SOFTMAX_FUNCTIONS = (F.softmax, torch.softmax)
DIVISIONS = (operator.truediv, operator.itruediv, torch.div, torch.divide, torch.true_divide)
DIVISION_METHODS = ('div', 'divide')  # not div_: later reads of the tensor would not see the result
TOPK_FIELDS = {0: 'values', 1: 'indices', 'values': 'values', 'indices': 'indices'}
ADVICE = 'use hls4ml.nn.torch_moe.TopKRouter'


def softmax_topk(
    logits: torch.Tensor, k: int, softmax_dim: int, topk_dim: int, sum_dim: int | None = None
) -> torch.return_types.topk:
    """What a matched subgraph computes, returned as torch.topk returns it: the top k of the softmax
    of `logits` and their indices; the values divided by their sum along `sum_dim` when it is given."""
    values, indices = torch.topk(torch.softmax(logits, dim=softmax_dim), k, dim=topk_dim)
    if sum_dim is not None:
        values = values / values.sum(dim=sum_dim, keepdim=True)
    return torch.return_types.topk((values, indices))


@dataclass
class _Candidate:
    """A softmax read by a top-k node, with the renormalisation of the top-k values if there is one."""

    softmax: fx.Node
    logits: Any
    softmax_dim: Any
    topk: fx.Node
    values: list[fx.Node]  # the getitem / getattr nodes that give the top-k values
    total: fx.Node | None = None  # values.sum(dim, keepdim=True)
    division: fx.Node | None = None  # values / total
    sum_dim: Any = None

    def reasons(self) -> list[str]:
        """Why this candidate cannot become one router node (empty when it can)."""
        reasons = _other_readers(self.softmax, {self.topk}, 'the probabilities')
        if self.division is not None and self.total is not None:
            renormalisation = {self.total, self.division}
            for node in self.values:
                reasons += _other_readers(node, renormalisation, 'the top-k values')
            reasons += _other_readers(self.total, {self.division}, 'the sum')
        return reasons


def match_routers(traced: fx.GraphModule) -> dict[fx.Node, str]:
    """Rewrite every router subgraph of `traced` (see the module docstring) into one `softmax_topk`
    node. Returns, for each division by the sum of top-k values that could not be matched, its sum
    node and the reason (the sum has no handler; the reason replaces 'unsupported')."""
    explained: dict[fx.Node, str] = {}
    for node in list(traced.graph.nodes):
        candidate = _candidate(node, traced)
        if candidate is None:
            continue
        reasons = candidate.reasons()
        if not reasons:
            _rewrite(traced.graph, candidate)
        elif candidate.total is not None and candidate.division is not None:
            operations = f'{origin_of(candidate.total, traced)} and {_name(candidate.division)}'
            explained[candidate.total] = renormalisation_refused(operations, candidate.topk.name, reasons, ADVICE)
    traced.recompile()
    return explained


def _candidate(node: fx.Node, traced: fx.GraphModule) -> _Candidate | None:
    """`node` as the top-k of a softmax, read only through its two fields, largest first."""
    if not _calls(node, (torch.topk,), ('topk',)) or not node.args:
        return None
    source = node.args[0]
    if not isinstance(source, fx.Node):
        return None
    softmax = _softmax_of(source, traced)
    dims = (softmax[1] if softmax else None, _argument(node, 2, 'dim', -1))
    if softmax is None or not all(isinstance(dim, int) for dim in dims):
        return None
    fields = [_field(user, node) for user in node.users]
    if _argument(node, 3, 'largest', True) is not True or None in fields:  # None: the pair itself is read
        return None
    values = [user for user, field in zip(node.users, fields, strict=True) if field == 'values']
    candidate = _Candidate(source, *softmax, topk=node, values=values)
    for value in values:
        if any(_renormalises(candidate, value, reader) for reader in value.users):
            break
    return candidate


def _renormalises(candidate: _Candidate, value: fx.Node, total: fx.Node) -> bool:
    """Record `total` and its division when `total` is `value.sum(dim, keepdim=True)` and one of its
    readers divides a top-k value node by it."""
    if not _calls(total, (torch.sum,), ('sum',)) or _argument(total, 0, 'input') is not value:
        return False
    sum_dim = _argument(total, 1, 'dim')
    if _argument(total, 2, 'keepdim', False) is not True or total.kwargs.get('dtype') is not None:
        return False
    if isinstance(sum_dim, (tuple, list)) and len(sum_dim) == 1:
        sum_dim = sum_dim[0]
    if not isinstance(sum_dim, int):
        return False
    for division in total.users:
        divides = _calls(division, DIVISIONS, DIVISION_METHODS) and division.kwargs.get('rounding_mode') is None
        if divides and division.args[1:2] == (total,) and division.args[0] in candidate.values:
            candidate.total, candidate.division, candidate.sum_dim = total, division, sum_dim
            return True
    return False


def _rewrite(graph: fx.Graph, candidate: _Candidate) -> None:
    """The top-k node becomes `softmax_topk` (keeping its name and its readers); the softmax, the sum
    and the division go, the division's readers reading the values instead."""
    topk = candidate.topk
    k, topk_dim = _argument(topk, 1, 'k'), _argument(topk, 2, 'dim', -1)
    if candidate.division is not None and candidate.total is not None:
        numerator = candidate.division.args[0]
        assert isinstance(numerator, fx.Node)
        candidate.division.replace_all_uses_with(numerator)
        graph.erase_node(candidate.division)
        graph.erase_node(candidate.total)
    topk.op, topk.target, topk.kwargs = 'call_function', softmax_topk, {}
    topk.args = (candidate.logits, k, candidate.softmax_dim, topk_dim, candidate.sum_dim)
    graph.erase_node(candidate.softmax)
    for value in candidate.values:
        if not value.users:
            graph.erase_node(value)


def _softmax_of(node: fx.Node, traced: fx.GraphModule) -> tuple[Any, Any] | None:
    """(logits, dim) when `node` is a softmax."""
    if node.op == 'call_module' and isinstance(traced.get_submodule(str(node.target)), torch.nn.Softmax):
        return node.args[0], traced.get_submodule(str(node.target)).dim
    if _calls(node, SOFTMAX_FUNCTIONS, ('softmax',)) and node.args:
        return node.args[0], _argument(node, 1, 'dim')
    return None


def _field(node: fx.Node, topk: fx.Node) -> str | None:
    """'values' or 'indices' when `node` reads that field of `topk` (`[0]`, `.values`, ...)."""
    is_item = _calls(node, (operator.getitem, getattr), ())
    if not is_item or len(node.args) != 2 or node.args[0] is not topk:
        return None
    key = node.args[1]
    return TOPK_FIELDS.get(key) if isinstance(key, (int, str)) and not isinstance(key, bool) else None


def _calls(node: fx.Node, targets: tuple[Any, ...], methods: tuple[str, ...]) -> bool:
    if node.op == 'call_function':
        return any(node.target is target for target in targets)
    return node.op == 'call_method' and node.target in methods


def _argument(node: fx.Node, position: int, name: str, default: Any = None) -> Any:
    """An argument given by position (tensor methods count `self` as position 0) or by name."""
    return node.args[position] if len(node.args) > position else node.kwargs.get(name, default)


def _other_readers(node: fx.Node, allowed: set[fx.Node], what: str) -> list[str]:
    others = [_name(user) for user in node.users if user not in allowed]
    return [f'{_name(node)} ({what}) is also read by {", ".join(others)}'] if others else []


def _name(node: fx.Node) -> str:
    return f"'{node.name}'"
