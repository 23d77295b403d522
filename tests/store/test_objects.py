"""The store layer against a real S3-compatible server: create-if-absent, names, leases, and
bad input (no credentials, an unreachable endpoint, a missing bucket)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from accord.core.errors import ConfigError
from accord.store import (
    Lease,
    LeaseHeldError,
    RunStore,
    StoreError,
    check_location,
    is_location,
    open_store,
)
from accord.store.lease import is_live, read_record
from accord.store.objects import check_name


def test_create_only_if_absent_never_overwrites(bucket: str) -> None:
    store = open_store(f"{bucket}/runs/a")
    assert store.create("traces/g1.json", b"first")
    assert not store.create("traces/g1.json", b"second")
    assert store.read("traces/g1.json") == b"first"
    assert [e.name for e in store.list("traces")] == ["traces/g1.json"]
    assert store.read("traces/missing.json") is None


def test_runs_under_one_bucket_are_apart(bucket: str) -> None:
    a, b = open_store(f"{bucket}/runs/a"), open_store(f"{bucket}/runs/ab")
    a.create("traces/x.json", b"a")
    assert b.list() == []  # a prefix matches whole folders, not the start of a name


@pytest.mark.parametrize(
    "name", ["../x.json", "traces/../../x.json", ".hidden", "/abs.json", "traces//x", "a b"]
)
def test_unsafe_names_never_reach_the_store(name: str) -> None:
    with pytest.raises(ConfigError, match="not a safe name"):
        check_name(name)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("s3://key:secret@bucket/run", "credentials"),
        ("s3://bucket/runs/../other", r"'\.\.'"),
        ("s3:///run", "name a bucket"),
        ("ftp://host/run", "not a run location"),
        ("s3://bucket/run?x=1", "no '\\?'"),
    ],
)
def test_bad_locations_are_one_line(text: str, why: str) -> None:
    with pytest.raises(ConfigError, match=why):
        check_location(text)


def test_locations_and_paths_are_told_apart() -> None:
    assert is_location("s3://b/r") and is_location("gs://b/r") and is_location("az://c/r")
    assert is_location("file:///tmp/r")
    assert not is_location("runs/demo") and not is_location("C:/runs")
    assert check_location("s3://b/runs/demo/") == "s3://b/runs/demo"


def test_missing_credentials_are_one_line(bucket: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    with pytest.raises(ConfigError, match=r"No credentials for s3://.*AWS_ACCESS_KEY_ID"):
        open_store(f"{bucket}/run")


def test_missing_bucket_and_unreachable_endpoint(
    bucket: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(StoreError, match="Cannot reach s3://no-such-bucket-x/run") as err:
        open_store("s3://no-such-bucket-x/run")
    assert "\n" not in str(err.value)
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
    with pytest.raises(StoreError, match="endpoint is reachable"):
        open_store(f"{bucket}/run")


def test_a_lease_is_held_then_lost_by_a_holder_that_stops_renewing(bucket: str) -> None:
    store = RunStore(f"{bucket}/run")
    first = Lease.acquire(store, "run", ttl=1.0, renew=False)
    with pytest.raises(LeaseHeldError, match="in use"):
        Lease.acquire(store, "run", ttl=1.0, renew=False)
    while is_live(read_record(store, "run")[1]):  # the holder "died": it never renewed
        time.sleep(0.05)
    second = Lease.acquire(store, "run", ttl=30.0, renew=False)
    assert second.stale is not None and second.stale["holder"] == first.record["holder"]
    assert not first.renew() and first.lost  # the old holder learns it lost the lease
    second.release()
    third = Lease.acquire(store, "run", ttl=30.0, renew=False)  # released: free at once
    assert third.stale is None
    third.release()


def test_a_renewed_lease_stays_held(bucket: str) -> None:
    store = RunStore(f"{bucket}/run")
    lease = Lease.acquire(store, "run", ttl=1.0)  # renewed every third of a second
    first_expiry = lease.record["expires_at"]
    try:
        while time.time() < first_expiry + 0.3:  # past the expiry it started with
            time.sleep(0.05)
        assert read_record(store, "run")[1]["expires_at"] > first_expiry + 0.3  # type: ignore[index]
        with pytest.raises(LeaseHeldError):
            Lease.acquire(store, "run", ttl=1.0, renew=False)
        assert not lease.lost
    finally:
        lease.release()


def test_a_local_folder_is_a_store_too(tmp_path: Path) -> None:
    store = open_store(tmp_path.as_uri() + "/run")
    assert store.create("traces/a.json", b"1")
    assert not store.create("traces/a.json", b"2")
    assert (tmp_path / "run" / "traces" / "a.json").read_bytes() == b"1"
