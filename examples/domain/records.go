package domain

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Ticket is a support ticket (key ticket:<id>).
type Ticket struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	// Status is "open" or "closed".
	Status string `json:"status"`
	// Assignees may close the ticket; nobody listed: anyone may.
	Assignees []string `json:"assignees,omitempty"`
	// Set when closed.
	CloseReason string    `json:"closeReason,omitempty"`
	Comment     string    `json:"comment,omitempty"`
	ClosedBy    string    `json:"closedBy,omitempty"` // workflow id
	ClosedAt    time.Time `json:"closedAt,omitzero"`
}

// Customer is a customer account (key customer:<id>).
type Customer struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	// Plan is the active subscription's plan; "" means none.
	Plan string `json:"plan,omitempty"`
	// Managers may delete the account; nobody listed: anyone may.
	Managers []string `json:"managers,omitempty"`
	// PlanCancelledBy is the workflow that cancelled the last plan.
	PlanCancelledBy string `json:"planCancelledBy,omitempty"`
	// A deleted account keeps a tombstone without personal data.
	Deleted   bool      `json:"deleted,omitempty"`
	DeletedBy string    `json:"deletedBy,omitempty"` // workflow id
	DeletedAt time.Time `json:"deletedAt,omitzero"`
}

// Invoice is an invoice to charge (key invoice:<id>).
type Invoice struct {
	ID          string `json:"id"`
	AmountCents int64  `json:"amountCents"`
	Currency    string `json:"currency"`
	// CardLast4 is the card on file; "" means none.
	CardLast4 string `json:"cardLast4,omitempty"`
	// Status is "open", "paid" or "void".
	Status string `json:"status"`
	// BillingContacts may charge the invoice; nobody listed: anyone may.
	BillingContacts []string  `json:"billingContacts,omitempty"`
	ChargeID        string    `json:"chargeId,omitempty"`
	ChargedBy       string    `json:"chargedBy,omitempty"` // workflow id
	PaidAt          time.Time `json:"paidAt,omitzero"`
}

// Charge is a payment made on a card (key charge:<id>).
type Charge struct {
	ID          string    `json:"id"`
	InvoiceID   string    `json:"invoiceId"`
	AmountCents int64     `json:"amountCents"`
	Currency    string    `json:"currency"`
	CardLast4   string    `json:"cardLast4"`
	At          time.Time `json:"at"`
}

// Team is a team that may get a workspace (key team:<slug>).
type Team struct {
	Slug string `json:"slug"`
	// Members may provision the team's workspace; nobody listed: anyone may.
	Members []string `json:"members,omitempty"`
	// MaxSeats is the seat budget; 0 means the team has no budget.
	MaxSeats    int64  `json:"maxSeats"`
	WorkspaceID string `json:"workspaceId,omitempty"`
	CreatedBy   string `json:"createdBy,omitempty"` // workflow id that created the workspace
}

