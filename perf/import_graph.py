"""Graph import benchmark (issue 2).

Synthesizes an ATOMIC-2020-sized graph (1.33 M triples, relation mix and string lengths of
../shared/data/atomic2020_sample, via perf/synth_graph.py), imports it with cocoweb's bulk
importer into SQLite and into PostgreSQL, and compares with a naive per-row ORM import of a
20k-triple slice. Every measurement runs in a fresh subprocess on a fresh database, so peak
memory (ru_maxrss) is that import's own.

    .venv/bin/python perf/import_graph.py [--triples 1330000] [--naive 20000] [--no-postgres]

"seconds" is wall time; "CPU s" the importing process's own CPU time (on PostgreSQL the server's
work is not in it), which depends less on what else runs on the machine.

PostgreSQL: uses $BENCH_DATABASE_URL if set, else starts a throwaway server from Debian's
packages on 127.0.0.1 with scripts/services.sh (and stops it at the end).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _django(db_url: str, var_dir: str) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "cocoweb.settings"
    os.environ["DJANGO_DEBUG"] = "false"
    os.environ["DJANGO_SECRET_KEY"] = "bench-only"
    os.environ["COCOWEB_VAR_DIR"] = var_dir
    if db_url:
        os.environ["DATABASE_URL"] = db_url
    else:  # SQLite: not whatever server a DATABASE_URL in the caller's environment names
        os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def worker(mode: str, path: str, db_url: str, var_dir: str, naive_n: int) -> None:
    """Runs in a subprocess: one import, prints a JSON line with its figures."""
    _django(db_url, var_dir)
    from django.db import connection, transaction

    t0, c0 = time.perf_counter(), time.process_time()
    if mode == "bulk":
        from knowledge.services.imports import graph_import

        result = graph_import(path, name="bench", fmt="atomic-tsv")
        n = result.triples_added
    else:  # naive: the textbook per-row ORM loop, one transaction, same validation via the reader
        from commonsense.io.triples import read_atomic_tsv
        from knowledge.models import Graph, ImportSource, Node, Relation, Triple

        with transaction.atomic():
            graph = Graph.objects.create(name="naive")
            source = ImportSource.objects.create(graph=graph, filename=Path(path).name, sha256="x", format="atomic-tsv")
            n = 0
            for rec in read_atomic_tsv(path):
                if n >= naive_n:
                    break
                head, _ = Node.objects.get_or_create(graph=graph, text=rec.head)
                tail, _ = Node.objects.get_or_create(graph=graph, text=rec.tail)
                rel, _ = Relation.objects.get_or_create(name=rec.relation)
                Triple.objects.create(
                    graph=graph, head=head, relation=rel, tail=tail, source=source, source_line=rec.line
                )
                n += 1
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {"mode": mode, "vendor": connection.vendor, "triples": n, "seconds": secs, "cpu": cpu, "peak_mb": peak_mb}
        )
    )


def run_worker(mode: str, path: Path, db_url: str, naive_n: int) -> dict[str, float]:
    var_dir = tempfile.mkdtemp(prefix="cocoweb-bench-")
    try:
        if db_url.startswith("postgres"):
            _reset_pg(db_url)
        out = subprocess.run(
            [sys.executable, __file__, "--worker", mode, str(path), db_url, var_dir, str(naive_n)],
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]
    except subprocess.CalledProcessError as exc:
        sys.exit(f"{mode} import failed:\n{exc.stderr[-3000:]}")
    finally:
        shutil.rmtree(var_dir, ignore_errors=True)


def _reset_pg(db_url: str) -> None:
    import psycopg

    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")


def _start_pg() -> tuple[str, str] | None:
    script = (
        f"source {ROOT}/scripts/services.sh; PG_PORT=54391; REDIS_PORT=63791; "
        "services_available || exit 3; d=$(mktemp -d /tmp/cocoweb-bench-pg.XXXXXX); "
        "services_start $d >/dev/null && echo $d && echo $DATABASE_URL"
    )
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    d, url = out.stdout.split()[-2:]
    return d, url


def _stop_pg(d: str) -> None:
    script = (
        f"source {ROOT}/scripts/services.sh; PG_PORT=54391; REDIS_PORT=63791; SERVICES_DIR={d}; services_stop; "
        f"rm -rf {d}"
    )
    subprocess.run(["bash", "-c", script], check=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--triples", type=int, default=1_330_000)
    ap.add_argument("--naive", type=int, default=20_000, help="size of the slice for the naive per-row import")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-postgres", action="store_true")
    args = ap.parse_args()

    from perf.synth_graph import synthesize

    work = Path(tempfile.mkdtemp(prefix="cocoweb-bench-data-"))
    path = work / "synthetic_atomic.tsv"
    t0 = time.perf_counter()
    synthesize(path, n_triples=args.triples, seed=args.seed)
    print(
        f"synthesized {args.triples:,} triples in {time.perf_counter() - t0:.1f} s -> {path} "
        f"({path.stat().st_size / 1e6:.0f} MB)"
    )
    slice_path = work / "slice.tsv"
    with path.open() as src, slice_path.open("w") as dst:
        for i, line in enumerate(src):
            if i >= args.naive:
                break
            dst.write(line)

    print(f"load average at the start: {' / '.join(f'{x:.2f}' for x in os.getloadavg())} (1/5/15 min)")
    rows = []
    backends = [("sqlite", "")]
    pg = None
    if not args.no_postgres:
        url = os.environ.get("BENCH_DATABASE_URL")
        if not url:
            pg = _start_pg()
            url = pg[1] if pg else None
        if url:
            backends.append(("postgresql", url))
        else:
            print("PostgreSQL not available here: install postgresql or set BENCH_DATABASE_URL; skipping it")
    try:
        for name, url in backends:
            naive = run_worker("naive", slice_path, url, args.naive)
            bulk = run_worker("bulk", path, url, args.naive)
            if {bulk["vendor"], naive["vendor"]} != {name}:
                sys.exit(f"the {name} run used {bulk['vendor']}: check DATABASE_URL")
            rows.append((name, bulk, naive))
    finally:
        if pg:
            _stop_pg(pg[0])
        shutil.rmtree(work, ignore_errors=True)

    print(
        f"\n{'backend':<11} {'triples':>10} {'seconds':>8} {'CPU s':>6} {'triples/s':>10} {'peak MB':>8} "
        f"{'naive triples/s':>16} {'ratio':>7}"
    )
    for name, bulk, naive in rows:
        bulk_rate = bulk["triples"] / bulk["seconds"]
        naive_rate = naive["triples"] / naive["seconds"]
        print(
            f"{name:<11} {bulk['triples']:>10,} {bulk['seconds']:>8.1f} {bulk['cpu']:>6.1f} {bulk_rate:>10,.0f} "
            f"{bulk['peak_mb']:>8.0f} "
            f"{naive_rate:>16,.0f} {bulk_rate / naive_rate:>6.1f}x"
        )
    print(f"\nload average at the end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())} (1/5/15 min)")
    print("targets (issue 16): SQLite full import < 10 s, PostgreSQL < 30 s, peak memory < 1,024 MB")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]))
    else:
        main()
