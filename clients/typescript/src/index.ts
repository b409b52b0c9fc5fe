// @errsvc/client for Node.js: the errsvc client whose default transport is
// gRPC over HTTP/2 (@connectrpc/connect-node), plus REST (the grpc-gateway)
// for translate. Browsers get web.ts instead (package.json "browser").

import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";

import { ErrsvcClientCore, type ErrsvcClientOptions, type TransportFactory } from "./core.js";

export * from "./core.js";

const nodeGrpc: TransportFactory = (baseUrl, interceptors) => {
  const sessionManager = new Http2SessionManager(baseUrl);
  return {
    transport: createGrpcTransport({ baseUrl, sessionManager, interceptors }),
    close: () => sessionManager.abort(),
  };
};

/**
 * A client of one errsvc. Call close() when done: it ends the HTTP/2
 * connection, which would otherwise keep Node running until it idles out.
 */
export class ErrsvcClient extends ErrsvcClientCore {
  constructor(options: ErrsvcClientOptions) {
    super(options, nodeGrpc);
  }
}
