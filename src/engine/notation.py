"""Moves as players write them, read into structured moves and written back canonically.

Every form of docs/rules.md 1.6 is read: `H8: VARA` (row letter first: across) and
`8H: VARA` (column first: down) in any case; the whole word including letters already on the
board; jokers as `(C)` or as a lowercase letter beside capitals; a claimed score (`= 52 p`,
`= 52`, `52 puncte`, `(167 p)`); an online game's prefix (`P19-T1 - `); the completiv letter
(`[J]UCATOR` or `JUCATOR +J`; the stock's joker `JU[(C)]ATOR` or `JUCATOR +(C)`, which
marks the word's only C as that joker); anticipation replacements (`-A+B`, `-C+Do`, `-C+(D)`).
Diacritics are folded first. Parsing returns a `Move` or a `NotationError` saying what was
expected at which character; it never raises, whatever the text, because an unreadable
submission is still a record to keep.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.tiles import fold


@dataclass(frozen=True)
class Chosen:
    """The completiv letter a player took from the stock.

    `at` is its index in the word when marked in place (`[J]UCATOR`), None when written after
    the word (`JUCATOR +J`); `joker` when the stock's joker was taken, standing for `letter`.
    """

    letter: str
    joker: bool = False
    at: int | None = None


@dataclass(frozen=True)
class Move:
    """A word laid on the board: first square (0-based), direction, whole word, joker indexes."""

    row: int
    col: int
    across: bool
    word: str
    jokers: tuple[int, ...] = ()
    chosen: Chosen | None = None
    claimed: int | None = None
    prefix: str | None = None

    def laid(self) -> tuple:
        """What is placed and scored: every field but those written beside the move (a
        claimed score, an online game's prefix), which a new field must join or not. A tuple,
        not a Move: it keys a cache on the replay's hot path."""
        return (self.row, self.col, self.across, self.word, self.jokers, self.chosen)

    def squares(self) -> list[tuple[int, int]]:
        dr, dc = (0, 1) if self.across else (1, 0)
        return [(self.row + i * dr, self.col + i * dc) for i in range(len(self.word))]

    @property
    def coordinate(self) -> str:
        row, col = chr(ord("A") + self.row), str(self.col + 1)
        return row + col if self.across else col + row


@dataclass(frozen=True)
class Replacement:
    """Anticipation: `give` goes from the group to the stock, `take` comes from it.

    With `joker`, the stock's joker is taken and stands for `take` (`-C+Do`).
    """

    give: str
    take: str
    joker: bool = False
    prefix: str | None = None


@dataclass(frozen=True)
class NotationError:
    """Why a text is unreadable: what was expected at which character (1-based)."""

    text: str
    position: int
    expected: str
    found: str

    @property
    def message(self) -> str:
        return f"at character {self.position}: expected {self.expected}, found {self.found}"

    def __str__(self) -> str:
        return self.message


class _Unreadable(Exception):
    def __init__(self, position: int, expected: str) -> None:
        self.position = position
        self.expected = expected


class _Scanner:
    """A cursor over folded text; `fail` reports the current character."""

    def __init__(self, text: str) -> None:
        self.text = fold(text)
        self.pos = 0

    def peek(self, offset: int = 0) -> str:
        i = self.pos + offset
        return self.text[i] if i < len(self.text) else ""

    def at_end(self) -> bool:
        return self.pos >= len(self.text)

    def skip_space(self) -> None:
        while self.peek().isspace():
            self.pos += 1

    def take(self, ch: str) -> bool:
        if self.peek() == ch:
            self.pos += 1
            return True
        return False

    def expect(self, ch: str, what: str) -> None:
        if not self.take(ch):
            self.fail(what)

    def digits(self) -> str:
        start = self.pos
        while self.peek().isascii() and self.peek().isdigit():
            self.pos += 1
        return self.text[start : self.pos]

    def letter(self) -> str:
        ch = self.peek()
        if ch.isascii() and ch.isalpha():
            self.pos += 1
            return ch
        return ""

    def fail(self, expected: str) -> None:
        raise _Unreadable(self.pos, expected)


def _found(text: str, position: int) -> str:
    return repr(text[position]) if position < len(text) else "end of text"


def _error(text: str, scanner: _Scanner, exc: _Unreadable) -> NotationError:
    return NotationError(text, exc.position + 1, exc.expected, _found(scanner.text, exc.position))


# Comment boxes turn '-' into en or em dashes; some players write a colon.
_PREFIX_SEPARATORS = ("-", "–", "—", ":")


def _prefix(s: _Scanner) -> str | None:
    """`P19-T1 -`: game and round of an online game, kept as written (upper case)."""
    start = s.pos
    if s.peek().upper() != "P" or not s.peek(1).isdigit():
        return None
    s.pos += 1
    game = s.digits()
    if not s.take("-") or s.peek().upper() != "T":
        s.pos = start
        return None
    s.pos += 1
    rnd = s.digits()
    if not rnd:
        s.fail("a round number after 'T'")
    s.skip_space()
    if s.peek() not in _PREFIX_SEPARATORS:
        s.fail("'-' after the game and round prefix")
    s.pos += 1
    s.skip_space()
    return f"P{int(game)}-T{int(rnd)}"


def _coordinate(s: _Scanner) -> tuple[int, int, bool]:
    if s.peek().isdigit():
        column = s.digits()
        row = s.letter()
        if not row:
            s.fail("a row letter after the column number (down: '8H')")
        across = False
    else:
        row = s.letter()
        if not row:
            s.fail("a coordinate such as 'H8' (across) or '8H' (down)")
        column = s.digits()
        if not column:
            s.fail("a column number after the row letter (across: 'H8')")
        across = True
    col = int(column)
    if col < 1 or col > 99:
        s.pos -= len(column) if across else len(column) + 1
        s.fail("a column number from 1 to 99")
    return ord(row.upper()) - ord("A"), col - 1, across


def _tile(s: _Scanner) -> tuple[str, bool] | None:
    """One letter of the word: `A`, a lowercase joker `a`, or `(A)`; None at the word's end."""
    if s.take("("):
        letter = s.letter()
        if not letter:
            s.fail("a letter inside '( )' (a joker)")
        s.expect(")", "')' closing the joker")
        return letter.upper(), True
    letter = s.letter()
    if not letter:
        return None
    return letter.upper(), letter.islower()


def _word(s: _Scanner) -> tuple[str, tuple[int, ...], Chosen | None, bool]:
    """The word, its joker indexes, the `[X]` letter, and whether capitals were written.

    A lowercase letter marks a joker only beside capitals (`JUcATOR`); in a word written
    without capitals (`ju(c)ator`, `vara`) lowercase letters are plain and only `( )` marks
    a joker.
    """
    letters: list[str] = []
    jokers: list[int] = []
    lowercase: list[int] = []
    capitals = False
    chosen: Chosen | None = None
    while True:
        if s.peek() == "(" and s.peek(1).isdigit():
            break  # a claimed score such as `(52 p)` written straight after the word
        bracket = s.peek() == "["
        if bracket:
            if chosen is not None:
                s.fail("only one letter marked '[ ]' (the completiv letter)")
            s.pos += 1
        paren = s.peek() == "("
        tile = _tile(s)
        if tile is None:
            if bracket:
                s.fail("a letter inside '[ ]' (the completiv letter)")
            break
        letter, joker = tile
        if bracket:
            s.expect("]", "']' closing the completiv letter")
            chosen = Chosen(letter, joker, len(letters))
        if paren:
            jokers.append(len(letters))
        elif joker:
            lowercase.append(len(letters))
        else:
            capitals = True
        letters.append(letter)
    if not letters:
        s.fail("the word (letters A-Z, jokers as '(C)')")
    if capitals:
        jokers = sorted(jokers + lowercase)
    elif chosen is not None and chosen.at in lowercase:
        chosen = Chosen(chosen.letter, False, chosen.at)
    return "".join(letters), tuple(jokers), chosen, capitals


def _chosen_after(s: _Scanner, capitals: bool) -> Chosen | None:
    """`+J` (or `+(J)`, or `+j` after a word in capitals, for the stock's joker)."""
    start = s.pos
    s.skip_space()
    if not s.take("+"):
        s.pos = start
        return None
    s.skip_space()
    paren = s.peek() == "("
    tile = _tile(s)
    if tile is None:
        s.fail("the completiv letter after '+'")
    letter, joker = tile
    return Chosen(letter, paren or (joker and capitals), None)


def _joker_named_after(
    s: _Scanner, mark: int, word: str, jokers: tuple[int, ...], chosen: Chosen
) -> tuple[int, ...]:
    """The word's jokers once `+(C)` has named the stock's joker after it.

    `JU(C)ATOR +(C)` already marks it. In `JUCATOR +(C)` the only C of the word is that
    joker: reading it as a real C would ask the rack for a C it lacks and score the C's
    value. Where the letter occurs more than once and none is marked, nothing says which
    square the joker is on (the scores differ): the text is unreadable rather than guessed.
    """
    if not chosen.joker or any(word[i] == chosen.letter for i in jokers):
        return jokers
    places = [i for i, letter in enumerate(word) if letter == chosen.letter]
    if len(places) == 1:
        return tuple(sorted((*jokers, places[0])))
    if places:
        s.pos = s.text.index("+", mark)
        s.fail(
            f"the joker marked in the word: {chosen.letter} occurs {len(places)} times in"
            f" {word}, so '+({chosen.letter})' does not say which is the stock's joker; write"
            f" it in place, e.g. [({chosen.letter})]"
        )
    return jokers


def _claim(s: _Scanner) -> int | None:
    """`= 52 p`, `= 52`, `52 puncte`, `(167 p)`: the score the player claims."""
    s.skip_space()
    if s.at_end():
        return None
    closing = None
    if s.take("="):
        s.skip_space()
    elif s.take("("):
        closing = ")"
        s.skip_space()
    start = s.pos
    number = s.digits()
    if not number:
        s.fail("a claimed score such as '= 52 p'")
    s.skip_space()
    if s.text[s.pos : s.pos + 3].lower() == "de ":
        s.pos += 3
        s.skip_space()
    unit_start = s.pos
    while s.peek().isalpha() or s.peek() == ".":
        s.pos += 1
    unit = s.text[unit_start : s.pos].lower().rstrip(".")
    if unit not in ("", "p", "pt", "pct", "puncte", "punct", "points", "pts"):
        s.pos = unit_start
        s.fail("'p' or 'puncte' after the claimed score")
    s.skip_space()
    if closing:
        s.expect(closing, "')' closing the claimed score")
    if len(number) > 6:
        s.pos = start
        s.fail("a claimed score of at most 6 digits")
    return int(number)


_PLAIN = re.compile(
    r"\s*(?:[Pp](\d+)-[Tt](\d+)\s*[-:]\s*)?"  # an online game's prefix
    r"(?:([A-Za-z])(\d+)|(\d+)([A-Za-z]))(?:\s*:\s*|\s+)"  # across or down
    r"((?:[A-Za-z]|\([A-Za-z]\)|\[(?:[A-Za-z]|\([A-Za-z]\))\])+)"  # jokers, completiv letter
    r"(?:\s*(?:=\s*)?(\d{1,6})\s*(?i:p|pt|pct|puncte|punct|points|pts)?)?\s*"  # the claim
)
"""The forms nearly every submission takes, read in one match: ASCII, the completiv letter
marked in the word if at all, a claim if any as `= 52 p`. Whatever else a text holds, or a
column out of range, is left to the scanner, which reads every form and says why a text is
unreadable; both read these forms alike (tests/engine/test_notation.py checks it on
generated texts)."""
_TILE = re.compile(r"(\[?)(?:\(([A-Za-z])\)|([A-Za-z]))")
"""A tile of a word `_PLAIN` matched: whether it is the completiv letter, a joker's letter or
a letter."""


def _plain_move(text: str) -> Move | None:
    """The move of a text in the `_PLAIN` forms; None for any other text."""
    found = _PLAIN.fullmatch(text) if text.isascii() else None
    if found is None:
        return None
    game, rnd, row, across_col, down_col, down_row, written, claimed = found.groups()
    across = row is not None
    col = int(across_col if across else down_col)
    if not 1 <= col <= 99:
        return None
    if written.isupper() and "(" not in written and "[" not in written:  # most moves
        word, jokers, chosen = written, (), None
    else:
        tiles = _TILE.findall(written)
        if sum(1 for bracket, _, _ in tiles if bracket) > 1:
            return None
        capitals = any(letter.isupper() for _, _, letter in tiles)
        word = "".join(paren or letter for _, paren, letter in tiles).upper()
        jokers = tuple(
            i
            for i, (_, paren, letter) in enumerate(tiles)
            if paren or (capitals and letter.islower())
        )
        chosen = next(
            (Chosen(word[i], i in jokers, i) for i, (bracket, _, _) in enumerate(tiles) if bracket),
            None,
        )
    return Move(
        ord((row if across else down_row).upper()) - ord("A"),
        col - 1,
        across,
        word,
        jokers,
        chosen,
        int(claimed) if claimed is not None else None,
        f"P{int(game)}-T{int(rnd)}" if game is not None else None,
    )


def parse_move(text: str) -> Move | NotationError:
    """Read a submission such as `P19-T1 - H4: JU(C)ATOR = 52 p`."""
    return _plain_move(text) or _scan_move(text)


def _scan_move(text: str) -> Move | NotationError:
    """`parse_move` character by character: every form, and why a text is unreadable."""
    s = _Scanner(text)
    try:
        s.skip_space()
        prefix = _prefix(s)
        row, col, across = _coordinate(s)
        s.skip_space()
        if not s.take(":") and s.pos > 0 and not s.text[s.pos - 1].isspace():
            s.fail("':' after the coordinate")
        s.skip_space()
        word, jokers, chosen, capitals = _word(s)
        mark = s.pos
        after = _chosen_after(s, capitals)
        if after is not None:
            if chosen is not None:
                s.pos = s.text.index("+", mark)
                s.fail("one completiv mark only ('[J]' in the word or '+J' after it)")
            chosen = after
            jokers = _joker_named_after(s, mark, word, jokers, chosen)
        claimed = _claim(s)
        s.skip_space()
        if not s.at_end():
            s.fail("the end of the move")
    except _Unreadable as exc:
        return _error(text, s, exc)
    return Move(row, col, across, word, jokers, chosen, claimed, prefix)


def parse_replacement(text: str) -> Replacement | NotationError:
    """Read an anticipation replacement: `-A+B`, `-C+Do`, `-C+(D)`, `-C+d`."""
    s = _Scanner(text)
    try:
        s.skip_space()
        prefix = _prefix(s)
        s.expect("-", "'-' and the letter given back, as in '-A+B'")
        s.skip_space()
        give = s.letter()
        if not give:
            s.fail("the letter replaced, after '-'")
        s.skip_space()
        s.expect("+", "'+' and the letter taken from the stock")
        s.skip_space()
        if s.take("("):
            take = s.letter()
            if not take:
                s.fail("a letter inside '( )' (the joker taken)")
            s.expect(")", "')' closing the joker")
            joker = True
        else:
            take = s.letter()
            if not take:
                s.fail("the letter taken from the stock, after '+'")
            # Lowercase marks a joker only beside capitals ('-C+d'); '-c+d' is plain letters.
            joker = take.islower() and not give.islower()
            if s.peek() in ("o", "O"):
                s.pos += 1
                joker = True
        s.skip_space()
        if not s.at_end():
            s.fail("the end of the replacement")
    except _Unreadable as exc:
        return _error(text, s, exc)
    return Replacement(give.upper(), take.upper(), joker, prefix)


def format_tile(letter: str, joker: bool) -> str:
    return f"({letter})" if joker else letter


def format_move(move: Move) -> str:
    """The canonical notation: `P19-T1 - 8H: [J]U(C)ATOR = 52 p`."""
    text = format_placement(move)
    if move.claimed is not None:
        text += f" = {move.claimed} p"
    if move.prefix is not None:
        text = f"{move.prefix} - {text}"
    return text


def format_placement(move: Move) -> str:
    """The move alone in canonical notation, `8H: [J]U(C)ATOR`: what a player's round prefix
    and claimed score surround are theirs, not the move's, so that the same move always reads
    the same wherever it is shown or exported."""
    jokers = set(move.jokers)
    parts = []
    for i, letter in enumerate(move.word):
        tile = format_tile(letter, i in jokers)
        if move.chosen is not None and move.chosen.at == i:
            tile = f"[{tile}]"
        parts.append(tile)
    text = f"{move.coordinate}: {''.join(parts)}"
    if move.chosen is not None and move.chosen.at is None:
        text += f" +{format_tile(move.chosen.letter, move.chosen.joker)}"
    return text


def format_replacement(replacement: Replacement) -> str:
    take = f"({replacement.take})" if replacement.joker else replacement.take
    text = f"-{replacement.give}+{take}"
    return f"{replacement.prefix} - {text}" if replacement.prefix else text
