import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from service import Service  # noqa: E402


@pytest.fixture
def service(tmp_path):
    s = Service(tmp_path)
    yield s
    s.stop()


@pytest.fixture
def make_service(tmp_path):
    """Starts services with a policy of the test's choosing."""
    started = []

    def make(policy: str | None = None) -> Service:
        workdir = tmp_path / f"svc{len(started)}"
        workdir.mkdir()
        s = Service(workdir, policy)
        started.append(s)
        return s

    yield make
    for s in started:
        s.stop()
