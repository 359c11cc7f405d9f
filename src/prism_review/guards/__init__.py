"""What every reader of user input shares, below every package that reads it (``data``,
``systems``, ``llm``, ``retrieval``): the input error that names file, row and field
(:mod:`.errors`), the size and parse limits (:mod:`.limits`) and the containment of paths in
the data root (:mod:`.safepath`). It imports nothing of prism_review's."""
