"""The decision rules of the original PRISM code, one row per rule, and the prompts that state them.

Each :class:`Rule` names the judge step it belongs to, the file and function of the original
code (prism-benchmark/prism, commit 0c461dc, under ``Aspects_benchmarking/``) it comes from, the
rule in this project's words, and the phrases every prompt of the step must contain for the rule
to count as stated (``tests/core/test_prompt_fidelity.py`` checks them against the prompt texts;
:func:`step_prompts` lists those texts). ``values`` holds the rule's label set or scores where it
has one; the offline judge's constructs are checked against them where they apply.

``status``: ``stated`` — the prompts state the rule; ``differs`` — they do not, or not as the
original does, and ``docs/fidelity.md`` lists the difference under the rule id; ``code`` — a rule
the original applies in code, not in a prompt (reproduced by ``--compat`` where noted).
``docs/judge-rules.md`` describes every rule at length.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

DOA = "depth_of_analysis/src/evaluator.py"
T1 = "novelty_vefification/task1_extractor.py"
T3 = "novelty_vefification/task3_judge.py"
FLW = "flaw_identification/src/evaluator.py"
CON = "constructiveness/src/evaluator.py"


@dataclass(frozen=True)
class Rule:
    """One decision rule of the original code."""

    id: str
    step: str
    source: str
    rule: str
    markers: tuple[str, ...] = ()
    status: Literal["stated", "differs", "code"] = "stated"
    values: dict[str, Any] = field(default_factory=dict)
    #: phrases no prompt of the step may contain (a rule the original does not have)
    forbidden: tuple[str, ...] = ()


RULES: tuple[Rule, ...] = (
    # ---- Depth of Analysis ------------------------------------------------------------------
    Rule("DOA-UNIT", "depth.segment", f"{DOA}::segment_arguments",
         "A unit is a sentence or clause that conveys a claim, premise, observation or recommendation.",
         ("claim, a premise, an observation or a recommendation",)),
    Rule("DOA-VERBATIM", "depth.segment", f"{DOA}::segment_arguments",
         "Units are verbatim or near-verbatim pieces of the review.", ("verbatim",)),
    Rule("DOA-RESTATE", "depth.segment", f"{DOA}::segment_arguments (its example output)",
         "A sentence saying what the paper presents is a unit.", ("what the paper does or presents",)),
    Rule("DOA-GREETINGS", "depth.segment", f"{DOA}::segment_arguments, classify_arguments ('Other')",
         "Nothing is excluded from segmentation; greetings and formatting reach the classifier as Other.",
         ("greetings, thanks and remarks about formatting are units too",),
         forbidden=("leave out only text that states none of these",)),
    Rule("DOA-HEADINGS", "depth.segment", f"{DOA}::segment_arguments",
         "The original says nothing about headings; the project leaves headings and bare labels out.",
         ("only section headings and bare field labels",), status="differs"),
    Rule("DOA-PREMISE", "depth.classify", f"{DOA}::classify_arguments",
         "Premise: gives concrete details, evidence, reasons or specific support.",
         ("concrete details, evidence, reasons or specific support",), values={"roles": ("Premise", "Claim")}),
    Rule("DOA-CLAIM", "depth.classify", f"{DOA}::classify_arguments",
         "Claim: asserts a statement, judgment or evaluation without direct evidence.",
         ("asserts a statement, a judgment or an evaluation without direct evidence",)),
    Rule("DOA-CLAIM-EXAMPLE", "depth.classify", f"{DOA}::classify_arguments (its example output)",
         "A sentence crediting the paper with a new contribution is a Claim about Contribution.",
         ("without backing it up is a claim", "a unit saying the paper's approach is new is contribution")),
    Rule("DOA-PREMISE-EXAMPLE", "depth.classify", f"{DOA}::classify_arguments (its example output)",
         "A sentence pointing at missing comparisons with recent baselines is a Premise about Soundness.",
         ("such as comparisons with recent baselines, is a premise",
          "lacks comparisons with recent baselines is soundness")),
    Rule("DOA-ASPECTS", "depth.classify", f"{DOA}::classify_arguments",
         "Aspects: Soundness, Clarity, Contribution, Other, with the original's scopes.",
         ("technical correctness, experiments, methodology, mathematics",
          "writing, presentation, explanations, figures",
          "originality, novelty, significance, comparisons with baselines",
          "anything else, such as formatting or a greeting"),
         values={"aspects": ("Soundness", "Clarity", "Contribution", "Other")}),
    Rule("DOA-GROUND-SCALE", "depth.ground", f"{DOA}::score_grounding",
         "Grounding 0 generic/vague, 1 partially specific (general parts, no full details), 2 highly "
         "specific (exact equations, sections, figures, metrics, datasets, precise technical issue).",
         ("how specific and concrete the evidence or explanation",
          "0 = generic or vague, lacking details",
          "1 = partially specific: it points at a general part of the work but lacks full details",
          "2 = highly specific",
          "exact equations, sections, figures, specific metrics or datasets, or states a precise technical issue"),
         values={"scores": (0, 1, 2)}),
    Rule("DOA-GROUND-EXAMPLE", "depth.ground", f"{DOA}::score_grounding (its example output)",
         "A premise pointing at missing recent baselines, none named, grades 1.",
         ("missing comparisons with recent baselines, none named, is 1",)),
    Rule("DOA-GROUND-PREMISES", "depth.ground", f"{DOA}::score_grounding",
         "Only premises are graded; with no premise there is no call.", ("every premise",)),
    Rule("DOA-FALLBACKS", "depth.segment", f"{DOA}::segment_arguments, classify_arguments, score_grounding",
         "Unusable replies: sentence split; every unit Claim/Other; every grounding 0.", status="code"),
    Rule("DOA-JOINT", "depth.analyse", f"{DOA} (three calls)",
         "Segmentation, classification and grounding are three calls, each in its own context.",
         status="differs"),
    # ---- Novelty ----------------------------------------------------------------------------
    Rule("NOV-PAPER-CONTRIB", "novelty.paper", f"{T1}::build_task1_messages",
         "1-3 contributions (2-3 preferred): deliberate, non-trivial interventions by the authors, "
         "from title, abstract, introduction and conclusion; performance-only items out; duplicates merged.",
         ("1 to 3 (preferably 2 or 3)", "deliberate, non-trivial", "title, abstract, introduction and conclusion",
          "performance or ablations", "merge duplicates")),
    Rule("NOV-PAPER-FIELDS", "novelty.paper", f"{T1}::build_task1_messages",
         "core_task <= 20 words; name <= 10 generic words; quote <= 40 words; description <= 60; "
         "key_terms 5-12; entities named in the paper.",
         ("at most 20 words", "at most 10 words", "at most 40 words", "at most 60 words", "5 to 12")),
    Rule("NOV-NO-INVENT", "novelty.paper", f"{T1}::build_task1_messages",
         "Never invent citations, titles, years, ids or URLs.", ("never invent citations",)),
    Rule("NOV-CLAIM-SCOPE", "novelty.claims", f"{T1}::build_task1_messages",
         "Only novelty statements (incremental, similar to X, main novelty, combines A and B, differs "
         "from prior work); general weaknesses excluded.",
         ("incremental", "similar to", "main novelty", "combines a and b", "unlike prior work",
          "do not list general weaknesses")),
    Rule("NOV-CLAIM-VERBATIM", "novelty.claims", f"{T1}::build_task1_messages, _normalize_novelty_claims",
         "Claim text verbatim from the review, 1-2 sentences; prior-work strings copied as written.",
         ("verbatim from the review, one or two sentences", "as written in the review")),
    Rule("NOV-CLAIM-FIELDS", "novelty.claims", f"{T1}::build_task1_messages, _normalize_novelty_claims",
         "stance, confidence and expected-evidence value sets (unknown values: unclear, low, method_similarity).",
         ("not_novel, somewhat_novel, novel or unclear", "high, medium or low",
          "method_similarity, task_similarity, results_similarity, theory_overlap or dataset_overlap"),
         values={"stances": ("not_novel", "somewhat_novel", "novel", "unclear")}),
    Rule("NOV-CLAIM-EMPTY", "novelty.claims", f"{T1}::build_task1_messages",
         "A review with no novelty claim gives an empty list.", ("empty list",)),
    Rule("NOV-CLAIM-CUT", "novelty.claims", f"{T1}::_limit_sentences, _in_source",
         "The claim is cut at two pieces split on every '.', '!' or '?' and re-joined with spaces, "
         "then must occur in the review: 'e.g.' or a decimal in it drops the claim.", status="differs"),
    Rule("NOV-ONLY-TEXT", "novelty.verdict", f"{T3}::TASK3_INSTRUCTION_PROMPT",
         "Use only the texts provided.", ("use only the texts given",)),
    Rule("NOV-INSUFFICIENT", "novelty.verdict", f"{T3}::TASK3_INSTRUCTION_PROMPT",
         "A claim too vague to check, or evidence missing, gives 'insufficient'.",
         ("too vague to check, or the evidence it would need is missing", "the answer is insufficient"),
         forbidden=("when unsure, answer insufficient",)),
    Rule("NOV-CLASSIFICATION", "novelty.verdict", f"{T3}::TASK3_INSTRUCTION_PROMPT",
         "claim = 1 for a reviewer claim about the reviewed paper; proof = 1 when the sentence gives "
         "evidence or support for a claim about the paper.",
         ("claim about the paper under review", "gives evidence or support for a claim about the paper")),
    Rule("NOV-STANCE", "novelty.verdict", f"{T3}::TASK3_INSTRUCTION_PROMPT, EVIDENCE_SCORE_MAP",
         "aligned / partial / insufficient / contradicted, scored 2 / 1 / 0 / -2.",
         ("aligned: the claim agrees with the related work and is supported by it",
          "partial: there is some relation, but the evidence is inconclusive",
          "insufficient: the claim is vague, or the evidence is missing or cannot be verified",
          "contradicted: the evidence contradicts the claim, or no supporting evidence is found"),
         values={"stance_scores": {"aligned": 2, "partial": 1, "insufficient": 0, "contradicted": -2}}),
    Rule("NOV-CALIBRATION", "novelty.verdict", f"{T3}::TASK3_INSTRUCTION_PROMPT",
         "accurate / overstated / understated / N/A (insufficient evidence to judge).",
         ("accurate (it matches)", "overstated (too strong)", "understated (should have been stronger)",
          "n/a (the evidence is insufficient to judge)"),
         values={"calibrations": ("accurate", "overstated", "understated", "N/A")}),
    Rule("NOV-LABELS", "novelty.verdict", f"{T3}::LABEL_SCORE_MAP",
         "Five labels and scores; the final score is the final label's score. The prompt shows one "
         "example label only.",
         status="differs",
         values={"label_scores": {"SUPPORTED": 2, "OVERSTATED": 1, "AMBIGUOUS": 0, "UNDERSTATED": -1,
                                  "UNSUPPORTED": -2}}),
    Rule("NOV-STANCE-SETS-SCORE", "novelty.verdict", f"{T3}::_normalize_judge_output",
         "A label the code does not know, with a valid stance, becomes the label of the stance's score.",
         ("score and label follow from stance_alignment alone", "aligned gives 2 and supported",
          "partial 1 and overstated", "insufficient 0 and ambiguous", "contradicted -2 and unsupported"),
         forbidden=("understated (-1)",)),
    Rule("NOV-LABEL-PARSE", "novelty.verdict", f"{T3}::_normalize_label",
         "Label: exact upper-case match, else the first label contained as a substring, in the order "
         "SUPPORTED, OVERSTATED, AMBIGUOUS, UNDERSTATED, UNSUPPORTED (--compat reproduces it).",
         status="code"),
    # ---- Flaws ------------------------------------------------------------------------------
    Rule("FLW-UNIT", "flaws.consolidate", f"{FLW}::ReviewEvaluatorPipeline.__init__ (prompt_step1)",
         "Each unique weakness raised across the reviews becomes one micro-flaw.",
         ("every distinct weakness", "one micro-flaw"), forbidden=("request for change",)),
    Rule("FLW-SPLIT", "flaws.consolidate", f"{FLW}::ReviewEvaluatorPipeline.__init__ (prompt_step1)",
         "Different conceptual, methodological or experimental problems are split; only the same "
         "specific problem is grouped; missing baselines A and B are two flaws.",
         ("different conceptual, methodological or experimental problems are separate",
          "same specific problem", "a missing baseline a and a missing baseline b are two flaws")),
    Rule("FLW-GROUP", "flaws.consolidate", f"{FLW}::ReviewEvaluatorPipeline.__init__ (prompt_step1)",
         "Arguments of the same nature or severity should be grouped, even across sections of the paper "
         "(assorted clarity problems form one clarity flaw).",
         ("same nature or the same severity level should be grouped",
          "even when they point at different sections of the paper", "one general clarity flaw"),
         forbidden=("may be grouped",)),
    Rule("FLW-NO-FORCE", "flaws.consolidate", f"{FLW}::ReviewEvaluatorPipeline.__init__ (prompt_step1)",
         "No forced fit: use the 'Other ...' type.", ("never force an argument", '"other ..." type')),
    Rule("FLW-NO-LIMIT", "flaws.consolidate", f"{FLW}::ReviewEvaluatorPipeline.__init__ (prompt_step1)",
         "No cap on the number of flaws; flaws may share a topic.", ("no limit on the number of flaws",)),
    Rule("FLW-TAXONOMY", "flaws.consolidate", f"{FLW}::ReviewEvaluatorPipeline.__init__ (prompt_step1)",
         "Exactly one of 7 topics and its type, written '<n>. <Topic> - <Type>'.",
         ("exactly one topic and one type",),
         values={"topics": ("Novelty & Contribution", "Clarity & Presentation",
                            "Applicability, Scalability & Limitations", "Experimental Design & Evaluation",
                            "Related work & Citations", "Methodology & Theoretical Soundness",
                            "Reproducibility & Open Science")}),
    Rule("FLW-IDS", "flaws.consolidate", f"{FLW}::ReviewEvaluatorPipeline.__init__ (prompt_step1)",
         "raw_arguments keyed by the exact input reviewer ids, each with an exact quote.",
         ("never invent, rename or renumber", "exact quote")),
    Rule("FLW-VALID", "flaws.validate", f"{FLW}::ReviewEvaluatorPipeline.__init__ (prompt_step2)",
         "is_valid false for a hallucination, a misunderstanding or an unreasonable request.",
         ("hallucination", "misreads the paper", "unreasonable")),
    Rule("FLW-SEVERITY-NONE", "flaws.validate", f"{FLW}::ReviewEvaluatorPipeline.__init__ (prompt_step2)",
         "An invalid flaw has severity None; do not guess.", ('"none" for an invalid one', "do not guess"),
         values={"severity_points": {"Critical": 2, "Minor": 1, "None": 0}}),
    Rule("FLW-ONTOLOGY", "flaws.validate", f"{FLW}::ReviewEvaluatorPipeline.__init__ (prompt_step2)",
         "Critical and Minor categories of the severity ontology.",
         ("critical: methodology and theory problems", "minor: clarity and presentation")),
    Rule("FLW-BORDERLINE", "flaws.validate", f"{FLW}::ReviewEvaluatorPipeline.__init__ (prompt_step2)",
         "Critical when the fix needs new experiments, analyses, core equation or proof changes or can "
         "alter the main claims; Minor for textual fixes; when unsure, Minor unless it may invalidate "
         "the conclusions.",
         ("new experiments or analyses", "textual or editorial fix",
          "when unsure, choose minor unless the flaw could plausibly invalidate the conclusions")),
    Rule("FLW-SEVERITY-READ", "flaws.validate", f"{FLW}::MetricsCalculator.__init__, build_cps_issue_bank",
         "A flaw counts only with is_valid exactly true and severity exactly 'Critical' or 'Minor'.",
         status="differs"),
    Rule("FLW-PAPER-FILE", "flaws.validate", f"{FLW}::step2_judge_flaws (paper text given by its caller)",
         "The paper text checked against is the original's paper file, cut at 45,000 characters.",
         status="differs"),
    Rule("FLW-MAP", "flaws.map", f"{FLW}::get_cps_mapping_prompt",
         "Bank ids only; first-appearance order, each issue once; unmatched sentences, praise, neutral "
         "summaries and non-critique questions skipped; the review's own section; a verbatim 5-20 word "
         "anchor; a 1-2 sentence paraphrase.",
         ("only issue ids from the bank", "in the order the review raises them", "once",
          "5 to 20 words copied verbatim", "one or two sentence paraphrase", "questions that raise no issue")),
    # ---- Constructiveness -------------------------------------------------------------------
    Rule("CON-SPLIT", "constructiveness.arc", f"{CON}::SYSTEM_PROMPT",
         "One point per ARC; two critiques in one sentence are two ARCs.",
         ("one arc = one point", "two separate critiques, make two arcs"),
         forbidden=("spans several sentences, keep it as one arc",)),
    Rule("CON-COVER", "constructiveness.arc", f"{CON}::SYSTEM_PROMPT",
         "Every distinct point of the Summary, Strengths, Weaknesses, Questions and Suggestions.",
         ("summary, strengths, weaknesses, questions and suggestions",)),
    Rule("CON-SCORE-LINES", "constructiveness.arc", f"{CON}::SYSTEM_PROMPT",
         "The original lists no score or rating lines among the points; the project counts them.",
         ("score or rating lines",), status="differs"),
    Rule("CON-MIN1", "constructiveness.arc", f"{CON}::SYSTEM_PROMPT",
         "At least one ARC for a non-empty review.", ("at least one arc",)),
    Rule("CON-ANCHOR", "constructiveness.arc", f"{CON}::SYSTEM_PROMPT",
         "anchor_quote: 5-25 words copied exactly from the review.", ("5 to 25 consecutive words copied exactly",)),
    Rule("CON-TYPES", "constructiveness.arc", f"{CON}::SYSTEM_PROMPT, _validate_arc",
         "comment_type among five values (anything else: observation).",
         ('"weakness", "strength", "question", "suggestion", "observation"',),
         values={"types": ("weakness", "strength", "question", "suggestion", "observation")}),
    Rule("CON-D1", "constructiveness.arc", f"{CON}::SYSTEM_PROMPT",
         "D1: 0 opinion without guidance, 1 general direction, 2 specific implementable action.",
         ("0: an opinion with no guidance", "1: a general direction", "2: a specific action")),
    Rule("CON-D2", "constructiveness.arc", f"{CON}::SYSTEM_PROMPT",
         "D2: 0 vague, 1 semi-specific (a section or area), 2 pinpoints an exact element.",
         ("0: vague", "1: semi-specific", "2: pinpoints an exact element")),
    Rule("CON-D3", "constructiveness.arc", f"{CON}::SYSTEM_PROMPT",
         "D3: 0 bare assertion, 1 partial reasoning, 2 full evidence.",
         ("0: a bare assertion", "1: partial reasoning", "2: full evidence")),
    Rule("CON-D4", "constructiveness.arc", f"{CON}::SYSTEM_PROMPT",
         "D4: 0 problem only, 1 implicit fix, 2 explicit fix.",
         ("0: states the problem only", "1: the fix is implicit", "2: an explicit fix")),
    Rule("CON-D4-IMPLICIT", "constructiveness.arc", f"{CON}::SYSTEM_PROMPT (D4 level 1 example)",
         "Saying that something is lacking implies the fix (adding it): D4 = 1.",
         ("saying what is missing implies adding it",)),
    Rule("CON-D5", "constructiveness.arc", f"{CON}::SYSTEM_PROMPT",
         "D5: 0 hostile or dismissive, 1 neutral and factual, 2 professional-constructive, encouraging.",
         ("0: hostile or dismissive", "1: neutral, factual", "2: professional-constructive, encouraging")),
    Rule("CON-D5-EXAMPLES", "constructiveness.arc", f"{CON}::SYSTEM_PROMPT",
         "The original gives examples for D1-D4 levels and none for D5; the project adds D5 examples.",
         status="differs"),
    Rule("CON-TEMPLATE", "constructiveness.arc", f"{CON}::SYSTEM_PROMPT (output template)",
         "The output template shows D1 1, D2 2, D3 1, D4 0, D5 2.",
         ('"d1_actionability": 1, "d2_specificity": 2, "d3_justification": 1, "d4_solution": 0, "d5_tone": 2',)),
    Rule("CON-CLAMP", "constructiveness.arc", f"{CON}::_validate_arc",
         "Scores rounded and clamped to 0-2; a missing or non-numeric score becomes 0.", status="code",
         values={"scores": (0, 1, 2)}),
)

def by_id() -> dict[str, Rule]:
    """The rules keyed by id."""
    return {r.id: r for r in RULES}


def step_prompts() -> dict[str, list[str]]:
    """Every prompt text that carries each step's rules (the three-step DoA prompts and the
    one-call prompt; every verdict variant shares ``VERDICT_RULES``)."""
    from prism_review.judge.constructiveness import prompt as arc
    from prism_review.judge.depth import prompts as depth
    from prism_review.judge.flaws import prompts as flaws
    from prism_review.judge.flaws.taxonomy import taxonomy_text
    from prism_review.judge.novelty import prompts as novelty

    consolidate = flaws.CONSOLIDATE_SYSTEM.format(taxonomy=taxonomy_text(), ids="R1, R2")
    return {
        "depth.segment": [depth.SEGMENT_SYSTEM, depth.SELECT_SYSTEM, depth.ANALYSE_SYSTEM],
        "depth.classify": [depth.CLASSIFY_SYSTEM, depth.ANALYSE_SYSTEM],
        "depth.ground": [depth.GROUND_SYSTEM, depth.ANALYSE_SYSTEM],
        "depth.analyse": [depth.ANALYSE_SYSTEM],
        "novelty.paper": [novelty.PAPER_SYSTEM + "\n" + novelty.PAPER_USER],
        "novelty.claims": [novelty.CLAIMS_SYSTEM + "\n" + novelty.CLAIMS_USER],
        "novelty.verdict": [novelty.VERDICT_SYSTEM + "\n" + novelty.VERDICT_RULES],
        "flaws.consolidate": [consolidate],
        "flaws.validate": [flaws.VALIDATE_SYSTEM],
        "flaws.map": [flaws.MAP_SYSTEM, flaws.MAP_BATCH_SYSTEM],
        "constructiveness.arc": [arc.SYSTEM],
    }


def folded(text: str) -> str:
    """Text as markers are matched: whitespace runs folded to one space, lower case."""
    return " ".join(text.split()).lower()
