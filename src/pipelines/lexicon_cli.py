import typer

lexicon_app = typer.Typer(help="Word lists.", no_args_is_help=True)
