"""The command line's parser: every command, option and help text, and nothing heavier than argparse,
so that ``theorykit --help`` and ``theorykit COMMAND --help`` answer at once. Each command runs in
its own module of :mod:`theorykit.cli` (``set_defaults(module=...)``), imported only when it runs."""
from __future__ import annotations

import argparse
import os
import re

from ..errors import nearest
from ..spec.ranges import (LR_WHAT, MAX_SEED, MAX_STEPS, TIME_LIMIT_WHAT, max_family_contexts,    # no SymPy: the one
                           time_limit_fix)                                                       # statement of these ranges
from ..suites import SUITES
from .options import (MAX_SEEDS, Number, Refused, WholeNumber, _Renamed, _number_option, _whole, _whole_option,
                      check_numbers, commands)

EPILOG = """examples:
  theorykit check examples/xor_linear.toml
  theorykit derive examples/xor_linear.toml --set Delta=0.5 --times 0,100,1000 --json out.json --latex out.tex
  theorykit simulate examples/xor_linear.toml --set Delta=0.5 --init aligned --seeds 4 --steps 2000 --json sim.json
  theorykit validate xor --quick --out results/
  theorykit validate all --quick --out results/
  theorykit find-gates contexts --K 4 --seeds 2 --out found.toml
  python examples/own_network/train_digits.py --out run/
  theorykit find-gates --checkpoints 'run/step_*.safetensors' --data run/data.npz --out found.toml
  theorykit compare found.toml --checkpoints 'run/step_*.safetensors' --data run/data.npz --out cmp/
  theorykit bench --quick
  theorykit race-exhaust --k 3 --out results/
  theorykit sweep examples/xor_linear.toml --grid Delta=0:2:21 --grid lr=0.01,0.05 --seeds 4 --steps 2000 --out sweep/
  theorykit predict examples/predict/xor_data.toml --hidden 128 --set Delta=0.5 --out pred.toml
  theorykit rerun sim.json

exit status: 0 done; 1 a validation suite failed (validate: the other suites still ran; its error
  is on stderr and, for 'all', in the report), or a rerun's numbers differ (rerun); 2 a bad input or a refused run (the message names
  the field and the fix); 70 a bug in theorykit (--debug shows where); 130 interrupted (Ctrl-C);
  143 terminated (SIGTERM: kill, scancel, a job's time limit; cleaned up as for Ctrl-C);
  141 stdout closed by its reader before the output ended (| head): the rest of the text is
  dropped without a message, and the command still runs to its end and writes its files
"""

#: each command's own examples, the end of its --help, run as written from the checkout's root (the
#: paths examples/... are its files; run/ is made by the training script of docs/own_network.md)
_OWN_RUN = "python examples/own_network/train_digits.py --out run/"
EXAMPLES = {
    "check": ["theorykit check examples/xor_linear.toml --set Delta=0.5"],
    "derive": ["theorykit derive examples/xor_linear.toml --set Delta=0.5 --times 0,100,1000 --json out.json "
               "--latex out.tex"],
    "simulate": ["theorykit simulate examples/xor_linear.toml --set Delta=0.5 --seeds 4 --steps 2000 --compare "
                 "--json sim.json --plot sim.png"],
    "validate": ["theorykit validate xor --quick --out results/"],
    "find-gates": ["theorykit find-gates xor-margin --set Delta=1 --out found.toml", _OWN_RUN,
                   "theorykit find-gates --checkpoints 'run/step_*.safetensors' --data run/data.npz --out found.toml"],
    "race-exhaust": ["theorykit race-exhaust --k 3 --out results/"],
    "sweep": ["theorykit sweep examples/xor_linear.toml --grid Delta=0:2:21 --grid lr=0.01,0.05 --seeds 4 "
              "--steps 2000 --out sweep/"],
    "compare": [_OWN_RUN, "theorykit find-gates --checkpoints 'run/step_*.safetensors' --data run/data.npz --out found.toml",
                "theorykit compare found.toml --checkpoints 'run/step_*.safetensors' --data run/data.npz --out cmp/"],
    "predict": ["theorykit predict examples/predict/xor_data.toml --hidden 128 --set Delta=0.5 --out pred.toml"],
    "rerun": ["theorykit simulate examples/xor_linear.toml --set Delta=0.5 --steps 2000 --json sim.json",
              "theorykit rerun sim.json"],
    "bench": ["theorykit bench --quick"],
}


