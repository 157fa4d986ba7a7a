"""The float routers of hls4ml.nn.torch_routers and keras_routers equal the float64 definition
(`soft_router_exact`), gates and overflow counts, on (batch, features) and (batch, tokens, features)."""

from __future__ import annotations

import numpy as np
import pytest

from hls4ml.model.reference.soft_router import soft_router_exact

CASES = [  # k, l, k_max, mask_on, renormalize
    (2, 0.5, 3, 'logits', True),
    (1, 0.25, 8, 'probabilities', False),
    (3, 1.0, 4, 'probabilities', True),
]


@pytest.mark.parametrize(('k', 'strength', 'k_max', 'mask_on', 'renormalize'), CASES)
def test_torch_router_equals_the_definition(k, strength, k_max, mask_on, renormalize) -> None:
    torch = pytest.importorskip('torch')
    from hls4ml.nn.torch_routers import SoftTopKRouter

    torch.manual_seed(0)
    settings = {'k': k, 'l': strength, 'k_max': k_max, 'mask_on': mask_on, 'renormalize': renormalize}
    router = SoftTopKRouter(4, 8, **settings).double()
    counter = SoftTopKRouter(4, 8, **settings, output_mode='overflow').double()
    counter.load_state_dict(router.state_dict())
    x = torch.randn(5, 3, 4, dtype=torch.float64)
    with torch.no_grad():
        logits = router.gate(x).numpy().reshape(-1, 8)
        gates, overflow = router(x).numpy(), counter(x).numpy()
    exact, exact_overflow = soft_router_exact(logits, k, strength, mask_on, renormalize, k_max)
    np.testing.assert_allclose(gates.reshape(-1, 8), exact, atol=1e-12)
    np.testing.assert_array_equal(overflow.reshape(-1), exact_overflow)


@pytest.mark.parametrize(('k', 'strength', 'k_max', 'mask_on', 'renormalize'), CASES)
def test_keras_router_equals_the_definition(k, strength, k_max, mask_on, renormalize) -> None:
    pytest.importorskip('keras')
    from hls4ml.nn.keras_routers import SoftTopKRouter

    settings = {'k': k, 'l': strength, 'k_max': k_max, 'mask_on': mask_on, 'renormalize': renormalize}
    router, counter = SoftTopKRouter(8, **settings), SoftTopKRouter(8, **settings, output_mode='overflow')
    x = np.random.default_rng(1).normal(0, 1, (5, 3, 4)).astype('float32')
    router.build(x.shape), counter.build(x.shape)
    counter.kernel.assign(router.kernel)
    logits = (x @ np.asarray(router.kernel)).reshape(-1, 8).astype(np.float64)
    exact, exact_overflow = soft_router_exact(logits, k, strength, mask_on, renormalize, k_max)
    np.testing.assert_allclose(np.asarray(router(x)).reshape(-1, 8), exact, atol=1e-5)
    np.testing.assert_array_equal(np.asarray(counter(x)).reshape(-1), exact_overflow)
    config = router.get_config()
    assert SoftTopKRouter.from_config(config).settings == router.settings


def test_refusals() -> None:
    torch = pytest.importorskip('torch')
    from hls4ml.nn.torch_routers import SoftTopKRouter

    with pytest.raises(ValueError, match='needs renormalize=True'):
        SoftTopKRouter(4, 8, k_max=4, renormalize=False)
    with pytest.raises(ValueError, match='p=1.5'):
        SoftTopKRouter(4, 8, p=1.5)
    assert isinstance(SoftTopKRouter(4, 8), torch.nn.Module)
