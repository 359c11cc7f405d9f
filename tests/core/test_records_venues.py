import pytest

from prism_review.records import Decision, DecisionKind, Review, Section
from prism_review.systems.registry import get_system
from prism_review.venues import get_venue, leading_number


@pytest.mark.parametrize(
    ("raw", "kind", "accepted"),
    [
        ("Accept (oral)", DecisionKind.ACCEPT_ORAL, True),
        ("Accept (spotlight)", DecisionKind.ACCEPT_SPOTLIGHT, True),
        ("Accept (poster)", DecisionKind.ACCEPT_POSTER, True),
        ("Conditional Accept", DecisionKind.CONDITIONAL, True),
        ("Reject", DecisionKind.REJECT, False),
        ("Pending", DecisionKind.PENDING, None),
        ("TBD", DecisionKind.PENDING, None),
        (None, DecisionKind.UNKNOWN, None),
        ("", DecisionKind.UNKNOWN, None),
    ],
)
def test_decision_parse(raw, kind, accepted):
    d = Decision.parse(raw)
    assert d.kind == kind
    assert d.accepted is accepted
    assert d.raw == (raw.strip() if isinstance(raw, str) else None)


def test_venue_lookup_any_spelling():
    assert get_venue("ICLR_2024").id == "ICLR2024"
    assert get_venue("neurips-2025").id == "NeurIPS2025"
    with pytest.raises(KeyError, match="known venues"):
        get_venue("ACL2023")


@pytest.mark.parametrize(
    ("venue", "fields", "raw", "norm"),
    [
        ("ICLR2024", {"Rating": "6: marginally above the acceptance threshold"}, 6.0, 5 / 9),
        ("ICLR2025", {"Rating": "10: strong accept"}, 10.0, 1.0),
        ("ICLR2026", {"Rating": "0: strong reject"}, 0.0, 0.0),
        ("ICML2025", {"Overall Recommendation": "4: Accept"}, 4.0, 0.75),
        ("NeurIPS2025", {"Rating": "4: Borderline accept"}, 4.0, 0.6),
        ("ICLR2024", {"Rating": ""}, None, None),
    ],
)
def test_rating_normalisation(venue, fields, raw, norm):
    value, normalised = get_venue(venue).rating(fields)
    assert value == raw
    assert normalised == pytest.approx(norm) if norm is not None else normalised is None


def test_text_valued_subscore():
    v = get_venue("ICLR2024")
    assert v.read_score("Soundness", "3 good") == (3.0, pytest.approx(2 / 3))
    assert leading_number("n/a") is None


def test_system_registry_tree_folder():
    assert get_system("tree").id == "treereview"
    assert get_system("treereview").folder == "tree"
    with pytest.raises(KeyError):
        get_system("gpt5")


def test_review_section_lookup_and_text():
    r = Review(
        paper_id="p",
        venue="ICLR2024",
        system="sea",
        reviewer_id="LLM_Reviewer",
        sections=[Section(name="Summary", text="A."), Section(name="Weaknesses", text="B.")],
    )
    assert r.section("weaknesses") == "B."
    assert r.text == "**Summary:**\nA.\n\n**Weaknesses:**\nB."
