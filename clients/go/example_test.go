package errsvcclient_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"google.golang.org/grpc/status"

	errsvcclient "github.com/errsvc/errsvc/clients/go"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// The in-process client runs the translator in this process: no server.
func ExampleNewInProcess() {
	c := errsvcclient.NewInProcess()
	defer c.Close()
	resp, err := c.Translate(context.Background(), &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
		LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Message: "slow down"}}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.GetAgentError().GetCode(), resp.GetAgentError().GetRetry(), resp.GetClassification().GetClass(), resp.GetHttpStatus())
	// Output: RATE_LIMITED after-delay transient 429
}

// A malformed request fails with INVALID_ARGUMENT and names its field.
func ExampleFieldViolations() {
	c := errsvcclient.NewInProcess()
	_, err := c.Translate(context.Background(), &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
		LabbyError: &errsvcv1.LabbyError{Message: "no kind"}}})
	fmt.Println(status.Code(err), errsvcclient.FieldViolations(err)[0].GetField())
	// Output: InvalidArgument labby_error.kind
}

// Dial connects to a running errsvc (here on its default gRPC address).
func ExampleDial() {
	c, err := errsvcclient.Dial("127.0.0.1:9090", errsvcclient.WithTimeout(5*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	resp, err := c.Translate(context.Background(), &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_AgentError{
		AgentError: &errsvcv1.AgentError{Code: "TIMEOUT", Retry: "no"}}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.GetLabbyError().GetKind(), resp.GetHttpStatus())
}
