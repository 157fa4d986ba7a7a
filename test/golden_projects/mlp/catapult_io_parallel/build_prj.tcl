# Catapult HLS build of myproject (written by hls4ml), run in the project folder:
#   catapult -shell -f build_prj.tcl -eval {set ::argv "csim=True synth=True cosim=False"}
# ::argv holds name=value words (True/False, 1/0, yes/no); only the names of `opt` below exist.
# Steps: C simulation (SCVerify) after compile; synthesis down to RTL (extract); RTL co-simulation,
# validation (C and RTL results compared), Vivado synthesis, power and Design Analyzer after it.
array set opt {reset 0 csim 1 synth 1 cosim 0 validation 0 vhdl 0 verilog 1 vsynth 0 power 0 da 0}
if {[info exists ::argv]} {
    foreach word $::argv {
        if {[string first = $word] < 0} { continue }
        lassign [split $word =] name value
        if {![info exists opt($name)] || ![string is boolean -strict $value]} {
            error "build_prj.tcl: bad option '$word'; the options are [lsort [array names opt]], each =True or =False"
        }
        set opt($name) [string is true $value]
    }
}
# What needs what: validation compares C simulation with co-simulation, which needs the RTL.
if {$opt(validation)} { set opt(csim) 1; set opt(cosim) 1 }
foreach step {cosim vsynth power da} { if {$opt($step)} { set opt(synth) 1 } }

set project_name myproject
set project_dir ${project_name}_prj
set technology fpga
set part xcku115-flvb2104-2-i
set clock_period 5
set fifo_depth ""
if {$opt(vsynth) && ($technology ne "fpga" || !$opt(verilog))} {
    error "build_prj.tcl: vsynth (Vivado synthesis) needs technology fpga and verilog=True"
}
if {$opt(cosim) && !$opt(verilog) && !$opt(vhdl)} { error "build_prj.tcl: cosim needs verilog=True or vhdl=True" }

proc report_step {name} { puts "***** $name *****" }

# A Xilinx part's Catapult library, from Catapult's library database (the path names the family and
# speed grade); without an entry, only the default part has a known library.
proc add_fpga_libraries {part} {
    set pattern /CONFIG/PARAMETERS/Vivado/PARAMETERS/Xilinx/PARAMETERS/*/PARAMETERS/*/PARAMETERS/$part/LIBRARIES/*/NAME
    set names [library get $pattern -match glob -ret v]
    set paths [library get $pattern -match glob -ret p]
    if {[llength $names] > 0 && [llength $paths] > 0} {
        set fields [split [lindex $paths 0] /]
        set family [lindex $fields 7]
        set speed [lindex $fields 9]
        solution library add [lindex $names 0] -- -rtlsyntool Vivado -vendor Xilinx -family $family -speed $speed -part $part
    } elseif {$part eq "xcku115-flvb2104-2-i"} {
        solution library add mgc_Xilinx-KINTEX-u-2_beh -- -rtlsyntool Vivado -manufacturer Xilinx -family KINTEX-u -speed -2 -part $part
    } else {
        error "build_prj.tcl: part '$part' is not in Catapult's library database"
    }
    foreach library {Xilinx_RAMS Xilinx_ROMS Xilinx_FIFO} { solution library add $library }
}

proc add_asic_libraries {libraries} {
    foreach library $libraries { solution library add $library -- -rtlsyntool DesignCompiler }
    foreach library {ccs_sample_mem ccs_sample_rom} { solution library add $library }
}

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


options set Input/CppStandard c++17
options set Input/CompilerFlags "-DHLS4ML_DIALECT_AC -DHLS4ML_STREAM_AC_CHANNEL"
if {$opt(reset) && [file exists $project_dir.ccs]} {
    project load $project_dir.ccs
    go new
} else {
    project new -name $project_dir
}
options set Output/OutputVerilog [expr {$opt(verilog) ? "true" : "false"}]
options set Output/OutputVHDL [expr {$opt(vhdl) ? "true" : "false"}]
flow package require /SCVerify
flow package option set /SCVerify/INVOKE_ARGS [list [pwd]]

solution file add firmware/$project_name.cpp -type C++
solution file add ${project_name}_test.cpp -type C++ -exclude true
directive set -MEM_MAP_THRESHOLD 32769

go analyze
directive set -DESIGN_HIERARCHY $project_name
go compile

if {$opt(csim)} {
    report_step "C SIMULATION"
    flow run /SCVerify/launch_make ./scverify/Verify_orig_cxx_osci.mk {} SIMTOOL=osci sim
}
if {$opt(synth)} {
    report_step "C/RTL SYNTHESIS"
    if {$technology eq "fpga"} { add_fpga_libraries $part } else { add_asic_libraries $asic_libraries }
    directive set -CLOCKS [list clk [list -CLOCK_PERIOD $clock_period -CLOCK_EDGE rising -CLOCK_OFFSET 0.0 \
        -CLOCK_UNCERTAINTY 0.0 -RESET_KIND sync -RESET_SYNC_NAME rst -RESET_SYNC_ACTIVE high \
        -RESET_ASYNC_NAME arst_n -RESET_ASYNC_ACTIVE low -ENABLE_NAME {} -ENABLE_ACTIVE high]]
    if {$fifo_depth ne ""} { directive set -FIFO_DEPTH $fifo_depth }
    foreach stage {libraries assembly architect allocate schedule dpfsm extract} { go $stage }
}
set status 0
if {$opt(cosim)} {
    report_step "C/RTL COSIMULATION"
    # The testbench writes tb_data/csim_results.log in both runs: the RTL's goes to rtl_cosim_results.log.
    file delete -force tb_data/rtl_cosim_results.log
    move_if_present tb_data/csim_results.log tb_data/csim_results.log.keep
    if {$opt(verilog)} {
        flow run /SCVerify/launch_make ./scverify/Verify_rtl_v_msim.mk {} SIMTOOL=msim sim
    } else {
        flow run /SCVerify/launch_make ./scverify/Verify_rtl_vhdl_msim.mk {} SIMTOOL=msim sim
    }
    move_if_present tb_data/csim_results.log tb_data/rtl_cosim_results.log
    move_if_present tb_data/csim_results.log.keep tb_data/csim_results.log
}
if {$opt(validation) && ![validate]} { set status 1 }
if {$opt(vsynth)} {
    report_step "VIVADO SYNTHESIS"
    flow run /Vivado/synthesize -shell vivado_concat_v/concat_rtl.v.xv
}
if {$opt(power)} {
    report_step "POWER"
    go switching
    flow run /PowerAnalysis/report_pre_pwropt_Verilog
    go power
}
if {$opt(da)} {
    report_step "DESIGN ANALYZER"
    flow run /DesignAnalyzer/launch
}
project save
exit $status
