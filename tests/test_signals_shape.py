"""The reaction shape of a prompt (memdown/signals/shape.py): what the agent just did, and whether the prompt
points back at it, as language-independent features for the learned detector (issue 30, session 8).
Prompts written for this test (never from the labels or ../shared)."""
from __future__ import annotations

from memdown.signals import classifier as C
from memdown.signals.shape import N_SHAPE_FEATURES, REACTIONS, produced_names, shape_features
from memdown.transcript.model import ToolCall, Turn

EDITED = (("Edit", "src/billing/invoice_total.py"), ("Bash", "pytest tests/test_invoice.py"))
NAMES = ["first", "memory", *[f"reaction:{k}" for k in REACTIONS], "changed", "ran", "only-looked", "subagent",
         "error", "changed-log", "calls-log", "len<=40", "len<=160", "len<=500", "len>500", "lines>=3",
         "named-touched", "named-spoken", "named-touched-count", "named-and-short", "reaction-after-change"]


def features(text: str, said: str = "", calls=EDITED, errors: int = 0, first: bool = False) -> dict[str, float]:
    return dict(zip(NAMES, shape_features(text, said, calls, errors, first), strict=True))


def test_feature_names_cover_every_feature():
    assert len(NAMES) == N_SHAPE_FEATURES


def test_a_prompt_naming_what_the_agent_just_edited_or_ran():
    f = features("invoice_total.py is off by one again")
    assert f["named-touched"] == 1.0 and f["named-and-short"] == 1.0 and f["changed"] == 1.0
    g = features("add a dark mode toggle to the settings page")  # a new task names new things
    assert g["named-touched"] == 0.0 and g["named-and-short"] == 0.0


def test_a_prompt_naming_what_the_agent_just_said():
    said = "I updated `renderHeader` and the `HeaderProps` type."
    assert features("renderHeader 不应该改", said=said, calls=())["named-spoken"] == 1.0
    assert produced_names((), said)[1] >= {"renderheader", "headerprops"}


def test_reactions_in_other_languages_after_a_change():
    assert features("cofnij tę zmianę w pliku")["reaction:undo"] == 1.0
    assert features("nie, zostaw ten plik")["reaction:refusal"] == 1.0
    assert features("cofnij tę zmianę w pliku")["reaction-after-change"] == 1.0
    assert features("pourquoi tu as supprimé les tests ?")["reaction:why"] == 1.0
    assert features("запомни: тесты через pytest")["memory"] == 1.0
    first = features("cofnij tę zmianę w pliku", calls=(), first=True)   # nothing was done yet: no reaction
    assert first["reaction:undo"] == 0.0 and first["first"] == 1.0


def test_example_of_keeps_the_turn_befores_calls():
    prev = Turn(uuid="u", index=0, timestamp="", prompt="fix it", assistant_texts=["Done."],
                tool_calls=[ToolCall(id="1", name="Edit", input={"file_path": "src/app.py"}),
                            ToolCall(id="2", name="Bash", input={"command": "pytest"}, is_error=True)])
    example = C.example_of("app.py was fine before, revert it", prev)
    assert [name for name, _ in example.prev_calls] == ["Edit", "Bash"]
    assert "app.py" in example.prev_calls[0][1] and example.prev_errors == 1
    row = C.design_matrix([example], None, {"shape": 1.0, "embed": 0.0, "ngrams": 0.0, "dense": 0.0})
    assert row.shape == (1, N_SHAPE_FEATURES)
    assert dict(zip(NAMES, row[0]))["named-touched"] == 1.0


def test_the_shipped_weights_read_the_shape_block():
    weights = C.load_weights()
    assert int(weights["feature_version"]) == C.FEATURE_VERSION == 3
    assert float(weights["scale_shape"]) > 0 and float(weights["scale_use"]) == 0.0  # no embedder at run time
