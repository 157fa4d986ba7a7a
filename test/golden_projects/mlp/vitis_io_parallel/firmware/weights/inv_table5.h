// inv_table5: shape (64,), min 0.2021484375, max 1.0, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef INV_TABLE5_H_
#define INV_TABLE5_H_

#define INV_TABLE5_VALUES \
    1, 0.94140625, 0.888671875, 0.841796875, 0.7998046875, 0.76171875, 0.7275390625, 0.6953125, 0.6669921875, 0.6396484375, 0.615234375, 0.5927734375, 0.5712890625, 0.5517578125, 0.533203125, 0.5166015625, \
    0.5, 0.484375, 0.470703125, 0.45703125, 0.4443359375, 0.4326171875, 0.4208984375, 0.41015625, 0.400390625, 0.390625, 0.380859375, 0.3720703125, 0.36328125, 0.35546875, 0.34765625, 0.3408203125, \
    0.3330078125, 0.326171875, 0.3203125, 0.3134765625, 0.3076171875, 0.3017578125, 0.2958984375, 0.291015625, 0.2861328125, 0.2802734375, 0.275390625, 0.271484375, 0.2666015625, 0.2626953125, 0.2578125, 0.25390625, \
    0.25, 0.24609375, 0.2421875, 0.2392578125, 0.2353515625, 0.2314453125, 0.228515625, 0.2255859375, 0.22265625, 0.21875, 0.2158203125, 0.212890625, 0.2109375, 0.2080078125, 0.205078125, 0.2021484375

#ifdef __SYNTHESIS__
static const layer5_inv_table_t inv_table5[64] = {INV_TABLE5_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 64 constant fixed-point initialisers.
static const double inv_table5_values[64] = {INV_TABLE5_VALUES};
static layer5_inv_table_t inv_table5[64];
[[maybe_unused]] static const bool inv_table5_loaded = [] {
    for (unsigned i = 0; i < 64; i++)
        inv_table5[i] = inv_table5_values[i];
    return true;
}();
#endif

#endif
