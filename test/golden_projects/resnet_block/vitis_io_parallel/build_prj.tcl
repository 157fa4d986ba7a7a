# Vitis HLS build of myproject: vitis_hls -f build_prj.tcl, or vitis-run --mode hls --tcl build_prj.tcl
# (written by hls4ml).
# The steps come from build_opt.tcl, which hls_model.build(...) writes; defaults below.
array set opt {reset 0 csim 1 synth 1 cosim 0 validation 0 export 0 vsynth 0}
if {[file exists build_opt.tcl]} { source build_opt.tcl }
# validation compares the C simulation's results with the co-simulation's: it needs both.
if {$opt(validation)} { set opt(csim) 1; set opt(cosim) 1 }
source project.tcl

proc report_step {name} { puts "***** $name *****" }

# Keeping the C and RTL results of the testbench apart, and comparing them (validation).
proc move_if_present {from to} { if {[file exists $from]} { file rename -force $from $to } }

proc same_file_contents {first second} {
    if {![file exists $first] || ![file exists $second]} { return 0 }
    set contents {}
    foreach path [list $first $second] {
        set channel [open $path]
        lappend contents [read $channel]
        close $channel
    }
    return [string equal [lindex $contents 0] [lindex $contents 1]]
}

# The validation step: 1 when the C simulation and the RTL co-simulation wrote the same results.
proc validate {} {
    report_step "VALIDATION"
    if {[same_file_contents tb_data/csim_results.log tb_data/rtl_cosim_results.log]} {
        puts "validation: C simulation and RTL co-simulation give the same results"
        return 1
    }
    puts "ERROR: validation: tb_data/csim_results.log and tb_data/rtl_cosim_results.log differ (or one is missing)"
    return 0
}

if {$opt(reset)} { open_project -reset ${project_name}_prj } else { open_project ${project_name}_prj }
set_top ${project_name}
add_files firmware/${project_name}.cpp -cflags "-std=c++14"
add_files -tb ${project_name}_test.cpp -cflags "-std=c++14 -Wno-unknown-pragmas"
add_files -tb firmware/weights
add_files -tb tb_data
if {$opt(reset)} { open_solution -reset solution1 } else { open_solution solution1 }
set_part $part
create_clock -period $clock_period -name default
set_clock_uncertainty $clock_uncertainty default

if {$opt(csim)} {
    report_step "C SIMULATION"
    csim_design
}
if {$opt(synth)} {
    report_step "C/RTL SYNTHESIS"
    csynth_design
}
if {$opt(cosim)} {
    report_step "C/RTL COSIMULATION"
    # The testbench writes tb_data/csim_results.log in both runs: the RTL's goes to rtl_cosim_results.log.
    file delete -force tb_data/rtl_cosim_results.log
    move_if_present tb_data/csim_results.log tb_data/csim_results.log.keep
    cosim_design -trace_level all
    move_if_present tb_data/csim_results.log tb_data/rtl_cosim_results.log
    move_if_present tb_data/csim_results.log.keep tb_data/csim_results.log
}
set failed 0
if {$opt(validation) && ![validate]} { set failed 1 }
if {$opt(export)} {
    report_step "EXPORT IP"
    export_design -format ip_catalog
}
if {$opt(vsynth)} {
    report_step "VIVADO SYNTHESIS"
    exec vivado -mode batch -source vivado_synth.tcl >@ stdout
}
# The tool's exit code tells build() whether validation failed (exit without a code: success).
if {$failed} { exit 1 }
exit
