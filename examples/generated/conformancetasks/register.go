package conformancetasks

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/conformance_tasks.mrtr.yaml

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// Register adds the fixtures of the conformance suite's tasks scenarios to
// s, served by e, with their handlers. Every tool but greet is
// long-running: e needs a task manager (mrtr.Config.Tasks) installed on s
// (tasks.Manager.Install) before Register, as for any generated task tool.
func Register(s *mcp.Server, e *mrtr.Engine) {
	RegisterAll(s, e,
		&ConfirmDeleteImpl{},
		&FailingJobImpl{},
		&GreetImpl{},
		&MultiInputImpl{},
		&ProtocolErrorJobImpl{},
		&SlowComputeImpl{},
		&TestToolWithTaskImpl{},
	)
}
