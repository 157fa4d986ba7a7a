// s6: shape (48,), min 0.8125, max 1.875, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef S6_H_
#define S6_H_

#define S6_VALUES \
    0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, \
    1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, \
    0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125, 0.9375, 1.875, 0.8125

#ifdef __SYNTHESIS__
static const layer6_scale_t s6[48] = {S6_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 48 constant fixed-point initialisers.
static const double s6_values[48] = {S6_VALUES};
static layer6_scale_t s6[48];
[[maybe_unused]] static const bool s6_loaded = [] {
    for (unsigned i = 0; i < 48; i++)
        s6[i] = s6_values[i];
    return true;
}();
#endif

#endif
