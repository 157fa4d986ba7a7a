"""The `hls4ml` command: the Python API from a shell, one sub-command per step (docs/cli.md).

    hls4ml config  -m model.keras -o config.yml          # a YAML config for the model
    hls4ml convert -c config.yml                         # write the HLS project
    hls4ml compile -c config.yml                         # and build its C-simulation library
    hls4ml predict -c config.yml -i x.npy -o y.npy       # firmware outputs, bit-accurate
    hls4ml build   -c config.yml --synth                 # run the vendor tool (when installed)
    hls4ml report  -p my-hls-test                        # the vendor reports of a built project
    hls4ml estimate -c config.yml [--json]               # latency and resources, no vendor tool

`-c` takes a YAML config (`convert_from_config` keys) or a written project folder, whose
hls4ml_config.yml names the model file when the project was converted by this command. Errors are
one line on stderr and exit status 1 (`--debug` shows the traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from hls4ml.cli.commands import (
    BUILD_OPTIONS,
    CommandError,
    command_build,
    command_compile,
    command_config,
    command_convert,
    command_estimate,
    command_predict,
    command_report,
)

# ---- the command line ----------------------------------------------------------------------------
CONFIG_HELP = 'YAML config (convert_from_config keys) or a project folder written by `hls4ml convert`'


PICKLE_HELP = (
    'load a PyTorch model file (a pickle, which runs code when loaded) named by the config or -m: only for '
    'files you trust (SECURITY.md)'
)


def _add_config(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('-c', '--config', required=True, help=CONFIG_HELP)
    parser.add_argument('--allow-pickle', action='store_true', help=PICKLE_HELP)


def _subcommand(commands: Any, name: str, summary: str, details: str) -> argparse.ArgumentParser:
    return commands.add_parser(
        name, help=summary, description=f'{summary}\n\n{details}', formatter_class=argparse.RawDescriptionHelpFormatter
    )


def _config_parser(commands: Any) -> None:
    parser = _subcommand(
        commands,
        'config',
        'Write a YAML config for a model file.',
        'The model: .keras/.h5 (Keras 3), .onnx (ONNX/QONNX) or .pt (a whole torch.nn.Module saved with\n'
        'torch.save; needs --input-shape and, being a pickle, --allow-pickle). The YAML holds the model path,\n'
        'project and backend settings and the HLSConfig from config_from_<framework>_model; edit it, then\n'
        '`hls4ml convert -c` it.',
    )
    parser.add_argument('-m', '--model', required=True, help='the model file')
    parser.add_argument('-o', '--output', help='the YAML file to write (default: print it)')
    parser.add_argument('-p', '--project', default='myproject', help='project name (a C++ identifier)')
    parser.add_argument('-d', '--dir', default='my-hls-test', help='output directory of the project')
    parser.add_argument('-ba', '--backend', default='Vitis', help='Vitis, Vivado, oneAPI or Catapult')
    parser.add_argument('-f', '--fpga', '--part', dest='part', help='FPGA part (default: the backend default)')
    parser.add_argument('-c', '--clock', type=float, default=5, help='clock period in ns (default 5)')
    parser.add_argument('--io-type', default='io_parallel', choices=('io_parallel', 'io_stream'))
    parser.add_argument('-g', '--granularity', default='name', choices=('model', 'type', 'name'))
    parser.add_argument('-x', '--precision', default='fixed<16,6>', help="default precision (default 'fixed<16,6>')")
    parser.add_argument('-r', '--reuse-factor', type=int, default=1, help='default reuse factor (default 1)')
    parser.add_argument('--input-shape', type=int, nargs='+', help='PyTorch: one sample shape, e.g. 3 32 32')
    parser.add_argument('--allow-pickle', action='store_true', help=PICKLE_HELP)
    parser.set_defaults(handler=command_config)


def _model_parsers(commands: Any) -> None:
    convert = _subcommand(
        commands, 'convert', 'Convert the model a config names and write the HLS project.',
        'Runs convert_from_config(config).write(). The project\'s hls4ml_config.yml records the model\n'
        'file, so later commands can take the project folder instead of the config.',
    )  # fmt: skip
    _add_config(convert)
    convert.set_defaults(handler=command_convert)
    compile_ = _subcommand(
        commands, 'compile', 'Convert, write and compile the C-simulation library (g++).',
        'Runs ModelGraph.compile(); the library is cached by content hash (HLS4ML_CACHE_DIR).',
    )  # fmt: skip
    _add_config(compile_)
    compile_.set_defaults(handler=command_compile)
    predict = _subcommand(
        commands, 'predict', 'Run the bit-accurate C simulation on inputs from .npy files.',
        'Inputs: one -i .npy per model input, each (n_samples, *input shape) or (n_samples, size); or one\n'
        '.npz holding every input, named after the Input layers or arr_0, arr_1, ... (np.savez order).\n'
        'Outputs: flattened per sample as ModelGraph.predict returns them; an .npz for several outputs.',
    )  # fmt: skip
    _add_config(predict)
    predict.add_argument(
        '-i', '--input', action='append', required=True, help='input .npy (repeat per input), or one .npz of all'
    )
    predict.add_argument('-o', '--output', required=True, help='output .npy (or .npz: arr_0, arr_1, ...)')
    predict.add_argument('--trace', help="also write every layer's output to this .npz (ModelGraph.trace)")
    predict.set_defaults(handler=command_predict)
    estimate = _subcommand(
        commands, 'estimate', 'Estimate latency and resources analytically (no vendor tool).',
        'Prints ModelGraph.estimate(): latency in cycles and ns, II, DSP/LUT/FF/BRAM.',
    )  # fmt: skip
    _add_config(estimate)
    estimate.add_argument('--json', action='store_true', help='print the estimate as JSON (to_dict())')
    estimate.set_defaults(handler=command_estimate)


def _build_parser(commands: Any) -> None:
    build = _subcommand(
        commands,
        'build',
        'Run the vendor tool on the project (vitis_hls, catapult, or cmake + icpx).',
        'Only the steps given are passed to ModelGraph.build(); the others keep the backend defaults\n'
        '(Vitis/Vivado/Catapult: csim and synth on), each flag with a --no- form. Vitis, Vivado: --reset\n'
        '--csim --synth --cosim --validation --export --vsynth --fifo-opt. Catapult: --reset --csim --synth\n'
        '--cosim --validation --vhdl --verilog --vsynth --power --da. oneAPI: --build-type, --run.\n'
        'Without the vendor tool installed this fails with a message saying how to get it.',
    )
    _add_config(build)
    for name, text in BUILD_OPTIONS.items():
        build.add_argument(
            f'--{name.replace("_", "-")}', action=argparse.BooleanOptionalAction, default=None, help=text
        )
    build.add_argument(
        '--build-type', choices=('fpga_emu', 'fpga_sim', 'fpga', 'report', 'lib'), help='oneAPI make target'
    )
    build.set_defaults(handler=command_build)
    report = _subcommand(
        commands,
        'report',
        'Show the vendor reports of a built project.',
        "Vitis/Vivado: read_vivado_report (the tool's own text; --json: parse_vivado_report);\n"
        'oneAPI: print_oneapi_report (--json: parse_oneapi_report); Catapult: read_catapult_report\n'
        '(--json: parse_catapult_report).',
    )
    report.add_argument('-p', '--project', required=True, help='the project folder (holds hls4ml_config.yml)')
    report.add_argument('-f', '--full', action='store_true', help='the full reports, not the summaries')
    report.add_argument('--json', action='store_true', help='the parsed report dictionary as JSON')
    report.set_defaults(handler=command_report)


def make_parser() -> argparse.ArgumentParser:
    from hls4ml import __version__

    parser = argparse.ArgumentParser(
        prog='hls4ml',
        description='Neural networks to HLS projects, with bit-accurate C simulation (docs/cli.md).',
        epilog='`hls4ml <command> --help` explains each command.',
    )
    parser.add_argument('--version', action='version', version=f'hls4ml {__version__}')
    parser.add_argument('--debug', action='store_true', help='show the full traceback of an error')
    commands = parser.add_subparsers(dest='command', metavar='command', required=True)
    _config_parser(commands)
    _model_parsers(commands)
    _build_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
    args = make_parser().parse_args(argv)
    try:
        args.handler(args)
    except KeyboardInterrupt:
        print('hls4ml: interrupted', file=sys.stderr)
        return 130
    except Exception as error:  # every failure is one line, unless --debug
        if args.debug:
            raise
        message = str(error) if isinstance(error, CommandError) else f'{type(error).__name__}: {error}'
        print(f'hls4ml {args.command}: error: {message}', file=sys.stderr)
        return 1
    return 0
