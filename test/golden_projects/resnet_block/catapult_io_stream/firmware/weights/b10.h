// b10: shape (48,), min -2.1875, max 0.6171875, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef B10_H_
#define B10_H_

#define B10_VALUES \
    -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, \
    -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, \
    0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875

#ifdef __SYNTHESIS__
static const layer10_bias_t b10[48] = {B10_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 48 constant fixed-point initialisers.
static const double b10_values[48] = {B10_VALUES};
static layer10_bias_t b10[48];
[[maybe_unused]] static const bool b10_loaded = [] {
    for (unsigned i = 0; i < 48; i++)
        b10[i] = b10_values[i];
    return true;
}();
#endif

#endif
