package format

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestFormats(t *testing.T) {
	type enum string
	titles := map[string]string{"eu": "Europe (Frankfurt)", "us": ""}
	for _, tc := range []struct{ got, want string }{
		{Int(0), "0"},
		{Int(999), "999"},
		{Int(1000), "1,000"},
		{Int(-1234567), "-1,234,567"},
		{Int(math.MinInt64), "-9,223,372,036,854,775,808"},
		{Decimal(1234.5, 2), "1,234.50"},
		{Decimal(-1234.5, -1), "-1,234.5"},
		{Decimal(0.125, 2), "0.12"}, // half to even on the binary value
		{Decimal(1e6, 0), "1,000,000"},
		{Decimal(math.NaN(), 2), "NaN"},
		{Decimal(math.Inf(-1), 2), "-Inf"},
		{Percent(12.5, -1), "12.5%"},
		{Percent(7, 1), "7.0%"},
		{Money(123456, "EUR"), "EUR 1,234.56"},
		{Money(123456, "eur"), "EUR 1,234.56"},
		{Money(5, "USD"), "USD 0.05"},
		{Money(-5, "USD"), "USD -0.05"},
		{Money(0, "USD"), "USD 0.00"},
		{Money(500, "JPY"), "JPY 500"},
		{Money(1234567, "KWD"), "KWD 1,234.567"},
		{Money(10000, "CLF"), "CLF 1.0000"},
		// ISO 4217 minor units, not CLDR's display digits (which
		// golang.org/x/text/currency's Standard rounding gives: 0 for
		// these), since the amount is in minor units.
		{Money(150000, "IDR"), "IDR 1,500.00"},
		{Money(1999, "COP"), "COP 19.99"},
		{Money(1234, "IQD"), "IQD 1.234"},
		{Money(99, ""), "0.99"},
		{Money(math.MinInt64, "EUR"), "EUR -92,233,720,368,547,758.08"},
		{Duration(0), "0s"},
		{Duration(90 * time.Minute), "1h 30m"},
		{Duration(36 * time.Hour), "1d 12h"},
		{Duration(1500 * time.Millisecond), "1s 500ms"},
		{Duration(-45 * time.Second), "-45s"},
		{Duration(300), "300ns"},
		{Duration(Seconds(5400, "s")), "1h 30m"},
		{Duration(Seconds(2.5, "h")), "2h 30m"},
		{Duration(Seconds(3, "d")), "3d"},
		{Duration(Seconds(250, "ms")), "250ms"},
		{Duration(Seconds(10, "m")), "10m"},
		{Duration(Seconds(1e300, "s")), "106751d 23h 47m 16s 854ms"},
		{Date("2026-12-01"), "2026-12-01"},
		{Date("2026-12-01T23:30:00-02:00"), "2026-12-02"},
		{Date("not a date"), "not a date"},
		{DateTime("2026-12-01T14:35:00Z"), "2026-12-01 14:35 UTC"},
		{DateTime("2026-12-01T14:35:07+01:00"), "2026-12-01 13:35:07 UTC"},
		{DateTime("2026-12-01"), "2026-12-01"},
		{DateTime("soon"), "soon"},
		{Title(enum("eu"), titles), "Europe (Frankfurt)"},
		{Title(enum("us"), titles), "us"},
		{Title(enum("ap"), titles), "ap"},
		{Titles([]enum{"eu", "ap"}, titles), "Europe (Frankfurt), ap"},
		{Titles([]enum(nil), titles), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// FuzzGroup: removing the separators gives back strconv's digits, and
// every group after the first has three digits.
func FuzzGroup(f *testing.F) {
	for _, s := range []int64{0, 1, 999, 1000, -1000, 1234567, math.MaxInt64, math.MinInt64} {
		f.Add(s, 2, "EUR")
	}
	f.Fuzz(func(t *testing.T, v int64, places int, code string) {
		s := Int(v)
		if got, want := strings.ReplaceAll(s, ",", ""), strconv.FormatInt(v, 10); got != want {
			t.Fatalf("Int(%d) = %q", v, s)
		}
		for i, g := range strings.Split(strings.TrimPrefix(s, "-"), ",") {
			if (i > 0 && len(g) != 3) || g == "" || len(g) > 3 {
				t.Fatalf("Int(%d) = %q: group %q", v, s, g)
			}
		}
		m := Money(v, code)
		if !strings.HasSuffix(strings.ReplaceAll(strings.ReplaceAll(m, ",", ""), ".", ""), strings.TrimPrefix(strconv.FormatInt(v, 10), "-")) {
			t.Fatalf("Money(%d, %q) = %q", v, code, m)
		}
		_ = Decimal(float64(v), places%25)
		_ = Duration(time.Duration(v))
	})
}
