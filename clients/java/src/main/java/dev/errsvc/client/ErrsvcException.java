package dev.errsvc.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.rpc.BadRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Every failure of an errsvc call, over gRPC or REST: the one exception type of this SDK.
 *
 * <p>It carries the {@code google.rpc.Status} of the failure ({@link #getStatus()}): the one the
 * server sent, with every detail (a malformed request is INVALID_ARGUMENT with a {@code
 * google.rpc.BadRequest} naming the field: {@link #fields()}), or one made on this side when no
 * answer came ({@link Kind}). The original exception, if any, is the {@linkplain #getCause()
 * cause}. It is unchecked, so a {@code CompletableFuture} completes with it as is.
 */
public final class ErrsvcException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Where a failure arose. */
  public enum Kind {
    /** errsvc answered with an error status (gRPC, or REST with {@link #getHttpStatus()}). */
    SERVER,
    /** The request could not be built; nothing was sent. Code INVALID_ARGUMENT. */
    REQUEST,
    /** No answer arrived: the connection failed, TLS failed or the deadline passed. UNAVAILABLE or DEADLINE_EXCEEDED. */
    TRANSPORT,
    /** An answer arrived that is not errsvc's (not JSON, not a TranslateResponse). Code INTERNAL. */
    RESPONSE,
    /** The client cannot make this call as configured (closed, no REST address). Code FAILED_PRECONDITION. */
    USAGE,
    /** The grpc_status of a translation, raised by the caller ({@link Decide#toException}). */
    TRANSLATED,
  }

  private static final io.grpc.Metadata.Key<byte[]> DETAILS_KEY =
      io.grpc.Metadata.Key.of("grpc-status-details-bin", io.grpc.Metadata.BINARY_BYTE_MARSHALLER);

  private final com.google.rpc.Status status;
  private final Kind kind;
  private final @Nullable Integer httpStatus;

  private ErrsvcException(
      com.google.rpc.Status status, Kind kind, @Nullable Integer httpStatus, @Nullable Throwable cause) {
    super(codeOf(status.getCode()).name() + ": " + status.getMessage(), cause);
    this.status = status;
    this.kind = kind;
    this.httpStatus = httpStatus;
  }

  /** An exception for a full google.rpc.Status. */
  public static ErrsvcException ofStatus(
      com.google.rpc.Status status, @Nullable Integer httpStatus, Kind kind, @Nullable Throwable cause) {
    return new ErrsvcException(status, kind, httpStatus, cause);
  }

  /** An exception with a code and a message and no details. */
  public static ErrsvcException of(Status.Code code, String message, Kind kind, @Nullable Throwable cause) {
    return new ErrsvcException(
        com.google.rpc.Status.newBuilder().setCode(code.value()).setMessage(message).build(), kind, null, cause);
  }

  /**
   * The ErrsvcException for a grpc-java failure: a {@link StatusRuntimeException} or {@link
   * io.grpc.StatusException} keeps its status with the details of {@code grpc-status-details-bin};
   * an ErrsvcException is returned as is; anything else is INTERNAL.
   */
  public static ErrsvcException fromThrowable(Throwable t) {
    if (t instanceof ErrsvcException e) {
      return e;
    }
    Status grpc = Status.fromThrowable(t);
    io.grpc.Metadata trailers = Status.trailersFromThrowable(t);
    // StatusProto makes a Status from the code when the server sent none: look for the details first.
    boolean sent = trailers != null && trailers.containsKey(DETAILS_KEY);
    com.google.rpc.Status st = sent ? StatusProto.fromThrowable(t) : null;
    if (st == null) {
      st = com.google.rpc.Status.newBuilder()
          .setCode(grpc.getCode().value())
          .setMessage(grpc.getDescription() != null ? grpc.getDescription()
              : grpc.getCause() != null ? grpc.getCause().toString() : "")
          .build();
      if (grpc.getCode() == Status.Code.UNAVAILABLE || grpc.getCode() == Status.Code.DEADLINE_EXCEEDED) {
        // No status from errsvc: the connection itself failed or the call timed out.
        return new ErrsvcException(st, Kind.TRANSPORT, null, t);
      }
      if (grpc.getCode() == Status.Code.UNKNOWN && !(t instanceof StatusRuntimeException)
          && !(t instanceof io.grpc.StatusException)) {
        return new ErrsvcException(st.toBuilder().setCode(Status.Code.INTERNAL.value()).build(), Kind.RESPONSE, null, t);
      }
    }
    return new ErrsvcException(st, Kind.SERVER, null, t);
  }

  /** The google.rpc.Status: code, message and every detail as sent. */
  public com.google.rpc.Status getStatus() {
    return status;
  }

  /** The gRPC status code (a code outside gRPC's reads as UNKNOWN). */
  public Status.Code getCode() {
    return codeOf(status.getCode());
  }

  /** The status message. */
  public String getStatusMessage() {
    return status.getMessage();
  }

  /** Where the failure arose. */
  public Kind getKind() {
    return kind;
  }

  /** The HTTP status of a REST answer; null over gRPC or when no answer came. */
  public @Nullable Integer getHttpStatus() {
    return httpStatus;
  }

  /** Every detail of this type, unpacked (ErrorInfo, RetryInfo, BadRequest, ...). */
  public <T extends Message> List<T> details(Class<T> type) {
    return unpack(status, type);
  }

  /** The BadRequest field violations of the status. */
  public List<BadRequest.FieldViolation> fieldViolations() {
    return fieldViolations(status);
  }

  /** The fields the BadRequest field violations name. */
  public List<String> fields() {
    List<String> out = new ArrayList<>();
    for (BadRequest.FieldViolation fv : fieldViolations()) {
      out.add(fv.getField());
    }
    return out;
  }

  /** The status as a grpc-java exception with its details (for a server handler's onError). */
  public StatusRuntimeException toStatusRuntimeException() {
    com.google.rpc.Status st = status;
    if (codeOf(st.getCode()).value() != st.getCode()) {
      st = st.toBuilder().setCode(Status.Code.UNKNOWN.value()).build();
    }
    return StatusProto.toStatusRuntimeException(st);
  }

  /** The BadRequest field violations of a google.rpc.Status, such as the error of a batch or stream item. */
  public static List<BadRequest.FieldViolation> fieldViolations(com.google.rpc.@Nullable Status status) {
    List<BadRequest.FieldViolation> out = new ArrayList<>();
    for (BadRequest br : unpack(status, BadRequest.class)) {
      out.addAll(br.getFieldViolationsList());
    }
    return out;
  }

  static <T extends Message> List<T> unpack(com.google.rpc.@Nullable Status status, Class<T> type) {
    if (status == null) {
      return Collections.emptyList();
    }
    List<T> out = new ArrayList<>();
    for (Any d : status.getDetailsList()) {
      if (d.is(type)) {
        try {
          out.add(d.unpack(type));
        } catch (InvalidProtocolBufferException e) {
          // A detail that does not unpack is left out.
        }
      }
    }
    return out;
  }

  static Status.Code codeOf(int code) {
    if (code < 0 || code > Status.Code.UNAUTHENTICATED.value()) {
      return Status.Code.UNKNOWN;
    }
    return Status.fromCodeValue(code).getCode();
  }

  private static final Map<Integer, Status.Code> HTTP_CODES = Map.ofEntries(
      Map.entry(400, Status.Code.INVALID_ARGUMENT),
      Map.entry(401, Status.Code.UNAUTHENTICATED),
      Map.entry(403, Status.Code.PERMISSION_DENIED),
      Map.entry(404, Status.Code.NOT_FOUND),
      Map.entry(409, Status.Code.ABORTED),
      Map.entry(413, Status.Code.RESOURCE_EXHAUSTED),
      Map.entry(429, Status.Code.RESOURCE_EXHAUSTED),
      Map.entry(499, Status.Code.CANCELLED),
      Map.entry(501, Status.Code.UNIMPLEMENTED),
      Map.entry(503, Status.Code.UNAVAILABLE),
      Map.entry(504, Status.Code.DEADLINE_EXCEEDED));

  /** The gRPC code an HTTP status maps to when the body carries no google.rpc.Status. */
  static Status.Code codeFromHttp(int httpStatus) {
    return HTTP_CODES.getOrDefault(httpStatus, Status.Code.UNKNOWN);
  }
}
