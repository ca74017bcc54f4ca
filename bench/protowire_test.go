package bench

// Why the continuation encoding (mrtr/binenc, envelope version 3) is not
// rewritten onto google.golang.org/protobuf/encoding/protowire: this file
// writes and reads the same continuation both ways, in one run, so the cost
// and size of each can be compared (docs/architecture.md, "Hand-written
// where a library exists").
//
// The protowire side carries what binenc's tagged entries carry, since a
// reader must still tell a changed type from a changed value
// (docs/evolution.md: a KindError refuses the continuation): the field
// number is the low 26 bits of the name's key with the binenc kind in its
// low 3 bits; scalars use protobuf's own wire types (varint, zig-zag,
// fixed64), strings, enums and groups are length-delimited, and a list is
// one length-delimited field whose items are length-prefixed, as binenc's
// are (an empty list stays distinct from an absent one).

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
	"google.golang.org/protobuf/encoding/protowire"
)

// flow is the continuation of a deploy-like tool after two answers: what
// generated AppendContinuation writes.
type flow struct {
	service, version string // arguments
	running, region  string // continuation fields
	attempt          int64
	share            float64
	action           string // an enum answer
	notify           bool
	reviewers        []string
	gate             int64 // a passed gate's digest
}

var sample = flow{
	service: "billing-api", version: "v2.14.3", running: "v2.14.2", region: "eu-west-1",
	attempt: 2, share: 12.5, action: "promote", notify: true,
	reviewers: []string{"alice", "bob", "carol"}, gate: -6717825977720214970,
}

var actionValues = []string{"promote", "rollback", "hold"}

var (
	kService, kVersion     = binenc.FieldKey("service"), binenc.FieldKey("version")
	kContinuation          = binenc.FieldKey("continuation")
	kRunning, kRegion      = binenc.FieldKey("running"), binenc.FieldKey("region")
	kAttempt, kShare       = binenc.FieldKey("attempt"), binenc.FieldKey("share")
	kAnswers, kPromotion   = binenc.FieldKey("answers"), binenc.FieldKey("promotion")
	kAction, kNotify       = binenc.FieldKey("action"), binenc.FieldKey("notify")
	kReviewers, kGates     = binenc.FieldKey("reviewers"), binenc.FieldKey("gates")
	kConfirm               = binenc.FieldKey("confirmDeploy")
	errKind                = errors.New("kind changed")
	errCorrupt             = errors.New("corrupt")
	errEnum                = errors.New("enum value removed")
	protowireNumberBitsCap = uint32(1<<26 - 1)
)

// --- binenc, as generated code writes and reads it ---

func appendBinenc(b []byte, f *flow) []byte {
	b = binenc.AppendStringField(b, kService, f.service)
	b = binenc.AppendStringField(b, kVersion, f.version)
	b, m := binenc.BeginGroup(b, kContinuation)
	b = binenc.AppendStringField(b, kRunning, f.running)
	b = binenc.AppendStringField(b, kRegion, f.region)
	b = binenc.AppendIntField(b, kAttempt, f.attempt)
	b = binenc.AppendFloatField(b, kShare, f.share)
	b = binenc.EndGroup(b, m)
	b, m = binenc.BeginGroup(b, kAnswers)
	b, a := binenc.BeginGroup(b, kPromotion)
	b = binenc.AppendEnumField(b, kAction, f.action)
	b = binenc.AppendBoolField(b, kNotify, f.notify)
	b = binenc.AppendStringList(b, kReviewers, f.reviewers)
	b = binenc.EndGroup(b, a)
	b = binenc.EndGroup(b, m)
	b, m = binenc.BeginGroup(b, kGates)
	b = binenc.AppendIntField(b, kConfirm, f.gate)
	return binenc.EndGroup(b, m)
}

func loadBinenc(f *flow, data []byte) error {
	r := binenc.NewFields(data)
	for r.Next() {
		switch r.Key() {
		case kService:
			f.service = r.String("service")
		case kVersion:
			f.version = r.String("version")
		case kContinuation:
			c := r.Group("continuation")
			for c.Next() {
				switch c.Key() {
				case kRunning:
					f.running = c.String("running")
				case kRegion:
					f.region = c.String("region")
				case kAttempt:
					f.attempt = c.Int("attempt")
				case kShare:
					f.share = c.Float("share")
				}
			}
		case kAnswers:
			a := r.Group("answers")
			for a.Next() {
				if a.Key() == kPromotion {
					p := a.Group("promotion")
					for p.Next() {
						switch p.Key() {
						case kAction:
							f.action = binenc.EnumField(&p, "promotion.action", actionValues)
						case kNotify:
							f.notify = p.Bool("promotion.notify")
						case kReviewers:
							f.reviewers = p.Strings("promotion.reviewers")
						}
					}
				}
			}
		case kGates:
			g := r.Group("gates")
			for g.Next() {
				if g.Key() == kConfirm {
					f.gate = g.Int("gates.confirmDeploy")
				}
			}
		}
	}
	return r.Err()
}

