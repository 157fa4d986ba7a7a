// w4: shape (8, 4), min -1.0, max 0.875, 2 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef W4_H_
#define W4_H_

#define W4_VALUES \
    0.375, -0.75, -0.375, 0.875, -0.25, 0, -0.5, -0.875, -0.25, 0.125, -0.125, 0.5, -0.375, 0.125, 0.5, 0.75, \
    -0.25, -1, 0.375, 0, 0.625, -0.125, -0.375, -1, -0.125, 0.25, 0.5, 0.625, -0.625, 0.125, 0.5, -0.5

#ifdef __SYNTHESIS__
static const layer4_weight_t w4[32] = {W4_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 32 constant fixed-point initialisers.
static const double w4_values[32] = {W4_VALUES};
static layer4_weight_t w4[32];
[[maybe_unused]] static const bool w4_loaded = [] {
    for (unsigned i = 0; i < 32; i++)
        w4[i] = w4_values[i];
    return true;
}();
#endif

#endif
