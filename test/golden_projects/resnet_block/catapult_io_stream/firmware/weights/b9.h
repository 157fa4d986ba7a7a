// b9: shape (3,), min -0.875, max -0.5, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef B9_H_
#define B9_H_

#define B9_VALUES \
    -0.875, -0.5, -0.625

#ifdef __SYNTHESIS__
static const layer9_bias_t b9[3] = {B9_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 3 constant fixed-point initialisers.
static const double b9_values[3] = {B9_VALUES};
static layer9_bias_t b9[3];
[[maybe_unused]] static const bool b9_loaded = [] {
    for (unsigned i = 0; i < 3; i++)
        b9[i] = b9_values[i];
    return true;
}();
#endif

#endif
