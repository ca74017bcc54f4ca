package status

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/status.mrtr.yaml

import (
	"context"
	"strings"

	"github.com/mrtrgen/mrtrgen/examples/domain"
)

// ServiceStatusImpl implements ServiceStatusHandler for resource
// service_status on the example domain's service catalog and environments.
// Anyone may read a service's status.
type ServiceStatusImpl struct {
	Data domain.Store
}

var _ ServiceStatusHandler = (*ServiceStatusImpl)(nil)

// Authorize lets every caller read: a service's status is no secret.
func (h *ServiceStatusImpl) Authorize(context.Context, *ServiceStatusFlow) error { return nil }

// LookUpService finds the service and the builds staging and production
// run ("none" where it was never deployed); a service the catalog lacks is
// unknown, which the spec ends as resource-not-found.
func (h *ServiceStatusImpl) LookUpService(ctx context.Context, f *ServiceStatusFlow) (ServiceStatusLookUpServiceOutcome, error) {
	sv, ok, err := domain.Load[domain.Service](ctx, h.Data, domain.ServiceKey(f.Args.Service))
	if err != nil {
		return 0, err
	}
	if !ok {
		return ServiceStatusLookUpServiceUnknown, nil
	}
	f.Continuation.Latest = sv.Version
	for env, into := range map[string]*string{"staging": &f.Continuation.Staging, "production": &f.Continuation.Production} {
		e, _, err := domain.Load[domain.Environment](ctx, h.Data, domain.EnvKey(env))
		if err != nil {
			return 0, err
		}
		*into = "none"
		if v, ok := e.Running[sv.Name]; ok {
			*into = v
		}
	}
	return ServiceStatusLookUpServiceFound, nil
}

// ServiceNames offers the catalog's services that start with what was
// typed, in catalog order.
func (h *ServiceStatusImpl) ServiceNames(ctx context.Context, value string, _ map[string]string) ([]string, error) {
	names, err := domain.Index(ctx, h.Data, domain.ServiceIndexKey)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, n := range names {
		if strings.HasPrefix(n, strings.ToLower(value)) {
			out = append(out, n)
		}
	}
	return out, nil
}
