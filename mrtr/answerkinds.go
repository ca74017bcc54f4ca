package mrtr

import "github.com/mrtrgen/mrtrgen/mrtr/internal/handlertypes"

// Sampled is a flow's answer to a sampling request (an ask's sample:): the
// text the client's model produced, within the spec's bounds. A handler
// reads it as f.Summary.Text.
type Sampled = handlertypes.Sampled

// RootList is a flow's answer to a roots request (an ask's roots:): the
// client's root URIs, within the spec's bounds.
type RootList = handlertypes.RootList

// URLStep is a flow's answer to a URL-mode elicitation: the user accepted
// opening its URL. It carries nothing, and it does not mean the step on
// that page was completed: the check after the ask verifies it.
type URLStep = handlertypes.URLStep
