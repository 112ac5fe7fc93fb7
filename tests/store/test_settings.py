"""Project settings are declared once (``store/settings.py``) with a type and a default."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import annotator
from annotator.errors import ValidationError
from annotator.store.settings import (
    CARD,
    OPTIONS,
    PACKAGE_SEQUENCE,
    PROJECT_NAME,
    RESUME,
    REVIEW_REASON_CODES,
    UnknownSetting,
    option_for,
)


def test_a_setting_never_written_reads_as_its_default(project: Any) -> None:
    assert project.setting(PACKAGE_SEQUENCE) == 0
    assert project.setting(PROJECT_NAME) is None
    assert project.setting(RESUME, "nobody") == {}
    assert len(project.project_id) == 36  # written when the project was made


def test_a_mutable_default_is_never_shared(project: Any) -> None:
    project.setting(RESUME, "a")["case_id"] = "C1"
    assert project.setting(RESUME, "a") == {}


def test_values_round_trip_and_null_clears_to_the_default(project: Any) -> None:
    project.set_setting(PACKAGE_SEQUENCE, 7)
    project.set_setting(CARD, "CC-BY-4.0", "license")
    project.set_setting(REVIEW_REASON_CODES, ["typo", "guideline"])
    assert project.setting(PACKAGE_SEQUENCE) == 7
    assert project.setting(CARD, "license") == "CC-BY-4.0"
    assert project.setting(REVIEW_REASON_CODES) == ["typo", "guideline"]
    project.set_setting(PACKAGE_SEQUENCE, None)
    assert project.setting(PACKAGE_SEQUENCE) == 0


@pytest.mark.parametrize(
    ("option", "value"),
    [(PACKAGE_SEQUENCE, "3"), (PACKAGE_SEQUENCE, True), (PROJECT_NAME, 3), (RESUME, [1])],
)
def test_a_value_of_the_wrong_type_is_refused_and_nothing_written(
    project: Any, option: Any, value: Any
) -> None:
    name = "someone" if option.family else ""
    before = project.setting(option, name)
    with pytest.raises(ValidationError, match=f"setting '{option.key}' takes"):
        project.set_setting(option, value, name)
    assert project.setting(option, name) == before


def test_a_family_needs_a_name_and_a_plain_setting_takes_none(project: Any) -> None:
    with pytest.raises(UnknownSetting, match="needs a name"):
        project.setting(RESUME)
    with pytest.raises(UnknownSetting, match="takes no name"):
        project.setting(PACKAGE_SEQUENCE, "x")


def test_every_stored_key_maps_to_one_declaration() -> None:
    assert option_for("package_sequence") == (PACKAGE_SEQUENCE, "")
    assert option_for("card.license") == (CARD, "license")
    assert option_for("resume:Dr Ada") == (RESUME, "Dr Ada")
    for key in ("sneaky", "card.", "resume", "package_sequence2"):
        with pytest.raises(UnknownSetting, match="is not a project setting"):
            option_for(key)


def test_every_declaration_is_documented_and_typed() -> None:
    for key, option in OPTIONS.items():
        assert option.key == key and option.doc
        assert option.default is None or isinstance(option.default, option.kind)


OPTION_ARGUMENT = {"setting": 0, "set_setting": 0, "get_setting": 1, "put_setting": 1}


def test_no_setting_is_named_by_a_string_outside_the_registry() -> None:
    """``setting("...")``/``set_setting("...")`` with a literal key would bypass the types."""
    root = Path(annotator.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            if not isinstance(node.func, ast.Attribute | ast.Name):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
            where = OPTION_ARGUMENT.get(name)  # the option is the first, or after the session
            if where is not None and len(node.args) > where and isinstance(
                node.args[where], ast.Constant | ast.JoinedStr | ast.BinOp
            ):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert found == []


def test_several_settings_read_together_read_as_one_by_one(project: Any) -> None:
    from annotator.store.settings import get_setting, get_settings

    project.set_setting(PACKAGE_SEQUENCE, 7)
    project.set_setting(CARD, "CC-BY-4.0", "license")
    wanted = [(PACKAGE_SEQUENCE, ""), (CARD, "license"), (CARD, "title"), (RESUME, "a")]
    with project.read() as session:
        together = get_settings(session, *wanted)
        assert together == [get_setting(session, o, n) for o, n in wanted]
    assert together == [7, "CC-BY-4.0", None, {}]
    together[3]["case_id"] = "C1"  # a default read this way is not shared either
    assert project.setting(RESUME, "a") == {}
