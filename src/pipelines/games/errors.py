"""What the service layer raises: a command or view that cannot go on, and why. Nothing was
written when one is raised; `exit_code` is what the command line exits with (1 refused by the
rules, 2 unusable input), and the server answers each as its problem
(`pipelines.server.problems`)."""

from __future__ import annotations


class ServiceError(Exception):
    """A command or view that cannot go on; `exit_code` is 2 for unusable input, 1 for a
    command the rules refuse. Nothing was written."""

    exit_code = 2


class GameNotFound(ServiceError):
    """No game stream with that id."""


class UnusableGame(ServiceError):
    """A game that cannot be judged here: its dictionary or ruleset is missing."""


class CommandRefused(ServiceError):
    """The rules refuse the command (`code` from the engine). `conflicts` counts the times
    another terminal wrote first and the command was decided again."""

    exit_code = 1

    def __init__(self, message: str, code: str, conflicts: int = 0) -> None:
        self.code = code
        self.conflicts = conflicts
        super().__init__(message)


class GameMoved(ServiceError):
    """The game is no longer at the version the arbiter decided on (`expected`): somebody
    recorded something since. Nothing was written; `version` is where the game is now."""

    exit_code = 1

    def __init__(self, stream: str, expected: int, version: int) -> None:
        self.version = version
        super().__init__(
            f"{stream} is at version {version}, not {expected} as when you looked: read the "
            "game again and decide on what it holds now"
        )
