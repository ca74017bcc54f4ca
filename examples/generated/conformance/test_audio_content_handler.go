package conformance

import "context"

// TestAudioContentImpl implements TestAudioContentHandler for tool test_audio_content: the spec is the whole
// fixture, and the handler gives the media's bytes.
type TestAudioContentImpl struct{}

var _ TestAudioContentHandler = (*TestAudioContentImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestAudioContentImpl) Authorize(context.Context, *TestAudioContentFlow) error { return nil }

// Silence returns the fixture's short silent WAV clip.
func (*TestAudioContentImpl) Silence(context.Context, *TestAudioContentFlow) ([]byte, error) {
	return silenceWAV(), nil
}
