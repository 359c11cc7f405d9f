"""The stop words come from scikit-learn on first use; loading every dimension imports no sklearn.

(A ``prism evaluate`` process, the driver and each ``--workers`` process, lists all dimensions'
settings; importing scikit-learn there cost ~2.5 s of CPU per process.)
"""

from __future__ import annotations

import subprocess
import sys

from prism_review.judge.novelty.closeness import subject_terms
from prism_review.judge.novelty.paper_side import fallback_key_terms
from prism_review.judge.novelty.stopwords import english_stop_words


def test_the_stop_words_are_sklearn_s() -> None:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    assert english_stop_words() == ENGLISH_STOP_WORDS
    assert subject_terms("We would rather use a graph neural network") == [
        "use", "graph", "neural", "network"]  # we, would, rather, a: sklearn stop words
    terms = fallback_key_terms("graph neural network graph neural network whereas whereas", "")
    assert terms == ["graph neural network", "graph neural", "neural network"]


def test_loading_every_dimension_and_the_engines_imports_no_sklearn() -> None:
    code = (
        "import sys\n"
        "from prism_review.dimensions.base import all_setting_specs\n"
        "import prism_review.pipelines.runner, prism_review.pipelines.process_engine\n"
        "import prism_review.cli.evaluate\n"
        "all_setting_specs()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
