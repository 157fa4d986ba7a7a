"""The oneAPI backend without icpx: its config keys, the written src/ layout, the kernel wrapper, the
CMake project (configured by a real cmake with a stand-in icpx that hands everything to g++, spec
vendor-tools.md section 5.2: nothing is compiled for real) and the errors of build()."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import keras  # noqa: E402
import pytest  # noqa: E402

import hls4ml  # noqa: E402
from hls4ml.backends import get_backend  # noqa: E402
from hls4ml.backends.base import VendorBuildError, VendorToolNotFound  # noqa: E402
from hls4ml.backends.oneapi.build import check_version, compiler_version  # noqa: E402
from hls4ml.writer import TEMPLATES  # noqa: E402

TARGETS = ('fpga_emu', 'report', 'fpga_sim', 'fpga', 'lib')
STUB_ICPX = """#!/bin/sh
# A stand-in for icpx (tests only): reports a 2025.0 version and hands everything else to g++.
if [ "$1" = "--version" ]; then
    echo "Intel(R) oneAPI DPC++/C++ Compiler 2025.0.4 (2025.0.4.20241205)"
    exit 0
fi
exec g++ "$@"
"""


def merge_model() -> keras.Model:
    keras.utils.set_random_seed(2)
    first, second = keras.Input((6,), name='first'), keras.Input((6,), name='second')
    hidden = keras.layers.Dense(6, activation='relu', name='hidden')(first)
    summed = keras.layers.Add(name='sum')([hidden, second])
    return keras.Model([first, second], [summed, keras.layers.Dense(2, activation='softmax', name='out')(second)])


def write(tmp_path: Path, io_type: str = 'io_parallel', **kwargs: Any) -> Path:
    hls_model = hls4ml.converters.convert_from_keras_model(
        merge_model(), output_dir=str(tmp_path / 'prj'), backend='oneAPI', io_type=io_type, **kwargs
    )
    return Path(hls_model.write())


# ---- configuration ----------------------------------------------------------------------------------


def test_initial_config_has_the_hls4ml_keys_and_defaults() -> None:
    config, unknown = get_backend('oneapi').create_initial_config(namespace='x')
    assert config == {
        'Part': 'Agilex7',
        'ClockPeriod': 5,
        'HyperoptHandshake': False,
        'IOType': 'io_parallel',
        'HLSConfig': {},
        'WriterConfig': {'WriteTar': False},
    }
    assert unknown == {'namespace'}


def test_initial_config_checks_its_values() -> None:
    backend = get_backend('oneAPI')
    assert backend.create_initial_config(part=None)[0]['Part'] == 'Agilex7'
    with pytest.raises(ValueError, match='io_type'):
        backend.create_initial_config(io_type='io_serial')
    with pytest.raises(ValueError, match='clock_period'):
        backend.create_initial_config(clock_period=0)


# ---- the written project ----------------------------------------------------------------------------


def test_sources_sit_in_src(tmp_path) -> None:
    project = write(tmp_path)
    written = {str(path.relative_to(project)) for path in project.rglob('*') if path.is_file()}
    for name in ('myproject.cpp', 'myproject.h', 'defines.h', 'parameters.h', 'myproject_kernel.h'):
        assert f'src/firmware/{name}' in written
    for name in ('myproject_bridge.cpp', 'myproject_test.cpp', 'exception_handler.hpp'):
        assert f'src/{name}' in written
    assert {'CMakeLists.txt', 'hls4ml_config.yml', 'src/firmware/myproject_kernel.cpp'} <= written
    assert 'src/firmware/nnet_utils/nnet_dense.h' in written and 'src/firmware/ap_types/ac_fixed.h' in written
    assert not (project / 'firmware').exists()


def test_the_bridge_stays_free_of_sycl(tmp_path) -> None:
    """compile() builds the bridge with g++: it must reach neither the kernel wrapper nor SYCL."""
    project = write(tmp_path)
    for path in ('src/myproject_bridge.cpp', 'src/firmware/myproject.cpp', 'src/firmware/myproject.h'):
        text = (project / path).read_text()
        assert 'sycl' not in text and '_kernel' not in text


def test_the_kernel_reads_and_writes_host_pipes(tmp_path) -> None:
    project = write(tmp_path)
    header = (project / 'src/firmware/myproject_kernel.h').read_text()
    assert (
        'decltype(sycl::ext::oneapi::experimental::properties(sycl::ext::intel::experimental::ready_latency<0>))'
        in (header)
    )
    pipes = re.findall(r'using (\w+)_pipe = sycl::ext::intel::experimental::pipe<\1_pipe_id, \1_element_t, 0, ', header)
    assert len(pipes) == 4  # two inputs, two outputs
    assert 'typedef nnet::array<layer1_result_t, 6> layer1_out_element_t;' in header
    assert 'streaming_interface<>' in header and 'pipelined<1>' in header
    kernel = (project / 'src/firmware/myproject_kernel.cpp').read_text()
    assert '#include "myproject.cpp"' in kernel
    assert kernel.count('[[intel::fpga_register]]') == 4
    assert kernel.count('_pipe::read()') == 2 and kernel.count('_pipe::write(') == 2
    assert re.search(r'myproject\((\w+\.data, ){3}\w+\.data\);', kernel)


def test_io_stream_runs_each_layer_as_a_task_joined_by_pipes(tmp_path) -> None:
    """Every layer is a task_sequence of its own, launched in layer order, then joined; a tensor between
    two layers is a device pipe as deep as the tensor; a task fills its input FIFOs from their pipes,
    runs its kernel, and empties its output FIFOs into their pipes."""
    project = write(tmp_path, io_type='io_stream')
    kernel = (project / 'src/firmware/myproject_kernel.cpp').read_text()
    header = (project / 'src/firmware/myproject_kernel.h').read_text()
    tasks = re.findall(r'static void (config\d+)_task\(\)', kernel)
    assert len(tasks) >= 3 and tasks == sorted(tasks, key=lambda name: int(name[6:]))
    body = kernel[kernel.index('_kernel::operator()() const {') :]
    launches = [body.index(f'{task}_task_sequence.async();') for task in tasks]
    joins = [body.index(f'{task}_task_sequence.get();') for task in tasks]
    assert launches == sorted(launches) and max(launches) < min(joins)
    pipe = r'using (layer\d+_out\d*)_pipe = sycl::ext::intel::pipe<\1_pipe_id, nnet::array<\w+, \d+>, (\d+)>;'
    depths = {name: int(depth) for name, depth in re.findall(pipe, kernel)}
    assert len(depths) >= 3, kernel
    for name in depths:
        assert f'{name}.write({name}_pipe::read());' in kernel and f'{name}_pipe::write({name}.read());' in kernel
    # merge_model's tensors are vectors: one element each, and so is every FIFO.
    assert set(depths.values()) == {1}
    capacities = re.findall(
        r'struct stream_capacity<nnet::array<ac_fixed<\d+,\d+,true>, \d+>> \{\n\s+static const unsigned value = (\d+);',
        header,
    )
    assert capacities and set(capacities) == {'1'}, header
    assert 'layer1_out.write(layer1_out_pipe::read());' in kernel  # the model input, from its host pipe
    assert '#include "parameters.h"' in kernel and 'myproject.cpp' not in kernel
    assert 'pipelined' not in header and 'struct stream_capacity' in header


def test_the_testbench_launches_then_writes_then_reads(tmp_path) -> None:
    testbench = (write(tmp_path) / 'src/myproject_test.cpp').read_text()
    launch = testbench.index('queue.single_task(myproject_kernel{})')
    assert launch < testbench.index('_pipe::write(queue, element)') < testbench.index('_pipe::read(queue)')
    assert testbench.index('_pipe::read(queue)') < testbench.index('done.wait();')
    for selector in ('fpga_emulator_selector_v', 'fpga_simulator_selector_v', 'fpga_selector_v'):
        assert selector in testbench
    assert 'tb_data/results.log' in testbench and 'hls4ml_testbench::exception_handler' in testbench


def test_toolkit_spellings_are_in_the_dialect_only() -> None:
    """A successor flow changes templates/oneapi/dialect.j2 (and TOOLKIT in toolkit.py), nothing else."""
    spellings = re.compile(r'sycl::ext|intel::|icpx|-fsycl|-Xs|ac_types/|fpga_extensions')
    for template in (TEMPLATES / 'oneapi').rglob('*.j2'):
        if template.name != 'dialect.j2':
            assert not spellings.search(template.read_text()), template


def test_every_unroll_directive_precedes_a_loop() -> None:
    """The oneAPI dialect spells NNET_UNROLL as `#pragma unroll`, which clang requires before a loop."""
    for header in (TEMPLATES / 'nnet').glob('*.h'):
        lines = [line.strip() for line in header.read_text().splitlines()]
        code = [line for line in lines if line and not line.startswith('//')]
        for index, line in enumerate(code):
            if line == 'NNET_UNROLL':
                assert code[index + 1].startswith('for ('), f'{header.name}: NNET_UNROLL before {code[index + 1]!r}'


# ---- CMake, with a stand-in icpx --------------------------------------------------------------------


@pytest.fixture
def stub_icpx(tmp_path, monkeypatch) -> Path:
    for tool in ('cmake', 'make', 'g++'):
        if shutil.which(tool) is None:
            pytest.skip(f'{tool} is not installed')
    folder = tmp_path / 'stub'
    folder.mkdir()
    (folder / 'icpx').write_text(STUB_ICPX)
    (folder / 'icpx').chmod(0o755)
    monkeypatch.setenv('PATH', f'{folder}{os.pathsep}{os.environ["PATH"]}')
    return folder / 'icpx'


def configure(project: Path, *options: str) -> Path:
    build = project / 'build'
    build.mkdir()
    subprocess.run(['cmake', *options, '..'], cwd=build, check=True, capture_output=True, text=True)
    return build


def make(build: Path, *arguments: str) -> str:
    return subprocess.run(['make', *arguments], cwd=build, check=True, capture_output=True, text=True).stdout


def link_line(build: Path, target: str) -> str:
    """The link command make would run for a target (`make -n` shows only the link script's name)."""
    return (build / 'CMakeFiles' / f'{target}.dir' / 'link.txt').read_text()


def test_cmake_configures_with_the_conventional_targets(tmp_path, stub_icpx) -> None:
    build = configure(write(tmp_path))
    listed = make(build, 'help')
    for target in TARGETS:
        assert f'... {target}\n' in listed


def test_fpga_emu_compiles_for_the_emulator(tmp_path, stub_icpx) -> None:
    build = configure(write(tmp_path))
    compiles = [line for line in make(build, '-n', 'fpga_emu').splitlines() if line.startswith(str(stub_icpx))]
    assert len(compiles) == 2  # the kernel and the testbench
    for line in compiles:
        assert '-fsycl -fintelfpga -qactypes -DHLS4ML_DIALECT_ONEAPI -D__SYNTHESIS__' in line
        assert '-DFPGA_EMULATOR' in line and '-std=c++17' in line
    assert link_line(build, 'fpga_emu').split()[1:4] == ['-fsycl', '-fintelfpga', '-qactypes']
    assert '-Xs' not in link_line(build, 'fpga_emu')


def test_fpga_links_for_the_device_at_the_clock(tmp_path, stub_icpx) -> None:
    build = configure(write(tmp_path, clock_period=4.5))
    compiles = [line for line in make(build, '-n', 'fpga').splitlines() if line.startswith(str(stub_icpx))]
    assert compiles and all('-DFPGA_HARDWARE' in line for line in compiles)
    link = link_line(build, 'fpga')
    expected = '-Xshardware -Xstarget=Agilex7 -Xsclock=4.5ns -Xsoptimize=latency -reuse-exe='
    assert expected in link and link.rstrip().endswith('-o myproject.fpga')
    assert '-fsycl-link=early' in link_line(build, 'report')
    assert '-Xssimulation -Xsghdl -Xstarget=Agilex7' in link_line(build, 'fpga_sim')


def test_fpga_is_left_out_of_a_bare_make(tmp_path, stub_icpx) -> None:
    everything = make(configure(write(tmp_path)), '-n')
    assert 'fpga_emu.dir' in everything and 'fpga_sim.dir' in everything
    assert 'fpga.dir' not in everything


def test_device_and_handshake_options(tmp_path, stub_icpx) -> None:
    build = configure(write(tmp_path, part='Stratix10', hyperopt_handshake=True), '-DFPGA_DEVICE=Agilex5')
    assert '-Xstarget=Agilex5' in link_line(build, 'fpga')
    assert '-Xsoptimize=latency' not in link_line(build, 'fpga')
    assert 'set(FPGA_DEVICE Stratix10 CACHE STRING' in (build.parent / 'CMakeLists.txt').read_text()


def test_lib_builds_the_bridge_as_a_shared_library(tmp_path, stub_icpx) -> None:
    build = configure(write(tmp_path))
    compiles = [line for line in make(build, '-n', 'lib').splitlines() if line.startswith(str(stub_icpx))]
    assert len(compiles) == 1 and 'src/myproject_bridge.cpp' in compiles[0]
    assert '-D__SYNTHESIS__' not in compiles[0]
    assert '-shared' in link_line(build, 'lib') and 'libmyproject.so' in link_line(build, 'lib')


# ---- build() ----------------------------------------------------------------------------------------


def converted(tmp_path: Path) -> Any:
    return hls4ml.converters.convert_from_keras_model(merge_model(), output_dir=str(tmp_path / 'prj'), backend='oneAPI')


def test_build_without_icpx_says_how_to_get_it(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv('PATH', str(tmp_path))
    with pytest.raises(VendorToolNotFound, match=r"'icpx'.*setvars\.sh.*2025\.0"):
        converted(tmp_path).build()


def test_build_runs_cmake_and_make_and_reports_the_errors(tmp_path, stub_icpx) -> None:
    """g++ refuses -fsycl, so the stand-in icpx makes the real cmake + make run fail at the first compile."""
    with pytest.raises(VendorBuildError, match=r'(?s)make failed.*make_fpga_emu\.log.*fsycl'):
        converted(tmp_path).build(build_type='fpga_emu')
    assert (tmp_path / 'prj' / 'build' / 'CMakeCache.txt').exists()


def test_build_type_must_be_a_target(tmp_path) -> None:
    with pytest.raises(ValueError, match='build_type'):
        converted(tmp_path).build(build_type='csim')


def test_compiler_version_is_read_and_checked(stub_icpx) -> None:
    assert compiler_version(str(stub_icpx)) == (2025, 0)
    check_version((2024, 2))
    with pytest.warns(UserWarning, match='2025.1 is outside 2024.1 to 2025.0'):
        check_version((2025, 1))
    with pytest.warns(UserWarning, match='could not read'):
        check_version(None)
