import typer

ledger_app = typer.Typer(help="The event ledger.", no_args_is_help=True)
db_app = typer.Typer(help="The ledger's database.", no_args_is_help=True)
