// The retry-adapter scenario's mock provider (clients/go/adapters/testdata/scenario.json,
// shared with the Go and Python suites), used by adapters.test.ts and
// adapters-docs.test.ts. No tests here.

import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}
export interface Step {
  name: string;
  stream?: boolean;
  answers: Answer[];
  adapter_expect: { calls: number; retried: boolean; stated_wait_ms?: number; reauthenticate?: boolean };
}

export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      readFileSync(join(dir, "go.mod"));
      return dir;
    } catch {
      const parent = dirname(dir);
      if (parent === dir) throw new Error("repository root not found");
      dir = parent;
    }
  }
}

export const scenario = JSON.parse(readFileSync(join(repoRoot(), "clients/go/adapters/testdata/scenario.json"), "utf8")) as {
  wait_scale: number;
  steps: Step[];
};

/** Answers /<key>/... with the step's answers in turn (the last repeated); records when each call came. */
export class MockProvider {
  server: Server;
  steps = new Map<string, Step>();
  calls = new Map<string, number[]>();
  url = "";

  constructor() {
    this.server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        const key = (req.url ?? "/").split("/")[1] ?? "";
        const step = this.steps.get(key);
        const calls = this.calls.get(key) ?? [];
        calls.push(performance.now());
        this.calls.set(key, calls);
        if (!step) {
          res.writeHead(404).end();
          return;
        }
        const a = step.answers[Math.min(calls.length - 1, step.answers.length - 1)];
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(a.headers)) if (!["content-length", "transfer-encoding", "connection"].includes(k.toLowerCase())) headers[k] = v;
        res.writeHead(a.status, headers).end(a.body);
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  took(key: string): [number, number] {
    const c = this.calls.get(key) ?? [];
    return [c.length, c.length > 1 ? Math.round(c[c.length - 1] - c[0]) : 0];
  }
}

