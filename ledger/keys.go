package ledger

// Idempotency keys that pages generate (LED-15). A page that renders a key
// for its next create ("Generate patch") takes it from the store, so a
// restart on the same store never hands out a key again: a per-process
// counter started over and a new click silently returned an earlier job.

import (
	"context"
	"fmt"
)

// KeySkipMax bounds how many used keys one NewKey call steps over (keys
// written before the store kept the counter, or by hand). Past it the key
// is random, 128 bits.
const KeySkipMax = 10000

// NewKey returns the next idempotency key "PREFIX-NNNN" of the store's
// counter named prefix: NNNN is at least four digits, increases by one per
// call across every process sharing the store, and skips keys any job
// already has.
func (s *Service) NewKey(ctx context.Context, prefix string) (string, error) {
	if err := checkText("key prefix", prefix, s.limits.KeyBytesMax/2); err != nil {
		return "", err
	}
	var key string
	err := s.run(ctx, func(tx Tx, o *op) error {
		for range KeySkipMax {
			n, err := tx.NextSequence(ctx, "key:"+prefix, o.now)
			if err != nil {
				return err
			}
			key = fmt.Sprintf("%s-%04d", prefix, n)
			used, err := tx.KeyUsed(ctx, key)
			if err != nil {
				return err
			}
			if !used {
				return nil
			}
		}
		key = prefix + "-" + randomHex(16)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("ledger: new key: %w", err)
	}
	return key, nil
}
