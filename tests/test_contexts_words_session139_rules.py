"""tk.contexts refuses in Python's words, a spec file's contexts task in the file's (session 139, helper h148).

From Python every refusal of ``tk.contexts`` names the keyword (``blocks``, ``blocks[2]``, ``context_scale``),
with a fix in Python's spelling (``context_scale=1.1``, not the file's ``context_scale = 1.1``); ``theorykit
check`` of a ``[data] task = "contexts"`` spec names ``data.…``. One mechanism does it: ``contexts`` raises in
the file's words and :func:`theorykit.errors.keyword_errors` puts them in Python's (``spec.files`` calls it
``as_command``). Before, ``tk.contexts(8, 3, blocks=["hierarchy"])`` said "data.blocks: 1 structures given for
k=3 contexts", ``context_scale=-1`` "data.context_scale: … (fix: e.g. context_scale = 1.1)", a structure
"data.common", and ``limits=3`` was an AttributeError.
"""
import inspect

import pytest

import theorykit as tk
from theorykit.cli import main
from theorykit.errors import SpecError, keyword_errors
from theorykit.spec.limits import Limits

# one bad value per keyword of tk.contexts: (keywords, the field Python names, the spec file's [data] lines or
# None where a spec file has no such field, the field the file names)
BAD = {
    "n": (dict(n=0), "n", "n = 0", "data.n"),
    "k": (dict(k=0), "k", "k = 0", "data.k"),
    "common": (dict(common="spiral"), "common", 'common = "spiral"', "data.common"),
    "blocks": (dict(blocks=["hierarchy"]), "blocks", 'blocks = ["hierarchy"]', "data.blocks"),
    "context_scale": (dict(context_scale=-1), "context_scale", "context_scale = -1", "data.context_scale"),
    "limits": (dict(limits=3), "limits", None, None),       # Python's alone (a spec file: THEORYKIT_MAX_BYTES)
}


def _python(**kw) -> SpecError:
    with pytest.raises(SpecError) as e:
        tk.contexts(**kw)
    return e.value


def _check(tmp_path, capsys, lines: str) -> str:
    spec = tmp_path / "c.toml"
    spec.write_text(f'[data]\ntask = "contexts"\nreln = "double"\n{lines}\n')
    capsys.readouterr()
    assert main(["check", str(spec)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in "), err
    return err


def test_every_keyword_of_contexts_is_tried():
    assert set(BAD) == set(inspect.signature(tk.contexts).parameters)


@pytest.mark.parametrize("key", sorted(BAD))
def test_a_bad_keyword_from_python_names_the_keyword(key):
    kw, field, _lines, _file_field = BAD[key]
    e = _python(**kw)
    assert e.field == field, str(e)
    assert "data." not in str(e), str(e)


@pytest.mark.parametrize("key", sorted(k for k in BAD if BAD[k][2] is not None))
def test_the_same_bad_value_in_a_spec_file_names_the_data_field(tmp_path, capsys, key):
    _kw, _field, lines, file_field = BAD[key]
    err = _check(tmp_path, capsys, lines)
    assert err.startswith(f"theorykit: error in {file_field}: "), err


def test_blocks_count_from_python_reads_in_pythons_words():
    e = _python(n=8, k=3, blocks=["hierarchy"])
    assert str(e).startswith("blocks: 1 structure given for k=3 contexts (fix: give one per context"), str(e)
    # a structure's refusal inside blocks: the keyword and its index; the spec file keeps data.blocks[2]
    e = _python(n=4, k=3, blocks=["hierarchy", "hierarchy", "ring"])     # ring is defined for n = 8 only
    assert e.field == "blocks[2]" and e.fix == "use n=8 or another structure", str(e)
    e = _python(n=6, common="hierarchy")                                  # 6 is no power of two
    assert e.field == "common" and e.fix == "use n=2, 4, 8, 16, …", str(e)
    e = _python(common=[["g", 1]])
    assert e.field == "common[0][0]", str(e)


def test_blocks_and_structures_in_a_spec_file_keep_the_files_words(tmp_path, capsys):
    err = _check(tmp_path, capsys, 'n = 4\nblocks = ["hierarchy", "hierarchy", "ring"]')
    assert err.startswith("theorykit: error in data.blocks[2]: ") and "use n = 8 or another structure" in err, err


@pytest.mark.parametrize("scale", [-1, 0, "-2"])
def test_context_scale_not_positive_from_python_gives_pythons_spelling(scale):
    e = _python(context_scale=scale)
    assert e.field == "context_scale" and e.problem.endswith("is not positive"), str(e)
    assert e.fix == "e.g. context_scale=1.1", str(e)


@pytest.mark.parametrize("scale", [None, float("nan"), [1], True, "1+"])
def test_context_scale_not_a_number_from_python_gives_a_python_example(scale):
    e = _python(context_scale=scale)
    assert e.field == "context_scale" and "context_scale=1.1" in e.fix, str(e)
    assert "declared symbols" not in e.fix and "write 0 or 1" not in e.fix, str(e)   # a spec file's words


def test_context_scale_in_a_spec_file_keeps_the_files_spelling(tmp_path, capsys):
    err = _check(tmp_path, capsys, "context_scale = -1")
    assert err.strip() == "theorykit: error in data.context_scale: -1 is not positive (fix: e.g. context_scale = 1.1)"


# the size guard: contexts(8, 3) is (11 + 60) × 24 exact entries (docs/theory.md#contexts), far over 10 bytes, and
# no n ≥ 1 brings it under them: the fix says to lower n and how to lift the limit, and nothing of seeds, steps or
# widths (there are none in building a task)
def test_the_size_guard_of_contexts_says_what_grows_the_task():
    e = _python(n=8, k=3, limits=Limits(max_bytes=10))
    assert e.field == "n" and e.fix.startswith("lower n (the task's exact entries grow with it); "), str(e)
    assert "seeds" not in e.fix and "limits=theorykit.spec.limits.Limits(max_bytes=" in e.fix, str(e)
    e = _python(n=2, k=40, limits=Limits(max_bytes=10))          # k > n: k drives it
    assert e.field == "k" and e.fix.startswith("lower k (the task's exact entries grow with it); "), str(e)


def test_the_size_guard_in_a_spec_file_names_data_n_and_no_seeds(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "10")
    err = _check(tmp_path, capsys, "")
    assert err.startswith("theorykit: error in data.n: "), err
    assert "lower data.n (the task's exact entries grow with it)" in err and "seeds" not in err, err


def test_keyword_errors_maps_an_indexed_field_and_notes_only_options():
    @keyword_errors({"data.blocks": "blocks", "--steps": "steps"})
    def f(field):
        raise SpecError(field, "bad", "mend it")

    for field, key, fix in (("data.blocks[2]", "blocks[2]", "mend it"), ("data.blocks", "blocks", "mend it"),
                            ("--steps", "steps", "mend it (options are keywords here: --steps is steps=)")):
        with pytest.raises(SpecError) as e:
            f(field)
        assert (e.value.field, e.value.fix) == (key, fix)
    with pytest.raises(SpecError) as e:          # a field not in the map, or only beginning alike: as it is
        f("data.blocksx[1]")
    assert e.value.field == "data.blocksx[1]"
