// b6: shape (48,), min -1.6875, max 1.4609375, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef B6_H_
#define B6_H_

#define B6_VALUES \
    1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, \
    -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, \
    0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625

#ifdef __SYNTHESIS__
static const layer6_bias_t b6[48] = {B6_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 48 constant fixed-point initialisers.
static const double b6_values[48] = {B6_VALUES};
static layer6_bias_t b6[48];
[[maybe_unused]] static const bool b6_loaded = [] {
    for (unsigned i = 0; i < 48; i++)
        b6[i] = b6_values[i];
    return true;
}();
#endif

#endif
