package provider

import "slices"

// Names are the provider values errsvc knows (Answer.Provider, lower case),
// sorted: what an operator policy's family may read like (reads_like), so
// a misspelt one is refused by the policy schema (policy/schema.json, its
// enum generated from this list) instead of reading as an unknown provider.
func Names() []string {
	names := make([]string, 0, len(providers))
	for name := range providers {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
