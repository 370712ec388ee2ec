"""Files written atomically get the permissions a plain open() would give."""

import os
import stat

from common.paths import atomic_write_text


def _mode(p) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def test_new_file_follows_umask(tmp_path):
    old = os.umask(0o022)
    try:
        p = atomic_write_text(tmp_path / "a.json", "{}")
        q = tmp_path / "b.json"
        q.write_text("{}")
    finally:
        os.umask(old)
    assert _mode(p) == _mode(q) == 0o644


def test_other_umask(tmp_path):
    old = os.umask(0o077)
    try:
        p = atomic_write_text(tmp_path / "a.json", "{}")
    finally:
        os.umask(old)
    assert _mode(p) == 0o600


def test_existing_file_keeps_its_mode(tmp_path):
    p = tmp_path / "a.json"
    p.write_text("x")
    os.chmod(p, 0o640)
    atomic_write_text(p, "{}")
    assert _mode(p) == 0o640 and p.read_text() == "{}"