class _KeepExamples(argparse.HelpFormatter):
    """argparse's formatter, but the examples (the epilog) are left one command a line, as written."""

    def _fill_text(self, text, width, indent):
        if text.startswith("example"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def _add_examples(parser) -> None:
    """End each command's --help with its :data:`EXAMPLES`."""
    for name, sp_ in commands(parser).items():
        lines = EXAMPLES[name]
        sp_.epilog = ("examples:\n" if len(lines) > 1 else "example:\n") + "\n".join("  " + ln for ln in lines)
        if sp_.formatter_class is argparse.HelpFormatter:
            sp_.formatter_class = _KeepExamples


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("theorykit")
    except PackageNotFoundError:    # a checkout on sys.path that is not installed
        return "(not installed)"


class _Parser(argparse.ArgumentParser):
    """argparse's parser, reading every word that starts with ``-`` and a digit (or ``-.`` and a digit)
    as a value, not an option: ``--rtol -1e-12``, ``--times -1,5``. Python 3.11-3.13 take only ``-1``
    and ``-1.5`` so (argparse docs, "Arguments containing -"), and would answer "expected one argument";
    this is Python 3.14's rule, the same on every version. The value then reaches theorykit's own check,
    which names the option and its range. No option of theorykit looks like a negative number, so no
    option is mistaken for a value. Sub-commands' parsers are of this class too (``add_subparsers``
    makes them of ``type(self)``). ``-inf`` and ``-nan`` (any case) are values too, read by float() as every
    other spelling: ``--lr -inf`` reaches the check that refuses a number that is not finite, naming --lr
    (argparse took it for an option and answered "expected one argument", with a fix to give a value)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"-\.?\d|-(inf|nan)", re.IGNORECASE)
        self.register("type", int, _whole)       # a type=int option: any whole number (see WholeNumber)

    def error(self, message):
        """argparse's error, with the fix where argparse gives none: an option left without its value
        (``--seeds`` last on the line: "expected one argument") gets an example of one."""
        missing = re.fullmatch(r"argument (--[\w-]+): expected one argument", message)
        action = self._option_string_actions.get(missing.group(1)) if missing else None
        if action is not None:
            option, example = action.option_strings[0], getattr(action.type, "example", None)
            if example is not None:
                message += f" (fix: give it a value, e.g. {option} {example})"
            elif action.choices:
                message += f" (fix: give it one of {', '.join(map(str, action.choices))}, e.g. {option} " \
                           f"{next(iter(action.choices))})"
            else:
                message += f" (fix: give it a value: {option} {action.metavar or action.dest.upper()})"
        # two options that exclude each other (`validate --quick --full`)
        clash = re.fullmatch(r"argument (\S+): not allowed with argument (\S+)", message)
        if clash:
            message += f" (fix: give {clash.group(2)} or {clash.group(1)}, not both)"
        # a required argument left out (`theorykit validate xor`: no --out): the command's example its fix
        required = re.fullmatch(r"the following arguments are required: (.+)", message)
        name = self.prog.split()[-1]
        example = next((ln for ln in EXAMPLES.get(name, ()) if ln.startswith(f"theorykit {name} ")), None)
        if required and example:
            message += f" (fix: give {'them' if ',' in required.group(1) else 'it'}, as in: {example})"
        super().error(message)

    def _check_value(self, action, value):
        """argparse's check of a choice (``--network relux``, a misspelt command), the nearest choice its fix."""
        try:
            return super()._check_value(action, value)
        except argparse.ArgumentError as exc:       # the one rule of every "did you mean …?" (theorykit.errors.nearest)
            near = nearest(value, action.choices)
            raise argparse.ArgumentError(action, exc.message + (f" (fix: did you mean {near!r}?)" if near else "")) from None


#: the names other modules take from here; the number readers among them live in :mod:`.options`
__all__ = ["build_parser", "markdown", "commands", "check_numbers", "WholeNumber", "Number", "Refused", "MAX_SEEDS",
           "MAX_SEED", "MAX_STEPS", "EPILOG", "REGENERATE", "RERUN_DESCRIPTION", "PREDICT_DESCRIPTION", "add_run_arguments"]


class _Once(argparse.Action):
    """An input given twice is refused, not overridden: ``--checkpoints 'a/*' --checkpoints 'b/*'``
    reads as two sets of files, and argparse would silently keep the second."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"{option_string} given twice ({getattr(namespace, self.dest)!r}, then {values!r}): give it once, with one glob that matches every file of the run")
        setattr(namespace, self.dest, values)


def add_run_arguments(parser, required: bool = False):
    """The options that name an imported run (shared by find-gates and compare)."""
    parser.add_argument("--checkpoints", required=required, metavar="GLOB", action=_Once,
                        help="weight checkpoints of a bias-free ReLU network (.safetensors or .npz), e.g. "
                             "'run/step_*.safetensors' (quote the glob); step numbers from the file names")
    parser.add_argument("--data", required=required, metavar="DATA.npz", help="the run's data: X (d x P) and Y (p x P), datapoints as columns")
    parser.add_argument("--layers", metavar="W1=KEY,W2=KEY", help="the checkpoint keys of the layers (default W1, W2, ...), e.g. W1=fc1.weight,W2=fc2.weight")
    parser.add_argument("--ignore-bias", action="store_true", help="drop bias arrays instead of refusing them (the theory is of bias-free networks)")
    parser.add_argument("--loss", choices=["mean", "sum"],
                        help="the run's loss: mean = 1/(2P) sum ||y^-y||^2, sum = 1/2 sum ||y^-y||^2 "
                             "(default: the checkpoints' metadata, else mean)")


#: the options several commands take in the same words, each written once here (:func:`_shared` adds them)
_SHARED = {
    "spec": dict(help="spec file (TOML); see docs/specs.md"),
    "--set": dict(action="append", metavar="NAME=VALUE", help="give a symbol a value (repeatable)"),
    "--steps": dict(lo=1, hi=MAX_STEPS, example=2000, help="gradient steps (default: training.steps of the spec)"),
    "--dtype": dict(choices=["float64", "float32"], default="float64",
                    help="simulation precision (default float64; float32 products run at \"highest\" precision)"),
    "--json": dict(metavar="OUT", help="write the full JSON document here (atomically); '-': to stdout (the default "
                                       "on a pipe; a terminal gets a short summary)"),
    "--out": dict(required=True, metavar="DIR", help="output folder"),
}


def _shared(sp_, *names: str) -> None:
    """Add the options ``names`` of :data:`_SHARED`, in that order (one with a range, ``lo``, a whole number)."""
    for name in names:
        if "lo" in _SHARED[name]:
            _whole_option(sp_, name, **_SHARED[name])
        else:
            sp_.add_argument(name, **_SHARED[name])


def _common(sp_, module: str, limits: bool = True, progress: str | None = None) -> None:
    """The options a command ends with: ``--no-progress`` where it shows ``progress`` (a bar or lines),
    ``--debug``, and with ``limits`` the size check's ``--force`` and ``--time-limit``; and the module
    of :mod:`theorykit.cli` that runs the command."""
    if progress:
        sp_.add_argument("--no-progress", action="store_true", help=f"no progress {progress} on stderr")
    sp_.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                     help="show the Python traceback of an error")
    if limits:
        sp_.add_argument("--force", action="store_true",
                         help="run even when the estimated time is over --time-limit (never the memory limit)")
        _number_option(sp_, "--time-limit", what=TIME_LIMIT_WHAT, example="600", fix=time_limit_fix("600"), metavar="SECONDS",
                         help="refuse to start a run whose estimated time is over this many seconds (default 3600, "
                              "or the environment variable THEORYKIT_MAX_SECONDS; 0 or inf: no limit; --force runs "
                              "it anyway)")
    sp_.set_defaults(module=module)


PREDICT_DESCRIPTION = """Predict, from the data alone, the gated deep linear network (ReLN) a bias-free ReLU network of
width H learns by full-batch gradient descent from small random weights.

1. Enumerate the gate patterns one bias-free ReLU unit can realise on the data: exactly (LP
   feasibility, depth-first) for up to 16 datapoints and at most --max-patterns patterns, else by a
   seeded search (--samples random N(0, I) weight vectors, --seed). Keep the patterns whose units
   keep them while learning (Definition 3.1's consistency, one LP each).
2. Group them into orbits of the data's symmetry (datapoint permutations preserving X'X and Y'Y,
   found by backtracking and verified exactly).
3. Race families (unions of orbits) with the race reduction and rank them by the area of L(t)/L(0):
   exhaustively where the family count allows, else beam/forward search by area.
4. Share the H units equally among the winning family's pathways; a0 of each = a0_rule(init_std, H_p).

Writes the predicted ReLN as a spec (atomically), prints its pathways and gates, the half-way time of
the predicted loss and the runner-up families with their areas."""


RERUN_DESCRIPTION = """Rerun a result from its provenance record and compare the numbers, as a referee would by hand
(docs/reproducibility.md).

The recorded command is split as shell words (never evaluated) and run again in this process, from
the folder you are in (run it where the command ran: its paths are relative to it), with
- the spec as the result recorded it (spec_toml) in a temporary file, in place of the spec path;
- every output option (--json, --out, --plot, --latex, --html) pointed into a temporary folder.
Each other input file the command reads (--init-weights, --data, a spec not recorded as text) must
be listed in provenance.inputs under the same path, with its recorded SHA-256 (checkpoint globs are
not hashed). Only derive, simulate, predict, find-gates, compare, race-exhaust and sweep are rerun;
an option the command does not have is refused. --force and --time-limit are passed on to the
command (after its recorded options, so they win): a command over its time limit here, e.g. a
race-exhaust --k 4 recorded with a larger THEORYKIT_MAX_SECONDS, reruns with --force.

Before it runs, says how long the recorded command took where the record holds it
(provenance.elapsed_seconds). Every number of the new result is compared with the old (timing
fields, a sweep's chunks_computed, a prediction's count of shapes left to compile and the provenance
record left out): bit for bit, or to --rtol; -0.0 equals 0.0, a NaN a
NaN in the same place. Prints one verdict: identical, agree to --rtol, or differ: how many numbers
(of how many) and other fields differ, the largest relative difference, and the first 5
differences with their recorded and rerun values. Warns, naming them, where the recorded versions
differ from those running now.

exit status: 0 the numbers agree; 1 they differ; 2 a bad result file or a command that cannot be
  rerun (the message names the field, e.g. provenance.command), or the rerun stopped on an error
  (above it); 70 a bug in theorykit; 130 interrupted (Ctrl-C); 143 terminated (SIGTERM)"""


def _add_predict(subparsers):
    p = subparsers.add_parser("predict", help="predict the ReLN a ReLU network will learn, from data alone",
                              description=PREDICT_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", help="TOML with [data] (and [symbols]) and [training]; pathways not needed")
    _whole_option(p, "--hidden", lo=1, example=128, required=True, metavar="H", help="hidden width of the ReLU network")
    p.add_argument("--out", required=True, metavar="PRED.toml", help="write the predicted ReLN spec here (atomic)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="give a symbol of the data a value (repeatable)")
    p.add_argument("--search", choices=["auto", "exhaustive", "forward", "beam"], default="auto",
                   help="family search (default auto: exhaustive when at most --max-families families)")
    _whole_option(p, "--beam", lo=1, default=3, help="beam width of --search beam (default 3)")
    _whole_option(p, "--shortlist", lo=1, default=8, help="orbits tried per family and round (default 8)")
    _whole_option(p, "--max-families", lo=1, default=1023, help="most families searched exhaustively (default 1023)")
    _whole_option(p, "--max-patterns", lo=1, default=4096, help="most gate patterns enumerated exactly (default 4096)")
    _whole_option(p, "--max-orbit-size", lo=1, default=32, help="orbits with more patterns are left out (default 32)")
    p.add_argument("--enumerate", choices=["auto", "exact", "sample"], default="auto", dest="enum_method",
                   help="pattern enumeration (default auto: exact for up to 16 datapoints and "
                        "--max-patterns patterns, else sampled)")
    _whole_option(p, "--samples", lo=1, default=20000, help="weight vectors of the sampled enumeration and of --share mass (default 20000)")
    p.add_argument("--share", choices=["equal", "mass"], default="equal",
                   help="width rule: H shared equally among a family's pathways (default), or in proportion to each "
                        "pattern's Gaussian mass (the share of --samples N(0, I) weight vectors, --seed, that start in it)")
    _number_option(p, "--race-dt", what="a positive number", example="10", default=10, help="the race that ranks the families "
                   "takes RK4 steps of tau/(RACE_DT s_max), tau the time constant in gradient steps, s_max the largest singular "
                   "value of a candidate pattern's Syx, at least 1 (default 10); data whose input covariance Sx does not commute with "
                   "Syx race faster and need a larger one: a smaller one than the race needs is refused naming the smallest "
                   "accepted value (docs/predict.md)")
    p.add_argument("--consistency", choices=["top", "any-output", "off"], default="top",
                   help="pattern consistency test: top input mode (default), any output direction, or none")
    _whole_option(p, "--seed", lo=0, hi=MAX_SEED, example=1, default=0, help="seed of the sampled enumeration and --share mass (and of --validate): 0 to 2**32 - 1 (default 0)")
    _whole_option(p, "--steps", lo=1, hi=MAX_STEPS, example=2000, help="training steps the prediction covers: the race horizon, the --validate runs and the written spec's steps (default: training.steps)")
    limit = _number_option(p, "--time-limit", what=TIME_LIMIT_WHAT, example="60", fix=time_limit_fix("60"), default=60.0,
                           metavar="SECONDS", help="refuse to start a run whose estimated time is over this many "
                           "seconds, as the other commands' --time-limit, and, unlike theirs, check again during the "
                           "run: stop with an error wherever a stage would run past it; it bounds the task's build, the search "
                           "and --validate's training (default 60, not 3600 nor THEORYKIT_MAX_SECONDS; 0 or inf: no "
                           "limit; no --force). Formerly --time-bound, still accepted")
    p.add_argument("--time-bound", dest=limit.dest, type=limit.type, metavar="SECONDS", default=argparse.SUPPRESS,
                   help=argparse.SUPPRESS, action=_Renamed).new = "--time-limit"      # its former name
    p.add_argument("--validate", action="store_true", help="train the ReLU network, run Algorithm 1, compare")
    # no default here: --seeds without --validate is refused (it trained nothing); 8 is filled in by predict.run
    _whole_option(p, "--seeds", lo=1, hi=MAX_SEEDS, example=8, help="ReLU networks trained by --validate (default 8)")
    p.add_argument("--json", metavar="OUT", help="write the prediction (and validation) as JSON (atomic)")
    p.add_argument("--html", metavar="DIR", help="with --validate: write the validation page and figures here")
    _common(p, "predict", limits=False, progress="bar")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="theorykit",
        description="Learning dynamics of ReLU networks through gated deep linear networks (GDLNs): derive "
                    "effective datasets, exact SVDs and closed-form mode trajectories from a spec, simulate "
                    "the networks in JAX, and run the paper's validation suites ('Make Haste Slowly', ICLR 2025).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--distributed", action="store_true",
                   help="join a multi-host run first (jax.distributed.initialize(): on SLURM it reads the job's "
                        "variables; elsewhere set JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES, JAX_PROCESS_ID). "
                        "Simulations then shard their ensemble over every device of every host")
    p.add_argument("--debug", action="store_true", help="show the Python traceback of an error")
    p.add_argument("--version", action="version", version=f"theorykit {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def _spec_options(sp_, times_help: str) -> None:
        _shared(sp_, "spec", "--set")
        sp_.add_argument("--times", help=times_help)

    def _run_size_options(sp_, simulate: bool = True) -> None:
        """The options that size a simulation (``check`` estimates with them, ``simulate`` runs with them)."""
        sp_.add_argument("--network", choices=["gdln", "relu"], default="gdln",
                         help="the spec's GDLN (default), or a bias-free ReLU network of the same total width "
                              "(random init)")
        _whole_option(sp_, "--seeds", lo=1, hi=MAX_SEEDS, example=4, help="independent networks trained at once (default 4" + (
            "; with --init-weights, the file's number of seeds)" if simulate else ")"))
        _shared(sp_, "--steps", "--dtype")

    c = sub.add_parser("check", help="validate a spec without deriving it; print its size and estimated costs",
                       description="Check every field of a spec and print a summary: task size, pathways, symbols, "
                                   "and the estimated memory and time of the derivation and of a simulation "
                                   "(with --steps/--seeds/--network as simulate would run it). Exit 2 when bad.")
    _spec_options(c, "times (gradient steps) a derivation would predict: with them, the derivation's estimate "
                     "covers its loss curve up to the last, as derive would integrate it (default: none)")
    _run_size_options(c, simulate=False)
    _common(c, "check")

    d = sub.add_parser("derive", help="derive modes, trajectories and the loss of a spec (JSON, LaTeX)", description="Derive each "
                       "pathway's effective dataset, exact SVD and the loss trajectory. Writes JSON (stdout or --json) and optionally a LaTeX document.")
    _spec_options(d, "comma-separated times in gradient steps at which to predict the loss, from 0 to 1e12; "
                     "sorted, each once (a note says so when they were not) (default: 11 times from 0 to the spec's "
                     "training.steps)")
    _shared(d, "--json")
    d.add_argument("--plot", metavar="OUT.png", help="draw the predicted loss and mode strengths a(t) (.png; .pdf or .svg by the name's ending)")
    d.add_argument("--latex", metavar="OUT.tex", help="write a standalone LaTeX document of the derivation")
    d.add_argument("--method", choices=["auto", "closed-form", "race-reduction"], default="auto",
                   help="closed form where it applies (auto, the default), prefer it (a warning when it does not apply, then the race "
                        "reduction), or integrate the race reduction")
    d.add_argument("--crossings", metavar="SYMBOL", help="also locate, exactly, the values of SYMBOL where two modes' "
                   "singular values cross (where the order of learning changes), in SYMBOL's declared domain (positive: > 0, "
                   "nonnegative: >= 0, negative: < 0, nonpositive: <= 0, else all reals); other symbols need --set")
    d.add_argument("--against", metavar="SPEC", action="append", help="with --crossings: the crossings with the modes of "
                   "SPEC too (repeatable; modes labelled SPEC-NAME:PATHWAY; --set gives its symbols values too), e.g. Delta* of "
                   "xor_linear.toml --against xor_reln.toml")
    _common(d, "derive")

    s = sub.add_parser("simulate", help="simulate the spec's GDLN (or a ReLU network) with gradient descent (JAX, "
                                        "vmapped over seeds)",
                       description="Full-batch gradient descent on the GDLN the spec defines or, with --network relu, "
                                   "on a bias-free ReLU network of the same total width; float64 by default. Prints "
                                   "the loss at --times, mean ± std over the seeds (a table on a terminal, the JSON on "
                                   "a pipe); --json writes the JSON to a file, --plot a figure.")
    _spec_options(s, "comma-separated steps at which to report the loss, whole numbers from 0 to --steps; "
                     "sorted, each once (a note says so when they were not) (default: 11 steps from 0 to --steps)")
    s.add_argument("--init", choices=["aligned", "random"],
                   help="aligned: exact aligned balanced weights of strength a0 (the default for the GDLN); random: "
                        "N(0, init_std^2) (the only start of --network relu)")
    s.add_argument("--init-weights", metavar="W.npz",
                   help="start from these weights: an .npz keyed by edge, '<from>-><to>' (to_width x from_width, "
                        "rows read/written for input/output edges), or W1, W2, ... for --network relu; an optional "
                        "leading seed axis")
    _run_size_options(s)
    _whole_option(s, "--seed", lo=0, hi=MAX_SEED, example=1,
                   help="random seed of the start, split into --seeds networks: 0 to 2**32 - 1 (default 0); a "
                        "random start (--init random, --network relu) is drawn from it, an aligned one only rotated "
                        "(its loss is the same); not with --init-weights")
    s.add_argument("--fused", action="store_true",
                   help="step with the fused multi-step kernel (Pallas; fast on a GPU, interpreted and slow on a "
                        "CPU): depth-2 networks without a schedule, loss curve only (not with --plot)")
    s.add_argument("--compare", action="store_true",
                   help="also report the theory and the largest error: the gradient flow, which gradient descent "
                        "is O(lr) off; from the aligned start of a closed-form spec also the discrete recurrence, "
                        "which it follows to rounding")
    _shared(s, "--json")
    s.add_argument("--plot", metavar="OUT.png", help="draw loss and mode strengths (.png; .pdf or .svg by the name's "
                                                     "ending): theory as lines, simulation "
                                                     "as mean ± spread over seeds")
    _common(s, "simulate", progress="bar (the steps; not with --fused)")

    v = sub.add_parser("validate", help=f"run a validation suite: {', '.join(SUITES)}, or all",
                       description="Reproduce the paper's results: symbolic predictions beside simulated networks. "
                                   "Writes <suite>.json and PNG figures into --out; 'all' also writes results.json "
                                   "and the report, report.md and report.html (paper claim, our figure, agreement, "
                                   "verdict). Suites already run at this mode and code are skipped (--force).")
    v.add_argument("suite", help=" | ".join([*SUITES, "all"]))     # the suites of theorykit.suites
    g = v.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="CPU-sized run (default)")
    g.add_argument("--full", action="store_true", help="paper-sized run, meant for a GPU")
    _shared(v, "--out")
    v.add_argument("--force", action="store_true", help="re-run parts already cached; with --quick, also replace "
                                                        "full results in --out (refused without it)")
    _common(v, "validate", limits=False, progress="lines")

    f = sub.add_parser("find-gates", help="find a GDLN's gates from trained ReLU networks (Algorithm 1) and write a spec",
                       description="Train ReLU networks on a task, record binary hidden activity every 100 steps, "
                                   "k-means the units and write a spec with one pathway per gate pattern. K by the "
                                   "elbow of the ReLU-vs-GDLN output MSE over K = 1..--max-K unless --K is given.")
    f.add_argument("source", nargs="?", help="a spec file (TOML; its task and training are used) or a built-in task: "
                                  "'contexts' (the Section 4 task) or 'xor-margin' (with --set Delta=...); "
                                  "or leave out and give --checkpoints and --data (your own run)")
    f.add_argument("--out", required=True, metavar="FOUND.toml", help="where to write the found spec")
    _shared(f, "--set")
    _whole_option(f, "--K", lo=1, example=4, help="number of clusters (default: elbow)")
    _whole_option(f, "--max-K", lo=1, default=8, help="largest K tried for the elbow (default 8)")
    _whole_option(f, "--seeds", lo=1, hi=MAX_SEEDS, default=4, help="ReLU trainings (default 4)")
    f.add_argument("--steps", help="gradient steps (default: the spec's; contexts 8001, xor-margin 2000); with --checkpoints, "
                                   "the checkpoints' steps (0,100,...) when the file names have none")
    _whole_option(f, "--hidden", lo=1, example=128, help="ReLU hidden width (default: the spec's total width; contexts 700, xor-margin 128)")
    _number_option(f, "--lr", what=LR_WHAT, example="0.05", help=f"learning rate, {LR_WHAT} (default: the spec's; contexts 0.001 on the summed "
                                             "loss, xor-margin 0.05 on the mean; with --checkpoints: the checkpoints' metadata)")
    _whole_option(f, "--seed", lo=0, hi=MAX_SEED, example=1, default=0, help="random seed of initial weights and k-means: 0 to 2**32 - 1 "
                                                        "(default 0)")
    f.add_argument("--name", help="name of the written spec, at most 64 printable characters (default: found-<the "
                                   "spec's file name or the task>, or found-<the checkpoints' folder>)")
    add_run_arguments(f)
    _common(f, "find_gates", progress="bar")

    r = sub.add_parser("race-exhaust", help="rank every context-gated family of the k-context task (race by exhaustion)",
                       description="Integrate the coupled race of every family Lemma 4.1 allows on contexts(8, k) "
                                   "(hierarchy in every context), one representative per orbit of the task's "
                                   "symmetry (found and verified), and rank them. Writes exhaust.json and race_k<k>.png.")
    top = max_family_contexts()     # 4: the largest k whose families are within MAX_FAMILIES (spec.limits)
    _whole_option(r, "--k", lo=2, hi=top, example=min(3, top), default=min(4, top),     # 4: the paper's Section 5
                  help=f"contexts, 2 to {top} (default 4: 32 767 families, 2 h on a "
                  "2-core CPU, estimated over the default --time-limit: add --force, or 32 s on an H100; 3: 127 "
                  "families, seconds). The race's time is estimated, and said, before it starts")
    r.add_argument("--out", default=".", metavar="DIR", help="output folder (default: ., the folder you are in)")
    _whole_option(r, "--batch", lo=1, default=256, help="families integrated at once: more is faster and takes "
                   "more memory (default 256)")
    _number_option(r, "--gamma", what="a number from 1e-6 to 1e6", example="1.1", help="context scale (default: the paper's Section 5 value, 1.1 at k = 4)")
    _number_option(r, "--a0", what="a positive number up to 100", example="5.1e-9", help="initial strength (default: 5.1e-9, the a0 rule for a context "
                   "pathway of the quick contexts suite's GDLN; the full suite's is twice that)")
    _number_option(r, "--race-dt", what="a positive number", example="10", default=10, help="RK4 step tau/RACE_DT, tau the time constant in "
                   "gradient steps (1/lr for the mean loss, 1/(P lr) for the summed, P datapoints; docs/theory.md) "
                   "(default 10; the contexts suite races at tau/2 in --quick, tau/40 in --full); at least 4 s_max/2.785 "
                   "(1.91 at --k 2), s_max the race's largest singular value, for RK4 to be stable at its fastest rate "
                   "2 s_max/tau with a margin of 2: a smaller one is refused")
    _whole_option(r, "--steps", lo=1, hi=MAX_STEPS, default=8000, help="gradient steps raced (default 8000, the paper's)")
    r.add_argument("--no-symmetry", action="store_true", help="integrate every family, not one per orbit")
    _common(r, "race_exhaust", progress="lines")       # --time-limit, --force: the race's estimate, said before it

    w = sub.add_parser("sweep", help="train the spec's GDLN at every combination of symbol values, learning rates and seeds (resumable)",
                       description="Train the spec's GDLN by gradient descent, as simulate would, once for every "
                                   "combination of the --grid values (symbols of the data, and the learning rate lr) and "
                                   "of --seeds seeds. The runs are trained together, --chunk at a time; each finished "
                                   "chunk's loss curves are saved at once in DIR/chunks (DIR = --out), so a sweep stopped "
                                   "early continues where it stopped when run again. DIR/sweep.json: the declaration, "
                                   "and once every run is done each run's final loss and, per grid point, their mean "
                                   "and spread over the seeds.")
    _shared(w, "spec")
    w.add_argument("--grid", action="append", metavar="NAME=VALUES",
                   help="the values a symbol of the data, or the learning rate lr, takes: START:STOP:COUNT (COUNT "
                        "evenly spaced values) or v1,v2,..., each value once (repeatable; every combination is run)")
    _whole_option(w, "--seeds", lo=1, hi=MAX_SEEDS, default=4, help="runs per grid point, seeds 0 to SEEDS - 1 (default 4)")
    _shared(w, "--steps")
    w.add_argument("--out", required=True, metavar="DIR", help="output folder (resumes a sweep already there)")
    _whole_option(w, "--chunk", lo=1, default=64, help="runs trained together and saved as one file: more is faster "
                  "and takes more memory; a sweep continues only with the --chunk it began with (default 64)")
    w.add_argument("--init", choices=["aligned", "random"], default="aligned",
                   help="aligned (the default): exact aligned balanced weights of strength a0, the same loss for "
                        "every seed up to rounding; random: N(0, init_std^2), a spread over the seeds")
    _shared(w, "--dtype")
    _common(w, "sweep", progress="lines")

    c = sub.add_parser("compare", help="compare a found spec with your own training run (HTML page and PNGs)",
                       description="The run's loss at every checkpoint, the spec's GDLN trained from the run's first "
                                   "checkpoint (paired start) and the race-reduction prediction, each with its "
                                   "agreement as a share of L(0). Writes compare.html, loss.png, gates.png, "
                                   "compare.json into --out.")
    c.add_argument("spec", help="the spec find-gates wrote for this run")
    add_run_arguments(c, required=True)
    c.add_argument("--steps", help="the checkpoints' steps (0,100,...) when the file names have none")
    _number_option(c, "--lr", what=LR_WHAT, example="0.05", help=f"the run's learning rate, {LR_WHAT} (default: the checkpoints' metadata, "
                                                                       "else the spec's)")
    _shared(c, "--out")
    _common(c, "compare", limits=False, progress="bar (three stages: the GDLN, the race, the page)")

    _add_predict(sub)

    rr = sub.add_parser("rerun", help="run a result's recorded command again and compare the numbers (a referee's check)",
                        description=RERUN_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    rr.add_argument("result", metavar="RESULT", help="a result file: derive/simulate/predict --json, compare.json, "
                                                     "exhaust.json, or a spec that predict or find-gates wrote")
    rr.add_argument("--out", metavar="NEW", help="keep the rerun's result here (atomic; default: it is compared, "
                                                 "then removed with the temporary folder)")
    _number_option(rr, "--rtol", what="a number at least 0 and below 1", example="1e-12", default=0.0, metavar="R",
                    help="numbers agree within this relative difference |a - b| / max(|a|, |b|), from 0 to below 1 "
                         "(default 0: bit for bit)")
    _common(rr, "rerun", limits=True, progress="bar or lines of the command rerun")     # passed on to the command

    b = sub.add_parser("bench", help="benchmark derivation time, simulator throughput and REPL speed",
                       description="Time each paper result's derivation, then train the Section 4 ReLU network "
                                   "[11, 700, 60] as a vmapped ensemble in float64 and float32 and report "
                                   "network-steps/s, FLOP/s (XLA's cost analysis), the device's own measured "
                                   "matmul rate and the fraction of it reached, the bytes a compiled step moves "
                                   "against the device's measured stream rate, two baselines (one jitted step "
                                   "per call; one jitted lax.scan per network), the Section 6 GDLN and the race "
                                   "engine. Every figure is measured in this one run and names its device and "
                                   "precision; the ensemble is checked against the discrete gradient-descent "
                                   "recurrence. On a GPU it also times the fused kernel (simulate --fused), at "
                                   "[11, 700, 60] and at [11, 128, 60] beside the plain ensemble, and prints beside "
                                   "each H100 target the rate that a step reading and writing each weight once "
                                   "would allow. Prints the figures as tables; --json also writes them to a file.")
    b.add_argument("--quick", action="store_true", help="a CPU-sized run of a few minutes (2.5 to 5.5 min measured on a shared 2-core CPU; default: GPU sizes)")
    b.add_argument("--json", metavar="OUT", help="also write every figure to this JSON file (atomically, again after each "
                                                  "part: a run stopped early, Ctrl-C included, keeps what it measured, "
                                                  "with \"complete\": false)")
    b.add_argument("--repl", action="store_true",
                   help="only the REPL speed: start-up, derive with and without --times, and predict_loss cold and "
                        "warm on coupled 32 x 4 and 64 x 4 hierarchy tasks, examples/contexts_double.toml and the graph "
                        "examples/section6_paper.toml")
    b.add_argument("--baseline", metavar="DIR",
                   help="with --repl: also measure another checkout of theorykit (e.g. a git worktree of an earlier "
                        "commit) in the same sitting, and print old/new ratios")
    _common(b, "bench", limits=False, progress="lines (one as each part starts)")
    _add_examples(p)
    return p


#: the command that writes docs/cli.md
REGENERATE = "python -c 'from theorykit.cli.parser import markdown; print(markdown(), end=\"\")' > docs/cli.md"


def markdown() -> str:
    """The command-line reference page (docs/cli.md): every command's ``--help``, at a fixed width.
    :data:`REGENERATE` writes it; tests/test_docs.py checks that it holds every command and option."""
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        parser = build_parser()
        out = ["# Command-line reference", "",
               "Every command's `--help`, as `theorykit COMMAND --help` prints it. Generated by",
               f"`{REGENERATE}`; a test fails when a command or option is missing from it.", "",
               "```text", parser.format_help().rstrip(), "```", ""]
        for name, p in commands(parser).items():
            out += [f"## {name}", "", "```text", p.format_help().rstrip(), "```", ""]
        return "\n".join(out)
    finally:        # the caller's COLUMNS back, or none
        os.environ.pop("COLUMNS") if old is None else os.environ.update(COLUMNS=old)
