// b8: shape (3,), min 0.0, max 0.875, 1 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef B8_H_
#define B8_H_

#define B8_VALUES \
    0.375, 0.875, 0

#ifdef __SYNTHESIS__
static const layer8_bias_t b8[3] = {B8_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 3 constant fixed-point initialisers.
static const double b8_values[3] = {B8_VALUES};
static layer8_bias_t b8[3];
[[maybe_unused]] static const bool b8_loaded = [] {
    for (unsigned i = 0; i < 3; i++)
        b8[i] = b8_values[i];
    return true;
}();
#endif

#endif
