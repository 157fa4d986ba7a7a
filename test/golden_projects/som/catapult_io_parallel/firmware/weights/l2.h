// l2: shape (12,), min 0.0, max 0.0, 12 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef L2_H_
#define L2_H_

#define L2_VALUES \
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0

#ifdef __SYNTHESIS__
static const layer2_label_t l2[12] = {L2_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 12 constant fixed-point initialisers.
static const double l2_values[12] = {L2_VALUES};
static layer2_label_t l2[12];
[[maybe_unused]] static const bool l2_loaded = [] {
    for (unsigned i = 0; i < 12; i++)
        l2[i] = l2_values[i];
    return true;
}();
#endif

#endif
