// b7: shape (48,), min -2.1875, max 0.6171875, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef B7_H_
#define B7_H_

#define B7_VALUES \
    -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, \
    -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, \
    0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875, -0.859375, -2.1875, 0.6171875

#ifdef __SYNTHESIS__
static const layer7_bias_t b7[48] = {B7_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 48 constant fixed-point initialisers.
static const double b7_values[48] = {B7_VALUES};
static layer7_bias_t b7[48];
[[maybe_unused]] static const bool b7_loaded = [] {
    for (unsigned i = 0; i < 48; i++)
        b7[i] = b7_values[i];
    return true;
}();
#endif

#endif