// Workspace is a provisioned workspace (key workspace:<id>).
type Workspace struct {
	ID           string    `json:"id"`
	Team         string    `json:"team"`
	Tier         string    `json:"tier"`
	Seats        int64     `json:"seats"`
	Regions      []string  `json:"regions"`
	MonthlyCents int64     `json:"monthlyCents"`
	Welcome      string    `json:"welcome,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
}

// Service is a deployable service (key service:<name>) and its latest
// build.
type Service struct {
	Name    string `json:"name"`
	Version string `json:"version"` // the latest build, "1.5.0"
}

// Environment is where services run (key env:<name>): the build of each
// service it runs, and its releases.
type Environment struct {
	Name string `json:"name"`
	// Running maps a service to the version the environment runs; a
	// service it lacks was never deployed there.
	Running map[string]string `json:"running"`
	// Release counts the releases; the last one is named "rel-<Release>".
	Release int `json:"release"`
	// Approvers may deploy; nobody listed: anyone may.
	Approvers []string `json:"approvers,omitempty"`
	// ReleasedBy is the workflow that made the last release.
	ReleasedBy string `json:"releasedBy,omitempty"`
	// Log holds the notes of the releases, newest last.
	Log []string `json:"log,omitempty"`
}

// ReleaseName names release n of an environment.
func ReleaseName(n int) string { return fmt.Sprintf("rel-%d", n) }

// Keys of the indexes: the store has no scans, so lookups by name go
// through a list of ids kept with the data.
const (
	CustomerIndexKey = "index:customers"
	ServiceIndexKey  = "index:services"
)

func ServiceKey(name string) string { return "service:" + name }
func EnvKey(name string) string     { return "env:" + name }

// Demo data. Records without an access list are open to everyone
// (anonymous included), so the demo works without authentication; the
// others belong to alice and bob.
var (
	demoTickets = []Ticket{
		{ID: "12345", Subject: "Printer on floor 3 is jammed", Status: "open"},
		{ID: "12346", Subject: "VPN drops every hour", Status: "open"},
		{ID: "12347", Subject: "Refund for order 991", Status: "closed", CloseReason: "resolved"},
		{ID: "12348", Subject: "Password reset e-mail never arrives", Status: "open"},
		{ID: "4242", Subject: "Billing export is missing rows", Status: "open", Assignees: []string{"alice", "bob"}},
	}
	demoCustomers = []Customer{
		{ID: "cus_demo1", Name: "Demo Shop", Email: "owner@demo-shop.example", Plan: "Pro"},
		{ID: "cus_demo2", Name: "Demo Cafe", Email: "hello@demo-cafe.example"},
		{ID: "cus_acme01", Name: "Acme Corp", Email: "it@acme.example", Plan: "Enterprise", Managers: []string{"alice", "bob"}},
		{ID: "cus_beta02", Name: "Beta LLC", Email: "ops@beta.example", Managers: []string{"alice", "bob"}},
		// Three customers named Smith (one without a subscription) and one
		// Lovelace, for finding customers by name.
		{ID: "cus_smith01", Name: "Jane Smith", Email: "jane@smith.example", Plan: "Pro"},
		{ID: "cus_smith02", Name: "John Smith", Email: "john@smith.example", Plan: "Basic"},
		{ID: "cus_smith03", Name: "Smith Hardware", Email: "shop@smith-hardware.example"},
		{ID: "cus_ada0001", Name: "Ada Lovelace", Email: "ada@engines.example", Plan: "Enterprise", Managers: []string{"alice"}},
	}
	demoServices = []Service{
		{Name: "billing", Version: "1.5.0"},
		{Name: "checkout", Version: "3.2.1"},
		{Name: "ledger", Version: "0.9.1"},
		{Name: "search", Version: "2.1.0"},
	}
	demoEnvironments = []Environment{
		// Staging runs every latest build but search's.
		{Name: "staging", Release: 41, Running: map[string]string{"billing": "1.5.0", "checkout": "3.2.1", "ledger": "0.9.1", "search": "2.0.9"}},
		// Production lags: billing and search are behind, ledger was never
		// deployed there; only alice and bob approve.
		{Name: "production", Release: 17, Approvers: []string{"alice", "bob"}, Running: map[string]string{"billing": "1.4.2", "checkout": "3.2.1", "search": "2.0.9"}},
	}
	demoInvoices = []Invoice{
		{ID: "inv_1001", AmountCents: 4900, Currency: "EUR", CardLast4: "4242", Status: "open"},
		{ID: "inv_1002", AmountCents: 129900, Currency: "USD", CardLast4: "1881", Status: "open", BillingContacts: []string{"alice", "bob"}},
		{ID: "inv_1003", AmountCents: 2500, Currency: "GBP", CardLast4: "0005", Status: "paid", ChargeID: "ch_seeded"},
		{ID: "inv_1004", AmountCents: 9900, Currency: "EUR", Status: "open"},
		{ID: "inv_1005", AmountCents: 1500, Currency: "EUR", CardLast4: "4444", Status: "open"},
	}
	demoOrders = []Order{
		{ID: "ord_1001", PaidCents: 12000, Currency: "EUR", CardLast4: "4242"},
		{ID: "ord_1002", PaidCents: 240000, Currency: "EUR", CardLast4: "1881"},
		{ID: "ord_1003", PaidCents: 9900, Currency: "USD", CardLast4: "0005", RefundedCents: 9900, Refunds: []string{"re_seeded"}},
		{ID: "ord_1004", PaidCents: 75000, Currency: "GBP", CardLast4: "4444", Agents: []string{"alice", "bob"}},
	}
	demoStaff = []StaffMember{
		{Name: "maria", Role: "manager"},
		{Name: "omar", Role: "manager"},
		{Name: "tom", Role: "agent"},
	}
	demoComponents = []Component{
		{Name: "payments-api", Version: "v1.4.2", Risk: "high"},
		{Name: "docs-site", Version: "v2.0.0", Risk: "low"},
		{Name: "fraud-model", Version: "v3.1.0", Risk: "high", Deployers: []string{"alice", "bob"}},
	}
	demoChanges = []ChangeTicket{
		{ID: "CHG-1001", Status: "approved", Component: "payments-api", Version: "v1.5.0"},
		{ID: "CHG-1002", Status: "pending", Component: "payments-api", Version: "v1.5.0"},
		{ID: "CHG-1003", Status: "approved", Component: "docs-site", Version: "v2.1.0"},
		{ID: "CHG-1004", Status: "approved", Component: "payments-api", Version: "v1.4.9"},
		{ID: "CHG-1005", Status: "approved", Component: "fraud-model", Version: "v3.2.0"},
	}
	demoTeams = []Team{
		{Slug: "demo-team", MaxSeats: 10},
		{Slug: "payments-core", Members: []string{"alice", "bob"}, MaxSeats: 25},
		{Slug: "platform", MaxSeats: 50, WorkspaceID: "ws_platform"},
		{Slug: "interns", MaxSeats: 0},
	}
)

// Seed stores the demo records that are not there yet: records already
// present (changed by earlier runs, or seeded by another instance) are left
// alone, so every instance of a fleet may seed at startup.
func Seed(ctx context.Context, s Store) error {
	put := func(key string, rec any) error {
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		if _, err := s.Swap(ctx, key, "", string(b), ""); err != nil {
			return fmt.Errorf("domain: seeding %s: %w", key, err)
		}
		return nil
	}
	for _, t := range demoTickets {
		if err := put(TicketKey(t.ID), t); err != nil {
			return err
		}
	}
	for _, c := range demoCustomers {
		if err := put(CustomerKey(c.ID), c); err != nil {
			return err
		}
	}
	for _, i := range demoInvoices {
		if err := put(InvoiceKey(i.ID), i); err != nil {
			return err
		}
	}
	for _, t := range demoTeams {
		if err := put(TeamKey(t.Slug), t); err != nil {
			return err
		}
	}
	var customers, services []string
	for _, c := range demoCustomers {
		customers = append(customers, c.ID)
	}
	for _, sv := range demoServices {
		if err := put(ServiceKey(sv.Name), sv); err != nil {
			return err
		}
		services = append(services, sv.Name)
	}
	for _, e := range demoEnvironments {
		if err := put(EnvKey(e.Name), e); err != nil {
			return err
		}
	}
	if err := put(CustomerIndexKey, customers); err != nil {
		return err
	}
	if err := put(ServiceIndexKey, services); err != nil {
		return err
	}
	return seedMore(put)
}

// Index reads the list of ids at an index key (nil when absent).
func Index(ctx context.Context, s Store, key string) ([]string, error) {
	ids, _, err := Load[[]string](ctx, s, key)
	return ids, err
}

// seedMore seeds the records of the refund and rollout examples.
func seedMore(put func(key string, rec any) error) error {
	for _, o := range demoOrders {
		if err := put(OrderKey(o.ID), o); err != nil {
			return err
		}
	}
	for _, m := range demoStaff {
		if err := put(StaffKey(m.Name), m); err != nil {
			return err
		}
	}
	for _, c := range demoComponents {
		if err := put(ComponentKey(c.Name), c); err != nil {
			return err
		}
	}
	for _, c := range demoChanges {
		if err := put(ChangeKey(c.ID), c); err != nil {
			return err
		}
	}
	return nil
}

// Order is a paid order that can be refunded, in part or whole, to the card
// it was paid with (key order:<id>).
type Order struct {
	ID        string `json:"id"`
	PaidCents int64  `json:"paidCents"`
	Currency  string `json:"currency"`
	CardLast4 string `json:"cardLast4"`
	// RefundedCents is what refunds have paid back so far.
	RefundedCents int64 `json:"refundedCents"`
	// Refunds are the ids of the refunds made, in order.
	Refunds []string `json:"refunds,omitempty"`
	// Agents may refund the order; nobody listed: anyone may.
	Agents []string `json:"agents,omitempty"`
}

// Refundable is what is left to refund, in cents.
func (o Order) Refundable() int64 { return o.PaidCents - o.RefundedCents }

// Refund is money paid back on an order (key refund:<id>).
type Refund struct {
	ID          string `json:"id"`
	OrderID     string `json:"orderId"`
	AmountCents int64  `json:"amountCents"`
	Reason      string `json:"reason"`
	// ApprovedBy is the manager who approved it ("" below the threshold).
	ApprovedBy string    `json:"approvedBy,omitempty"`
	Workflow   string    `json:"workflow"`
	At         time.Time `json:"at"`
}

// StaffMember is someone a tool may name, such as the approver of a refund
// (key staff:<name>).
type StaffMember struct {
	Name string `json:"name"`
	// Role is "manager" or "agent".
	Role string `json:"role"`
}

// Component is a production component that rolls out one version at a
// time under a change ticket (key component:<name>).
type Component struct {
	Name string `json:"name"`
	// Version is the one running in production.
	Version string `json:"version"`
	// Risk is "low" or "high": high-risk components choose how to roll out.
	Risk string `json:"risk"`
	// Deployers may roll it out; nobody listed: anyone may.
	Deployers []string `json:"deployers,omitempty"`
	// Rollout is the id of the last rollout started.
	Rollout string `json:"rollout,omitempty"`
}

// ChangeTicket is a change-management ticket (key change:<id>): a rollout
// to production needs an approved one that covers its component and
// version.
type ChangeTicket struct {
	ID string `json:"id"`
	// Status is "approved", "pending" or "rejected".
	Status    string `json:"status"`
	Component string `json:"component"`
	Version   string `json:"version"`
}

// Covers reports why the ticket does not approve rolling out version of
// component ("" when it does).
func (c ChangeTicket) Covers(component, version string) string {
	if why := c.ForRelease(component, version); why != "" {
		return why
	}
	if c.Status != "approved" {
		return "is " + c.Status + ", not approved"
	}
	return ""
}

// ForRelease says why the ticket is not one for rolling out component at
// version, approved or not ("" when it is).
func (c ChangeTicket) ForRelease(component, version string) string {
	switch {
	case c.Component != component:
		return "is for " + c.Component + ", not " + component
	case c.Version != version:
		return "is for " + c.Component + " " + c.Version + ", not " + version
	}
	return ""
}

// Rollout is a rollout started (key rollout:<id>).
type Rollout struct {
	ID        string `json:"id"`
	Component string `json:"component"`
	Version   string `json:"version"`
	Ticket    string `json:"ticket"`
	// Strategy is "rolling" or "canary", with CanaryPercent of the traffic
	// first.
	Strategy      string    `json:"strategy"`
	CanaryPercent int64     `json:"canaryPercent,omitempty"`
	Workflow      string    `json:"workflow"`
	At            time.Time `json:"at"`
}
