// w6: shape (2, 2, 3, 4), min -1.0, max 0.875, 5 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef W6_H_
#define W6_H_

#define W6_VALUES \
    -0.875, -0.125, -0.875, 0.875, -0.625, -0.125, 0.75, 0, 0.25, -0.125, 0.625, 0.125, 0.25, -0.125, -0.25, 0.125, \
    0, 0.5, 0.125, -0.125, 0.625, -0.625, -0.125, -0.125, 0.75, -0.125, 0.125, -0.875, 0.625, -0.125, -0.125, -0.875, \
    0.375, 0.25, -0.375, 0.5, 0, -1, -0.625, -0.5, -0.875, 0, -1, 0, 0.375, 0.125, -0.125, -0.5

#ifdef __SYNTHESIS__
static const layer6_weight_t w6[48] = {W6_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 48 constant fixed-point initialisers.
static const double w6_values[48] = {W6_VALUES};
static layer6_weight_t w6[48];
[[maybe_unused]] static const bool w6_loaded = [] {
    for (unsigned i = 0; i < 48; i++)
        w6[i] = w6_values[i];
    return true;
}();
#endif

#endif
