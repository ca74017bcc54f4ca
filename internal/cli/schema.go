package cli

import (
	"github.com/spf13/cobra"

	"github.com/mrtrgen/mrtrgen/spec"
)

func newSchemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of spec files",
		Long: `Schema prints the JSON Schema (draft 2020-12) that every spec is validated
against. Point your editor at it with a first line such as

  # yaml-language-server: $schema=` + spec.SchemaURL,
		Example: `  mrtrgen schema > mrtr.v1.schema.json`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := cmd.OutOrStdout().Write(spec.SchemaJSON)
			return err
		},
	}
}
