// Package format writes the values tools show in their messages the same
// way on every machine: no locale, no time zone but UTC, no markup. The
// generated code of a template placeholder with a format ({amount|money:
// currency}, {share|percent}, {window|duration}) calls these functions;
// hand-written code may call them to say the same thing the same way.
//
// Every function returns plain text: digits, the separators ',' and '.',
// unit letters, and the caller's own strings unchanged. Nothing is escaped
// because nothing is interpreted: clients show messages as plain text.
package format

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Int writes an integer with a comma between groups of three digits:
// 1234567 → "1,234,567", -1200 → "-1,200".
func Int(v int64) string { return group(strconv.FormatInt(v, 10)) }

// Decimal writes a number with places digits after the point (rounded
// half to even on the number's exact binary value, as strconv does), or as
// few as it takes (places < 0), grouping the whole part: Decimal(1234.5, 2)
// → "1,234.50". NaN and the infinities are written "NaN", "+Inf", "-Inf".
func Decimal(v float64, places int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	if places > 20 {
		places = 20
	}
	return group(strconv.FormatFloat(v, 'f', places, 64))
}

// Percent writes a value given in percent (12.5 is 12.5 %) as Decimal does,
// followed by a percent sign: "12.5%".
func Percent(v float64, places int) string { return Decimal(v, places) + "%" }

// Money writes an amount of minor units (cents) of currency, an ISO 4217
// code, as the code, a space and the amount with the currency's number of
// minor digits: Money(123456, "EUR") → "EUR 1,234.56", Money(500, "JPY") →
// "JPY 500", Money(-5, "USD") → "USD -0.05". Codes are upper-cased; an
// empty code writes the amount alone with two minor digits.
func Money(minor int64, currency string) string {
	code := strings.ToUpper(currency)
	digits := MinorDigits(code)
	neg := minor < 0
	// The magnitude as unsigned, so the smallest int64 is written too.
	mag := uint64(minor)
	if neg {
		mag = -mag
	}
	s := strconv.FormatUint(mag, 10)
	whole, frac := s, ""
	if digits > 0 {
		if len(s) <= digits {
			s = strings.Repeat("0", digits-len(s)+1) + s
		}
		whole, frac = s[:len(s)-digits], s[len(s)-digits:]
	}
	amount := group(whole)
	if frac != "" {
		amount += "." + frac
	}
	if neg {
		amount = "-" + amount
	}
	if code == "" {
		return amount
	}
	return code + " " + amount
}

// MinorDigits is the number of minor digits of an ISO 4217 currency: 0 for
// JPY, KRW and the other currencies without minor units, 3 for BHD, KWD,
// OMR and the others with thousandths, 4 for CLF and UYW, else 2. These
// are ISO 4217's minor units, what an amount in minor units counts; the
// digits of golang.org/x/text/currency (CLDR's display rounding) differ
// for 23 codes, IDR and IQD among them (docs/architecture.md).
func MinorDigits(code string) int {
	switch code {
	case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF":
		return 0
	case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND":
		return 3
	case "CLF", "UYW":
		return 4
	}
	return 2
}

// Duration writes a span as its non-zero days, hours, minutes and seconds,
// largest first, with a residual below a second in milliseconds:
// 90*time.Minute → "1h 30m", 36*time.Hour → "1d 12h", 1500*time.Millisecond
// → "1s 500ms", 0 → "0s". A day is 24 hours (no calendar, no time zone).
func Duration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	var b strings.Builder
	mag := uint64(d)
	if d < 0 {
		b.WriteByte('-')
		mag = -mag
	}
	units := []struct {
		size uint64
		name string
	}{
		{uint64(24 * time.Hour), "d"}, {uint64(time.Hour), "h"}, {uint64(time.Minute), "m"},
		{uint64(time.Second), "s"}, {uint64(time.Millisecond), "ms"},
	}
	first := true
	for _, u := range units {
		n := mag / u.size
		mag %= u.size
		if n == 0 {
			continue
		}
		if !first {
			b.WriteByte(' ')
		}
		first = false
		b.WriteString(strconv.FormatUint(n, 10))
		b.WriteString(u.name)
	}
	if first {
		// Below a millisecond.
		b.WriteString(strconv.FormatUint(mag, 10))
		b.WriteString("ns")
	}
	return b.String()
}

// Seconds converts a count of unit (one of "ms", "s", "m", "h", "d") to a
// duration for Duration, saturating at the limits of time.Duration.
func Seconds(v float64, unit string) time.Duration {
	size := float64(time.Second)
	switch unit {
	case "ms":
		size = float64(time.Millisecond)
	case "m":
		size = float64(time.Minute)
	case "h":
		size = float64(time.Hour)
	case "d":
		size = float64(24 * time.Hour)
	}
	x := v * size
	switch {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(math.Round(x))
}

// Date writes a date or a date-time (RFC 3339) as its calendar date in UTC:
// "2026-12-01". Text that is neither is written as it is.
func Date(s string) string {
	if t, ok := parseTime(s); ok {
		return t.Format("2006-01-02")
	}
	return s
}

// DateTime writes a date-time (RFC 3339) in UTC to the minute, or to the
// second when it has seconds: "2026-12-01 14:35 UTC", "2026-12-01 14:35:07
// UTC". A date alone is written as Date does; other text as it is.
func DateTime(s string) string {
	t, ok := parseTime(s)
	switch {
	case !ok:
		return s
	case len(s) == len("2006-01-02"):
		return t.Format("2006-01-02")
	case t.Second() != 0:
		return t.Format("2006-01-02 15:04:05 UTC")
	}
	return t.Format("2006-01-02 15:04 UTC")
}

func parseTime(s string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), true
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// Title is the display title of enum value v in titles (value → title), or
// v itself when it has none.
func Title[T ~string](v T, titles map[string]string) string {
	if t, ok := titles[string(v)]; ok && t != "" {
		return t
	}
	return string(v)
}

// Titles writes a list of enum values by their titles (Title), separated
// by ", ".
func Titles[T ~string](vs []T, titles map[string]string) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = Title(v, titles)
	}
	return strings.Join(parts, ", ")
}

// group puts a comma between groups of three digits of the whole part of a
// number written by strconv (an optional sign, digits, an optional
// fraction).
func group(s string) string {
	sign := ""
	if s != "" && (s[0] == '-' || s[0] == '+') {
		sign, s = s[:1], s[1:]
	}
	whole, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		whole, frac = s[:i], s[i:]
	}
	if len(whole) <= 3 {
		return sign + whole + frac
	}
	var b strings.Builder
	b.WriteString(sign)
	lead := len(whole) % 3
	if lead > 0 {
		b.WriteString(whole[:lead])
	}
	for i := lead; i < len(whole); i += 3 {
		if b.Len() > len(sign) {
			b.WriteByte(',')
		}
		b.WriteString(whole[i : i+3])
	}
	b.WriteString(frac)
	return b.String()
}
