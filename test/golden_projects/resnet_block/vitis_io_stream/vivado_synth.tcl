# Vivado out-of-context synthesis of the exported RTL of myproject (written by hls4ml).
source project.tcl
add_files ${project_name}_prj/solution1/syn/verilog
synth_design -top ${project_name} -part $part -mode out_of_context
report_utilization -file vivado_synth.rpt
report_timing_summary -file vivado_timing.rpt
