"""The kombu patch (cocoweb/kombu_patch.py) runs only on the kombu it was tested with: any other
version stops the Celery app from loading, loudly, instead of patching code that may have changed."""

from __future__ import annotations

import kombu
import pytest

from cocoweb import kombu_patch
from cocoweb.kombu_patch import UntestedKombu, kombu_version_check, survive_redis_restarts


def test_the_installed_kombu_is_tested_and_patched() -> None:
    from kombu.transport import redis as kombu_redis

    import cocoweb.celery  # noqa: F401  (applies the patch)

    kombu_version_check()
    assert getattr(kombu_redis.QoS, "cocoweb_patched", False)


@pytest.mark.parametrize("version", ["5.8.0", "5.6.2", "6.0.0"])
def test_an_untested_kombu_fails_loudly(version: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UntestedKombu, match=rf"kombu {version} is not one .* tested with \(5\.7\.x\)"):
        kombu_version_check(version)
    monkeypatch.setattr(kombu, "__version__", version)
    with pytest.raises(UntestedKombu):  # also when the patch was applied before (another version in this process)
        survive_redis_restarts()
    assert kombu_patch.TESTED_KOMBU == ("5.7",)
