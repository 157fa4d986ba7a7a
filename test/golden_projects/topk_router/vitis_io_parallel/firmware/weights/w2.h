// w2: shape (4, 8), min -1.0, max 0.875, 1 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef W2_H_
#define W2_H_

#define W2_VALUES \
    0.5, -0.875, -0.75, -0.625, -0.75, 0.5, 0.625, 0.125, -1, -0.875, -0.375, -0.25, 0.125, -0.125, -0.5, -0.75, \
    0.375, 0.375, -1, -0.875, -0.125, -0.25, 0.75, 0, -0.25, -0.25, 0.25, 0.125, -0.75, 0.375, 0.5, 0.875

#ifdef __SYNTHESIS__
static const layer2_weight_t w2[32] = {W2_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 32 constant fixed-point initialisers.
static const double w2_values[32] = {W2_VALUES};
static layer2_weight_t w2[32];
[[maybe_unused]] static const bool w2_loaded = [] {
    for (unsigned i = 0; i < 32; i++)
        w2[i] = w2_values[i];
    return true;
}();
#endif

#endif
