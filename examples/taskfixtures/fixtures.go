// Package taskfixtures registers the fixtures the tasks scenarios of the
// MCP conformance suite (@modelcontextprotocol/conformance, SEP-2663) call
// by name: greet, slow_compute, failing_job, protocol_error_job,
// confirm_delete, multi_input and test_tool_with_task.
package taskfixtures

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

func object(props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
	if props == nil {
		props = map[string]*jsonschema.Schema{}
	}
	return &jsonschema.Schema{Type: "object", Properties: props, Required: required}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func confirmSchema(props ...string) *jsonschema.Schema {
	p := map[string]*jsonschema.Schema{}
	for _, name := range props {
		switch name {
		case "confirm":
			p[name] = &jsonschema.Schema{Type: "boolean"}
		default:
			p[name] = &jsonschema.Schema{Type: "string"}
		}
	}
	return object(p)
}

// Register adds the fixtures to s, whose Manager m is installed.
func Register(s *mcp.Server, m *tasks.Manager) {
	s.AddTool(&mcp.Tool{Name: "greet", Description: "Greets by name (synchronous).",
		InputSchema: object(map[string]*jsonschema.Schema{"name": {Type: "string"}}, "name")},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Name string }
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Hello, %s!", a.Name)), nil
		})

	m.AddTool(s, &mcp.Tool{Name: "slow_compute", Description: "Sleeps the given seconds, then answers; a task when the client supports tasks.",
		InputSchema: object(map[string]*jsonschema.Schema{"seconds": {Type: "number"}, "label": {Type: "string"}}, "seconds")},
		tasks.Optional, tasks.ToolOptions{PollInterval: PollIntervalMs(200)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Seconds float64
				Label   string
			}
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			return tasks.Start(ctx, func(ctx context.Context, _ *tasks.Run) (*mcp.CallToolResult, error) {
				select {
				case <-time.After(time.Duration(a.Seconds * float64(time.Second))):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return text(fmt.Sprintf("Computed %s after %gs", a.Label, a.Seconds)), nil
			})
		})

	m.AddTool(s, &mcp.Tool{Name: "failing_job", Description: "Runs as a task only, and ends with a tool error after about a second.",
		InputSchema: object(nil)}, tasks.Required, tasks.ToolOptions{PollInterval: PollIntervalMs(200)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tasks.Start(ctx, func(ctx context.Context, _ *tasks.Run) (*mcp.CallToolResult, error) {
				select {
				case <-time.After(time.Second):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				res := text("The job failed: the build broke.")
				res.IsError = true
				return res, nil
			})
		})

	m.AddTool(s, &mcp.Tool{Name: "protocol_error_job", Description: "Runs as a task and panics: the task fails with a protocol error.",
		InputSchema: object(nil)}, tasks.Optional, tasks.ToolOptions{PollInterval: PollIntervalMs(200)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tasks.Start(ctx, func(context.Context, *tasks.Run) (*mcp.CallToolResult, error) {
				panic("protocol_error_job: deliberate failure")
			})
		})

	m.AddTool(s, &mcp.Tool{Name: "confirm_delete", Description: "Runs as a task that asks to confirm the deletion of a file.",
		InputSchema: object(map[string]*jsonschema.Schema{"filename": {Type: "string"}}, "filename")},
		tasks.Optional, tasks.ToolOptions{PollInterval: PollIntervalMs(200)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Filename string }
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			return tasks.Start(ctx, func(ctx context.Context, r *tasks.Run) (*mcp.CallToolResult, error) {
				ans, err := r.Ask(ctx, mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
					Message: fmt.Sprintf("Delete %s?", a.Filename), RequestedSchema: confirmSchema("confirm"),
				}})
				if err != nil {
					return nil, err
				}
				if ok, _ := accepted(ans["confirm"])["confirm"].(bool); !ok {
					return text(fmt.Sprintf("Kept %s.", a.Filename)), nil
				}
				return text(fmt.Sprintf("Deleted %s.", a.Filename)), nil
			})
		})

	m.AddTool(s, &mcp.Tool{Name: "multi_input", Description: "Runs as a task that asks two questions at once.",
		InputSchema: object(nil)}, tasks.Optional, tasks.ToolOptions{PollInterval: PollIntervalMs(200)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tasks.Start(ctx, func(ctx context.Context, r *tasks.Run) (*mcp.CallToolResult, error) {
				ans, err := r.Ask(ctx, mcp.InputRequestMap{
					"name":    &mcp.ElicitParams{Message: "Your name?", RequestedSchema: confirmSchema("name")},
					"confirm": &mcp.ElicitParams{Message: "Go ahead?", RequestedSchema: confirmSchema("confirm")},
				})
				if err != nil {
					return nil, err
				}
				return text(fmt.Sprintf("Got %d answers.", len(ans))), nil
			})
		})

	m.AddTool(s, &mcp.Tool{Name: "test_tool_with_task", Description: "Asks for a name with an MRTR round, then runs as a task that greets it.",
		InputSchema: object(nil)}, tasks.Required, tasks.ToolOptions{PollInterval: PollIntervalMs(200)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ans, ok := req.Params.InputResponses["user_name"]
			if !ok {
				return &mcp.CallToolResult{Content: []mcp.Content{}, InputRequests: mcp.InputRequestMap{"user_name": &mcp.ElicitParams{
					Message: "What is your name?", RequestedSchema: object(map[string]*jsonschema.Schema{"name": {Type: "string"}}, "name"),
				}}}, nil
			}
			name, _ := accepted(ans)["name"].(string)
			if name == "" {
				return nil, errors.New("user_name: no name in the answer")
			}
			return tasks.Start(ctx, func(context.Context, *tasks.Run) (*mcp.CallToolResult, error) {
				return text(fmt.Sprintf("Hello, %s! (from a task)", name)), nil
			})
		})
}

// PollIntervalMs is a poll interval of ms milliseconds.
func PollIntervalMs(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

func accepted(r mcp.InputResponse) map[string]any {
	er, ok := r.(*mcp.ElicitResult)
	if !ok || er.Action != "accept" {
		return nil
	}
	return er.Content
}
