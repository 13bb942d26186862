"""Bad input names the exact field, in Python as on the command line (round 2 of
tests/test_error_fields_rules.py).

1. An unknown key is named by its own TOML path (``training.lrate``, ``pathways[0].hiden``), not its
   table's; a bad gate or row index by its entry (``pathways[0].active[1]``), not the list's. The fix
   text ("did you mean …") is kept.
"""
from __future__ import annotations

import pytest

from theorykit.cli import main
from theorykit.errors import SpecError
from theorykit.spec.files import spec_from_dict

SPEC = '''name = "t"
[data]
inputs = [[1, -1, 1, -1], [1, -1, -1, 1], [1, 1, -1, -1]]
targets = [[1, 1, -1, -1]]
[[pathways]]
name = "a"
active = [1, 1, 0, 0]
hidden = 4
[[pathways]]
name = "b"
active = [0, 0, 1, 1]
hidden = 4
[training]
lr = 0.05
steps = 10
'''


def _edit(old, new, text=SPEC):
    assert old in text, old
    return text.replace(old, new, 1)


def _cli_error(tmp_path, monkeypatch, capsys, text):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(text)
    assert main(["derive", "s.toml", "--json", "out.json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert not (tmp_path / "out.json").exists()
    return err.strip()


# ------------------------------------------------------------------------------------------------
# 1. the key, the entry
# ------------------------------------------------------------------------------------------------
KEY_CASES = [
    # (case, edit of SPEC, the line's start, what it still says)
    ("training-key", ("lr = 0.05", "lrate = 0.1"), "theorykit: error in training.lrate: unknown keys ['lrate']",
     "(fix: use only ['lr', 'loss', 'a0', 'init_std', 'steps'])"),
    ("pathway-key", ("hidden = 4\n[[", "hiden = 4\n[["), "theorykit: error in pathways[0].hiden: unknown keys",
     "did you mean 'hidden' for 'hiden'?"),
    ("second-pathway-key", ("hidden = 4\n[training]", "hidden = 4\ndeph = 2\n[training]"),
     "theorykit: error in pathways[1].deph: unknown keys ['deph']", "did you mean 'depth' for 'deph'?"),
    ("data-key", ("targets =", "target ="), "theorykit: error in data.target: unknown keys ['target']",
     "did you mean 'targets' for 'target'?"),
    ("top-level-table", ("[training]", "[trainig]"), "theorykit: error in trainig: unknown keys ['trainig'] at the top",
     "did you mean 'training' for 'trainig'?"),
    ("quoted-key", ("lr = 0.05", '"l r" = 0.05'), 'theorykit: error in training."l r": unknown keys [\'l r\']',
     "use only"),
    ("gate-entry", ("active = [1, 1, 0, 0]", "active = [1, 2, 0, 0]"),
     "theorykit: error in pathways[0].active[1]: gate 2 (datapoint 1) is not 0 or 1", "(fix: gates are binary"),
    ("index-entry", ('name = "b"\n', 'name = "b"\noutputs = [0, 3]\n'),
     "theorykit: error in pathways[1].outputs[1]: 3 is not an output row index in 0..0", "(fix: use integers below 1)"),
]


@pytest.mark.parametrize("case, edit, start, says", KEY_CASES, ids=[c[0] for c in KEY_CASES])
def test_an_unknown_key_or_a_bad_entry_is_named_by_its_own_path(tmp_path, monkeypatch, capsys, case, edit, start,
                                                                 says):
    line = _cli_error(tmp_path, monkeypatch, capsys, _edit(*edit))
    assert line.startswith(start), line
    assert says in line, line


def test_the_first_of_several_unknown_keys_is_named_and_all_are_listed():
    data = {"data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, 1]]},
            "pathways": [{"name": "p", "active": "all"}], "training": {"zeta": 1, "lrr": 0.1}}
    with pytest.raises(SpecError) as e:
        spec_from_dict(data)
    assert e.value.field == "training.zeta"           # the first in the file, not the table
    assert e.value.problem == "unknown keys ['lrr', 'zeta']"
    assert e.value.fix == "did you mean 'lr' for 'lrr'? Otherwise use only ['lr', 'loss', 'a0', 'init_std', 'steps']"
