package dev.errsvc.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** README.md's first call runs against the live errsvc and prints what the README says. */
class FirstCallTest {
  static String between(String text, String begin, String end) {
    int b = text.indexOf(begin);
    int e = b < 0 ? -1 : text.indexOf(end, b + begin.length());
    assertTrue(b >= 0 && e >= 0, "markers " + begin + " / " + end);
    return text.substring(b + begin.length(), e);
  }

  @Test
  void printsWhatTheReadmeSays() throws IOException {
    String grpc = Vectors.grpcAddr();
    String http = Vectors.httpAddr();
    PrintStream old = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      FirstCall.main(new String[] {grpc, http});
    } finally {
      System.setOut(old);
    }
    String readme = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8);
    String printed = between(readme, "prints\n\n```\n", "```");
    assertEquals(printed, buf.toString(StandardCharsets.UTF_8));
    // The README's code is FirstCall's, line for line (the addresses aside).
    String source = Files.readString(Path.of("src/test/java/dev/errsvc/client/FirstCall.java"), StandardCharsets.UTF_8);
    String code = between(source, "// README:begin\n", "    // README:end").lines()
        .map(l -> l.startsWith("    ") ? l.substring(4) : l).collect(java.util.stream.Collectors.joining("\n", "", "\n"))
        .replace("builder(grpcAddr)", "builder(\"127.0.0.1:9090\")").replace("builder(httpAddr)", "builder(\"127.0.0.1:8080\")");
    assertTrue(readme.contains(code), "README.md does not hold FirstCall's code:\n" + code);
  }
}
