"""On-chip learning of SOM, ReSOM and ReSOMMaps layers through the flow (docs/som.md, docs/resom.md):
learners that run the project's learning top functions on the compiled C-simulation."""

from hls4ml.learning.learners import LearningWarning, SOMLearner
from hls4ml.learning.resom import ReSOMLearner
from hls4ml.learning.resom_maps import ReSOMMapsLearner
from hls4ml.learning.schedules import asymptotic_decay, exponential_decay
from hls4ml.learning.select import learner_for

__all__ = [
    'LearningWarning',
    'ReSOMLearner',
    'ReSOMMapsLearner',
    'SOMLearner',
    'asymptotic_decay',
    'exponential_decay',
    'learner_for',
]
