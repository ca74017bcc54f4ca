package conformance

import "context"

// TemplateDataImpl implements TemplateDataHandler for resource template_data: the spec is the whole
// fixture, so the handler only lets everyone in.
type TemplateDataImpl struct{}

var _ TemplateDataHandler = (*TemplateDataImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TemplateDataImpl) Authorize(context.Context, *TemplateDataFlow) error { return nil }
