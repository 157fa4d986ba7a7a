// b5: shape (4,), min -0.375, max 0.75, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef B5_H_
#define B5_H_

#define B5_VALUES \
    0.75, -0.375, 0.625, -0.125

#ifdef __SYNTHESIS__
static const layer5_bias_t b5[4] = {B5_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 4 constant fixed-point initialisers.
static const double b5_values[4] = {B5_VALUES};
static layer5_bias_t b5[4];
[[maybe_unused]] static const bool b5_loaded = [] {
    for (unsigned i = 0; i < 4; i++)
        b5[i] = b5_values[i];
    return true;
}();
#endif

#endif
