"""The papers' metrics as pure functions (no Django): accuracy, CoCo, NWW, RICA, ReComSBench.

Modules: ``bootstrap`` (Estimate, seeded vectorised percentile intervals), ``accuracy``, ``coco``
and ``consistency`` (CoCo), ``nww`` and ``nww_compare`` (commonsensicality), ``rica``, ``recoms``.
Inter-annotator agreement lives in :mod:`commonsense.agreement`.
"""

from .accuracy import AccuracyReport, GroupedAccuracy, accuracy, accuracy_by, accuracy_report, macro_accuracy
from .bootstrap import Estimate, macro_ci, mean_ci, ratio_ci
from .coco import (
    CocoAnswer,
    CocoReport,
    CocoScores,
    CocoSets,
    assemble_sets,
    coco_report,
    coco_scores_by_aspect,
    coco_scores_macro,
    coco_scores_micro,
)
from .consistency import SetConsistency, consistency_table, set_consistency
from .nww import (
    RaterScores,
    RespondentScores,
    StatementScores,
    binarise,
    human_majority,
    rater_scores,
    respondent_scores,
    scores_from_rates,
    silicon_population,
    statement_scores,
)
from .nww_compare import Correlation, Fidelity, Percentile, pearson, respondent_percentile, silicon_fidelity
from .recoms import (
    EasyHard,
    PriorKnowledge,
    ReasoningPath,
    Window,
    easy_hard,
    knowledge_coverage_ratio,
    knowledge_redundancy_ratio,
    marginal_sampling_gain,
    pass_at_k,
    sampling_budget,
    select_prior_knowledge,
    sliding_windows,
    window_bounds,
)
from .recoms_report import MannWhitney, RecomsItem, RecomsReport, WindowScores, recoms_report
from .rica import AxiomResult, RicaProbe, RicaReport, rica_report

__all__ = [
    "AccuracyReport",
    "AxiomResult",
    "CocoAnswer",
    "CocoReport",
    "CocoScores",
    "CocoSets",
    "Correlation",
    "EasyHard",
    "Estimate",
    "Fidelity",
    "GroupedAccuracy",
    "Percentile",
    "PriorKnowledge",
    "RaterScores",
    "ReasoningPath",
    "RespondentScores",
    "RicaProbe",
    "RicaReport",
    "SetConsistency",
    "StatementScores",
    "Window",
    "accuracy",
    "accuracy_by",
    "accuracy_report",
    "assemble_sets",
    "binarise",
    "coco_report",
    "coco_scores_by_aspect",
    "coco_scores_macro",
    "coco_scores_micro",
    "consistency_table",
    "easy_hard",
    "human_majority",
    "knowledge_coverage_ratio",
    "knowledge_redundancy_ratio",
    "macro_accuracy",
    "macro_ci",
    "marginal_sampling_gain",
    "mean_ci",
    "pass_at_k",
    "pearson",
    "rater_scores",
    "ratio_ci",
    "respondent_percentile",
    "respondent_scores",
    "rica_report",
    "sampling_budget",
    "scores_from_rates",
    "select_prior_knowledge",
    "set_consistency",
    "silicon_fidelity",
    "silicon_population",
    "sliding_windows",
    "statement_scores",
    "MannWhitney",
    "RecomsItem",
    "RecomsReport",
    "WindowScores",
    "recoms_report",
    "window_bounds",
]
