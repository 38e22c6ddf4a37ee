"""The documentation stands alone (hardening defect 13): the README and docs/ never send a reader
outside the repository, and every relative link they hold leads to a file, and a heading, that
exists in a clone."""

from __future__ import annotations

import re
from pathlib import Path

from ledger.catalogue import KNOWN_TYPES

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
OWN_DOCS = ("rules.md", "architecture.md", "record-format.md", "lexicon.md", "proofs.md")

_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _prose(text: str) -> str:
    """The text without code blocks and code spans, where brackets are notation, not links."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def _links(path: Path) -> list[str]:
    return _LINK.findall(_prose(path.read_text(encoding="utf-8")))


def _anchors(path: Path) -> set[str]:
    """The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as
    hyphens, and `-1`, `-2`… after a repeated one."""
    seen: dict[str, int] = {}
    anchors = set()
    for heading in _HEADING.findall(_FENCE.sub("", path.read_text(encoding="utf-8"))):
        slug = re.sub(r"[^\w\- ]", "", heading.replace("`", "").lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _relative(link: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", link, re.IGNORECASE)


def test_the_project_has_its_own_docs_and_the_readme_links_each():
    readme_links = {link.split("#")[0] for link in _links(ROOT / "README.md")}
    for name in OWN_DOCS:
        assert (ROOT / "docs" / name).is_file(), f"docs/{name} is missing"
        assert f"docs/{name}" in readme_links, f"README.md does not link docs/{name}"


def test_readme_docs_and_the_package_never_send_readers_outside_the_repository():
    package = [p for p in (ROOT / "src").rglob("*") if p.suffix in (".py", ".toml", ".txt")]
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in [*DOCS, *package]
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if "../shared" in line or "shared/docs" in line
    ]
    assert not offenders, "references outside the repository:\n" + "\n".join(offenders)


def test_every_relative_link_in_readme_and_docs_points_to_an_existing_file():
    checked = 0
    broken = []
    for doc in DOCS:
        for link in _links(doc):
            if not _relative(link) or link.startswith("#"):
                continue
            checked += 1
            target = (doc.parent / link.split("#")[0]).resolve()
            if not target.exists() or not target.is_relative_to(ROOT):
                broken.append(f"{doc.relative_to(ROOT)}: {link}")
    assert not broken, "links to files that do not exist in the repository:\n" + "\n".join(broken)
    assert checked >= 10, f"only {checked} relative links found: is the link pattern still right?"


def test_every_link_anchor_names_a_heading_of_its_target():
    checked = 0
    broken = []
    for doc in DOCS:
        for link in _links(doc):
            if not _relative(link) or "#" not in link:
                continue
            path, anchor = link.split("#", 1)
            target = (doc.parent / path).resolve() if path else doc
            if target.suffix != ".md" or not target.is_file():
                continue  # a missing file is the previous test's finding
            checked += 1
            if anchor not in _anchors(target):
                broken.append(f"{doc.relative_to(ROOT)}: {link}")
    assert not broken, "links to headings that do not exist:\n" + "\n".join(broken)
    assert checked >= 3, f"only {checked} anchored links found: is the link pattern still right?"


def test_the_record_format_documents_every_event_type_of_the_catalogue():
    text = (ROOT / "docs" / "record-format.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([A-Za-z]+)` \|", text, re.MULTILINE))
    missing = sorted(KNOWN_TYPES - documented)
    assert not missing, f"event types of the catalogue missing from the record format: {missing}"


_PACKAGE_HEADING = re.compile(r"^#{2,6} .*\(`(src/[\w/]+?)/?`\)\s*$")
_NAME = re.compile(r"`([^`]+)`")


def _architecture_modules() -> list[Path]:
    """The files and folders named in the first column of docs/architecture.md's module
    tables, each resolved against the package of the nearest heading above it that names one
    (`### The engine (`src/engine/`)`)."""
    package = None
    named = []
    for line in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").splitlines():
        heading = _PACKAGE_HEADING.match(line)
        if heading:
            package = ROOT / heading.group(1)
        elif line.startswith("#"):
            package = None if line.startswith("## ") else package
        elif package is not None and line.startswith("|") and not line.startswith("|---"):
            first = line.split("|")[1]
            for name in _NAME.findall(first):
                suffix = "" if name.endswith("/") or "." in name else ".py"
                named.append(package / f"{name.rstrip('/')}{suffix}")
    return named


def _source_modules() -> set[Path]:
    return {
        path
        for path in (ROOT / "src").rglob("*")
        if path.suffix in (".py", ".c", ".h")
        and path.name != "__init__.py"
        and path.parent.name not in ("data", "overrides")
        and ".egg-info" not in str(path)
    }


def test_the_architecture_names_every_module_under_src_once_and_no_other():
    named = _architecture_modules()
    assert len(named) >= 50, f"only {len(named)} modules named: is the table pattern still right?"
    twice = sorted({str(p.relative_to(ROOT)) for p in named if named.count(p) > 1})
    missing = sorted(str(p.relative_to(ROOT)) for p in _source_modules() - set(named))
    gone = sorted(str(p.relative_to(ROOT)) for p in named if not p.exists())
    assert not missing, f"modules docs/architecture.md does not describe: {missing}"
    assert not gone, f"docs/architecture.md names what does not exist: {gone}"
    assert not twice, f"docs/architecture.md names these more than once: {twice}"
