// w6: shape (3, 3, 3, 3), min -1.0, max 0.875, 6 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef W6_H_
#define W6_H_

#define W6_VALUES \
    -0.75, 0.875, -0.25, 0.75, 0.375, 0.375, -0.5, -0.625, 0.625, 0.75, 0.625, 0, -0.375, -0.875, 0.125, -0.375, \
    0.875, -0.375, -1, 0.75, -0.75, 0, -0.75, -0.875, -0.75, -0.875, 0, -0.25, -0.75, -0.875, -0.875, -0.25, \
    -1, 0.875, -1, 0.25, 0, -0.25, 0.875, 0.625, 0.75, 0.25, -0.875, 0.5, 0.375, 0.375, -0.25, 0.375, \
    0.875, 0.75, 0.25, -0.25, -0.625, 0.125, -0.75, -0.5, -0.375, -0.5, -0.75, -0.375, 0.25, 0.125, 0.125, -1, \
    -1, 0, 0.625, 0.75, 0, -0.125, -0.375, 0.125, -0.5, 0.5, 0.875, -0.25, -0.5, -0.125, -0.875, -0.625, \
    -1

#ifdef __SYNTHESIS__
static const layer6_weight_t w6[81] = {W6_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 81 constant fixed-point initialisers.
static const double w6_values[81] = {W6_VALUES};
static layer6_weight_t w6[81];
[[maybe_unused]] static const bool w6_loaded = [] {
    for (unsigned i = 0; i < 81; i++)
        w6[i] = w6_values[i];
    return true;
}();
#endif

#endif
