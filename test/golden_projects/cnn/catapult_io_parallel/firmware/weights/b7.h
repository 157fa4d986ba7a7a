// b7: shape (3,), min 0.0, max 0.875, 1 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef B7_H_
#define B7_H_

#define B7_VALUES \
    0.375, 0.875, 0

#ifdef __SYNTHESIS__
static const layer7_bias_t b7[3] = {B7_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 3 constant fixed-point initialisers.
static const double b7_values[3] = {B7_VALUES};
static layer7_bias_t b7[3];
[[maybe_unused]] static const bool b7_loaded = [] {
    for (unsigned i = 0; i < 3; i++)
        b7[i] = b7_values[i];
    return true;
}();
#endif

#endif
