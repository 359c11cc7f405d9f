"""Rubric rules of the offline judge where no human label exists to learn from.

* **D4 solution** (RevUtil has no such label) follows the rubric's definition directly:
  2 = the comment states an explicit fix (a suggestion or request verb attached to a concrete
  change: "should add…", "I suggest comparing with…", "please report…", an imperative such as
  "Clarify …", "replace X with Y"); 1 = the fix is implied (something is missing or unclear,
  a question asking for information or a check); 0 = the problem or observation only.
* **D5 tone**: 0 = hostile or dismissive wording; 2 = professional-constructive (courteous or
  encouraging phrasing, or clearly positive sentiment); 1 = neutral, factual.
* **comment type from cues** when a comment's section does not decide it.
"""

from __future__ import annotations

import re

from prism_review.judge.sentiment import polarity

_SUGGEST = re.compile(
    r"\b(should|could|must|need(s)? to|have to|ought to|suggest\w*|recommend\w*|encourage\w*|"
    r"consider\w*|please|would (be )?(good|better|helpful|nice|useful|interesting|beneficial|"
    r"great)|it (might|may|could|would) (be )?(help\w*|useful|worth\w*|good|better|beneficial)|"
    r"(i|we)(\s*'?d| would) (like|love) to see|why not|instead)\b",
    re.IGNORECASE,
)
_ACTION = re.compile(
    r"\b(add\w*|includ\w+|provid\w+|report\w*|compar\w+|clarif\w+|explain\w*|discuss\w*|show\w*|"
    r"remov\w+|rewrit\w+|fix\w*|cit\w+|defin\w+|describ\w+|mention\w*|us(e|ing)|evaluat\w+|"
    r"analy[sz]\w+|conduct\w*|run(ning)?|test\w*|check\w*|correct\w*|revis\w+|elaborat\w+|"
    r"justif\w+|stat(e|ing)|mov(e|ing)|reduc\w+|chang\w+|replac\w+|rephras\w+|specif\w+|"
    r"expand\w*|extend\w*|perform\w*|highlight\w*|releas\w+|plot\w*|visuali[sz]\w+|"
    r"measur\w+|investigat\w+|explor\w+|tone down|proofread\w*|shorten\w*)\b",
    re.IGNORECASE,
)
_IMPERATIVE = re.compile(
    r"^\W*(\d+[.)]\s*)?(please\s+)?(add|include|provide|report|compare|clarify|explain|discuss|"
    r"show|remove|rewrite|fix|cite|define|describe|mention|use|evaluate|analy[sz]e|conduct|run|"
    r"check|correct|revise|elaborate|justify|state|move|reduce|change|consider|replace|rephrase|"
    r"specify|expand|extend|perform|highlight|release|plot|measure|investigate|explore)\b",
    re.IGNORECASE,
)
_IMPLICIT = re.compile(
    r"\?|\b(missing|lack\w*|absent|unclear|not (clear|clearly|explained|described|discussed|"
    r"provided|reported|mentioned|specified|justified|compared|evaluated|convincing|sufficient)|"
    r"no (discussion|comparison|analysis|details?|explanation|evaluation|ablation|baseline)s?|"
    r"without (any )?(comparison|discussion|analysis|evaluation|ablation)|omit\w*|"
    r"insufficient|limited|only (evaluat|compar|test|report|consider)\w*|fail(s|ed)? to|"
    r"does not (include|report|compare|discuss|explain|address|consider|provide)|"
    r"do not (include|report|compare|discuss|explain|address|consider|provide)|"
    r"typo\w*|incorrect|wrong|error\w*)\b",
    re.IGNORECASE,
)
_HOSTILE = re.compile(
    r"\b(nonsense|ridiculous|absurd|useless|worthless|sloppy|careless|lazy|stupid|garbage|"
    r"waste of (time|space)|embarrassing|laughable|pointless|terrible|awful|idiotic|incompetent|"
    r"clearly (do(es)? not|don't) (understand|know)|no idea what|shame(ful)?|rubbish|junk)\b",
    re.IGNORECASE,
)
_POLITE = re.compile(
    r"\b(please|thank\w*|appreciat\w+|encourag\w+|commend\w*|kindly|would (be )?(good|great|"
    r"helpful|nice|interesting|useful|beneficial)|(i|we) (would|'d) (suggest|recommend|like)|"
    r"it (might|may|could) (be )?(help\w*|useful|worth\w*|beneficial)|nice(ly)?|"
    r"well[- ](written|motivated|organized|organised|executed)|interesting|impressive|"
    r"(a )?(good|great|valuable|solid|strong) (contribution|paper|work|job|idea))\b",
    re.IGNORECASE,
)
_QUESTION = re.compile(
    r"\?\s*$|^\W*(\d+[.)]\s*)?(why|how|what|which|whether|could you|can you|would you|"
    r"do you|did you|is there|are there|is it|have you)\b",
    re.IGNORECASE,
)


def solution_level(text: str) -> int:
    """D4: 2 explicit fix, 1 implicit fix, 0 problem only (see module docstring)."""
    if _IMPERATIVE.search(text):
        return 2
    for m in _SUGGEST.finditer(text):
        # an action verb within ~60 characters after the suggestion cue
        if _ACTION.search(text, m.end(), m.end() + 60):
            return 2
    if _IMPLICIT.search(text):
        return 1
    return 0


def tone_level(text: str) -> int:
    """D5: 0 hostile/dismissive, 2 courteous or encouraging, 1 neutral-factual."""
    if _HOSTILE.search(text):
        return 0
    if _POLITE.search(text):  # courteous wording decides; no need for the sentiment score
        return 2
    return 2 if float(polarity(text)[0]) >= 0.6 else 1


def cue_type(text: str) -> str | None:
    """A comment type the wording alone decides (questions, explicit suggestions), else None."""
    if _QUESTION.search(text.strip()):
        return "question"
    if _IMPERATIVE.search(text):
        return "suggestion"
    return None
