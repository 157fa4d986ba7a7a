# Vitis HLS synthesis of the learning top functions of myproject (written by hls4ml):
#     vitis_hls -f build_learn.tcl
# One solution per learning top function (named after its layer) in the project <name>_learn_prj; the
# learned state (codebook, lateral matrix) is an ap_memory port, the rates and tables come from the host.
source project.tcl
open_project -reset ${project_name}_learn_prj
add_files firmware/${project_name}_learn.cpp -cflags "-std=c++14"

open_solution -reset som
set_top myproject_learn_som
set_part $part
create_clock -period $clock_period -name default
set_clock_uncertainty $clock_uncertainty default
csynth_design
exit
