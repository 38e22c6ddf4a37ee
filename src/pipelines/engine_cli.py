import typer

engine_app = typer.Typer(help="The rules engine.", no_args_is_help=True)
