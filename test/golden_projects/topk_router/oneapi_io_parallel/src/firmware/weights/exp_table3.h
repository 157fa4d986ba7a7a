// exp_table3: shape (64,), min 0.0, max 1.0, 3 zeros (written by hls4ml).
// Every value is an exact double of the type, so both initialisations below hold the same bits.
#ifndef EXP_TABLE3_H_
#define EXP_TABLE3_H_

#define EXP_TABLE3_VALUES \
    0, 0, 0, 0.0009765625, 0.0009765625, 0.0009765625, 0.0009765625, 0.0009765625, 0.0009765625, 0.0009765625, 0.0009765625, 0.001953125, 0.001953125, 0.001953125, 0.001953125, 0.0029296875, \
    0.0029296875, 0.0029296875, 0.00390625, 0.00390625, 0.0048828125, 0.0048828125, 0.005859375, 0.0068359375, 0.0078125, 0.0087890625, 0.009765625, 0.0107421875, 0.0126953125, 0.0146484375, 0.0166015625, 0.0185546875, \
    0.0205078125, 0.0234375, 0.0263671875, 0.0302734375, 0.0341796875, 0.0390625, 0.0439453125, 0.0498046875, 0.056640625, 0.0634765625, 0.072265625, 0.08203125, 0.0927734375, 0.10546875, 0.119140625, 0.1357421875, \
    0.1533203125, 0.173828125, 0.197265625, 0.22265625, 0.2529296875, 0.2861328125, 0.32421875, 0.3681640625, 0.4169921875, 0.47265625, 0.53515625, 0.6064453125, 0.6875, 0.7783203125, 0.8828125, 1

#ifdef __SYNTHESIS__
static const layer3_exp_table_t exp_table3[64] = {EXP_TABLE3_VALUES};
#else
// C-simulation: the values are converted once when the library loads, which compiles far faster
// than 64 constant fixed-point initialisers.
static const double exp_table3_values[64] = {EXP_TABLE3_VALUES};
static layer3_exp_table_t exp_table3[64];
[[maybe_unused]] static const bool exp_table3_loaded = [] {
    for (unsigned i = 0; i < 64; i++)
        exp_table3[i] = exp_table3_values[i];
    return true;
}();
#endif

#endif
