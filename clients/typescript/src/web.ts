// @errsvc/client for browsers (and any runtime with fetch): the errsvc
// client whose default transport is Connect, or gRPC-Web, over fetch
// (@connectrpc/connect-web), to the URL that serves them; plus REST. No
// Node.js module is imported, so bundlers (esbuild, vite) build it for a
// browser target. Import "@errsvc/client/web", or "@errsvc/client" where the
// bundler honours package.json "browser".

import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";

import { ErrsvcClientCore, type ErrsvcClientOptions, type TransportFactory } from "./core.js";

export * from "./core.js";

export interface ErrsvcWebClientOptions extends ErrsvcClientOptions {
  /** The protocol to `grpc` (a URL): "connect" (the default, JSON) or "grpc-web" (binary). */
  protocol?: "connect" | "grpc-web";
}

function webTransport(protocol: "connect" | "grpc-web"): TransportFactory {
  return (baseUrl, interceptors) => ({
    transport:
      protocol === "grpc-web"
        ? createGrpcWebTransport({ baseUrl, interceptors })
        : createConnectTransport({ baseUrl, interceptors }),
  });
}

/** A client of one errsvc from a browser. */
export class ErrsvcClient extends ErrsvcClientCore {
  constructor(options: ErrsvcWebClientOptions) {
    super(options, webTransport(options.protocol ?? "connect"));
  }
}
