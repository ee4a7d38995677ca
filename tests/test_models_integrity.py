"""Damaged weights and manifests: every way a shipped file can go wrong is one ``posviz.models.WeightsError``
line naming the file and how to restore it (never torch's text, never its advice to turn ``weights_only``
off), from the loader and from ``python -m posviz.models``; the manifest's sha256 of each shipped file is
right, and a file is hashed once per version of it."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch

import posviz.models as pm
from posviz.models.__main__ import main

RESTORE_HINTS = ("reinstall posviz", "python -m posviz.models train")


@pytest.fixture
def weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the shipped weights folder that posviz.models reads instead of the shipped one."""
    folder = tmp_path / "weights"
    shutil.copytree(pm.WEIGHTS, folder)
    monkeypatch.setattr(pm, "WEIGHTS", folder)
    return folder


def _rewrite(folder: Path, name: str, change: Callable[[dict], None]) -> None:
    """Re-save ``name``.pt with ``change`` applied to its saved dict, and record the new file's sha256, so only
    the loader's own checks (not the checksum) can catch what ``change`` did."""
    path = folder / f"{name}.pt"
    blob = torch.load(path, weights_only=True)
    change(blob)
    torch.save(blob, path)
    _bless(folder, name)


def _bless(folder: Path, name: str) -> None:
    """Record the current bytes of ``name``.pt in the manifest, as a retrain would."""
    man = json.loads((folder / "manifest.json").read_text())
    man["models"][name].update(pm.fingerprint(folder / f"{name}.pt"))
    (folder / "manifest.json").write_text(json.dumps(man))


def _flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _random_bytes(path: Path) -> None:
    path.write_bytes(np.random.default_rng(0).bytes(path.stat().st_size))


def _set(key: str, value: object) -> Callable[[dict], None]:
    def change(blob: dict) -> None:
        blob["state_dict"][key] = value(blob["state_dict"][key]) if callable(value) else value
    return change


def _manifest_without_sha(folder: Path) -> None:
    man = json.loads((folder / "manifest.json").read_text())
    del man["models"]["rope"]["sha256"]
    (folder / "manifest.json").write_text(json.dumps(man))


def _nan(t: torch.Tensor) -> torch.Tensor:
    t = t.clone()
    t[0, 0] = float("nan")
    return t


# (what is damaged, how, the file the message names, the words that say what is wrong)
CASES = [
    ("missing file", lambda f: (f / "rope.pt").unlink(), "rope.pt", "is missing"),
    ("empty file", lambda f: (f / "rope.pt").write_bytes(b""), "rope.pt", "is empty"),
    ("truncated file", lambda f: (f / "rope.pt").write_bytes((f / "rope.pt").read_bytes()[:1000]), "rope.pt",
     "truncated"),
    ("random bytes", lambda f: _random_bytes(f / "rope.pt"), "rope.pt", "does not match the sha256"),
    ("random bytes, recorded", lambda f: (_random_bytes(f / "rope.pt"), _bless(f, "rope")), "rope.pt",
     "not a weights file torch can read"),
    ("one flipped byte", lambda f: _flip_byte(f / "rope.pt"), "rope.pt", "does not match the sha256"),
    ("NaN weights", lambda f: _rewrite(f, "rope", _set("blocks.0.qkv.weight", _nan)), "rope.pt",
     "NaN or infinite values in tensor 'blocks.0.qkv.weight'"),
    ("wrong tensor shape", lambda f: _rewrite(f, "rope", _set("ln_f.weight", torch.ones(65))), "rope.pt",
     "'ln_f.weight' of shape (65,) where the model needs (64,)"),
    ("missing tensor", lambda f: _rewrite(f, "rope", lambda b: b["state_dict"].pop("ln_f.bias")), "rope.pt",
     "lacks tensor 'ln_f.bias'"),
    ("unknown config key", lambda f: _rewrite(f, "rope", lambda b: b["config"].update(dropout=0.1)), "rope.pt",
     "unknown config key 'dropout'"),
    ("another scheme's weights", lambda f: (shutil.copyfile(f / "alibi.pt", f / "rope.pt"), _bless(f, "rope")),
     "rope.pt", "holds a 'alibi' model where 'rope' was expected"),
    ("missing manifest", lambda f: (f / "manifest.json").unlink(), "manifest.json", "is missing"),
    ("garbage manifest", lambda f: _random_bytes(f / "manifest.json"), "manifest.json", "not valid JSON"),
    ("manifest of something else", lambda f: (f / "manifest.json").write_text('{"models": [1, 2]}'),
     "manifest.json", "not a posviz training record"),
    ("manifest without a checksum", _manifest_without_sha, "manifest.json",
     "no valid 'sha256' in its record of rope.pt"),
]


def _assert_one_clear_line(err: pm.WeightsError, folder: Path, file: str, words: str) -> None:
    text = str(err)
    assert err.file == str(folder / file)
    assert "\n" not in text and text.startswith(str(folder / file)) and words in text, text
    assert all(hint in text for hint in RESTORE_HINTS), text
    assert "weights_only" not in text and "Error" not in text, text  # none of torch's or pickle's own words
    assert err.__cause__ is None and (err.__context__ is None or err.__suppress_context__)  # nor would a traceback


@pytest.mark.parametrize("case, damage, file, words", CASES, ids=[c[0] for c in CASES])
def test_each_damage_is_one_clear_line_from_every_loader(weights, case, damage, file, words):
    damage(weights)
    for load in (lambda: pm.load("rope"), lambda: pm.shared("rope"), lambda: pm.losses("rope", 64)):
        with pytest.raises(pm.WeightsError) as caught:
            load()
        _assert_one_clear_line(caught.value, weights, file, words)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("case, damage, file, words", CASES, ids=[c[0] for c in CASES])
