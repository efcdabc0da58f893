"""CoCo Table 3 Average (golden: every row of the paper's Table 3), Table 4 marks (golden: the
paper's Mistral-7B MEM row against its MEMSCORE) and the error-category rule by hand."""

from __future__ import annotations

import pytest

from commonsense.metrics.coco_tables import error_category, five_average, marks

# CoCo Table 3: (MEM, COM, REA, FAI, APP, Average)
TABLE_3 = [
    (90.53, 94.43, 87.80, 90.25, 93.46, 91.29),
    (60.88, 78.67, 52.35, 42.94, 68.18, 60.60),
    (62.77, 79.35, 52.82, 44.34, 69.65, 61.79),
    (61.55, 79.93, 54.32, 45.91, 71.48, 62.64),
    (63.74, 80.66, 50.53, 40.37, 61.21, 59.30),
    (64.26, 80.89, 50.88, 42.29, 62.89, 60.24),
    (63.88, 81.26, 52.87, 43.81, 64.59, 61.28),
    (59.52, 79.37, 48.76, 40.18, 58.52, 57.27),
    (58.35, 80.24, 48.95, 41.16, 58.97, 57.53),
    (60.87, 80.90, 51.37, 43.06, 60.94, 59.43),
    (66.48, 82.74, 56.16, 44.00, 68.26, 63.53),
    (65.25, 82.86, 57.00, 45.32, 70.75, 64.24),
    (66.42, 83.52, 58.73, 46.97, 71.43, 65.41),
    (67.83, 81.22, 56.99, 44.10, 69.36, 63.90),
    (68.00, 81.88, 58.20, 45.53, 70.52, 64.83),
    (68.95, 82.37, 59.67, 48.87, 73.64, 66.70),
    (75.25, 85.96, 62.87, 46.97, 72.38, 68.69),
    (77.62, 85.20, 65.78, 49.52, 74.96, 70.62),
    (75.78, 86.25, 67.19, 51.63, 76.07, 71.38),
    (79.81, 87.37, 65.16, 49.68, 75.12, 71.43),
    (81.54, 88.63, 66.64, 52.57, 76.17, 73.11),
    (81.66, 89.18, 68.84, 55.49, 80.44, 75.12),
]


@pytest.mark.parametrize("row", TABLE_3)
def test_average_reproduces_table_3(row: tuple[float, ...]) -> None:
    assert five_average(*row[:5]) == pytest.approx(row[5], abs=0.006)


def test_average_needs_all_five() -> None:
    assert five_average(1, 1, 1, 1, None) is None


def test_table_4_marks_mistral_memorization() -> None:
    rels = ["oEffect", "oReact", "oWant", "xAttr", "xEffect", "xIntent", "xNeed", "xReact", "xWant"]
    mem = [52.1, 65.7, 51.9, 57.4, 55.9, 78.6, 66.8, 64.5, 55.2]
    got = marks(dict(zip(rels, mem, strict=True)), 60.88)
    assert got == {
        "oEffect": "↓",
        "oReact": "↑",
        "oWant": "↓",
        "xAttr": "↓",
        "xEffect": "↓",
        "xIntent": "↑",
        "xNeed": "↑",
        "xReact": "↑",
        "xWant": "↓",
    }
    assert marks({"a": 0.5, "b": None}, 0.5) == {"a": "="}
    assert marks({"a": 1.0}, None) == {}


def test_error_category_rule() -> None:
    assert error_category(2, 2, "C") is None
    assert error_category(1, 2, "B") == "Reasoning Error"
    assert error_category(None, 2, "") == "No Answer"
    assert error_category(None, 2, "I cannot answer this.") == "No Answer"
    assert error_category(None, 2, "None of them") == "No Answer"
    assert error_category(None, 2, "to go home and sleep") == "Hallucination"
