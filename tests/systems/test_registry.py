"""The reviewer-system registry: built-ins discovered from their modules, plug-ins from entry
points, run-time registration, name clashes, and the generation hooks' name rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from prism_review.reviewers.generate import generated_system
from prism_review.systems import SystemSpec, registry
from prism_review.systems.base import check_txt
from prism_review.systems.byo import REVIEWS_FILE, byo_spec


def _load(path: Path, paper_id: str, venue: str) -> list:  # type: ignore[type-arg]
    return []


def test_builtins_come_from_their_modules_in_table_order() -> None:
    from prism_review.systems import cyclereview, deepreview, human, reviewer2, sea, treereview

    specs = [s for s in registry.systems() if s.order < 100]
    assert specs == [m.SPEC for m in (human, sea, reviewer2, treereview, deepreview, cyclereview)]
    assert [s.human for s in specs] == [True] + [False] * 5
    assert all(s.compat is not None and s.generation is None for s in specs)
    # each system's --compat text is its own module's, not a switch on system shared by all six
    assert [s.compat.__module__ for s in specs if s.compat] == [s.load.__module__ for s in specs]
    assert registry.get_system("Tree") is treereview.SPEC
    assert registry.system_order(["zz", "gpt4x", "sea", "human"]) == ["human", "sea", "gpt4x", "zz"]


def test_a_taken_name_is_refused_and_unregister_removes() -> None:
    spec = SystemSpec(id="clash_probe", label="SEA", patterns=("{id}.md",), load=_load)
    with pytest.raises(ValueError, match="already registered"):
        registry.register_system(spec)  # its label is SEA's
    with pytest.raises(ValueError, match="reserved"):
        registry.register_system(byo_spec("papers"))
    ok = registry.register_system(SystemSpec(id="probe_sys", patterns=("{id}.md",), load=_load))
    try:
        assert registry.find_system("probe_sys") is ok and "probe_sys" in registry.file_systems()
    finally:
        registry.unregister_system("probe_sys")
    assert registry.find_system("probe_sys") is None


def test_a_spec_needs_files_or_a_store() -> None:
    with pytest.raises(ValueError, match="either file patterns or a store"):
        SystemSpec(id="neither")
    with pytest.raises(ValueError, match="need a load function"):
        SystemSpec(id="noload", patterns=("{id}.md",))


def test_entry_point_plugins_are_discovered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "plug_sys_mod.py").write_text(
        "from prism_review.systems import SystemSpec\n"
        "from prism_review.systems.base import check_txt\n"
        "SPEC = SystemSpec(id='plug_sys', patterns=('{id}.md',), load=lambda p, i, v: [],"
        " check=check_txt)\n",
        encoding="utf-8",
    )
    info = tmp_path / "plug_sys-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plug-sys\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[prism_review.systems]\nplug = plug_sys_mod:SPEC\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_SYSTEMS", {})
    monkeypatch.setattr(registry, "_discovered", False)
    spec = registry.get_system("plug_sys")
    assert spec.check is check_txt and spec.folder == "plug_sys"
    assert registry.systems()[0].id == "human"  # the built-ins are still found first


def test_entry_point_that_is_no_spec_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bad_plug_mod.py").write_text("SPEC = 'not a spec'\n", encoding="utf-8")
    info = tmp_path / "bad_plug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bad-plug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[prism_review.systems]\nbad = bad_plug_mod:SPEC\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_SYSTEMS", {})
    monkeypatch.setattr(registry, "_discovered", False)
    with pytest.raises(TypeError, match="entry point 'bad'.*expected a SystemSpec"):
        registry.systems()


@pytest.mark.parametrize("name", ["sea", "tree", "TreeReview", "human_reviews", "papers", "a/b", " "])
def test_generation_refuses_systems_that_are_not_generated(name: str) -> None:
    with pytest.raises(ValueError, match="cannot be a generated system's folder name"):
        generated_system(name)


def test_generation_writes_through_the_byo_hooks() -> None:
    spec, hooks = generated_system("my_generated_llm")
    assert spec.folder == "my_generated_llm" and hooks.file == REVIEWS_FILE
    assert registry.find_system("my_generated_llm") is None  # evaluation registers it on discovery
    custom = registry.register_system(
        SystemSpec(id="gen_probe", patterns=("{id}.md",), load=_load, check=check_txt,
                   generation=hooks)  # fmt: skip
    )
    try:
        assert generated_system("gen_probe") == (custom, hooks)
    finally:
        registry.unregister_system("gen_probe")
