package dev.errsvc.client;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.TypeRegistry;
import com.google.protobuf.util.JsonFormat;
import com.google.rpc.ErrorDetailsProto;
import dev.errsvc.v1.ErrorsProto;
import dev.errsvc.v1.OptionsProto;
import dev.errsvc.v1.TranslationServiceProto;
import java.util.HashMap;
import java.util.Map;

/**
 * The JSON mapping of errsvc's REST face: protobuf's JSON mapping with proto field names
 * ({@link JsonFormat}), {@code google.protobuf.Any} details resolved by a registry of every {@code
 * google.rpc} error detail and errsvc message, and the open-on-read rule of errsvc's JSON: the
 * members of a message's {@code additional_fields} are written as members of the object itself, so
 * on read every member a message does not declare goes back into its {@code additional_fields}
 * (the mirror of errsvc's Go codec/openjson and the Python SDK's route_unknown).
 */
public final class ProtoJson {
  private ProtoJson() {}

  /** The field the contract's envelopes keep undeclared members in. */
  static final String ADDITIONAL_FIELDS = "additional_fields";

  /** Every google.rpc error detail and errsvc message, for the Any values of JSON. */
  public static final TypeRegistry TYPES = TypeRegistry.newBuilder()
      .add(ErrorDetailsProto.getDescriptor().getMessageTypes())
      .add(com.google.rpc.StatusProto.getDescriptor().getMessageTypes())
      .add(ErrorsProto.getDescriptor().getMessageTypes())
      .add(OptionsProto.getDescriptor().getMessageTypes())
      .add(TranslationServiceProto.getDescriptor().getMessageTypes())
      .build();

  private static final JsonFormat.Printer PRINTER =
      JsonFormat.printer().usingTypeRegistry(TYPES).preservingProtoFieldNames().omittingInsignificantWhitespace();
  private static final JsonFormat.Parser PARSER = JsonFormat.parser().usingTypeRegistry(TYPES);
  private static final JsonFormat.Parser LENIENT = JsonFormat.parser().usingTypeRegistry(TYPES).ignoringUnknownFields();

  /** The message as JSON with proto field names. */
  public static String print(MessageOrBuilder m) {
    try {
      return PRINTER.print(m);
    } catch (InvalidProtocolBufferException e) {
      throw ErrsvcException.of(io.grpc.Status.Code.INVALID_ARGUMENT, "not printable as JSON: " + e.getMessage(),
          ErrsvcException.Kind.REQUEST, e);
    }
  }

  /**
   * Merges errsvc JSON into builder: members the message does not declare go into its {@code
   * additional_fields}.
   *
   * @throws InvalidProtocolBufferException when the JSON is not the message's
   */
  public static <B extends Message.Builder> B merge(String json, B builder) throws InvalidProtocolBufferException {
    JsonElement tree;
    try {
      tree = JsonParser.parseString(json);
    } catch (RuntimeException e) {
      throw new InvalidProtocolBufferException("not JSON: " + e.getMessage());
    }
    PARSER.merge(routeUnknown(tree, builder.getDescriptorForType()).toString(), builder);
    return builder;
  }

  /** Parses JSON into builder, skipping members it does not know (for google.rpc.Status bodies). */
  static <B extends Message.Builder> B mergeLenient(String json, B builder) throws InvalidProtocolBufferException {
    LENIENT.merge(json, builder);
    return builder;
  }

  /**
   * A copy of the JSON value whose members that the message (or a nested one) does not declare
   * are in {@code additional_fields}.
   */
  public static JsonElement routeUnknown(JsonElement value, Descriptor descriptor) {
    if (!value.isJsonObject() || descriptor.getFile().getPackage().equals("google.protobuf")) {
      return value;
    }
    Map<String, FieldDescriptor> byName = new HashMap<>();
    for (FieldDescriptor f : descriptor.getFields()) {
      byName.put(f.getName(), f);
    }
    Map<String, FieldDescriptor> byJson = new HashMap<>();
    for (FieldDescriptor f : descriptor.getFields()) {
      byJson.put(f.getJsonName(), f);
    }
    boolean hasExtra = byName.containsKey(ADDITIONAL_FIELDS);
    JsonObject out = new JsonObject();
    JsonObject extra = new JsonObject();
    for (Map.Entry<String, JsonElement> e : value.getAsJsonObject().entrySet()) {
      String key = e.getKey();
      JsonElement member = e.getValue();
      FieldDescriptor field = byName.containsKey(key) ? byName.get(key) : byJson.get(key);
      if (field == null) {
        if (hasExtra) {
          extra.add(key, member);
        } else {
          out.add(key, member); // the parser names it in its error
        }
        continue;
      }
      if (field.getName().equals(ADDITIONAL_FIELDS)) {
        if (member.isJsonObject()) {
          for (Map.Entry<String, JsonElement> x : member.getAsJsonObject().entrySet()) {
            if (!extra.has(x.getKey())) {
              extra.add(x.getKey(), x.getValue());
            }
          }
        }
        continue;
      }
      if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE && !field.isMapField()) {
        if (field.isRepeated() && member.isJsonArray()) {
          JsonArray items = new JsonArray();
          for (JsonElement item : member.getAsJsonArray()) {
            items.add(routeUnknown(item, field.getMessageType()));
          }
          member = items;
        } else {
          member = routeUnknown(member, field.getMessageType());
        }
      }
      out.add(key, member);
    }
    if (extra.size() > 0) {
      out.add(ADDITIONAL_FIELDS, extra);
    }
    return out;
  }
}
