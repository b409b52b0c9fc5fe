package translate

import (
	"fmt"
	"strings"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// VocabulariesMarkdown renders docs/VOCABULARIES.md from the matrix, the
// same data ListVocabularies serves and the translator reads.
func VocabulariesMarkdown() string {
	var b strings.Builder
	b.WriteString("# errsvc vocabularies\n\n")
	b.WriteString("Generated from `proto/errsvc/v1/vocabulary.proto` by `make docs`; do not edit by hand.\n")
	b.WriteString("`GET /v1/vocabularies` serves the same rows. A term outside these tables is\n")
	b.WriteString("passed through with a note, never rejected.\n")

	section(&b, LabbyKinds, []string{"kind", "origin", "action", "same_arguments", "side_effects", "HTTP", "gRPC", "class", "agent code", "meaning", "departs from the reference"},
		func(t Term) []string {
			r := t.Row.(*errsvcv1.KindRow)
			same := r.GetSameArguments()
			if r.GetRelaxWithHints() {
				same += " (conditional when read-only or idempotent)"
			}
			if r.GetPassesRetryAfter() {
				same += "; passes retry_after_ms"
			}
			agent := r.GetAgentCode()
			if r.GetAgentReason() != "" {
				agent += " (" + r.GetAgentReason() + ")"
			}
			return []string{tick(t.Wire), r.GetOrigin(), r.GetAction(), same, sideEffectsFor(r, r.GetOrigin()),
				fmt.Sprint(r.GetHttpStatus()), grpcCodeOrDerived(r.GetGrpcCode(), r.GetHttpStatus()), orDash(r.GetClass()), agent, t.Meaning, r.GetNote()}
		})
	fmt.Fprintf(&b, "\nAny other kind takes the Labby agent error contract's catch-all: origin %s, %s, same_arguments %s, side_effects unknown, HTTP %d, agent code %s, no class.\n",
		catchAll.GetOrigin(), catchAll.GetAction(), catchAll.GetSameArguments(), catchAll.GetHttpStatus(), catchAll.GetAgentCode())

	section(&b, AgentCodes, []string{"code", "default retry", "retries", "rules", "details", "cacheable", "Labby kind", "class", "HTTP", "gRPC", "meaning"},
		func(t Term) []string {
			r := t.Row.(*errsvcv1.AgentCodeRow)
			var rules []string
			for _, k := range sortedKeys(r.GetRetryByReason()) {
				rules = append(rules, "reason "+k+" → "+r.GetRetryByReason()[k])
			}
			if r.GetRetryIfIdempotent() != "" {
				rules = append(rules, "idempotent → "+r.GetRetryIfIdempotent())
			}
			if r.GetRetryIfTransient() != "" {
				rules = append(rules, "transient → "+r.GetRetryIfTransient())
			}
			kind := r.GetLabbyKind()
			for _, k := range sortedKeys(r.GetLabbyKindByReason()) {
				kind += "; reason " + k + " → " + r.GetLabbyKindByReason()[k]
			}
			return []string{tick(t.Wire), r.GetRetry(), strings.Join(r.GetRetries(), ", "), orDash(strings.Join(rules, "; ")),
				orDash(strings.Join(r.GetDetails(), ", ")), fmt.Sprint(r.GetCacheable()), kind, orDash(r.GetClass()),
				fmt.Sprint(r.GetHttpStatus()), grpcCodeOrDerived(r.GetGrpcCode(), r.GetHttpStatus()), t.Meaning}
		})
	section(&b, AgentRetries, []string{"retry", "Labby action", "same_arguments", "meaning"}, func(t Term) []string {
		r := t.Row.(*errsvcv1.RetryRow)
		return []string{tick(t.Wire), r.GetAction(), r.GetSameArguments(), t.Meaning}
	})
	section(&b, Classes, []string{"class", "bare-class Labby kind", "action", "agent code", "HTTP", "gRPC", "handling.route", "consumer decision"}, func(t Term) []string {
		r := t.Row.(*errsvcv1.ClassRow)
		route := r.GetRoute()
		if r.GetSameProviderAlternativesDead() {
			route += " (same_provider_alternatives_dead)"
		}
		return []string{tick(t.Wire), r.GetLabbyKind(), r.GetAction(), r.GetAgentCode(), fmt.Sprint(r.GetHttpStatus()), r.GetGrpcCode(), route, t.Meaning}
	})
	b.WriteString("\n`auth` is read as `auth_required`; any other class passes through verbatim with `recognized: false`.\n")
	classified := func(t Term) []string {
		r := t.Row.(*errsvcv1.ClassifiedCodeRow)
		return []string{tick(t.Wire), r.GetProducer(), orDash(r.GetClass()), r.GetClassSource(), t.Meaning}
	}
	section(&b, ClassifiedCodes, []string{"code", "producer", "class", "class from", "meaning"}, classified)
	section(&b, RoutingCodes, []string{"routing code", "producer", "class", "class from", "meaning"}, classified)
	b.WriteString("\nAn unknown routing code stays verbatim and transient.\n")
	section(&b, Origins, []string{"origin", "side effects", "in Code Mode", "counts toward health", "log level", "JSON-RPC code", "meaning", "where the contracts leave it open"}, func(t Term) []string {
		r := t.Row.(*errsvcv1.OriginRow)
		return []string{tick(t.Wire), r.GetSideEffects(), r.GetCodeModeOrigin(), fmt.Sprint(r.GetCountsTowardHealth()), r.GetLogLevel(), fmt.Sprint(r.GetJsonrpcCode()), t.Meaning, orDash(r.GetHandlingNote())}
	})
	section(&b, RecoveryActions, []string{"action", "agent retry", "default guidance", "meaning"}, func(t Term) []string {
		r := t.Row.(*errsvcv1.ActionRow)
		return []string{tick(t.Wire), r.GetAgentRetry(), r.GetGuidance(), t.Meaning}
	})
	plain := func(t Term) []string { return []string{tick(t.Wire), t.Meaning} }
	section(&b, SameArgs, []string{"same_arguments", "meaning"}, plain)
	section(&b, SideEffects, []string{"side_effects", "meaning"}, plain)
	section(&b, NoteCodes, []string{"note code", "meaning"}, plain)
	vocabulariesOfConsumers(&b, plain)
	return b.String()
}

func section(b *strings.Builder, v *Vocabulary, header []string, row func(Term) []string) {
	fmt.Fprintf(b, "\n## %s\n\n%s.\n\n", v.Name, v.Source)
	b.WriteString("| " + strings.Join(header, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat("---|", len(header)) + "\n")
	for _, t := range v.Terms {
		cells := row(t)
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", "\\|")
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}

func tick(s string) string { return "`" + s + "`" }

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func grpcCodeOrDerived(c string, http int32) string {
	if c != "" {
		return c
	}
	return grpcCodeByHTTP(http)
}
