"""The HGQ2 layer classes the Keras frontend converts, by name: what `hgq_finish` needs to know of them without
loading their handlers (`hgq.py`, imported at the first HGQ2 layer met)."""

EXACT_ACTIVATIONS = ('relu', 'linear')
MERGES = {'QAdd': 'add', 'QSubtract': 'subtract', 'QMultiply': 'multiply', 'QMaximum': 'maximum', 'QMinimum': 'minimum'}
POOLINGS = ('QMaxPooling1D', 'QMaxPooling2D', 'QAveragePooling1D', 'QAveragePooling2D')
GLOBAL_POOLINGS = tuple(f'QGlobal{op}Pooling{rank}D' for op in ('Max', 'Average') for rank in (1, 2))
HGQ_CLASSES = (
    'Quantizer',
    'QDense',
    'QBatchNormDense',
    'QEinsumDense',
    'QEinsumDenseBatchnorm',
    'QBatchNormalization',
    'QUnaryFunctionLUT',
    'QAffinedUnaryFunctionLUT',
    'QSoftmax',
    'QConv1D',
    'QConv2D',
    *MERGES,
    'QAveragePow2',
    *POOLINGS,
    *GLOBAL_POOLINGS,
)