// --- the same on protowire ---

func pwNum(key uint32, k binenc.Kind) protowire.Number {
	return protowire.Number((key&protowireNumberBitsCap)<<3 | uint32(k))
}

func pwString(b []byte, key uint32, k binenc.Kind, s string) []byte {
	b = protowire.AppendTag(b, pwNum(key, k), protowire.BytesType)
	return protowire.AppendString(b, s)
}

func pwInt(b []byte, key uint32, v int64) []byte {
	b = protowire.AppendTag(b, pwNum(key, binenc.KindInt), protowire.VarintType)
	return protowire.AppendVarint(b, protowire.EncodeZigZag(v))
}

// pwBegin starts a length-delimited group; pwEnd closes it. One byte is
// reserved for the length and the payload moved only when it is longer,
// as binenc does (protobuf-go's marshaller sizes messages first instead).
func pwBegin(b []byte, key uint32) ([]byte, int) {
	b = protowire.AppendTag(b, pwNum(key, binenc.KindGroup), protowire.BytesType)
	return append(b, 0), len(b) + 1
}

func pwEnd(b []byte, mark int) []byte {
	n := len(b) - mark
	if w := protowire.SizeVarint(uint64(n)); w > 1 {
		b = append(b, make([]byte, w-1)...)
		copy(b[mark+w-1:], b[mark:mark+n])
	}
	protowire.AppendVarint(b[mark-1:mark-1], uint64(n))
	return b
}

func appendProtowire(b []byte, f *flow) []byte {
	b = pwString(b, kService, binenc.KindString, f.service)
	b = pwString(b, kVersion, binenc.KindString, f.version)
	b, m := pwBegin(b, kContinuation)
	b = pwString(b, kRunning, binenc.KindString, f.running)
	b = pwString(b, kRegion, binenc.KindString, f.region)
	b = pwInt(b, kAttempt, f.attempt)
	b = protowire.AppendTag(b, pwNum(kShare, binenc.KindFloat), protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, math.Float64bits(f.share))
	b = pwEnd(b, m)
	b, m = pwBegin(b, kAnswers)
	b, a := pwBegin(b, kPromotion)
	b = pwString(b, kAction, binenc.KindEnum, f.action)
	b = protowire.AppendTag(b, pwNum(kNotify, binenc.KindBool), protowire.VarintType)
	b = protowire.AppendVarint(b, protowire.EncodeBool(f.notify))
	b = protowire.AppendTag(b, pwNum(kReviewers, binenc.KindList), protowire.BytesType)
	n := 1
	for _, s := range f.reviewers {
		n += protowire.SizeBytes(len(s))
	}
	b = protowire.AppendVarint(b, uint64(n))
	b = append(b, byte(binenc.KindString))
	for _, s := range f.reviewers {
		b = protowire.AppendString(b, s)
	}
	b = pwEnd(b, a)
	b = pwEnd(b, m)
	b, m = pwBegin(b, kGates)
	b = pwInt(b, kConfirm, f.gate)
	return pwEnd(b, m)
}

// pwFields is the protowire counterpart of binenc.Fields: the next entry's
// key and kind (from the field number), and its payload.
type pwFields struct {
	b, val []byte
	key    uint32
	kind   binenc.Kind
	typ    protowire.Type
	v      uint64
	err    error
}

func (r *pwFields) next() bool {
	if r.err != nil || len(r.b) == 0 {
		return false
	}
	num, typ, n := protowire.ConsumeTag(r.b)
	if n < 0 {
		r.err = errCorrupt
		return false
	}
	r.key, r.kind, r.typ = uint32(num)>>3, binenc.Kind(num&7), typ
	var m int
	switch typ {
	case protowire.VarintType:
		r.v, m = protowire.ConsumeVarint(r.b[n:])
	case protowire.Fixed64Type:
		r.v, m = protowire.ConsumeFixed64(r.b[n:])
	case protowire.BytesType:
		r.val, m = protowire.ConsumeBytes(r.b[n:])
	default:
		m = protowire.ConsumeFieldValue(num, typ, r.b[n:])
	}
	if m < 0 {
		r.err = errCorrupt
		return false
	}
	r.b = r.b[n+m:]
	return true
}

func (r *pwFields) want(k binenc.Kind) bool {
	if r.err == nil && r.kind != k {
		r.err = errKind
	}
	return r.err == nil
}

func (r *pwFields) str(k binenc.Kind) string {
	if !r.want(k) {
		return ""
	}
	if !utf8.Valid(r.val) {
		r.err = errCorrupt
	}
	return string(r.val)
}

func (r *pwFields) int() int64 {
	if !r.want(binenc.KindInt) {
		return 0
	}
	return protowire.DecodeZigZag(r.v)
}

func (r *pwFields) group() pwFields {
	if !r.want(binenc.KindGroup) {
		return pwFields{err: r.err}
	}
	return pwFields{b: r.val}
}

