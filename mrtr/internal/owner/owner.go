// Package owner is how the stores of mrtr that their Open connected
// (pgstore, pgtasks, redisstore, redistasks) come to own their client.
package owner

// Adopt returns newStore's store on client, marked by own as the client's
// owner; when newStore fails, it closes the client with closeClient.
func Adopt[C, S any](client C, closeClient func(), newStore func(C) (S, error), own func(S)) (S, error) {
	s, err := newStore(client)
	if err != nil {
		closeClient()
		var none S
		return none, err
	}
	own(s)
	return s, nil
}
