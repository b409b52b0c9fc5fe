package dev.errsvc.client;

import dev.errsvc.v1.LabbyError;
import dev.errsvc.v1.Recovery;
import dev.errsvc.v1.TranslateRequest;
import dev.errsvc.v1.TranslateResponse;

/** The first call of clients/java/README.md; FirstCallTest runs it against the live errsvc and checks what it prints. */
public final class FirstCall {
  private FirstCall() {}

  public static void main(String[] args) {
    String grpcAddr = args.length > 0 ? args[0] : "127.0.0.1:9090";
    String httpAddr = args.length > 1 ? args[1] : "127.0.0.1:8080";
    // README:begin
    TranslateRequest request = TranslateRequest.newBuilder()
        .setLabbyError(LabbyError.newBuilder()
            .setKind("rate_limited")
            .setMessage("A rate limit was hit; wait before retrying.")
            .setRecovery(Recovery.newBuilder().setAction(Wire.RecoveryAction.RETRY_LATER).setRetryAfterMs(2500)))
        .build();

    // gRPC, blocking.
    try (ErrsvcClient client = ErrsvcClient.builder(grpcAddr).build()) {
      TranslateResponse resp = client.translate(request);
      System.out.println(resp.getAgentError().getCode() + " " + resp.getAgentError().getRetry() + " "
          + resp.getClassification().getClass_() + " " + resp.getHttpStatus());

      // What to do next: the same helpers as the Go, Python and TypeScript SDKs.
      Decide.Decision next = Decide.decide(resp);
      System.out.println("retry=" + next.retryable() + " after=" + next.retryAfter()
          + " reauthenticate=" + next.reauthenticate() + " sameArguments=" + next.sameArgumentsSafe());

      // A malformed request: one exception type, carrying the google.rpc.Status.
      try {
        client.translate(TranslateRequest.getDefaultInstance());
      } catch (ErrsvcException e) {
        System.out.println(e.getCode() + " " + e.fields());
      }
    }

    // REST, with the REST gateway's JSON mapping.
    ErrsvcRestClient rest = ErrsvcRestClient.builder(httpAddr).build();
    TranslateResponse viaRest = rest.translate(request);
    System.out.println(viaRest.getAgentError().getCode() + " " + Wire.ErrorClass.TRANSIENT.equals(viaRest.getClassification().getClass_()));
    // README:end
  }
}
