"""hls4ml: neural networks to FPGA/ASIC firmware through high-level synthesis."""

__version__ = '0.1.0'
