// w2: shape (3, 2), min -0.75, max 2.0, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef W2_H_
#define W2_H_

#define W2_VALUES \
    0.5, -0.25, 1, 0.125, -0.75, 2

#ifdef __SYNTHESIS__
static const layer2_weight_t w2[6] = {W2_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 6 constant fixed-point initialisers.
static const double w2_values[6] = {W2_VALUES};
static layer2_weight_t w2[6];
[[maybe_unused]] static const bool w2_loaded = [] {
    for (unsigned i = 0; i < 6; i++)
        w2[i] = w2_values[i];
    return true;
}();
#endif

#endif
