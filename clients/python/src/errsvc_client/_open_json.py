"""Open on read for whole objects, in the JSON form of errsvc's messages.

errsvc's REST face (and its CLI) writes the members of every message's
``additional_fields`` as members of the object itself, so an envelope keeps
the shape its producer gave it; protobuf's JSON parser refuses such members.
:func:`route_unknown` moves every member a message does not declare back into
that message's ``additional_fields``, which the generated classes hold. It is
the mirror of errsvc's Go ``codec/openjson``.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

ADDITIONAL_FIELDS = "additional_fields"


def route_unknown(value: Any, descriptor: Descriptor) -> Any:
    """A copy of the JSON object ``value`` whose members that ``descriptor``
    (or a nested message) does not declare are in ``additional_fields``."""
    if not isinstance(value, dict) or descriptor.file.package == "google.protobuf":
        return value
    by_name = descriptor.fields_by_name
    by_json = {f.json_name: f for f in descriptor.fields}
    has_extra = ADDITIONAL_FIELDS in by_name
    out: dict = {}
    extra: dict = {}
    for key, member in value.items():
        field = by_name.get(key) or by_json.get(key)
        if field is None:
            if has_extra:
                extra[key] = member
            else:
                out[key] = member  # the parser names it in its error
            continue
        if field.name == ADDITIONAL_FIELDS:
            if isinstance(member, dict):
                for k, v in member.items():
                    extra.setdefault(k, v)
            continue
        if field.message_type is not None and not _is_map(field):
            if _is_repeated(field) and isinstance(member, list):
                member = [route_unknown(item, field.message_type) for item in member]
            else:
                member = route_unknown(member, field.message_type)
        out[key] = member
    if extra:
        out[ADDITIONAL_FIELDS] = extra
    return out


def _is_repeated(field: FieldDescriptor) -> bool:
    # protobuf 5+ has is_repeated; older ones only the label.
    rep = getattr(field, "is_repeated", None)
    if rep is not None:
        return bool(rep)
    return field.label == FieldDescriptor.LABEL_REPEATED


def _is_map(field: FieldDescriptor) -> bool:
    mt = field.message_type
    return mt is not None and mt.GetOptions().map_entry
