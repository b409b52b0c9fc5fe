package dev.errsvc.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import dev.errsvc.v1.TranslateRequest;
import dev.errsvc.v1.TranslateResponse;
import io.grpc.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * The golden vectors of testdata/golden, read at run time (they follow the engine, so they are
 * never copied here), and the live errsvc that clients/test.sh starts.
 */
final class Vectors {
  private Vectors() {}

  /** The least number of shared vectors every SDK must run. */
  static final int MIN_VECTORS = 50;

  /** One golden vector: a request and the answer errsvc must give (a response, or an error naming a field). */
  record Vector(String name, JsonObject requestJson, TranslateRequest request, @Nullable JsonObject responseJson,
      @Nullable TranslateResponse want, @Nullable String errorField) {
    boolean malformed() {
      return errorField != null;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** The repository root: the folder above the working directory with go.mod and testdata/golden. */
  static Path repoRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path p = dir; p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("go.mod")) && Files.isDirectory(p.resolve("testdata/golden"))) {
        return p;
      }
    }
    throw new IllegalStateException("no go.mod with testdata/golden above " + dir + "; set ERRSVC_GOLDEN_DIR");
  }

  /** ERRSVC_GOLDEN_DIR, else testdata/golden of the repository. */
  static Path goldenDir() {
    String env = System.getenv("ERRSVC_GOLDEN_DIR");
    return env != null && !env.isEmpty() ? Path.of(env) : repoRoot().resolve("testdata/golden");
  }

  private static @Nullable List<Vector> cache;

  static synchronized List<Vector> all() {
    if (cache != null) {
      return cache;
    }
    List<Path> files;
    try (Stream<Path> s = Files.list(goldenDir())) {
      files = s.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Vector> out = new ArrayList<>();
    for (Path f : files) {
      JsonObject v;
      try {
        v = JsonParser.parseString(Files.readString(f, StandardCharsets.UTF_8)).getAsJsonObject();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      String name = v.get("name").getAsString();
      assertEquals(name + ".json", f.getFileName().toString(), "vector name and file name");
      JsonObject reqJson = v.getAsJsonObject("request");
      TranslateRequest req = parse(reqJson, TranslateRequest.newBuilder(), name + ": request").build();
      JsonObject respJson = v.has("response") ? v.getAsJsonObject("response") : null;
      TranslateResponse want = respJson == null ? null
          : parse(respJson, TranslateResponse.newBuilder(), name + ": response").build();
      String field = v.has("error") ? v.getAsJsonObject("error").get("field").getAsString() : null;
      out.add(new Vector(name, reqJson, req, respJson, want, field));
    }
    assertTrue(out.size() >= MIN_VECTORS, "only " + out.size() + " golden vectors; want at least " + MIN_VECTORS);
    cache = List.copyOf(out);
    return cache;
  }

  static <B extends com.google.protobuf.Message.Builder> B parse(JsonElement json, B b, String what) {
    try {
      return ProtoJson.merge(json.toString(), b);
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError(what + ": " + e.getMessage(), e);
    }
  }

  /**
   * The message as a JSON tree: two messages are the same when their trees are equal, which
   * compares the Any details by what they hold, not by the bytes the server's encoder chose for
   * their maps, and objects whatever their member order.
   */
  static JsonElement tree(MessageOrBuilder m) {
    return JsonParser.parseString(ProtoJson.print(m));
  }

  static void assertSameMessage(MessageOrBuilder want, MessageOrBuilder got, String what) {
    JsonElement w = tree(want);
    JsonElement g = tree(got);
    if (!w.equals(g)) {
      fail(what + " differs from the vector\nwant: " + w + "\n got: " + g);
    }
  }

  /** A batch or stream item, which carries its own error. */
  static void checkItem(Vector v, TranslateResponse got) {
    if (v.malformed()) {
      assertTrue(got.hasError(), "want an item error naming " + v.errorField() + ", got " + ProtoJson.print(got));
      assertEquals(Status.Code.INVALID_ARGUMENT.value(), got.getError().getCode(), "item error code");
      List<String> fields = ErrsvcException.fieldViolations(got.getError()).stream().map(fv -> fv.getField()).toList();
      assertTrue(fields.contains(v.errorField()), "field violations " + fields + " do not name " + v.errorField());
      assertEquals(TranslateResponse.newBuilder().setError(got.getError()).build(), got,
          "an item with an error has other fields set");
      return;
    }
    assertTrue(!got.hasError(), () -> "unexpected item error: " + ProtoJson.print(got.getError()));
    assertSameMessage(v.want(), got, "item");
  }

  /** A failed unary call of a malformed vector. */
  static void checkMalformed(Vector v, ErrsvcException e) {
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getCode(), "code (" + e.getStatusMessage() + ")");
    assertTrue(e.fields().contains(v.errorField()),
        "BadRequest field violations " + e.fields() + " do not name " + v.errorField());
  }

  static String grpcAddr() {
    return serverAddr("ERRSVC_GRPC_ADDR");
  }

  static String httpAddr() {
    return serverAddr("ERRSVC_HTTP_ADDR");
  }

  /**
   * The address of the live errsvc (clients/test.sh starts one and sets it); without it the live
   * tests are skipped, or fail when ERRSVC_REQUIRE_SERVER or CI is set.
   */
  private static String serverAddr(String env) {
    String addr = System.getenv(env);
    if (addr == null || addr.isEmpty()) {
      String require = System.getenv("ERRSVC_REQUIRE_SERVER");
      String ci = System.getenv("CI");
      if ((require != null && !require.isEmpty()) || (ci != null && !ci.isEmpty())) {
        fail("ERRSVC_REQUIRE_SERVER or CI is set but " + env + " is not");
      }
      Assumptions.abort(env + " unset: no errsvc to call (clients/test.sh starts one)");
    }
    return addr;
  }
}
