package mrtrimpl

import "github.com/mrtrgen/mrtrgen/mrtr/internal/handlertypes"

// The types a handler author sees are defined once, in
// mrtr/internal/handlertypes, and exported once, by package mrtr
// (mrtr.Final, mrtr.PromptMessage, mrtr.Option, mrtr.Sampled); generated
// code names them there. The plumbing's signatures use these unexported
// aliases, which are the same types.
type (
	final   = handlertypes.Final
	option  = handlertypes.Option
	urlStep = handlertypes.URLStep
)
