// Open on read for whole objects, in the JSON form of errsvc's messages.
//
// errsvc's REST face (and its CLI) writes the members of every message's
// `additional_fields` as members of the object itself, so an envelope keeps
// the shape its producer gave it; protobuf-es's fromJson refuses such
// members. routeUnknown moves every member a message does not declare back
// into that message's `additional_fields`. It mirrors errsvc's Go
// codec/openjson.

import type { DescMessage, JsonObject, JsonValue } from "@bufbuild/protobuf";

export const ADDITIONAL_FIELDS = "additional_fields";

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A copy of `json` whose undeclared members are in additional_fields. */
export function routeUnknown(json: JsonValue, desc: DescMessage): JsonValue {
  if (!isObject(json) || desc.file.proto.package === "google.protobuf") {
    return json;
  }
  const byName = new Map(desc.fields.map((f) => [f.name, f]));
  for (const f of desc.fields) byName.set(f.jsonName, f);
  const hasExtra = desc.fields.some((f) => f.name === ADDITIONAL_FIELDS);
  const out: JsonObject = {};
  const extra: JsonObject = {};
  let anyExtra = false;
  for (const [key, member] of Object.entries(json)) {
    const field = byName.get(key);
    if (field === undefined) {
      if (hasExtra) {
        extra[key] = member;
        anyExtra = true;
      } else {
        out[key] = member; // fromJson names it in its error
      }
      continue;
    }
    if (field.name === ADDITIONAL_FIELDS) {
      if (isObject(member)) {
        for (const [k, v] of Object.entries(member)) {
          if (!(k in extra)) extra[k] = v;
          anyExtra = true;
        }
      }
      continue;
    }
    if (field.fieldKind === "message") {
      out[key] = routeUnknown(member, field.message);
    } else if (field.fieldKind === "list" && field.listKind === "message" && Array.isArray(member)) {
      out[key] = member.map((item) => routeUnknown(item, field.message));
    } else {
      out[key] = member;
    }
  }
  if (anyExtra) out[ADDITIONAL_FIELDS] = extra;
  return out;
}
