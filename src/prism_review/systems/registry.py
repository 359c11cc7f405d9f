"""The canonical reviewer-system registry: one id and one on-disk folder per system.

TreeReview's id is ``treereview`` and its folder is ``tree`` (the original code mixed the two,
risk O2). Look systems up by id or folder name; unknown names raise ``KeyError``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class SystemSpec(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    folder: str
    label: str
    is_human: bool = False
    #: reviewer id given to this system's review(s) in pooled, multi-reviewer steps
    reviewer_key: str = "LLM_Reviewer"


SYSTEMS: dict[str, SystemSpec] = {
    s.id: s
    for s in [
        SystemSpec(id="human", folder="human_reviews", label="Human", is_human=True, reviewer_key="Human"),
        SystemSpec(id="sea", folder="sea", label="SEA"),
        SystemSpec(id="reviewer2", folder="reviewer2", label="Reviewer2"),
        SystemSpec(id="treereview", folder="tree", label="TreeReview"),
        SystemSpec(id="deepreview", folder="deepreview", label="DeepReview"),
        SystemSpec(id="cyclereview", folder="cyclereview", label="CycleReview"),
    ]
}

LLM_SYSTEMS = [s for s in SYSTEMS if s != "human"]


def get_system(name: str) -> SystemSpec:
    """Find a system by id (``treereview``), folder (``tree``) or label (``TreeReview``)."""
    low = name.strip().lower()
    for spec in SYSTEMS.values():
        if low in {spec.id, spec.folder.lower(), spec.label.lower()}:
            return spec
    raise KeyError(f"unknown reviewer system {name!r}; known systems: {', '.join(SYSTEMS)}")


def register_system(spec: SystemSpec) -> None:
    """Add a bring-your-own system. Duplicate ids raise ``ValueError``."""
    if spec.id in SYSTEMS:
        raise ValueError(f"reviewer system {spec.id!r} is already registered")
    SYSTEMS[spec.id] = spec
