// b2: shape (3,), min 0.125, max 0.375, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef B2_H_
#define B2_H_

#define B2_VALUES \
    0.125, 0.375, 0.375

#ifdef __SYNTHESIS__
static const layer2_bias_t b2[3] = {B2_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 3 constant fixed-point initialisers.
static const double b2_values[3] = {B2_VALUES};
static layer2_bias_t b2[3];
[[maybe_unused]] static const bool b2_loaded = [] {
    for (unsigned i = 0; i < 3; i++)
        b2[i] = b2_values[i];
    return true;
}();
#endif

#endif
