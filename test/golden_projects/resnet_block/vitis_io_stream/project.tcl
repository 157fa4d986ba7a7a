# Settings of myproject for build_prj.tcl and the report parsers (written by hls4ml).
variable project_name myproject
variable backend vitis
variable part xcvu13p-flga2577-2-e
variable clock_period 5
variable clock_uncertainty 27%
