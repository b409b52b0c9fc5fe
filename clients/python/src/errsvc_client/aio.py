"""The asyncio errsvc client (grpc.aio and httpx.AsyncClient), beside the
blocking :class:`~errsvc_client.ErrsvcClient`, with the same methods,
options and errors.

>>> async with AsyncErrsvcClient("127.0.0.1:9090", "127.0.0.1:8080") as c:
...     resp = await c.translate({"labby_error": {"kind": "rate_limited"}})
"""

from __future__ import annotations

from typing import Any, AsyncIterable, AsyncIterator, Iterable, List, Optional, Sequence, Tuple, Union

import grpc
import grpc.aio
import httpx

from errsvc_client._common import (
    DEFAULT_TIMEOUT,
    REST_HEADERS,
    MetadataLike,
    RequestLike,
    channel_options,
    grpc_credentials,
    http_base as _http_base,
    merge_metadata,
    parse_json,
    parse_response,
    rest_body,
    ssl_context,
    to_request,
)
from errsvc_client.client import http_error
from errsvc_client.errors import UsageError, from_http_answer, from_rpc_error
from errsvc_client.gen.errsvc.v1 import translation_service_pb2 as pb
from errsvc_client.gen.errsvc.v1 import translation_service_pb2_grpc as pb_grpc

__all__ = ["AsyncErrsvcClient"]


class AsyncErrsvcClient:
    """An asyncio client of one errsvc; see :class:`~errsvc_client.ErrsvcClient`
    for the options. Create it inside a running event loop; use it as an
    ``async with`` context manager, or ``await close()``."""

    def __init__(
        self,
        grpc_target: str,
        http_base: Optional[str] = None,
        *,
        credentials: Optional[grpc.ChannelCredentials] = None,
        tls: bool = False,
        ca_file: Optional[str] = None,
        cert_file: Optional[str] = None,
        key_file: Optional[str] = None,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        max_attempts: int = 3,
        metadata: Optional[MetadataLike] = None,
        options: Sequence[Tuple[str, Any]] = (),
    ) -> None:
        # TLS files are read before anything is opened, so a bad one leaks nothing.
        base = _http_base(http_base, tls or bool(ca_file or cert_file)) if http_base else None
        verify: Any = ssl_context(ca_file, cert_file, key_file) if base and base.startswith("https://") else True
        creds = grpc_credentials(credentials, tls, ca_file, cert_file, key_file)
        opts = channel_options(max_attempts, options)
        if creds is None:
            self._channel = grpc.aio.insecure_channel(grpc_target, options=opts)
        else:
            self._channel = grpc.aio.secure_channel(grpc_target, creds, options=opts)
        self._stub = pb_grpc.TranslationServiceStub(self._channel)
        self._metadata = merge_metadata([], metadata)
        self._timeout = timeout
        self._http: Optional[httpx.AsyncClient] = None
        if base:
            self._http = httpx.AsyncClient(base_url=base, verify=verify, headers=REST_HEADERS)

    async def close(self) -> None:
        await self._channel.close()
        if self._http is not None:
            await self._http.aclose()

    async def __aenter__(self) -> "AsyncErrsvcClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    def _t(self, timeout: Optional[float]) -> Optional[float]:
        return self._timeout if timeout is None else timeout

    async def _call(self, method: Any, request: Any, timeout: Optional[float], metadata: Optional[MetadataLike]) -> Any:
        try:
            return await method(request, timeout=self._t(timeout), metadata=merge_metadata(self._metadata, metadata))
        except grpc.RpcError as err:
            raise from_rpc_error(err) from err
        except (ValueError, grpc.aio.UsageError) as err:
            raise UsageError(None, str(err)) from err

    async def translate(
        self, request: RequestLike, *, timeout: Optional[float] = None, metadata: Optional[MetadataLike] = None
    ) -> pb.TranslateResponse:
        """Translates one error into every requested vocabulary."""
        return await self._call(self._stub.Translate, to_request(request), timeout, metadata)

    async def translate_batch(
        self,
        requests: Iterable[RequestLike],
        *,
        timeout: Optional[float] = None,
        metadata: Optional[MetadataLike] = None,
    ) -> List[pb.TranslateResponse]:
        """Translates many errors in one call, answering in the same order."""
        batch = pb.TranslateBatchRequest(requests=[to_request(r) for r in requests])
        return list((await self._call(self._stub.TranslateBatch, batch, timeout, metadata)).responses)

    async def translate_stream(
        self,
        requests: Union[Iterable[RequestLike], AsyncIterable[RequestLike]],
        *,
        timeout: Optional[float] = None,
        metadata: Optional[MetadataLike] = None,
    ) -> AsyncIterator[pb.TranslateResponse]:
        """Streams requests (an iterable or async iterable) to TranslateStream
        and yields each answer in order; a malformed request gets its own
        ``error``. No deadline unless ``timeout`` is given. errsvc limits a
        stream's messages per second: an item refused over the rate is
        answered with RESOURCE_EXHAUSTED and a RetryInfo
        (:func:`~errsvc_client.rate_refusal`)."""

        async def messages() -> AsyncIterator[pb.TranslateRequest]:
            if hasattr(requests, "__aiter__"):
                async for r in requests:  # type: ignore[union-attr]
                    yield to_request(r)
            else:
                for r in requests:  # type: ignore[union-attr]
                    yield to_request(r)

        try:
            call = self._stub.TranslateStream(
                messages(), timeout=timeout, metadata=merge_metadata(self._metadata, metadata)
            )
            async for resp in call:
                yield resp
        except grpc.RpcError as err:
            raise from_rpc_error(err) from err
        except (ValueError, grpc.aio.UsageError) as err:
            raise UsageError(None, str(err)) from err

    async def list_vocabularies(
        self, *, timeout: Optional[float] = None, metadata: Optional[MetadataLike] = None
    ) -> pb.ListVocabulariesResponse:
        """Every vocabulary, each term with its meaning, and the matrix rows."""
        return await self._call(self._stub.ListVocabularies, pb.ListVocabulariesRequest(), timeout, metadata)

    async def translate_rest_json(
        self, request: RequestLike, *, timeout: Optional[float] = None, metadata: Optional[MetadataLike] = None
    ) -> Any:
        """POST /v1/translate: the response body as parsed JSON."""
        if self._http is None:
            raise UsageError(None, "AsyncErrsvcClient was created without http_base")
        body = rest_body(request)
        try:
            resp = await self._http.post(
                "/v1/translate", content=body, timeout=self._t(timeout), headers=merge_metadata(self._metadata, metadata)
            )
        except httpx.HTTPError as err:
            raise http_error(err) from err
        except RuntimeError as err:  # httpx: the client has been closed
            raise UsageError(None, str(err)) from err
        if resp.status_code >= 400:
            raise from_http_answer(resp.status_code, resp.content)
        return parse_json(resp.content)

    async def translate_rest(
        self, request: RequestLike, *, timeout: Optional[float] = None, metadata: Optional[MetadataLike] = None
    ) -> pb.TranslateResponse:
        """Translate over REST (POST /v1/translate), answered as a message."""
        return parse_response(await self.translate_rest_json(request, timeout=timeout, metadata=metadata))
