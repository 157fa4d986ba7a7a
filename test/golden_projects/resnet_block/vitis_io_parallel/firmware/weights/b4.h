// b4: shape (48,), min -1.6875, max 1.4609375, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef B4_H_
#define B4_H_

#define B4_VALUES \
    1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, \
    -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, \
    0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625, 1.4609375, -1.6875, 0.1640625

#ifdef __SYNTHESIS__
static const layer4_bias_t b4[48] = {B4_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 48 constant fixed-point initialisers.
static const double b4_values[48] = {B4_VALUES};
static layer4_bias_t b4[48];
[[maybe_unused]] static const bool b4_loaded = [] {
    for (unsigned i = 0; i < 48; i++)
        b4[i] = b4_values[i];
    return true;
}();
#endif

#endif
