// s10: shape (48,), min 0.4375, max 2.625, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef S10_H_
#define S10_H_

#define S10_VALUES \
    0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, \
    2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, \
    0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375, 0.4375, 2.625, 0.9375

#ifdef __SYNTHESIS__
static const layer10_scale_t s10[48] = {S10_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 48 constant fixed-point initialisers.
static const double s10_values[48] = {S10_VALUES};
static layer10_scale_t s10[48];
[[maybe_unused]] static const bool s10_loaded = [] {
    for (unsigned i = 0; i < 48; i++)
        s10[i] = s10_values[i];
    return true;
}();
#endif

#endif
