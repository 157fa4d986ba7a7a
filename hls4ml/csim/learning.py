"""The learning functions of a compiled C-simulation library (templates/common/learn_bridge.j2):

    void <proj>_learn_<layer>_run(const double *samples, const double *rates, const double *row_tables,
                                  const double *col_tables, double *codebook, long *bmus, long n);   // SOM
    void <proj>_learn_<layer>_run(const double *samples_x, const double *samples_y, const double *rates,
                                  long rule, double *lateral, long *bmus, long n);                   // ReSOM
    void <proj>_learn_<layer>_run(const double *samples, const double *rates, long rule, double *laterals,
                                  long *winners, long n);                                            // ReSOMMaps

The learned state is a float64 array owned by the caller, passed in and written back by each call,
so nothing of it lives in the library: several learners (and threads) may use one library at once.
Shapes are checked by the learners (hls4ml/learning) before these run.
"""

from __future__ import annotations

import ctypes

import numpy as np

from hls4ml.csim.simulation import Simulation

HEBBIAN_RULE_CODES = {'hebb': 0, 'oja': 1, 'bmu': 2}  # nnet::hebbian_rule
_DOUBLES = ctypes.POINTER(ctypes.c_double)
_LONGS = ctypes.POINTER(ctypes.c_long)


def _doubles(array: np.ndarray) -> ctypes._Pointer:
    assert array.dtype == np.float64 and array.flags.c_contiguous
    return array.ctypes.data_as(_DOUBLES)


def run_kohonen(
    simulation: Simulation,
    layer: str,
    samples: np.ndarray,
    rates: np.ndarray,
    tables: tuple[np.ndarray, np.ndarray],
    codebook: np.ndarray,
) -> np.ndarray:
    """Kohonen steps of `layer` over the (n, n_in) samples in order, updating `codebook` (n_units * n_in
    doubles) in place; returns each sample's BMU (before its step)."""
    argtypes = [_DOUBLES, _DOUBLES, _DOUBLES, _DOUBLES, _DOUBLES, _LONGS, ctypes.c_long]
    function = simulation.symbol(f'learn_{layer}_run', argtypes)
    bmus = np.zeros(len(samples), dtype=np.int64)
    row_tables, col_tables = tables
    function(
        _doubles(samples),
        _doubles(rates),
        _doubles(row_tables),
        _doubles(col_tables),
        _doubles(codebook),
        bmus.ctypes.data_as(_LONGS),
        len(samples),
    )
    return bmus


def run_hebbian(
    simulation: Simulation,
    layer: str,
    samples: tuple[np.ndarray, np.ndarray],
    rates: np.ndarray,
    rule: str,
    lateral: np.ndarray,
) -> np.ndarray:
    """Hebbian steps of `layer` over the paired samples in order, updating `lateral` (n_units_x *
    n_units_y doubles) in place; returns the (n, 2) BMUs of the two maps."""
    argtypes = [_DOUBLES, _DOUBLES, _DOUBLES, ctypes.c_long, _DOUBLES, _LONGS, ctypes.c_long]
    function = simulation.symbol(f'learn_{layer}_run', argtypes)
    bmus = np.zeros((len(rates), 2), dtype=np.int64)
    code = HEBBIAN_RULE_CODES[rule]
    function(
        _doubles(samples[0]),
        _doubles(samples[1]),
        _doubles(rates),
        code,
        _doubles(lateral),
        bmus.ctypes.data_as(_LONGS),
        len(rates),
    )
    return bmus


def run_hebbian_maps(
    simulation: Simulation,
    layer: str,
    samples: np.ndarray,
    n_maps: int,
    rates: np.ndarray,
    rule: str,
    laterals: np.ndarray,
) -> np.ndarray:
    """Hebbian steps of every pair matrix of a ReSOMMaps `layer` over the (n, sum of the maps' inputs)
    samples in order, updating `laterals` (the pair matrices one after the other) in place; returns the
    (n, n_maps) afferent winners."""
    argtypes = [_DOUBLES, _DOUBLES, ctypes.c_long, _DOUBLES, _LONGS, ctypes.c_long]
    function = simulation.symbol(f'learn_{layer}_run', argtypes)
    winners = np.zeros((len(rates), n_maps), dtype=np.int64)
    code = HEBBIAN_RULE_CODES[rule]
    function(_doubles(samples), _doubles(rates), code, _doubles(laterals), winners.ctypes.data_as(_LONGS), len(rates))
    return winners
