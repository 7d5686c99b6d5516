"""Judge calibration: agreement with human labels, few-shot calibration, label import.

- `agreement`: confusion matrix, accuracy, Cohen's kappa, true-pass / true-fail rates (pure math);
- `labels`: human labels from the store's overrides paired with each judge's own verdicts;
- `fewshot`: train/dev/test splits by case and balanced, seeded example selection;
- `calibrate`: examples into the judge prompt, re-judge the held-out part, before vs after;
- `label_import`: labels in bulk from CSV through the override path.
"""

from sage_desk.core.calibration.agreement import MIN_LABELS, Agreement, Confusion, cohen_kappa
from sage_desk.core.calibration.calibrate import (
    BASELINE_MESSAGE,
    BeforeAfter,
    CalibrationCancelled,
    CalibrationResult,
    calibrate,
    calibrate_async,
)
from sage_desk.core.calibration.fewshot import Example, Selection, select_examples, split_of
from sage_desk.core.calibration.labels import (
    NO_LABELS_HINT,
    CalibrationReport,
    CriterionRow,
    HumanLabel,
    LabelledItem,
    calibration_report,
    human_labels,
    labelled_items,
)

__all__ = [
    "BASELINE_MESSAGE",
    "MIN_LABELS",
    "NO_LABELS_HINT",
    "Agreement",
    "BeforeAfter",
    "CalibrationCancelled",
    "CalibrationReport",
    "CalibrationResult",
    "Confusion",
    "CriterionRow",
    "Example",
    "HumanLabel",
    "LabelledItem",
    "Selection",
    "calibrate",
    "calibrate_async",
    "calibration_report",
    "cohen_kappa",
    "human_labels",
    "labelled_items",
    "select_examples",
    "split_of",
]
