"""Layers that hls4ml ships for users' own models: self-organizing maps (SOM, ReSOM) and mixture-of-experts
routers, as Keras 3 layers and PyTorch modules. The Keras and PyTorch frontends recognise and convert them.

The framework modules are imported on demand (``hls4ml.nn.torch_som``, ``hls4ml.nn.keras_moe``, ...), so
importing hls4ml never imports torch or keras.
"""
