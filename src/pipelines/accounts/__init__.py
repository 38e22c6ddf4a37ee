"""Accounts and their roles: who may act on the tournament server, as events of the ledger
(`events`, folded by `roster`, appended by `service`), and how an account proves who it is,
kept beside the chain and never in it (`credentials`)."""
