package domain

import (
	"errors"
	"fmt"
)

// What the stores' Get, Put and Incr (domainsqlite, domainopen) share around
// their one call to the backend: checking the arguments, and the errors they
// return.

// FoundKV is what Get returns after reading key as v, or failing with err;
// missing is the backend's error for a key it does not hold.
func FoundKV(key, v string, err, missing error) (string, bool, error) {
	switch {
	case errors.Is(err, missing):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("domain: get %s: %w", key, err)
	}
	return v, true, nil
}

// PutKV checks key and value (CheckKV), then sets it with set.
func PutKV(key, value string, set func() error) error {
	if err := CheckKV(key, value); err != nil {
		return err
	}
	if err := set(); err != nil {
		return fmt.Errorf("domain: put %s: %w", key, err)
	}
	return nil
}

// IncrKV checks key, then adds to it with add, which returns the new value.
func IncrKV(key string, add func() (int64, error)) (int64, error) {
	if key == "" {
		return 0, ErrEmpty
	}
	n, err := add()
	if err != nil {
		return 0, fmt.Errorf("domain: incr %s: %w", key, err)
	}
	return n, nil
}
