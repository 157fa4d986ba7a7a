// Exact lookup-table indexing, identical in both families for any input type.
//
// A table has `Size` entries on a grid of step 2^-Shift starting at Start * 2^-Shift; entry k holds
// f((Start + k) * 2^-Shift), computed and quantized in Python (hls4ml/model/tables.py). The index
// type `index_T` is a TRN + SAT fixed-point type with Shift fractional bits whose range strictly
// contains the table range, so `index_T t = x;` floors x onto the grid and clamps only values that
// lie outside the table anyway. t is then a multiple of 2^-Shift and `t * 2^Shift` an integer;
// `to_int()` of an integer value is exact in both families (ap truncates, ac floors: equal on
// integers). No bit of x is dropped by the index computation, however wide or narrow x is.
#ifndef NNET_TABLE_H_
#define NNET_TABLE_H_

#include "nnet_common.h"

namespace nnet {

// The integer t * 2^Shift of a value t on the grid (t has Shift fractional bits).
template <int Shift, bool FinerThanOne = (Shift >= 0)> struct grid_units {
    template <class T> static int of(const T &t) { return (t * (1 << Shift)).to_int(); }
};

// A grid step of 2^-Shift > 1: t is an integer multiple of the step, so the division is exact.
template <int Shift> struct grid_units<Shift, false> {
    template <class T> static int of(const T &t) { return t.to_int() / (1 << -Shift); }
};

// The (unclamped) table slot of x: below 0 for x under the table range, Size or more above it.
template <class index_T, int Shift, int Start, class data_T> inline int table_slot(const data_T &x) {
    const index_T on_grid = x;
    return grid_units<Shift>::of(on_grid) - Start;
}

// The slot clamped into the table: values beyond the range use the nearest end entry.
template <unsigned Size> inline unsigned clamp_slot(int slot) {
    return slot < 0 ? 0u : (slot >= int(Size) ? Size - 1 : unsigned(slot));
}

} // namespace nnet

#endif
