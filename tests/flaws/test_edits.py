"""The formula-edit check of the offline validity judge (:mod:`prism_review.judge.flaws.edits`)."""

from __future__ import annotations

from prism_review.judge.flaws.edits import edit_evidence, edit_verdict, is_mathy, tokens
from prism_review.judge.flaws.models import MicroFlaw, ValidateInput
from prism_review.judge.flaws.offline import validate
from prism_review.judge.flaws.validity import ValidityParams

PAPER = (
    "We fix the horizon $T = 4$ and the step $h = T/8$ throughout. The loss of sample $i$ is "
    "$\\ell_i = (y_i - f(x_i))^2$ and the bound holds for $a < b$.\n\n"
)


def test_tokens_keep_commands_numbers_and_symbols() -> None:
    assert tokens("$\\ell_i = (y_i - 2.5)^2$") == [
        "\\ell", "_", "i", "=", "(", "y", "_", "i", "-", "2.5", ")", "^", "2",
    ]  # fmt: skip
    assert is_mathy("$x$") and is_mathy("where k = 3") and not is_mathy("The baselines are weak.")


def test_changed_number_or_operator_is_a_quantity_error() -> None:
    paper = PAPER + "Later we write $T = 6$ for the horizon."
    ev = edit_evidence("$T = 6$", paper)
    assert ev.kind == "quantity" and sorted(ev.changed) == ["4", "6"]
    paper = PAPER + "so the bound holds for $a > b$."
    assert edit_evidence("$a > b$", paper).kind == "quantity"
    paper = PAPER + "with $\\ell_i = (y_i + f(x_i))^2$"
    assert edit_verdict(["$\\ell_i = (y_i + f(x_i))^2$"], paper) == (True, "Critical")


def test_renamed_symbol_is_typo_shaped() -> None:
    paper = PAPER + "with $\\ell_j = (y_j - f(x_j))^2$"
    ev = edit_evidence("$\\ell_j = (y_j - f(x_j))^2$", paper)
    assert ev.kind == "symbol" and set(ev.changed) == {"i", "j"}
    assert edit_verdict(["$\\ell_j = (y_j - f(x_j))^2$"], paper) == (True, "Minor")
    # a letter in place of a number renames an index: still a symbol edit
    paper = "Windows $w_1$ and $w_0$ are used. Then $w_k$ couples the blocks."
    assert edit_evidence("$w_k$", paper).kind == "symbol"


def test_no_restatement_means_no_support() -> None:
    paper = "Let $n$ be a positive integer. We show the claim for $n \\geq 7$."
    assert edit_evidence("$n \\geq 7$", paper).kind is None
    assert edit_verdict(["$n \\geq 7$"], paper) == (False, "None")
    # the same expression restated unchanged contradicts nothing
    paper = "We take $n \\geq 7$. Recall $n \\geq 7$ in the proof."
    assert edit_evidence("$n \\geq 7$", paper.replace("Recall ", "Recall that ")).kind is None


def test_only_formulas_quoted_from_the_paper_are_checked() -> None:
    assert edit_verdict(["The experiments use one dataset only."], PAPER) is None
    assert edit_verdict(["$T = 9$"], PAPER) is None  # not quoted from this paper


def test_offline_validate_uses_the_edit_check_and_its_switch() -> None:
    paper = PAPER + "Later we write $T = 6$ for the horizon."
    flaw = MicroFlaw(
        flaw_id="F01",
        core_summary="The horizon is stated inconsistently.",
        raw_arguments={"LLM_Reviewer": "$T = 6$"},
    )
    inp = ValidateInput(paper_text=paper, micro_flaws=[flaw])
    ev = validate(inp).evaluations["F01"]
    assert ev.is_valid and ev.severity == "Critical"
    off = validate(inp, ValidityParams(check_edits=False)).evaluations["F01"]
    assert off.is_valid  # the other rules find nothing against it; severity from the ontology
