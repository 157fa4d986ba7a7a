"""Fixtures shared by the kernel tests."""

import pytest
from nnet_harness import HEADER_SETS, HeaderSet, require


@pytest.fixture(scope='module', params=HEADER_SETS, ids=str)
def header_set(request) -> HeaderSet:
    headers: HeaderSet = request.param
    require(headers)
    return headers
