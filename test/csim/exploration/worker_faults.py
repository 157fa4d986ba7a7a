"""A fault for the cluster tests, in a module of its own with no heavy imports: the test pickles it by
value (`cloudpickle.register_pickle_by_value`), since the workers cannot import the test folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from hls4ml.exploration.evaluation import accuracy


def exit_once(marker: str, labels: Any, predictions: np.ndarray) -> float:
    """A metric whose first call kills the worker process running it (as a crash or an OOM kill would)."""
    if not os.path.exists(marker):
        Path(marker).write_text('killed once')
        os._exit(1)
    return accuracy(labels, predictions)
