// inv_table3: shape (64,), min 0.3369140625, max 1.0, 0 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef INV_TABLE3_H_
#define INV_TABLE3_H_

#define INV_TABLE3_VALUES \
    1, 0.9697265625, 0.94140625, 0.9140625, 0.888671875, 0.865234375, 0.841796875, 0.8203125, 0.7998046875, 0.7802734375, 0.76171875, 0.744140625, 0.7275390625, 0.7109375, 0.6953125, 0.6806640625, \
    0.6669921875, 0.6533203125, 0.6396484375, 0.6279296875, 0.615234375, 0.603515625, 0.5927734375, 0.58203125, 0.5712890625, 0.5615234375, 0.5517578125, 0.5419921875, 0.533203125, 0.5244140625, 0.5166015625, 0.5078125, \
    0.5, 0.4921875, 0.484375, 0.4775390625, 0.470703125, 0.4638671875, 0.45703125, 0.451171875, 0.4443359375, 0.4384765625, 0.4326171875, 0.4267578125, 0.4208984375, 0.416015625, 0.41015625, 0.4052734375, \
    0.400390625, 0.3955078125, 0.390625, 0.3857421875, 0.380859375, 0.376953125, 0.3720703125, 0.3681640625, 0.36328125, 0.359375, 0.35546875, 0.3515625, 0.34765625, 0.34375, 0.3408203125, 0.3369140625

#ifdef __SYNTHESIS__
static const layer3_inv_table_t inv_table3[64] = {INV_TABLE3_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 64 constant fixed-point initialisers.
static const double inv_table3_values[64] = {INV_TABLE3_VALUES};
static layer3_inv_table_t inv_table3[64];
[[maybe_unused]] static const bool inv_table3_loaded = [] {
    for (unsigned i = 0; i < 64; i++)
        inv_table3[i] = inv_table3_values[i];
    return true;
}();
#endif

#endif
