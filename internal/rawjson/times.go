package rawjson

import (
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var metaTimeType = reflect.TypeFor[metav1.Time]()

// decodeMetaTime reads a metav1.Time. Its UnmarshalJSON decodes the string
// with encoding/json and then parses it, which for the thousands of times a
// large request holds (every object's creation, every condition's last
// transition) costs more than the rest of the objects around them. The API
// server writes every time in one form, whole seconds in UTC; that form is
// read here, into the value UnmarshalJSON makes of it. Anything else (null,
// fractions, offsets, a value out of range) goes to UnmarshalJSON.
func decodeMetaTime(data []byte, i int, v reflect.Value) (int, bool) {
	if t, ok := utcSeconds(data, i); ok {
		// Set through the field's address: reflect.ValueOf would put the
		// time in an interface, an allocation per time.
		*(*metav1.Time)(v.Addr().UnsafePointer()) = metav1.Time{Time: t}
		return i + len(`"2006-01-02T15:04:05Z"`), true
	}
	return unmarshaler(data, i, v)
}

// utcSeconds parses the JSON string at data[i] when it is exactly
// "YYYY-MM-DDThh:mm:ssZ" with every field in the range time.Parse accepts
// for time.RFC3339, and returns the time in the local zone, as
// metav1.Time's UnmarshalJSON does.
func utcSeconds(data []byte, i int) (time.Time, bool) {
	const form = `"2006-01-02T15:04:05Z"`
	if len(data)-i < len(form) {
		return time.Time{}, false
	}
	s := data[i : i+len(form)]
	if !sameShape(s, form) {
		return time.Time{}, false
	}
	num := func(from, to int) int {
		n := 0
		for _, c := range s[from:to] {
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(1, 5), num(6, 8), num(9, 11)
	hour, minute, second := num(12, 14), num(15, 17), num(18, 20)
	if month < 1 || month > 12 || day < 1 || day > daysIn(time.Month(month), year) ||
		hour > 23 || minute > 59 || second > 59 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, second, 0, time.UTC).Local(), true
}

// sameShape reports whether s has a digit wherever form has one, and
// form's other bytes where form has them; len(s) is len(form).
func sameShape(s []byte, form string) bool {
	for j := range len(form) {
		digit := s[j] >= '0' && s[j] <= '9'
		if isDigit := form[j] >= '0' && form[j] <= '9'; isDigit != digit || !isDigit && s[j] != form[j] {
			return false
		}
	}
	return true
}

// daysIn is the number of days of month in year (month 1 to 12), by the
// Gregorian rule time.Date follows.
func daysIn(month time.Month, year int) int {
	switch {
	case month == time.February && year%4 == 0 && (year%100 != 0 || year%400 == 0):
		return 29
	case month == time.February:
		return 28
	case month == time.April, month == time.June, month == time.September, month == time.November:
		return 30
	}
	return 31
}
