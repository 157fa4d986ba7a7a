"""The Verilog backend: fully unrolled models as pipelined RTL, Verilator co-simulation, Yosys resources."""
