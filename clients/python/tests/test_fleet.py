"""A target that resolves to several errsvc replicas: the clients spread
their calls over all of them (round_robin), with retries on and off.
Against local fakes (no errsvc needed)."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent import futures
from typing import Iterator, List

import grpc
import pytest

from errsvc_client import AsyncErrsvcClient, ErrsvcClient, pb, pb_grpc
from errsvc_client._common import channel_options

RATE_LIMITED = {"labby_error": {"kind": "rate_limited"}}
CALLS = 300
REPLICAS = 3
# An even spread gives each replica 100; pick_first gives one all 300.
MIN_SHARE = 30


class Replica(pb_grpc.TranslationServiceServicer):
    """Answers every Translate with the same response and counts the calls."""

    def __init__(self) -> None:
        self.calls = 0
        self._lock = threading.Lock()

    def Translate(self, request, context):  # noqa: N802
        with self._lock:
            self.calls += 1
        return pb.TranslateResponse(labby_error={"kind": "rate_limited"})


@pytest.fixture
def fleet() -> Iterator[tuple]:
    """Three replicas on 127.0.0.1 and a target resolving to all three."""
    replicas: List[Replica] = []
    servers: List[grpc.Server] = []
    ports: List[int] = []
    for _ in range(REPLICAS):
        replica = Replica()
        srv = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        pb_grpc.add_TranslationServiceServicer_to_server(replica, srv)
        ports.append(srv.add_insecure_port("127.0.0.1:0"))
        srv.start()
        replicas.append(replica)
        servers.append(srv)
    yield "ipv4:" + ",".join("127.0.0.1:%d" % p for p in ports), replicas
    for srv in servers:
        srv.stop(None)


def assert_spread(replicas: List[Replica]) -> None:
    shares = [r.calls for r in replicas]
    assert sum(shares) == CALLS
    assert min(shares) >= MIN_SHARE, "calls per replica: %s" % shares


@pytest.mark.parametrize("max_attempts", [3, 1], ids=["retries-on", "retries-off"])
def test_calls_spread_over_replicas(fleet, max_attempts):
    target, replicas = fleet
    with ErrsvcClient(target, max_attempts=max_attempts) as c:
        for _ in range(CALLS):
            c.translate(RATE_LIMITED, timeout=5)
    assert_spread(replicas)


def test_async_calls_spread_over_replicas(fleet):
    target, replicas = fleet

    async def main() -> None:
        async with AsyncErrsvcClient(target) as c:
            for _ in range(CALLS):
                await c.translate(RATE_LIMITED, timeout=5)

    asyncio.run(main())
    assert_spread(replicas)


def test_retries_off_service_config_balances_only():
    opts = dict(channel_options(1, ()))
    assert opts["grpc.enable_retries"] == 0
    assert json.loads(opts["grpc.service_config"]) == {"loadBalancingConfig": [{"round_robin": {}}]}
