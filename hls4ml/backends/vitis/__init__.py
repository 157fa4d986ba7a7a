"""AMD Vitis HLS (and its predecessor Vivado HLS): ap_fixed types, HLS pragmas, Tcl build scripts."""
