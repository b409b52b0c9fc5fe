package translate

import (
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// encodeHandling writes what each part of a consumer does with the error,
// every field from a row of the matrix: the route and its flags from the
// class's row (the Error Class Contract's consumer decisions), health and
// the log level from the origin's row (the Labby contract), cacheable from
// the agent code's row (the Agent Surface matrix). A field whose row is
// missing (no class, an unknown origin or agent code) stays absent: the
// consumer's own policy decides.
func encodeHandling(m *model, resp *errsvcv1.TranslateResponse) {
	h := &errsvcv1.Handling{}
	if cr := recognizedClassRow(m); cr != nil {
		h.Route = cr.GetRoute()
		if m.class == classTransient && m.waitSecs != nil {
			floor := *m.waitSecs
			h.BackoffFloorSecs = &floor
		}
		if cr.GetSameProviderAlternativesDead() {
			dead := true
			h.SameProviderAlternativesDead = &dead
		}
	}
	switch or := originRow(m.origin); {
	case m.completedResult:
		// The Labby and Code Mode contracts: a completed isError result
		// proves the connection worked, whatever kind it carries.
		counts := false
		h.CountsTowardHealth = &counts
		h.LogLevel = originRow(toolExecutionOrigin).GetLogLevel()
	case or != nil:
		counts := or.GetCountsTowardHealth()
		h.CountsTowardHealth = &counts
		h.LogLevel = or.GetLogLevel()
	}
	if ar := agentCodeRow(m.agentCode); ar != nil {
		cacheable := ar.GetCacheable()
		h.Cacheable = &cacheable
	}
	if m.limit != nil {
		h.LimitDecision = limitDecision(m)
	}
	resp.Handling = h
}

// recognizedClassRow is the row of the answer's class, nil for no class or
// one outside the four.
func recognizedClassRow(m *model) *errsvcv1.ClassRow {
	if !m.hasClass || !m.recognized {
		return nil
	}
	return classRow(m.class)
}
