// b2: shape (8,), min -0.875, max 0.875, 1 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef B2_H_
#define B2_H_

#define B2_VALUES \
    0.375, 0.875, -0.875, 0.375, -0.5, 0, 0.75, -0.5

#ifdef __SYNTHESIS__
static const layer2_bias_t b2[8] = {B2_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 8 constant fixed-point initialisers.
static const double b2_values[8] = {B2_VALUES};
static layer2_bias_t b2[8];
[[maybe_unused]] static const bool b2_loaded = [] {
    for (unsigned i = 0; i < 8; i++)
        b2[i] = b2_values[i];
    return true;
}();
#endif

#endif
