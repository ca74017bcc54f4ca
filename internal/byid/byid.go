// Package byid finds an entry of a table by its id: the rule of a rule
// id in lint's and in breaking's registries.
package byid

// Find returns the first of table whose id (idOf) is id, or nil.
func Find[T any](table []*T, id string, idOf func(*T) string) *T {
	for _, x := range table {
		if idOf(x) == id {
			return x
		}
	}
	return nil
}
