// s4: shape (48,), min 0.8125, max 1.875, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef S4_H_
#define S4_H_

#define S4_VALUES \
    0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, \
    1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, \
    0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125

#ifdef __SYNTHESIS__
static const layer4_scale_t s4[48] = {S4_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 48 constant fixed-point initialisers.
static const double s4_values[48] = {S4_VALUES};
static layer4_scale_t s4[48];
[[maybe_unused]] static const bool s4_loaded = [] {
    for (unsigned i = 0; i < 48; i++)
        s4[i] = s4_values[i];
    return true;
}();
#endif

#endif
