"""The ledger a command opens when it is given no URL, in a module of its own so that naming
it (every `--db` option's default) loads no SQLAlchemy: `ledger.database` opens databases."""

DEFAULT_URL = "sqlite:///arbitru.db"
"""The embedded default: a SQLite file in the current directory (docs/architecture.md)."""
