// w7: shape (16, 3), min -1.0, max 0.875, 5 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef W7_H_
#define W7_H_

#define W7_VALUES \
    -0.25, 0.375, 0.875, 0.5, 0.125, -0.875, 0.5, 0.5, -0.25, -0.375, -0.625, 0.875, -0.75, -0.125, -0.75, 0.5, \
    0.125, -0.75, -0.875, -0.875, -1, 0.625, 0.625, -0.25, -0.875, -0.5, -0.125, 0, -0.125, 0.125, 0.125, 0.25, \
    0, -0.125, 0.75, 0.625, 0.5, -1, 0.125, 0.75, 0.125, -0.625, 0, 0, 0.875, 0, -0.625, -0.875

#ifdef __SYNTHESIS__
static const layer7_weight_t w7[48] = {W7_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 48 constant fixed-point initialisers.
static const double w7_values[48] = {W7_VALUES};
static layer7_weight_t w7[48];
[[maybe_unused]] static const bool w7_loaded = [] {
    for (unsigned i = 0; i < 48; i++)
        w7[i] = w7_values[i];
    return true;
}();
#endif

#endif
