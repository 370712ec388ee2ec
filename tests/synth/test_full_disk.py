"""A run whose output file system fills up: one line, exit status 2, the
record log whole (every line a record) and resumable.

A real full file system: a small tmpfs mounted in a user and mount
namespace of its own (``unshare -rm``), so the test needs no privileges;
where namespaces are not allowed it is skipped, and the write layer's own
behaviour on ENOSPC is checked with ``/dev/full`` instead.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
STUDY = "[candidates]\nenumerate = {nodes = 6, max_degree = 3}\n"   # 29 candidates, about 1 kB a record


def _can_mount(tmp_path: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    m = tmp_path / "probe"
    m.mkdir()
    r = subprocess.run(["unshare", "-rm", "sh", "-c", f"mount -t tmpfs -o size=8k tmpfs '{m}'"],
                       capture_output=True)
    return r.returncode == 0


_SCRIPT = """
set -u
mount -t tmpfs -o size=8k tmpfs "$M"
"$PY" -m synth.cli run study.toml --out "$M/o" --quiet --jobs "$JOBS" 2> first.err
echo $? > first.rc
cp "$M/o/records.jsonl" kept.jsonl
mount -o remount,size=8m "$M"
"$PY" -m synth.cli run study.toml --out "$M/o" --jobs "$JOBS" > /dev/null 2> second.err
echo $? > second.rc
cp "$M/o/records.jsonl" final.jsonl
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_full_disk_stops_the_run_in_one_line_and_the_rerun_resumes(tmp_path, jobs):
    if not _can_mount(tmp_path):
        pytest.skip("no user and mount namespaces here (unshare -rm): no tmpfs to fill")
    (tmp_path / "study.toml").write_text(STUDY)
    (tmp_path / "mnt").mkdir()
    env = {**os.environ, "PYTHONPATH": str(SRC), "PY": sys.executable, "M": str(tmp_path / "mnt"),
           "JOBS": str(jobs)}
    subprocess.run(["unshare", "-rm", "sh", "-c", _SCRIPT], cwd=tmp_path, env=env, check=True)

    first = (tmp_path / "first.err").read_text().splitlines()
    assert int((tmp_path / "first.rc").read_text()) == 2
    assert len(first) == 1, first
    assert first[0].startswith("toposynth: error: cannot write to ") and "records.jsonl: No space left on device" \
        in first[0] and first[0].endswith("rerun the same command to resume"), first[0]
    # whole records only: the one that did not fit was cut off again
    kept = (tmp_path / "kept.jsonl").read_bytes()
    assert kept.endswith(b"\n")
    lines = kept.decode().splitlines()
    assert 1 <= len(lines) < 29
    specs = [json.loads(x)["spec"] for x in lines]
    # the rerun takes them as done and evaluates the rest, no line set aside
    assert int((tmp_path / "second.rc").read_text()) == 0
    second = (tmp_path / "second.err").read_text()
    assert f"29 candidates, {len(lines)} already done, {29 - len(lines)} to evaluate" in second, second
    assert "toposynth: warning" not in second, second
    final = [json.loads(x)["spec"] for x in (tmp_path / "final.jsonl").read_text().splitlines()]
    assert final[: len(specs)] == specs and len(set(final)) == len(final) == 29


def test_a_record_that_cannot_be_written_is_cut_off_again(tmp_path):
    """The write layer alone: /dev/full refuses every write with ENOSPC."""
    from common.errors import OutputPathError
    from synth.record_log import RecordLog

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    (tmp_path / "records.jsonl").symlink_to("/dev/full")
    log = RecordLog(tmp_path / "records.jsonl")
    with pytest.raises(OutputPathError, match=r"records.jsonl: No space left on device; the records before it "
                                              r"are kept: .*rerun the same command to resume"):
        log.append({"spec": "ring:8", "fingerprint": "f"})
    log.close()   # nothing left in a buffer to fail on
