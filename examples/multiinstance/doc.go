// Package multiinstance holds the distributed proof of the example server
// (its test file): three server processes built from examples/server/fleet
// share one store and one key ring, and a fleet of concurrent workflows is
// driven across them with the go-sdk client while instances are killed,
// restarted, rotated to a new key and probed with clocks past every TTL.
//
// Its fault test (faults_test.go) runs fleets whose store link goes
// through a cuttable proxy (internal/faultproxy) while workflows run, and
// SIGKILLs an instance mid-effect; effects are counted from the handler's
// side with the server's -effect-log.
//
// Its approval test (approvals_test.go) SIGKILLs every instance while
// send_payout waits for an approval, restarts them, approves on another
// instance and checks that the payout's effect runs exactly once.
//
// It has no code of its own; run it with
//
//	go test ./examples/multiinstance -v
//	go test ./examples/multiinstance -run TestFaults -v
//	go test ./examples/multiinstance -run TestApprovalSurvivesKill -v
//
// PostgreSQL and Redis (storetest.PostgresURL, storetest.RedisURL) are
// skipped with a message when unreachable, and required when $CI is set.
package multiinstance
