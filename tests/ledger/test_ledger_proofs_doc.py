"""docs/proofs.md is runnable: its verifier script, run exactly as printed there, accepts the
proofs Arbitru writes and rejects altered ones; its OpenSSL commands check a checkpoint's
signature."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ledger_helpers import game_created, rack

from ledger import EventStore
from ledger.checkpoints import make_checkpoint
from ledger.proofs import consistency_document, inclusion_document
from ledger.proving import prove_consistency, prove_inclusion
from ledger.signing import load_private_key, new_key_files

DOC = Path(__file__).resolve().parents[2] / "docs" / "proofs.md"


def block_after(marker: str) -> str:
    """The fenced code block that follows an HTML comment marker in docs/proofs.md."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(rf"<!-- {re.escape(marker)} -->\n```\w*\n(.*?)^```", text, re.S | re.M)
    assert found, f"no code block after <!-- {marker} --> in {DOC}"
    return found.group(1)


@pytest.fixture(scope="module")
def setting(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A key pair on disk, a ledger of 300 events checkpointed at 7 and 300, and proofs."""
    folder = tmp_path_factory.mktemp("doc")
    new_key_files(folder / "federation.key")
    key = load_private_key(folder / "federation.key")
    with EventStore(f"sqlite:///{folder / 'l.db'}") as store:
        store.append("game/g1", [game_created(), *(rack(i, "ĂÎȘ?") for i in range(1, 7))])
        make_checkpoint(store, key)
        store.append("game/g1", [rack(i) for i in range(7, 300)])
        make_checkpoint(store, key)
        files = {
            "inclusion": inclusion_document(prove_inclusion(store, 5)),
            "late": inclusion_document(prove_inclusion(store, 297, 300)),
            "consistency": consistency_document(prove_consistency(store, 7, 300)),
            "equal": consistency_document(prove_consistency(store, 300, 300)),
        }
    with EventStore(f"sqlite:///{folder / 'other.db'}") as store:
        store.append("game/g1", [game_created(), *(rack(i, "B") for i in range(1, 300))])
        make_checkpoint(store, key)
        files["other"] = consistency_document(prove_consistency(store, 300, 300))
    paths = {"folder": folder, "pub": folder / "federation.key.pub"}
    for name, document in files.items():
        paths[name] = folder / f"{name}.json"
        paths[name].write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    script = folder / "verify_proof.py"
    script.write_text(block_after("verify_proof.py"), encoding="utf-8")
    paths["script"] = script
    return paths


def run_script(setting: dict[str, Path], proof: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(setting["script"]), str(proof), str(setting["pub"])],
        capture_output=True,
        text=True,
        timeout=60,
    )


def altered(setting: dict[str, Path], name: str, change) -> Path:
    document = json.loads(setting[name].read_text(encoding="utf-8"))
    change(document)
    path = setting["folder"] / f"altered-{name}.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


def test_the_doc_script_is_a_few_dozen_lines() -> None:
    lines = [line for line in block_after("verify_proof.py").splitlines() if line.strip()]
    assert len(lines) <= 80


@pytest.mark.parametrize("name", ["inclusion", "late", "consistency", "equal"])
def test_the_doc_script_accepts_the_proofs_arbitru_writes(
    setting: dict[str, Path], name: str
) -> None:
    done = run_script(setting, setting[name])
    assert (done.returncode, done.stdout) == (0, "OK\n"), done.stderr


def _swap_path(document: dict) -> None:
    document["audit_path"][0], document["audit_path"][1] = (
        document["audit_path"][1],
        document["audit_path"][0],
    )


def _tamper_event(document: dict) -> None:
    document["event"] = document["event"].replace('"drawn":"ĂÎȘ?"', '"drawn":"ĂÎȘA"')


@pytest.mark.parametrize(
    ("name", "change", "reason"),
    [
        ("inclusion", _tamper_event, "event altered"),
        ("inclusion", _swap_path, "path does not lead to the root"),
        ("inclusion", lambda d: d["audit_path"].pop(), "path too short"),
        ("inclusion", lambda d: d.update(leaf_index=5), "wrong leaf"),
        ("inclusion", lambda d: d["checkpoint"].update(root="ab" * 32), "bad signature"),
        ("inclusion", lambda d: d["checkpoint"].update(key_id="ab" * 32), "another key"),
        ("consistency", lambda d: d["consistency_path"].pop(), "path too short"),
        ("consistency", lambda d: d["consistency_path"].reverse(), "trees do not match"),
    ],
)
def test_the_doc_script_rejects_altered_proofs(
    setting: dict[str, Path], name: str, change, reason: str
) -> None:
    done = run_script(setting, altered(setting, name, change))
    assert done.returncode == 1
    assert reason in done.stderr


def test_the_doc_script_rejects_a_consistency_proof_between_unrelated_trees(
    setting: dict[str, Path],
) -> None:
    other = json.loads(setting["other"].read_text(encoding="utf-8"))
    forged = altered(setting, "equal", lambda d: d.update(new=other["new"]))
    done = run_script(setting, forged)
    assert done.returncode == 1
    assert "sizes or roots" in done.stderr


@pytest.mark.skipif(
    not (shutil.which("openssl") and shutil.which("jq") and shutil.which("base64")),
    reason="needs openssl, jq and base64",
)
def test_the_documented_openssl_commands_verify_the_signature(setting: dict[str, Path]) -> None:
    commands = block_after("openssl-check")
    folder = setting["folder"]
    (folder / "proof.json").write_text(setting["inclusion"].read_text(encoding="utf-8"))
    done = subprocess.run(
        ["sh", "-e", "-c", commands], cwd=folder, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "Signature Verified Successfully" in done.stdout
    forged = altered(setting, "inclusion", lambda d: d["checkpoint"].update(tree_size=301))
    (folder / "proof.json").write_text(forged.read_text(encoding="utf-8"))
    done = subprocess.run(
        ["sh", "-e", "-c", commands], cwd=folder, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
