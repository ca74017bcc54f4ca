package seal_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

func Example() {
	// In a server: ring, err := seal.RingFromEnv() (MRTR_KEYS or MRTR_KEYS_FILE).
	// These two keys are public examples: never use them.
	ring, err := seal.ParseRing("2:QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI,1:QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE")
	if err != nil {
		log.Fatal(err)
	}
	codec := seal.New(ring, seal.Options{})

	// Round 1: the tool needs input; its continuation goes out sealed.
	args := []byte(`{"title":"printer on fire"}`) // canonical arguments
	binding := seal.Binding{
		Audience:   "ticket-server",
		Subject:    seal.ToolSubject("create_ticket"),
		Principal:  "user:alice",
		ArgsDigest: sha256.Sum256(args),
	}
	token, err := codec.Seal(binding, 10*time.Minute, []byte(`{"step":2}`))
	if err != nil {
		log.Fatal(err)
	}

	// Round 2: the client retries the call with requestState = token.
	state, err := codec.Open(binding, token)
	fmt.Printf("%s %v\n", state, err)

	// Another user replaying the token gets the one public message.
	mallory := binding
	mallory.Principal = "user:mallory"
	_, err = codec.Open(mallory, token)
	var se *seal.Error
	if errors.Is(err, seal.ErrInvalid) && errors.As(err, &se) {
		fmt.Println("log:", se.Reason)
		fmt.Println("client:", seal.PublicMessage)
	}
	// Output:
	// {"step":2} <nil>
	// log: forged
	// client: invalid or expired requestState; start the operation again
}
