package mrtrimpl

// Export is the type of X: the plumbing generated code calls that needs no
// type parameter (reading arguments and answers, options found at run
// time, the errors of a round that cannot go on, the checks of a result)
// is its methods, so the package exports one value for all of it instead
// of a name for each, as protobuf-go's protoimpl.X does. What takes a type
// parameter (Take, Goto, Effect, Bind, Form, Text, URIs, SpecOrder,
// Repeated, Join) stays a function, since a method cannot have one.
type Export struct{}

// X is the one value whose methods are the plumbing's functions:
// generated code calls mrtrimpl.X.FormString(args, "email").
var X Export