def test_the_cli_reports_each_damage_in_one_line(weights, capsys, case, damage, file, words):
    damage(weights)
    assert main(["report"]) == 1
    out, err = capsys.readouterr()
    assert out == "" or "| model |" in out  # the manifest's own table may come first; never a traceback
    line = err.strip()
    assert "\n" not in line and "Traceback" not in err and "weights_only" not in err, err
    assert line.startswith(f"python -m posviz.models: error: {weights / file}") and words in line, line


def test_figures_command_reports_damage_in_one_line(weights, tmp_path, capsys):
    _flip_byte(weights / "rope_yarn_ft.pt")
    assert main(["figures", "--out", str(tmp_path), "--n-sequences", "1"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(weights / "rope_yarn_ft.pt") in err and "sha256" in err, err
    assert not list(tmp_path.glob("*.png"))


def test_a_damaged_file_leaves_the_other_models_loadable(weights):
    _flip_byte(weights / "alibi.pt")
    with pytest.raises(pm.WeightsError, match="alibi.pt"):
        pm.shared("alibi")
    assert [pm.shared(s).config.scheme for s in pm.SCHEMES if s != "alibi"] == ["nope", "learned", "sinusoidal",
                                                                                "rope"]


def test_the_manifest_records_the_shipped_files_sha256():
    for name in pm.NAMES:
        rec = pm.record(name)
        assert pm.fingerprint(pm.WEIGHTS / f"{name}.pt") == {"sha256": rec["sha256"], "bytes": rec["bytes"]}


def test_verification_is_cached_per_version_of_the_file(weights):
    """A page rerun does not hash again; a file replaced on disk (damaged or restored) is verified again."""
    before = pm._digest.cache_info().misses
    pm.load("nope")
    pm.load("nope")
    pm.shared("nope")
    assert pm._digest.cache_info().misses == before + 1
    path = weights / "nope.pt"
    good = path.read_bytes()
    _flip_byte(path)
    os.utime(path, ns=(1, 1))  # a new version even where the clock is coarser than two writes
    with pytest.raises(pm.WeightsError, match="sha256"):
        pm.shared("nope")
    with pytest.raises(pm.WeightsError, match="sha256"):
        pm.shared("nope")  # the failure is remembered too: still one hash of this version
    assert pm._digest.cache_info().misses == before + 2
    path.write_bytes(good)
    os.utime(path, ns=(2, 2))
    assert pm.shared("nope").config.scheme == "nope"
    assert pm._digest.cache_info().misses == before + 3


def test_losses_follow_the_file_not_the_name(weights):
    """A restored file is a new model: curves remembered from the old one are not served for it."""
    first = pm.losses("alibi", 64, n_sequences=2)
    path = weights / "alibi.pt"
    os.utime(path, ns=(3, 3))
    second = pm.losses("alibi", 64, n_sequences=2)
    assert second is not first
    np.testing.assert_array_equal(second, first)


def test_training_records_the_checksum_that_loading_verifies(tmp_path):
    from posviz.models.train import Recipe, _train_one

    recipe = Recipe(steps=2, scheme_steps=(), finetune_steps=1)
    threads = torch.get_num_threads()
    try:
        record = _train_one(tmp_path, recipe, 1, "alibi")["alibi"]
    finally:  # training sets process-wide torch state that the other tests in this process must not inherit
        torch.use_deterministic_algorithms(False)
        torch.set_num_threads(threads)
    assert record | pm.fingerprint(tmp_path / "alibi.pt") == record
    assert len(record["sha256"]) == 64 and record["bytes"] == (tmp_path / "alibi.pt").stat().st_size


def test_merge_refuses_a_damaged_file_before_copying(weights, tmp_path, capsys):
    src = tmp_path / "retrained"
    src.mkdir()
    shutil.copyfile(weights / "manifest.json", src / "manifest.json")
    shutil.copyfile(weights / "alibi.pt", src / "alibi.pt")
    man = json.loads((src / "manifest.json").read_text())
    man["models"] = {"alibi": man["models"]["alibi"]}
    (src / "manifest.json").write_text(json.dumps(man))
    _flip_byte(src / "alibi.pt")
    before = (weights / "alibi.pt").read_bytes()
    assert main(["merge", str(src), "--into", str(weights)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(src / "alibi.pt") in err and "Traceback" not in err, err
    assert (weights / "alibi.pt").read_bytes() == before


def test_report_says_an_incomplete_manifest_is_damaged(weights, capsys):
    man = json.loads((weights / "manifest.json").read_text())
    del man["models"]["learned"]["train_seconds"]  # valid JSON, but not what the training command writes
    (weights / "manifest.json").write_text(json.dumps(man))
    assert main(["report"]) == 1
    err = capsys.readouterr().err
    assert err == (f"python -m posviz.models: error: {weights / 'manifest.json'} is not a complete training record; "
                   f"restore it: reinstall posviz, or rebuild the weights with `python -m posviz.models train`\n")


def test_posviz_export_reports_damage_in_its_one_error_line(weights, tmp_path, capsys):
    from posviz.cli import main as export_main

    (weights / "alibi.pt").write_bytes(b"")
    assert export_main(["export", "models_schemes", "-o", str(tmp_path / "schemes.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"posviz: error: {weights / 'alibi.pt'} is empty; restore it"), err
    assert not (tmp_path / "schemes.json").exists()
