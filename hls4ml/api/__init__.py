"""The converted model users hold: `ModelGraph` (write, compile, predict, trace, estimate, build) and the
checks that run once at the end of a conversion. It sits on top of the writer, the estimator, the
backends and the C-simulation; the frontends (`hls4ml.converters`) build it."""

from hls4ml.api.model_graph import ModelGraph

__all__ = ['ModelGraph']
