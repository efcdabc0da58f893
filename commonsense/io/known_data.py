"""What an imported file is and under which licence it may be republished: the public data sets
cocoweb ships subsets of (``fixtures/NOTICE.md``) or reads beside it (``../shared/data/*/SOURCE.md``).

A file is recognised with certainty by its content hash (the shipped and the shared slices), else
only by its format, which says the layout, not the origin: a dataset card then asks the publisher
to confirm the licence. A file of an unknown format or layout stays unknown."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class KnownData:
    name: str
    licences: tuple[str, ...]  # Hugging Face licence ids ("cc-by-4.0", "mit"), or ("unknown",)
    licence_note: str
    cite: str
    url: str


ATOMIC2020 = KnownData(
    "ATOMIC-2020",
    ("cc-by-4.0",),
    "CC BY 4.0 (the ATOMIC-2020 data; the COMET-ATOMIC 2020 code is Apache 2.0)",
    'Hwang et al., "(Comet-) ATOMIC 2020: On Symbolic and Neural Commonsense Knowledge Graphs", AAAI 2021',
    "https://github.com/allenai/comet-atomic-2020",
)
CSKB_POPULATION = KnownData(
    "CSKB-Population evaluation set",
    ("mit", "cc-by-4.0"),
    "MIT, Copyright (c) 2021 HKUST-KnowComp; its test_set rows come from ATOMIC-2020 (CC BY 4.0)",
    'Fang et al., "Benchmarking Commonsense Knowledge Base Population with an Effective Evaluation Dataset", '
    "EMNLP 2021",
    "https://github.com/HKUST-KnowComp/CSKB-Population",
)
COMMONSENSEQA = KnownData(
    "CommonsenseQA",
    ("mit",),
    "MIT (per the tau/commonsense_qa dataset card)",
    'Talmor et al., "CommonsenseQA: A Question Answering Challenge Targeting Commonsense Knowledge", NAACL 2019',
    "https://huggingface.co/datasets/tau/commonsense_qa",
)
STATEMENTS = KnownData(
    "Commonsense statements (Whiting & Watts)",
    ("mit",),
    "MIT, Copyright (c) 2025 Computational Social Science Lab",
    'Nguyen, Watts & Whiting, "Empirically evaluating commonsense intelligence in large language models with '
    'large-scale human judgments"; Whiting & Watts, PNAS 2024',
    "https://github.com/Watts-Lab/commonsense-llm-eval",
)
RICA = KnownData(
    "RICA",
    ("unknown",),
    "none stated by the authors (no LICENSE file): do not redistribute without their permission",
    'Zhou et al., "RICA: Evaluating Robust Inference Capabilities Based on Commonsense Axioms", EMNLP 2021',
    "https://github.com/INK-USC/RICA",
)

# sha256 of the files in fixtures/ and ../shared/data/ (tests/commonsense/test_publish.py checks them)
BY_HASH: dict[str, KnownData] = {
    "8386ef4abdff5ae11d7e2253ac645b7acf7b6e8e09855d7d506e6d99896da963": ATOMIC2020,  # fixtures/atomic2020_demo.tsv
    "ff3971cfe2553a9fd4ebfae3ada80260776d1590f54c4da4d7ace6236868eccb": ATOMIC2020,  # atomic2020_triples.tsv
    "708e046b3e1be97b9f83bc03b5d34f42a526962589477e7b4951e115719207ae": CSKB_POPULATION,  # fixtures/ckbp_demo.csv
    "528cca51cb8f8e34dbcf6f92e8935188ea93970eaa7258549e7f8fec9d6b51e7": CSKB_POPULATION,  # evaluation_set.csv
    "10dad8b0cc97954e788362aa86e25a5d7c158dd21bd867832d1d754cb56fbfb0": COMMONSENSEQA,  # fixtures/csqa_demo.jsonl
    "3c96f34ffed02fff1edf2023a999f924396fcef1c6f138f52e41d87db79b52d7": COMMONSENSEQA,  # dev_rand_split.jsonl
    "d8e57e5cab2366ee52324d671d3a46d08aac04e7b3593116fe79d72cb90b0645": STATEMENTS,  # fixtures/statements_demo.csv
    "4f33137ab6eabfa2e4160eb98cdd5cd0e27954eaf731dd8991d846239e996b86": STATEMENTS,  # statements_human_and_model…
    "00a4689843b6942831b26d2716e4396a5d33228810e57200cea984368410cceb": RICA,  # RICA_10k_axiom2set.jsonl
    "d35f6f87c3ca37eb4616800ee867cf3d94c50f0bd345183a16507da207578ad4": RICA,  # human_curated_test.tsv
}
BY_FORMAT: dict[str, KnownData] = {
    "atomic-tsv": ATOMIC2020,
    "cskb-csv": CSKB_POPULATION,
    "csqa": COMMONSENSEQA,
    "rica-probes": RICA,
    "rica-axioms": RICA,
}


def known_data(sha256: str, fmt: str) -> tuple[KnownData | None, str]:
    """``(data set, how it was recognised)``: ``"content hash"``, ``"format"`` or ``""`` (unknown)."""
    if sha256 in BY_HASH:
        return BY_HASH[sha256], "content hash"
    if fmt in BY_FORMAT:
        return BY_FORMAT[fmt], "format"
    return None, ""
