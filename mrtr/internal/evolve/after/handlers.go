package after

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// The handlers of the build after: the same as the build before's, for the
// changed spec.

// allow is the Authorize every handler shares.
type allow[F any] struct{}

func (allow[F]) Authorize(context.Context, F) error { return nil }

type (
	ArgumentRetypedImpl     struct{ allow[*ArgumentRetypedFlow] }
	ConstraintNarrowedImpl  struct{ allow[*ConstraintNarrowedFlow] }
	EnumRemovedImpl         struct{ allow[*EnumRemovedFlow] }
	EnumValuesImpl          struct{ allow[*EnumValuesFlow] }
	FieldRemovedImpl        struct{ allow[*FieldRemovedFlow] }
	GateChangedImpl         struct{ allow[*GateChangedFlow] }
	MessagesChangedImpl     struct{ allow[*MessagesChangedFlow] }
	OptionalArgumentImpl    struct{ allow[*OptionalArgumentFlow] }
	OptionalFieldsImpl      struct{ allow[*OptionalFieldsFlow] }
	PendingEnumAppendedImpl struct {
		allow[*PendingEnumAppendedFlow]
	}
	PendingEnumNarrowedImpl struct {
		allow[*PendingEnumNarrowedFlow]
	}
	StateKindChangedImpl struct{ allow[*StateKindChangedFlow] }
	StateRenamedImpl     struct{ allow[*StateRenamedFlow] }
	StatesAddedImpl      struct{ allow[*StatesAddedFlow] }
	StorageChangedImpl   struct{ allow[*StorageChangedFlow] }
	TypeChangedImpl      struct{ allow[*TypeChangedFlow] }
)

func (EnumValuesImpl) LoadTier(_ context.Context, f *EnumValuesFlow) error {
	f.Continuation.Tier = EnumValuesTierSilver
	return nil
}

func (OptionalFieldsImpl) LoadCount(_ context.Context, f *OptionalFieldsFlow) error {
	f.Continuation.Count, f.Continuation.Label = 7, "new"
	return nil
}

func (FieldRemovedImpl) LoadBoth(_ context.Context, f *FieldRemovedFlow) error {
	f.Continuation.Keep = "kept"
	return nil
}

func (TypeChangedImpl) LoadAmount(_ context.Context, f *TypeChangedFlow) error {
	f.Continuation.Amount = "42"
	return nil
}

func (EnumRemovedImpl) LoadLevel(_ context.Context, f *EnumRemovedFlow) error {
	f.Continuation.Level = EnumRemovedLevelLow
	return nil
}

func (StatesAddedImpl) WarmUp(context.Context, *StatesAddedFlow) error { return nil }

func (GateChangedImpl) DeleteRecord(context.Context, *GateChangedFlow) error { return nil }

// Each <Tool>Impl implements its tool's handler.
var (
	_ ArgumentRetypedHandler     = ArgumentRetypedImpl{}
	_ ConstraintNarrowedHandler  = ConstraintNarrowedImpl{}
	_ EnumRemovedHandler         = EnumRemovedImpl{}
	_ EnumValuesHandler          = EnumValuesImpl{}
	_ FieldRemovedHandler        = FieldRemovedImpl{}
	_ GateChangedHandler         = GateChangedImpl{}
	_ MessagesChangedHandler     = MessagesChangedImpl{}
	_ OptionalArgumentHandler    = OptionalArgumentImpl{}
	_ OptionalFieldsHandler      = OptionalFieldsImpl{}
	_ PendingEnumAppendedHandler = PendingEnumAppendedImpl{}
	_ PendingEnumNarrowedHandler = PendingEnumNarrowedImpl{}
	_ StateKindChangedHandler    = StateKindChangedImpl{}
	_ StateRenamedHandler        = StateRenamedImpl{}
	_ StatesAddedHandler         = StatesAddedImpl{}
	_ StorageChangedHandler      = StorageChangedImpl{}
	_ TypeChangedHandler         = TypeChangedImpl{}
)

// Register adds every tool of this build to s, served by e.
func Register(s *mcp.Server, e *mrtr.Engine) {
	RegisterAll(s, e, ArgumentRetypedImpl{}, ConstraintNarrowedImpl{}, EnumRemovedImpl{}, EnumValuesImpl{}, FieldRemovedImpl{}, GateChangedImpl{},
		MessagesChangedImpl{}, OptionalArgumentImpl{}, OptionalFieldsImpl{}, PendingEnumAppendedImpl{},
		PendingEnumNarrowedImpl{}, StateKindChangedImpl{}, StateRenamedImpl{}, StatesAddedImpl{},
		StorageChangedImpl{}, TypeChangedImpl{})
}
