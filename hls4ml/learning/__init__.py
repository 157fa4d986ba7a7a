"""On-chip learning of SOM and ReSOM layers through the flow (docs/som.md, docs/resom.md): learners
that run the project's learning top functions on the compiled C-simulation."""

from hls4ml.learning.learners import LearningWarning, ReSOMLearner, SOMLearner, learner_for
from hls4ml.learning.schedules import asymptotic_decay, exponential_decay

__all__ = ['LearningWarning', 'ReSOMLearner', 'SOMLearner', 'asymptotic_decay', 'exponential_decay', 'learner_for']
