"""The tournament server: the second face of Arbitru beside the command line (`arbitru serve`).

Players submit their own slips, arbiters decide, everyone watches, auditors verify, over HTTP
(FastAPI on uvicorn). Handlers translate a request into the same service-layer calls the
command line makes (`pipelines.games.service`, `pipelines.accounts`) and the answer back into
the command line's JSON shapes; no rule, fold or SQL lives here. Who may do what is one table
(`access`), read by every route.
"""
