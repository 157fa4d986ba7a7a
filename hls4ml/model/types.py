"""Precision types: immutable values describing how a number is stored in the firmware.

A precision type says nothing about arithmetic; `hls4ml.model.fixed` computes with them.

* `FixedPrecisionType(width, integer, signed, rounding_mode, saturation_mode, saturation_bits)`:
  `ap_fixed` / `ac_fixed`. The value of raw bits `r` is `r * 2**(integer - width)`.
* `IntegerPrecisionType(width, signed)`: `ap_int` / `ac_int`, a fixed type with `integer == width`.
* `UnspecifiedPrecisionType`: the config said `'auto'`; a pass must replace it before writing.

`parse_precision` reads every spelling users put in hls4ml configs (`ap_fixed<16,6>`,
`fixed<16,6,RND,SAT>`, `ac_fixed<16,6,true,AC_RND,AC_SAT>`, `ap_uint<4>`, `auto`, ...);
`FixedPrecisionType.spelling(family)` prints them back for a backend ('ap' or 'ac').
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Any

MAX_WIDTH = 1024
"""Widest declared type accepted (the C++ headers reject wider ones at compile time)."""


class RoundingMode(enum.Enum):
    """What happens to the bits below the LSB when a value is written (fixed-point.md section 3.1)."""

    TRN = 'TRN'  # toward -inf (default)
    TRN_ZERO = 'TRN_ZERO'  # toward 0
    RND = 'RND'  # nearest, ties toward +inf
    RND_ZERO = 'RND_ZERO'  # nearest, ties toward 0
    RND_MIN_INF = 'RND_MIN_INF'  # nearest, ties toward -inf
    RND_INF = 'RND_INF'  # nearest, ties away from 0
    RND_CONV = 'RND_CONV'  # nearest, ties to even
    RND_CONV_ODD = 'RND_CONV_ODD'  # nearest, ties to odd (ac only)

    def __str__(self) -> str:
        return self.value

    @classmethod
    def from_string(cls, text: str) -> RoundingMode:
        return _mode_from_string(cls, text, 'rounding')


class SaturationMode(enum.Enum):
    """What happens when a written value does not fit (fixed-point.md section 3.2)."""

    WRAP = 'WRAP'  # keep the low bits (default)
    SAT = 'SAT'  # clamp to the range
    SAT_ZERO = 'SAT_ZERO'  # become 0
    SAT_SYM = 'SAT_SYM'  # clamp to the symmetric range [-max, max]
    WRAP_SM = 'WRAP_SM'  # sign-magnitude wrap (ap only)

    def __str__(self) -> str:
        return self.value

    @classmethod
    def from_string(cls, text: str) -> SaturationMode:
        return _mode_from_string(cls, text, 'saturation')


def _mode_from_string(enum_class: Any, text: str, what: str) -> Any:
    name = text.strip().upper()
    for prefix in ('AP_', 'AC_'):
        if name.startswith(prefix):
            name = name[len(prefix) :]
    try:
        return enum_class[name]
    except KeyError:
        known = ', '.join(mode.name for mode in enum_class)
        raise ValueError(f'unknown {what} mode {text!r}; expected one of {known}') from None


class PrecisionType:
    """Base of all precision types: immutable, compared and hashed by value."""

    __slots__ = ()

    def _key(self) -> tuple:
        raise NotImplementedError

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f'{type(self).__name__} is immutable; use .replace(...) to make a changed copy')

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def __repr__(self) -> str:
        return f'{type(self).__name__}({self})'


class UnspecifiedPrecisionType(PrecisionType):
    """'auto': to be inferred by a pass before the model is written."""

    __slots__ = ()

    def _key(self) -> tuple:
        return ()

    def __str__(self) -> str:
        return 'auto'


class FixedPrecisionType(PrecisionType):
    """A binary fixed-point type: `width` bits of which `integer` are left of the binary point.

    `integer` counts the sign bit and may be negative or exceed `width` (fixed-point.md section 1).
    `None` modes mean the defaults (TRN, WRAP, 0 saturation bits), as in hls4ml 1.x.
    """

    __slots__ = ('width', 'integer', 'signed', 'rounding_mode', 'saturation_mode', 'saturation_bits')

    width: int
    integer: int
    signed: bool
    rounding_mode: RoundingMode
    saturation_mode: SaturationMode
    saturation_bits: int

    def __init__(
        self,
        width: int = 16,
        integer: int = 6,
        signed: bool = True,
        rounding_mode: RoundingMode | str | None = None,
        saturation_mode: SaturationMode | str | None = None,
        saturation_bits: int | None = None,
    ) -> None:
        rounding = _as_mode(RoundingMode, rounding_mode, RoundingMode.TRN)
        saturation = _as_mode(SaturationMode, saturation_mode, SaturationMode.WRAP)
        n_bits = 0 if saturation_bits is None else saturation_bits
        _check_shape(width, integer, signed, n_bits)
        if saturation is SaturationMode.WRAP_SM and not signed:
            raise ValueError('WRAP_SM (sign-magnitude wrap) needs a signed type; the vendor aborts on ap_ufixed')
        for name, value in zip(
            FixedPrecisionType.__slots__,
            (width, integer, bool(signed), rounding, saturation, n_bits),
            strict=True,
        ):
            object.__setattr__(self, name, value)

    def _key(self) -> tuple:
        return tuple(getattr(self, name) for name in FixedPrecisionType.__slots__)

    def replace(self, **changes: Any) -> FixedPrecisionType:
        """A copy with some fields changed (the type itself never changes)."""
        fields = {name: getattr(self, name) for name in FixedPrecisionType.__slots__}
        fields.update(changes)
        return FixedPrecisionType(**fields)

    # ---- derived quantities -------------------------------------------------------------------
    @property
    def fractional(self) -> int:
        return self.width - self.integer

    @property
    def is_integer(self) -> bool:
        return False

    @property
    def raw_min(self) -> int:
        return -(1 << (self.width - 1)) if self.signed else 0

    @property
    def raw_max(self) -> int:
        return (1 << (self.width - 1)) - 1 if self.signed else (1 << self.width) - 1

    @property
    def min(self) -> float:
        return self.raw_min * 2.0**-self.fractional

    @property
    def max(self) -> float:
        return self.raw_max * 2.0**-self.fractional

    @property
    def has_default_modes(self) -> bool:
        return (
            self.rounding_mode is RoundingMode.TRN
            and self.saturation_mode is SaturationMode.WRAP
            and self.saturation_bits == 0
        )

    # ---- spellings ----------------------------------------------------------------------------
    def __str__(self) -> str:
        """The backend-neutral hls4ml spelling: `fixed<16,6>`, `ufixed<8,0,RND,SAT>`."""
        args = [str(self.width), str(self.integer)] + self._mode_args('')
        return f'{"" if self.signed else "u"}fixed<{",".join(args)}>'

    def spelling(self, family: str) -> str:
        """The C++ type for a backend family: 'ap' (Vitis/Vivado) or 'ac' (oneAPI/Catapult)."""
        if family == 'ap':
            args = [str(self.width), str(self.integer)] + self._mode_args('AP_')
            return f'ap_{"" if self.signed else "u"}fixed<{",".join(args)}>'
        if family == 'ac':
            self._check_ac()
            args = [str(self.width), str(self.integer), 'true' if self.signed else 'false']
            if not self.has_default_modes:
                args += [f'AC_{self.rounding_mode}', f'AC_{self.saturation_mode}']
            return f'ac_fixed<{",".join(args)}>'
        raise ValueError(f"unknown type family {family!r}; expected 'ap' or 'ac'")

    def _mode_args(self, prefix: str) -> list[str]:
        if self.rounding_mode is RoundingMode.RND_CONV_ODD and prefix == 'AP_':
            raise ValueError(f'{self}: RND_CONV_ODD exists only in ac_fixed (oneAPI, Catapult)')
        if self.has_default_modes:
            return []
        args = [f'{prefix}{self.rounding_mode}', f'{prefix}{self.saturation_mode}']
        if self.saturation_bits:
            args.append(str(self.saturation_bits))
        return args

    def _check_ac(self) -> None:
        if self.saturation_mode is SaturationMode.WRAP_SM:
            raise ValueError(f'{self}: WRAP_SM exists only in ap_fixed (Vitis/Vivado)')
        if self.saturation_bits:
            raise ValueError(f'{self}: saturation bits exist only in ap_fixed (Vitis/Vivado)')


class IntegerPrecisionType(FixedPrecisionType):
    """`ap_int<W>` / `ap_uint<W>` / `ac_int<W,S>`: a fixed type whose LSB is 1.

    Writing a fractional value into an integer type differs by family: ap truncates toward
    zero, ac toward minus infinity (fixed-point.md section 4); `hls4ml.model.fixed` follows that.
    """

    __slots__ = ()

    def __init__(self, width: int = 16, signed: bool = True) -> None:
        super().__init__(width, width, signed)

    def replace(self, **changes: Any) -> FixedPrecisionType:
        if set(changes) <= {'width', 'signed'}:
            return IntegerPrecisionType(changes.get('width', self.width), changes.get('signed', self.signed))
        return super().replace(**changes)

    @property
    def is_integer(self) -> bool:
        return True

    def __str__(self) -> str:
        return f'{"" if self.signed else "u"}int<{self.width}>'

    def spelling(self, family: str) -> str:
        if family == 'ap':
            return f'ap_{"" if self.signed else "u"}int<{self.width}>'
        if family == 'ac':
            return f'ac_int<{self.width},{"true" if self.signed else "false"}>'
        raise ValueError(f"unknown type family {family!r}; expected 'ap' or 'ac'")


@dataclass(frozen=True)
class NamedType:
    """A precision with the name of its C++ typedef: how hls4ml 1.x layers show their types (`result_t`, ...)."""

    name: str
    precision: PrecisionType


def _as_mode(enum_class: Any, value: Any, default: Any) -> Any:
    if value is None:
        return default
    if isinstance(value, enum_class):
        return value
    if isinstance(value, str):
        return enum_class.from_string(value)
    raise ValueError(f'expected a {enum_class.__name__} or its name, got {value!r}')


def _check_shape(width: Any, integer: Any, signed: Any, saturation_bits: Any) -> None:
    for name, value in (('width', width), ('integer', integer), ('saturation_bits', saturation_bits)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f'{name} must be an integer, got {value!r}')
    if not 1 <= width <= MAX_WIDTH:
        raise ValueError(f'width must be between 1 and {MAX_WIDTH} bits, got {width}')
    if not isinstance(signed, (bool, int)):
        raise ValueError(f'signed must be a boolean, got {signed!r}')
    if not 0 <= saturation_bits <= width:
        raise ValueError(f'saturation_bits must be between 0 and the width {width}, got {saturation_bits}')


# ---- parsing -------------------------------------------------------------------------------------

_TYPE_PATTERN = re.compile(r'^\s*([A-Za-z_]+)\s*<(.*)>\s*$')
_FIXED_NAMES = {'ap_fixed': True, 'ap_ufixed': False, 'fixed': True, 'ufixed': False}
_INT_NAMES = {'ap_int': True, 'ap_uint': False, 'int': True, 'uint': False}


def parse_precision(text: str | PrecisionType, where: str = '') -> PrecisionType:
    """Parse a precision string from a config into a precision type.

    Raises ValueError quoting the string (and `where`, e.g. "layer 'dense', result") and saying
    what is wrong.
    """
    if isinstance(text, PrecisionType):
        return text
    if not isinstance(text, str):
        raise ValueError(_message(where, repr(text), 'a precision must be a string such as "ap_fixed<16,6>"'))
    try:
        return _parse(text)
    except ValueError as error:
        raise ValueError(_message(where, repr(text), str(error))) from None


def _message(where: str, quoted: str, problem: str) -> str:
    location = f'{where}: ' if where else ''
    return f'{location}invalid precision {quoted}: {problem}'


def _parse(text: str) -> PrecisionType:
    if text.strip().lower() == 'auto':
        return UnspecifiedPrecisionType()
    match = _TYPE_PATTERN.match(text)
    if not match:
        raise ValueError('expected a form like ap_fixed<16,6>, fixed<16,6,RND,SAT>, ac_int<8,false> or auto')
    name, args = match.group(1), [arg.strip() for arg in match.group(2).split(',')]
    if any(arg == '' for arg in args):
        raise ValueError('empty template argument')
    if name in _FIXED_NAMES:
        return _parse_ap_fixed(args, _FIXED_NAMES[name])
    if name in _INT_NAMES:
        _expect_count(args, 1, 1, name)
        return IntegerPrecisionType(_to_int(args[0], 'width'), _INT_NAMES[name])
    if name == 'ac_fixed':
        return _parse_ac_fixed(args)
    if name == 'ac_int':
        _expect_count(args, 1, 2, name)
        signed = _to_bool(args[1]) if len(args) == 2 else True
        return IntegerPrecisionType(_to_int(args[0], 'width'), signed)
    raise ValueError(
        f'unknown type name {name!r}; expected ap_fixed, ap_ufixed, ap_int, ap_uint, fixed, '
        'ufixed, int, uint, ac_fixed or ac_int'
    )


def _parse_ap_fixed(args: list[str], signed: bool) -> FixedPrecisionType:
    _expect_count(args, 2, 5, 'fixed')
    width, integer = _to_int(args[0], 'width'), _to_int(args[1], 'integer bits')
    rounding = _positional_mode(args, 2, RoundingMode, SaturationMode, 'rounding')
    saturation = _positional_mode(args, 3, SaturationMode, RoundingMode, 'saturation')
    n_bits = _to_int(args[4], 'saturation bits') if len(args) == 5 else 0
    return FixedPrecisionType(width, integer, signed, rounding, saturation, n_bits)


def _parse_ac_fixed(args: list[str]) -> FixedPrecisionType:
    _expect_count(args, 2, 5, 'ac_fixed')
    width, integer = _to_int(args[0], 'width'), _to_int(args[1], 'integer bits')
    signed = _to_bool(args[2]) if len(args) > 2 else True
    rounding = _positional_mode(args, 3, RoundingMode, SaturationMode, 'rounding')
    saturation = _positional_mode(args, 4, SaturationMode, RoundingMode, 'saturation')
    return FixedPrecisionType(width, integer, signed, rounding, saturation)


def _positional_mode(args: list[str], index: int, wanted: Any, other: Any, what: str) -> Any:
    if len(args) <= index:
        return None
    try:
        return wanted.from_string(args[index])
    except ValueError:
        try:
            other.from_string(args[index])
        except ValueError:
            raise ValueError(f'argument {index + 1} ({args[index]!r}) is not a {what} mode') from None
        raise ValueError(
            f'argument {index + 1} ({args[index]!r}) must be a {what} mode; the rounding '
            'mode comes before the saturation mode, e.g. ap_fixed<16,6,AP_TRN,AP_SAT>'
        ) from None


def _expect_count(args: list[str], low: int, high: int, name: str) -> None:
    if not low <= len(args) <= high:
        expected = str(low) if low == high else f'{low} to {high}'
        raise ValueError(f'{name} takes {expected} template arguments, got {len(args)}')


def _to_int(text: str, what: str) -> int:
    try:
        return int(text, 10)
    except ValueError:
        raise ValueError(f'{what} must be an integer, got {text!r}') from None


def _to_bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in ('true', '1'):
        return True
    if lowered in ('false', '0'):
        return False
    raise ValueError(f'the signedness argument must be true or false, got {text!r}')
