"""hls4ml 1.x's `hls4ml.model.layers` path: the layer class scripts import for `isinstance` checks and type
hints. Here every layer is one `Layer` of the IR (model/ir.py) whose `class_name` names its kind; 1.x's
per-kind subclasses (`Dense`, `Activation`, ...) do not exist: compare `layer.class_name` instead."""

from hls4ml.model.ir import Layer

__all__ = ['Layer']
