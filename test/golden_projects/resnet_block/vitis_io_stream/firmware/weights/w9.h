// w9: shape (3, 3, 3, 3), min -1.0, max 0.875, 6 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef W9_H_
#define W9_H_

#define W9_VALUES \
    -0.75, 0.875, -0.25, 0.75, 0.375, 0.375, -0.5, -0.625, 0.625, 0.75, 0.625, 0, -0.375, -0.875, 0.125, -0.375, \
    0.875, -0.375, -1, 0.75, -0.75, 0, -0.75, -0.875, -0.75, -0.875, 0, -0.25, -0.75, -0.875, -0.875, -0.25, \
    -1, 0.875, -1, 0.25, 0, -0.25, 0.875, 0.625, 0.75, 0.25, -0.875, 0.5, 0.375, 0.375, -0.25, 0.375, \
    0.875, 0.75, 0.25, -0.25, -0.625, 0.125, -0.75, -0.5, -0.375, -0.5, -0.75, -0.375, 0.25, 0.125, 0.125, -1, \
    -1, 0, 0.625, 0.75, 0, -0.125, -0.375, 0.125, -0.5, 0.5, 0.875, -0.25, -0.5, -0.125, -0.875, -0.625, \
    -1

#ifdef __SYNTHESIS__
static const layer9_weight_t w9[81] = {W9_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 81 constant fixed-point initialisers.
static const double w9_values[81] = {W9_VALUES};
static layer9_weight_t w9[81];
[[maybe_unused]] static const bool w9_loaded = [] {
    for (unsigned i = 0; i < 81; i++)
        w9[i] = w9_values[i];
    return true;
}();
#endif

#endif
