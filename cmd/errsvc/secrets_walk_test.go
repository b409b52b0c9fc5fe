package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/secrets"
	"github.com/errsvc/errsvc/translate"
)

// The reflective secrets test through `errsvc translate`: every corpus
// secret planted in every request position (one round of the plan covers
// every position and every entry), the printed answer parsed back and every
// string read by reflection; stderr searched too. The command's function is
// called in process for the whole plan, and the real binary runs a sample
// of it, so the wiring from os.Args is covered as well.
func TestSecretsNeverReachTheTranslateCommand(t *testing.T) {
	corpus, err := secrets.LoadSample(5)
	if err != nil {
		t.Fatal(err)
	}
	positions := secrets.Positions()
	plan := secrets.Plan(len(positions), len(corpus), 1)
	if os.Getenv("ERRSVC_SECRETS_EXHAUSTIVE") == "1" {
		plan = plan[:0] // every position with every entry, run by hand
		for p := range positions {
			for e := range corpus {
				plan = append(plan, [2]int{p, e})
			}
		}
	}
	for i, pe := range plan {
		p, e := positions[pe[0]], corpus[pe[1]]
		in, err := protojson.Marshal(p.Build(e.Text))
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		var code int
		if i%110 == 0 { // two runs of the real binary: each starts the rule engines afresh
			cmd := exec.Command(os.Args[0], "translate", "-")
			cmd.Env = append(os.Environ(), "ERRSVC_TEST_RUN_MAIN=1")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &stdout, &stderr
			if err := cmd.Run(); err != nil {
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else {
					t.Fatal(err)
				}
			}
		} else {
			code = runTranslate(nil, bytes.NewReader(in), &stdout, &stderr)
		}
		for name, s := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
			if w, ok := secrets.Leaks(s, e.Secret); ok {
				t.Errorf("%s: %q in %s", secrets.Describe(e, p), w, name)
			}
		}
		if code != 0 {
			if !strings.Contains(stderr.String(), "malformed request") {
				t.Errorf("%s: exit %d: %s", secrets.Describe(e, p), code, stderr.String())
			}
			continue
		}
		resp := &errsvcv1.TranslateResponse{}
		if err := openjson.Unmarshal(stdout.Bytes(), resp); err != nil {
			t.Fatalf("%s: output is not a TranslateResponse: %v", secrets.Describe(e, p), err)
		}
		if path, w, ok := secrets.LeakInAnswer(resp, e.Secret, func() proto.Message {
			base, _ := translate.Translate(p.Build(e.Without()))
			return base
		}); ok {
			t.Errorf("%s: %q leaked into %s", secrets.Describe(e, p), w, path)
		}
	}
	t.Logf("%d planted requests through errsvc translate", len(plan))
}
