package dev.errsvc.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;

/** The REST client's TLS context from PEM files, as the gRPC channel reads them. */
final class Tls {
  private Tls() {}

  private static final Pattern PKCS8 =
      Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

  /**
   * An SSLContext trusting caFile's certificates (the system roots without one) and presenting
   * certFile with keyFile (a PKCS#8 PEM key: RSA, EC or Ed25519) for mutual TLS.
   */
  static SSLContext context(@Nullable Path caFile, @Nullable Path certFile, @Nullable Path keyFile) {
    if ((certFile == null) != (keyFile == null)) {
      throw usage("certFile and keyFile go together", null);
    }
    try {
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      if (caFile == null) {
        tmf.init((KeyStore) null);
      } else {
        KeyStore ts = KeyStore.getInstance(KeyStore.getDefaultType());
        ts.load(null, null);
        int i = 0;
        for (Certificate c : certificates(caFile)) {
          ts.setCertificateEntry("ca" + i++, c);
        }
        tmf.init(ts);
      }
      KeyManagerFactory kmf = null;
      if (certFile != null && keyFile != null) {
        KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
        ks.load(null, null);
        char[] none = new char[0];
        ks.setKeyEntry("client", privateKey(keyFile), none, certificates(certFile).toArray(new Certificate[0]));
        kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, none);
      }
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
      return ctx;
    } catch (IOException | GeneralSecurityException e) {
      throw usage("TLS files: " + e.getMessage(), e);
    }
  }

  private static Collection<? extends Certificate> certificates(Path pem) throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(pem)) {
      Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certs.isEmpty()) {
        throw new GeneralSecurityException("no certificate in " + pem);
      }
      return certs;
    }
  }

  private static PrivateKey privateKey(Path pem) throws IOException, GeneralSecurityException {
    Matcher m = PKCS8.matcher(Files.readString(pem, StandardCharsets.US_ASCII));
    if (!m.find()) {
      throw new GeneralSecurityException(pem + ": want a PKCS#8 PEM key (BEGIN PRIVATE KEY)");
    }
    byte[] der = Base64.getMimeDecoder().decode(m.group(1));
    List<String> tried = new ArrayList<>();
    for (String alg : List.of("RSA", "EC", "Ed25519")) {
      try {
        return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        tried.add(alg);
      }
    }
    throw new GeneralSecurityException(pem + ": not an " + String.join(", ", tried) + " key");
  }

  static ErrsvcException usage(String message, @Nullable Throwable cause) {
    return ErrsvcException.of(io.grpc.Status.Code.FAILED_PRECONDITION, message, ErrsvcException.Kind.USAGE, cause);
  }
}
