// openapi-typescript generates types from the committed OpenAPI 3.1
// document; tsc then checks that the exactly-one-source rule reaches a
// TypeScript caller: {} and two sources must not type-check as a
// TranslateRequest, one source must, and the typed error answers are there.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const out = join(here, "..", ".out", "openapi-types");
mkdirSync(out, { recursive: true });
const bin = (name) => join(here, "..", "node_modules", ".bin", name);

execFileSync(bin("openapi-typescript"), [join(root, "gen/openapi/errsvc.openapi.json"), "-o", join(out, "errsvc.ts")], { stdio: "inherit" });

writeFileSync(join(out, "check.ts"), `import type { components, paths } from "./errsvc.js";
type TranslateRequest = components["schemas"]["v1TranslateRequest"];

// One source, and an unknown member (the request is open on read).
export const ok: TranslateRequest = { agent_error: { code: "RATE_LIMITED", message: "slow down" } };
export const provider: TranslateRequest = { provider_response: { status: 429, body: "{}" } };

// @ts-expect-error no source
export const none: TranslateRequest = {};
// @ts-expect-error only targets, still no source
export const targetsOnly: TranslateRequest = { targets: ["labby_error"] };
// @ts-expect-error two sources
export const two: TranslateRequest = { labby_error: { kind: "timeout" }, agent_error: { code: "TIMEOUT" } };

// The typed error answers and Retry-After.
type TranslateOp = paths["/v1/translate"]["post"];
export type BadRequest = TranslateOp["responses"][400]["content"]["application/json"];
export type TooLarge = TranslateOp["responses"][413]["content"]["application/json"];
export type RetryAfter = TranslateOp["responses"][429]["headers"]["Retry-After"];
export const code: BadRequest["code"] = 3;
`);
writeFileSync(join(out, "tsconfig.json"), JSON.stringify({
  compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", skipLibCheck: true },
  files: ["check.ts"],
}));
execFileSync(bin("tsc"), ["-p", join(out, "tsconfig.json")], { stdio: "inherit" });
console.log("openapi-typescript: {} and two sources do not type-check as a TranslateRequest; one source does");
