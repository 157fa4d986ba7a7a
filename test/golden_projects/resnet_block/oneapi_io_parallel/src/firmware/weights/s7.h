// s7: shape (48,), min 0.4375, max 2.625, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef S7_H_
#define S7_H_

#define S7_VALUES \
    0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, \
    2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, \
    0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375

#ifdef __SYNTHESIS__
static const layer7_scale_t s7[48] = {S7_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 48 constant fixed-point initialisers.
static const double s7_values[48] = {S7_VALUES};
static layer7_scale_t s7[48];
[[maybe_unused]] static const bool s7_loaded = [] {
    for (unsigned i = 0; i < 48; i++)
        s7[i] = s7_values[i];
    return true;
}();
#endif

#endif
