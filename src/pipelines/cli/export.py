"""`arbitru export --out DIR`: the ledger's seasons as Parquet tables for statisticians,
and with `--csv` as CSV files too.

Thin: it opens the ledger read-only, calls `pipelines.season.export.export_parquet`, and
reports what was written (a table of files, or `--json` with stable keys). Nothing is written
to the ledger; DIR is published whole or not at all. An altered ledger is refused (exit 1),
unless `--skip-verify` asks for an export that nothing vouches for (forensic work).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from ledger.default_url import DEFAULT_URL
from pipelines.cli.game_common import reported, unless_altered
from pipelines.cli.inputs import DbOption, JsonOption, emit_json, fail
from pipelines.cli.views import err
from pipelines.cli.views import out as console
from pipelines.season.ranking import PointsTable, RankingError

if TYPE_CHECKING:
    from pipelines.season.export import Export


def export_command(
    out: Annotated[
        Path, typer.Option("--out", help="The folder to write: new, empty, or an earlier export.")
    ],
    db: DbOption = DEFAULT_URL,
    overwrite: Annotated[
        bool,
        typer.Option("--overwrite", help="Replace the earlier export in --out, whole."),
    ] = False,
    points: Annotated[
        Path | None,
        typer.Option(
            "--points",
            help="A TOML file of ranking scales (value -> points by place) for the tournament "
            "standings (default: the federation's published scales shipped with Arbitru).",
        ),
    ] = None,
    skip_verify: Annotated[
        bool,
        typer.Option(
            "--skip-verify",
            help="Export without verifying the chain first (forensic work on an altered "
            "ledger): MANIFEST.json then says it was not verified.",
        ),
    ] = False,
    with_csv: Annotated[
        bool,
        typer.Option(
            "--csv",
            help="Write every table and season as UTF-8 CSV too, under csv/ (same rows and "
            "columns, a header), listed in MANIFEST.json.",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Write every season as Parquet tables (player_rounds, rounds, standings, events).

    Partitioned by season (hive style), with a MANIFEST.json of every file's SHA-256;
    with --csv, each file as CSV too, for a spreadsheet.

    The same ledger gives the same bytes; the folder is written whole or not at all. The
    chain is verified first: an altered ledger is refused. A stream whose opening event
    names another id (an older ledger) is left out and named: exit 1."""
    # The ledger and the Parquet writer are imported when the command runs, not by its help.
    from ledger import EventStore
    from pipelines.season.export import ExportError, export_parquet

    try:
        table = PointsTable.load(points)
    except RankingError as exc:
        fail(str(exc))
    if skip_verify:
        err.print(
            "[bold yellow]warning:[/] --skip-verify: the ledger's chain is not verified, so "
            "this export is not vouched for (its MANIFEST.json says so)",
            soft_wrap=True,
        )
    try:
        with (
            reported(),
            unless_altered("nothing was exported", "exports it anyway"),
            EventStore(db, read_only=True) as ledger,
        ):
            written = export_parquet(
                ledger,
                out,
                overwrite=overwrite,
                points=table,
                verify=not skip_verify,
                with_csv=with_csv,
            )
    except ExportError as exc:
        fail(str(exc))
    if as_json:
        emit_json(_summary(written))
    else:
        _show(written)
        for left in written.left_out:
            err.print(left.line, markup=False, soft_wrap=True)
    if written.left_out:
        raise typer.Exit(1)


def _summary(written: Export) -> dict[str, object]:
    manifest = written.manifest
    return {
        "out": str(written.out),
        "ledger": manifest["ledger"],
        "schema_version": manifest["schema_version"],
        "tables": {name: info["rows"] for name, info in manifest["tables"].items()},
        "files": manifest["files"],
        "csv_files": manifest.get("csv", {}).get("files", []),
        "checkpoint": manifest["checkpoint"],
        "verified": manifest["verified"],
        "rows_from": "read models" if written.from_read_models else "replay",
        "left_out": manifest["left_out"],
    }


def _show(written: Export) -> None:
    view = Table(title=f"Parquet export at ledger seq {written.head.seq}")
    for column in ("file", "rows", "bytes"):
        view.add_column(column, justify="left" if column == "file" else "right")
    for f in (*written.files, *written.csv_files):
        view.add_row(f.path, str(f.rows), str(f.bytes))
    console.print(view)
    if not written.from_read_models:
        console.print(
            "the read models are not up to date with the ledger, so every game was replayed; "
            "`arbitru recompute` first makes the next export faster",
            soft_wrap=True,
            highlight=False,
        )
    console.print(
        f"wrote {written.out} (MANIFEST.json lists every file's SHA-256; head hash "
        f"{written.head.hash[:16]}...)\n"
        f"open it in DuckDB: SELECT * FROM read_parquet('{written.out}/standings/**/*.parquet', "
        "hive_partitioning=true, hive_types={'season': 'VARCHAR'})",
        soft_wrap=True,
        highlight=False,
        markup=False,
    )
