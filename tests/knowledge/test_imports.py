"""Imports through the management commands: real files, idempotency, atomic failure."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from knowledge.models import Graph, ImportSource, Node, Question, QuestionSet, Statement, StatementSet, Triple
from tests.conftest import FIXTURES, shared_file

pytestmark = pytest.mark.django_db


def _counts() -> tuple[int, ...]:
    return (
        Graph.objects.count(),
        Node.objects.count(),
        Triple.objects.count(),
        ImportSource.objects.count(),
        QuestionSet.objects.count(),
        Question.objects.count(),
        StatementSet.objects.count(),
        Statement.objects.count(),
    )


def _cmd(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_atomic_real_file_gives_14001_triples() -> None:
    path = shared_file("atomic2020_sample/atomic2020_triples.tsv")
    out = _cmd("import_graph", str(path), "--name", "atomic", "--format", "atomic-tsv")
    g = Graph.objects.get(name="atomic")
    assert g.triple_count == Triple.objects.filter(graph=g).count() == 14_001
    distinct = {p for line in path.read_text().splitlines() for p in (line.split("\t")[0], line.split("\t")[2])}
    assert g.node_count == len(distinct)
    assert "14,001 triples" in out
    t = Triple.objects.select_related("head", "tail", "relation", "source").get(graph=g, source_line=1)
    assert (t.head.text, t.relation.name, t.tail.text) == (
        "PersonX takes things for granted",
        "xNeed",
        "to have been lazy at work",
    )
    assert t.source.filename == "atomic2020_triples.tsv"


def test_ckbp_real_file_gives_22212_triples_with_labels() -> None:
    path = shared_file("ckbp_eval/evaluation_set.csv")
    _cmd("import_graph", str(path), "--name", "ckbp", "--format", "cskb-csv")
    g = Graph.objects.get(name="ckbp")
    assert g.triple_count == 22_212
    assert Triple.objects.filter(graph=g, plausibility=1.0).count() == 11_496
    assert Triple.objects.filter(graph=g, plausibility=0.0).count() == 10_716
    t = Triple.objects.get(graph=g, source_line=2)
    assert t.extra == {"class": "cs_head", "split": "tst"}


def test_statements_real_file_gives_3026() -> None:
    out = _cmd(
        "import_statements",
        str(shared_file("commonsense_statements/statements_human_and_model_binary.csv")),
        "--name",
        "nww",
    )
    s = StatementSet.objects.get(name="nww")
    assert s.statements.count() == s.statement_count == 3_026
    assert len(s.models_answered) == 35
    assert "3,026 statements" in out
    mean = sum(x.human_majority for x in s.statements.all()) / 3026
    assert abs(mean - 0.661) < 0.001  # SOURCE.md: mean human_q1 in this slice


def test_csqa_real_file_gives_889() -> None:
    _cmd(
        "import_questions",
        str(shared_file("commonsenseqa_dev/dev_rand_split.jsonl")),
        "--name",
        "csqa",
        "--format",
        "csqa",
    )
    qs = QuestionSet.objects.get(name="csqa")
    assert qs.questions.count() == 889
    assert all(len(q.options) == 5 and q.answer_index is not None for q in qs.questions.all())


def test_rica_imports_keep_groups() -> None:
    _cmd(
        "import_questions",
        str(shared_file("rica/human_curated_test.tsv")),
        "--name",
        "rica-p",
        "--format",
        "rica-probes",
    )
    _cmd(
        "import_questions",
        str(shared_file("rica/RICA_10k_axiom2set.jsonl")),
        "--name",
        "rica-a",
        "--format",
        "rica-axioms",
    )
    assert Question.objects.filter(question_set__name="rica-p").count() == 1047
    axioms = Question.objects.filter(question_set__name="rica-a")
    assert axioms.values("group").distinct().count() > 900


def test_reimport_is_idempotent_and_nodes_are_shared_across_files() -> None:
    path = FIXTURES / "atomic2020_demo.tsv"
    _cmd("import_graph", str(path), "--name", "g", "--format", "atomic-tsv")
    before = _counts()
    out = _cmd("import_graph", str(path), "--name", "g", "--format", "atomic-tsv")
    assert _counts() == before
    assert "already imported" in out
    _cmd("import_statements", str(FIXTURES / "statements_demo.csv"), "--name", "s")
    _cmd("import_statements", str(FIXTURES / "statements_demo.csv"), "--name", "s")
    assert StatementSet.objects.get(name="s").statements.count() == 1000


def test_second_file_reuses_existing_nodes(tmp_path: Path) -> None:
    a = tmp_path / "a.tsv"
    a.write_text("PersonX eats\txWant\tto sleep\n")
    b = tmp_path / "b.tsv"
    b.write_text("PersonX eats\txEffect\tgets full\nto sleep\tisAfter\tPersonX eats\n")
    _cmd("import_graph", str(a), "--name", "g", "--format", "atomic-tsv")
    _cmd("import_graph", str(b), "--name", "g", "--format", "atomic-tsv")
    g = Graph.objects.get(name="g")
    assert (g.triple_count, g.node_count) == (3, 3)


MALFORMED = {
    "columns.tsv": (b"a\txWant\tb\nc\txWant\n", "columns.tsv, line 2: expected 3 tab-separated columns"),
    "relation.tsv": (b"a\txWant\tb\nc\tLikes\td\n", "relation.tsv, line 2, field 'relation': unknown relation 'Likes'"),
    "encoding.tsv": (b"a\txWant\tb\nc\xff\txWant\td\n", "encoding.tsv, line 2: not valid UTF-8"),
    "empty.tsv": (b"", "empty.tsv: file is empty"),
    "huge.tsv": (b"a\txWant\tb\n" + b"z" * 1_500_000 + b"\n", "huge.tsv, line 2: line longer than"),
}


@pytest.mark.parametrize("fname", sorted(MALFORMED))
def test_malformed_graph_file_changes_nothing(tmp_path: Path, fname: str) -> None:
    _cmd("import_graph", str(FIXTURES / "atomic2020_demo.tsv"), "--name", "g", "--format", "atomic-tsv")
    before = _counts()
    content, message = MALFORMED[fname]
    p = tmp_path / fname
    p.write_bytes(content)
    with pytest.raises(CommandError) as err:
        _cmd("import_graph", str(p), "--name", "g", "--format", "atomic-tsv")
    assert message in str(err.value)
    assert "nothing was stored" in str(err.value)
    assert _counts() == before


def test_failure_after_writes_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash in the middle of the writes leaves no partial graph behind."""
    import knowledge.services.graph_imports as services

    real = services.insert_rows
    calls = {"n": 0}

    def flaky(table: str, *args: object, **kwargs: object) -> int:
        calls["n"] += 1
        if table == Triple._meta.db_table:
            raise RuntimeError("disk full")
        return real(table, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(services, "insert_rows", flaky)
    before = _counts()
    with pytest.raises(RuntimeError):
        _cmd("import_graph", str(FIXTURES / "atomic2020_demo.tsv"), "--name", "g", "--format", "atomic-tsv")
    assert calls["n"] == 2  # nodes were written, then the triples failed
    assert _counts() == before


def test_malformed_statements_and_questions_change_nothing(tmp_path: Path) -> None:
    before = _counts()
    bad = tmp_path / "s.csv"
    bad.write_text("statement,behavior\nhello,1\n")
    with pytest.raises(CommandError, match="s.csv, line 1, field 'everyday': header lacks"):
        _cmd("import_statements", str(bad), "--name", "s")
    badq = tmp_path / "q.jsonl"
    badq.write_text(
        '{"id":"1","question":"Q?","choices":{"label":["A","B"],"text":["a","b"]},"answerKey":"A"}\n{"id":"2"}\n'
    )
    with pytest.raises(CommandError, match="q.jsonl, line 2, field 'choices'"):
        _cmd("import_questions", str(badq), "--name", "q", "--format", "csqa")
    assert _counts() == before


def test_name_clash_is_refused(tmp_path: Path) -> None:
    _cmd("import_questions", str(FIXTURES / "csqa_demo.jsonl"), "--name", "q", "--format", "csqa")
    other = tmp_path / "other.jsonl"  # a different file under the same name
    other.write_text("\n".join((FIXTURES / "csqa_demo.jsonl").read_text().splitlines()[:5]) + "\n")
    with pytest.raises(CommandError, match="a set named 'q' already exists"):
        _cmd("import_questions", str(other), "--name", "q", "--format", "csqa")
    assert QuestionSet.objects.get(name="q").questions.count() == 300


def test_seed_demo_is_idempotent() -> None:
    _cmd("seed_demo", "--no-accounts")
    before = _counts()
    _cmd("seed_demo", "--no-accounts")
    assert _counts() == before
    assert Graph.objects.get(name="ckbp-demo").triple_count == 6000


def _pg_schema() -> list[tuple[str, ...]]:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute(
            "SELECT 'index', indexname, indexdef FROM pg_indexes WHERE tablename IN ('knowledge_node', 'knowledge_triple') "
            "UNION ALL SELECT 'constraint', conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid IN ('knowledge_node'::regclass, 'knowledge_triple'::regclass) ORDER BY 1, 2"
        )
        return [tuple(r) for r in cur.fetchall()]


def test_postgres_large_import_rebuilds_indexes_and_foreign_keys(tmp_path: Path) -> None:
    """PostgreSQL: a large import drops the secondary indexes and foreign keys of the node and triple
    tables and re-creates them (validating every row); afterwards the schema is exactly as before,
    the foreign keys are enforced, and a failed import leaves it as it was too."""
    from django.db import IntegrityError, connection, transaction

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL index and foreign-key rebuild")
    schema = _pg_schema()
    assert any(kind == "constraint" and "FOREIGN KEY (head_id)" in sql for kind, _, sql in schema)
    _cmd("import_graph", str(FIXTURES / "atomic2020_demo.tsv"), "--name", "g", "--format", "atomic-tsv")
    assert _pg_schema() == schema
    assert Triple.objects.exists()
    t = Triple.objects.first()
    assert t is not None
    with pytest.raises(IntegrityError), transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("SET CONSTRAINTS ALL IMMEDIATE")  # deferred: checked now, not at the test's end
        Triple.objects.filter(pk=t.pk).update(head_id=10**9)
    with connection.cursor() as cur:
        cur.execute("SET CONSTRAINTS ALL DEFERRED")
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\txWant\tb\n")
    import knowledge.services.graph_imports as services

    real = services.graph_stats_after_import

    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError("crash after the rebuild")

    services.graph_stats_after_import = fail  # type: ignore[assignment]
    try:
        before = _counts()
        with pytest.raises(RuntimeError):
            _cmd("import_graph", str(bad), "--name", "other", "--format", "atomic-tsv")
    finally:
        services.graph_stats_after_import = real
    assert _counts() == before
    assert _pg_schema() == schema
