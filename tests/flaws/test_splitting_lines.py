"""The splitter on sentence-per-line weakness blocks (the RevUtil LLM reviews of the demo)."""

from __future__ import annotations

from prism_review.judge.flaws.splitting import criticisms

TITLED = """**Summary of the Paper:**
A method.

**Weaknesses:**
Limited scope: The current implementation covers two domains and needs hand-made features.
Exploring automated feature extraction would broaden its impact.
Datastore size: The datastore is large, raising scalability concerns.
Overall, this is a valuable contribution.

**Summary of the Review:**
Good paper."""

UNTITLED = """**Weaknesses:**
The gains from adding locality features are relatively modest.
More discussion on the significance of the improvements would be helpful.
The choice of locality features seems ad-hoc.
This limits the generality of the method.
Limitations of the approach are not discussed in depth.
"""


def test_titled_lines_are_items_with_their_follow_ups() -> None:
    items = criticisms("gemini", TITLED)
    assert [c.item.split(":")[0] for c in items] == ["Limited scope", "Datastore size"]
    assert "Exploring automated feature extraction" in items[0].item
    assert all(c.quote in TITLED for c in items)
    assert not any("Overall" in c.item for c in items)  # a closing remark is no criticism


def test_untitled_lines_keep_follow_ups_and_continuations_with_their_criticism() -> None:
    items = [c.item for c in criticisms("claude", UNTITLED)]
    assert items == [
        "The gains from adding locality features are relatively modest. More discussion on the "
        "significance of the improvements would be helpful.",
        "The choice of locality features seems ad-hoc. This limits the generality of the method.",
        "Limitations of the approach are not discussed in depth.",
    ]


def test_a_title_inside_a_line_opens_an_item() -> None:
    text = (
        "**Weaknesses:**\nLimited tasks: the experiments cover only summarization. Model "
        "Architectures: only encoder-decoder models are tested.\nClarity: some parts are unclear.\n"
    )
    assert [c.item.split(":")[0] for c in criticisms("g", text)] == [
        "Limited tasks",
        "Model Architectures",
        "Clarity",
    ]


def test_inline_dash_bullets_are_items() -> None:
    text = (
        "**Weaknesses:**\n- The trade-off with accuracy is not analysed. - The user study is "
        "small. - Comparison to other interpretability methods is missing.\n"
    )
    assert len(criticisms("c", text)) == 3


def test_wrapped_paragraphs_are_not_cut_per_line() -> None:
    text = (
        "**Weaknesses:**\nThe evaluation only covers one data set and the\nbaselines are weak, "
        "so the claims of generality\nare not supported by the experiments.\n"
    )
    assert len(criticisms("h", text)) == 1
