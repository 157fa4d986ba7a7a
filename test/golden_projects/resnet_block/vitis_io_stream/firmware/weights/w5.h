// w5: shape (3, 3, 3, 3), min -1.0, max 0.875, 6 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef W5_H_
#define W5_H_

#define W5_VALUES \
    0.375, 0.5, -0.375, 0.125, 0.125, 0.25, -0.625, 0.25, -1, 0.875, 0.875, 0.875, -0.5, -0.75, 0.75, 0, \
    -0.875, -0.125, 0.75, 0.875, 0.75, -0.25, -0.125, 0.875, -0.375, -0.75, -0.125, 0, 0.75, -0.375, 0.25, 0.125, \
    0, 0.75, 0, 0.25, 0.875, -0.375, -0.625, 0.5, -0.5, 0.125, -1, -0.125, -0.875, 0.875, 0.375, -0.625, \
    0.125, 0.375, -0.875, -0.125, -0.125, -0.125, 0.875, 0.875, -0.75, -0.75, -0.25, -0.5, 0.75, -0.125, -0.375, -0.875, \
    0.125, 0, 0.25, 0.875, 0.875, -0.25, 0.625, -0.625, -0.125, 0.75, 0.125, 0.625, -0.625, 0.75, -0.75, 0, \
    0.5

#ifdef __SYNTHESIS__
static const layer5_weight_t w5[81] = {W5_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 81 constant fixed-point initialisers.
static const double w5_values[81] = {W5_VALUES};
static layer5_weight_t w5[81];
[[maybe_unused]] static const bool w5_loaded = [] {
    for (unsigned i = 0; i < 81; i++)
        w5[i] = w5_values[i];
    return true;
}();
#endif

#endif
