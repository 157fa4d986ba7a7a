"""The CPU a C-simulation library is built for.

The library is compiled with `-march=native` (AVX2 / AVX-512 for the integer multiply-accumulate of
nnet_csim_fast.h: about 1.7x the predict throughput of the portable build on the 64-256-256-10 MLP)
only where the cache key can name the CPU: the key then holds this CPU's instruction-set extensions,
so a cache folder shared by several machines never hands a library built for one CPU to another
(that one compiles its own). `HLS4ML_CSIM_NATIVE=0` builds for the portable x86-64 / aarch64 baseline.
Integer results do not depend on the target; doubles are never contracted into FMAs
(`-ffp-contract=off`), so every target computes the same bits.
"""

from __future__ import annotations

import hashlib
import os
import platform
from functools import lru_cache
from pathlib import Path

NATIVE_ENV = 'HLS4ML_CSIM_NATIVE'


@lru_cache(maxsize=1)
def cpu_extensions() -> str | None:
    """This CPU's instruction-set extensions (the flags line of /proc/cpuinfo, sorted), None where unknown."""
    try:
        text = Path('/proc/cpuinfo').read_text()
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition(':')
        if key.strip() in ('flags', 'Features') and value.split():
            return ' '.join(sorted(set(value.split())))
    return None


def target_flags() -> tuple[str, ...]:
    """The g++ flags that choose the instruction set: -march=native where the CPU is known, else none."""
    if os.environ.get(NATIVE_ENV, '1').strip() == '0' or cpu_extensions() is None:
        return ('-ffp-contract=off',)
    return ('-march=native', '-ffp-contract=off')


def target_key() -> str:
    """What the cache key must hold about the target: the flags and, for a native build, the CPU."""
    flags = target_flags()
    if '-march=native' not in flags:
        return ' '.join(flags)
    extensions = hashlib.sha256(str(cpu_extensions()).encode()).hexdigest()[:16]
    return f'{" ".join(flags)} {platform.machine()} cpu {extensions}'
