// w8: shape (16, 3), min -1.0, max 0.875, 5 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef W8_H_
#define W8_H_

#define W8_VALUES \
    -0.25, 0.375, 0.875, 0.5, 0.125, -0.875, 0.5, 0.5, -0.25, -0.375, -0.625, 0.875, -0.75, -0.125, -0.75, 0.5, \
    0.125, -0.75, -0.875, -0.875, -1, 0.625, 0.625, -0.25, -0.875, -0.5, -0.125, 0, -0.125, 0.125, 0.125, 0.25, \
    0, -0.125, 0.75, 0.625, 0.5, -1, 0.125, 0.75, 0.125, -0.625, 0, 0, 0.875, 0, -0.625, -0.875

#ifdef __SYNTHESIS__
static const layer8_weight_t w8[48] = {W8_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 48 constant fixed-point initialisers.
static const double w8_values[48] = {W8_VALUES};
static layer8_weight_t w8[48];
[[maybe_unused]] static const bool w8_loaded = [] {
    for (unsigned i = 0; i < 48; i++)
        w8[i] = w8_values[i];
    return true;
}();
#endif

#endif