func (r *pwFields) strings() []string {
	if !r.want(binenc.KindList) {
		return nil
	}
	if len(r.val) == 0 || binenc.Kind(r.val[0]) != binenc.KindString {
		r.err = errKind
		return nil
	}
	var out []string
	for rest := r.val[1:]; len(rest) > 0; {
		v, n := protowire.ConsumeBytes(rest)
		if n < 0 || !utf8.Valid(v) {
			r.err = errCorrupt
			return nil
		}
		out, rest = append(out, string(v)), rest[n:]
	}
	return out
}

func loadProtowire(f *flow, data []byte) error {
	r := pwFields{b: data}
	for r.next() {
		switch r.key {
		case kService & protowireNumberBitsCap:
			f.service = r.str(binenc.KindString)
		case kVersion & protowireNumberBitsCap:
			f.version = r.str(binenc.KindString)
		case kContinuation & protowireNumberBitsCap:
			c := r.group()
			for c.next() {
				switch c.key {
				case kRunning & protowireNumberBitsCap:
					f.running = c.str(binenc.KindString)
				case kRegion & protowireNumberBitsCap:
					f.region = c.str(binenc.KindString)
				case kAttempt & protowireNumberBitsCap:
					f.attempt = c.int()
				case kShare & protowireNumberBitsCap:
					if c.want(binenc.KindFloat) {
						f.share = math.Float64frombits(c.v)
					}
				}
			}
			r.err = c.err
		case kAnswers & protowireNumberBitsCap:
			a := r.group()
			for a.next() {
				if a.key == kPromotion&protowireNumberBitsCap {
					p := a.group()
					loadPromotionProtowire(f, &p)
					a.err = p.err
				}
			}
			r.err = a.err
		case kGates & protowireNumberBitsCap:
			g := r.group()
			for g.next() {
				if g.key == kConfirm&protowireNumberBitsCap {
					f.gate = g.int()
				}
			}
			r.err = g.err
		}
	}
	return r.err
}

func loadPromotionProtowire(f *flow, p *pwFields) {
	for p.next() {
		switch p.key {
		case kAction & protowireNumberBitsCap:
			v := p.str(binenc.KindEnum)
			if p.err == nil && !slices.Contains(actionValues, v) {
				p.err = errEnum
			}
			f.action = v
		case kNotify & protowireNumberBitsCap:
			if p.want(binenc.KindBool) {
				f.notify = protowire.DecodeBool(p.v)
			}
		case kReviewers & protowireNumberBitsCap:
			f.reviewers = p.strings()
		}
	}
}

// TestProtowireEquivalent: both encodings round-trip the sample, and each
// refuses a value whose kind changed.
func TestProtowireEquivalent(t *testing.T) {
	for name, c := range map[string]struct {
		enc func([]byte, *flow) []byte
		dec func(*flow, []byte) error
	}{"binenc": {appendBinenc, loadBinenc}, "protowire": {appendProtowire, loadProtowire}} {
		long := sample
		long.region = strings.Repeat("r", 300) // groups longer than their reserved length byte
		for _, want := range []flow{sample, long} {
			var got flow
			b := c.enc(nil, &want)
			if err := c.dec(&got, b); err != nil || !equalFlow(got, want) {
				t.Errorf("%s: %v, %+v", name, err, got)
			}
			t.Logf("%s: %d bytes", name, len(b))
		}
	}
	changed := binenc.AppendIntField(nil, kService, 3)
	if err := loadBinenc(&flow{}, changed); !errors.As(err, new(*binenc.KindError)) {
		t.Errorf("binenc: a retyped value reads: %v", err)
	}
	changed = pwInt(nil, kService, 3)
	if err := loadProtowire(&flow{}, changed); !errors.Is(err, errKind) {
		t.Errorf("protowire: a retyped value reads: %v", err)
	}
}

func equalFlow(a, b flow) bool {
	return slices.Equal(a.reviewers, b.reviewers) &&
		a.service == b.service && a.version == b.version && a.running == b.running && a.region == b.region &&
		a.attempt == b.attempt && a.share == b.share && a.action == b.action && a.notify == b.notify && a.gate == b.gate
}

// BenchmarkContinuationEncoding compares binenc's tagged entries with the
// protowire equivalent, encode and decode, in one run:
//
//	go test -run=^$ -bench=BenchmarkContinuationEncoding -benchmem -count=5
func BenchmarkContinuationEncoding(b *testing.B) {
	for _, c := range []struct {
		name string
		enc  func([]byte, *flow) []byte
		dec  func(*flow, []byte) error
	}{{"binenc", appendBinenc, loadBinenc}, {"protowire", appendProtowire, loadProtowire}} {
		buf := make([]byte, 0, 256)
		data := c.enc(nil, &sample)
		b.Run(c.name+"/encode", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buf = c.enc(buf[:0], &sample)
			}
			b.ReportMetric(float64(len(buf)), "bytes")
		})
		b.Run(c.name+"/decode", func(b *testing.B) {
			b.ReportAllocs()
			var f flow
			for b.Loop() {
				if err := c.dec(&f, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
