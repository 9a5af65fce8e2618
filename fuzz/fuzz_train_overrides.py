"""atheris harness: `batchsim train`'s configuration, a preset, a --config JSON file and
KEY=VALUE overrides, through train.presets.make_config (issue 40, part C).

An input is the config file's bytes, then a line "---", then one override a line (bytes as
argv gives them: undecodable ones as surrogates). The preset is the first of PRESETS unless
the first line of the overrides names another. Only batchsim's errors
(batchsim.errors.Error: InvalidArgumentError, FormatError, ...) may escape, and a config that
make_config returns must pass its own checks again.

    PYTHONPATH=python python fuzz/fuzz_train_overrides.py -max_total_time=60 \
        fuzz/corpus/train_overrides
"""

from __future__ import annotations

import os
import sys
import tempfile

import atheris

TRAIN_CONFIG = ["batchsim.train.presets", "batchsim.train.fields", "batchsim.train.sim_parts"]
with atheris.instrument_imports(include=TRAIN_CONFIG):
    from batchsim.errors import Error
    from batchsim.train.fields import check_fields
    from batchsim.train.presets import PRESETS, make_config

SEPARATOR = b"\n---\n"
CONFIG_FILE = os.path.join(tempfile.mkdtemp(prefix="fuzz-train-"), "config.json")


def split_input(data: bytes) -> tuple[str, bytes, list[str]]:
    """(preset, config file bytes, overrides) of one input."""
    config, _, rest = data.partition(SEPARATOR)
    words = [os.fsdecode(line) for line in rest.split(b"\n") if line]
    preset = next(iter(PRESETS))
    if words and words[0].startswith("preset:"):
        preset = words.pop(0).removeprefix("preset:")
    return preset, config, words


def test_one_input(data: bytes) -> None:
    preset, config, overrides = split_input(data)
    with open(CONFIG_FILE, "wb") as f:
        f.write(config)
    try:
        made = make_config(preset, CONFIG_FILE if config else None, overrides)
    except Error:
        return  # a typed refusal naming the file or override and the field
    check_fields(made)
    made.validate()


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
