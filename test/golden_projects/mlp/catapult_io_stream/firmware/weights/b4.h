// b4: shape (4,), min -0.375, max 0.625, 1 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef B4_H_
#define B4_H_

#define B4_VALUES \
    -0.375, 0.625, 0.125, 0

#ifdef __SYNTHESIS__
static const layer4_bias_t b4[4] = {B4_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 4 constant fixed-point initialisers.
static const double b4_values[4] = {B4_VALUES};
static layer4_bias_t b4[4];
[[maybe_unused]] static const bool b4_loaded = [] {
    for (unsigned i = 0; i < 4; i++)
        b4[i] = b4_values[i];
    return true;
}();
#endif

#endif
