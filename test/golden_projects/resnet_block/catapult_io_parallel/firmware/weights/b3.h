// b3: shape (3,), min -0.75, max 0.5, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef B3_H_
#define B3_H_

#define B3_VALUES \
    0.375, -0.75, 0.5

#ifdef __SYNTHESIS__
static const layer3_bias_t b3[3] = {B3_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 3 constant fixed-point initialisers.
static const double b3_values[3] = {B3_VALUES};
static layer3_bias_t b3[3];
[[maybe_unused]] static const bool b3_loaded = [] {
    for (unsigned i = 0; i < 3; i++)
        b3[i] = b3_values[i];
    return true;
}();
#endif

#endif
