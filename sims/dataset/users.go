package dataset

import (
	"math/rand/v2"
	"strconv"
)

// The user population shared by every dataset of a scenario: user u has one Okta login (alternateId), which
// is also the user_name CrowdStrike reports and the UserPrincipalName of a sign-in, so the sources join.

var firstNames = []string{"ana", "bob", "carla", "dev", "emma", "farid", "grace", "hiro", "ines", "jamal", "kim",
	"liam", "maya", "noor", "omar", "priya", "quinn", "rosa", "sam", "tariq", "uma", "vik", "wen", "xavi", "yara", "zoe"}
var lastNames = []string{"adams", "brown", "chen", "diaz", "evans", "fischer", "garcia", "haddad", "ito", "jones",
	"kowalski", "lee", "moreau", "nguyen", "okafor", "patel", "quist", "rossi", "silva", "tanaka", "ueda", "vargas",
	"weber", "xu", "yilmaz", "zhang"}

// Domain is the tenant's e-mail domain.
const Domain = "acme.example"

// Login is user u's login name: distinct for distinct u.
func Login(u int) string {
	combos := len(firstNames) * len(lastNames)
	f, l, n := u%len(firstNames), (u/len(firstNames))%len(lastNames), u/combos
	if n == 0 {
		return firstNames[f] + "." + lastNames[l] + "@" + Domain
	}
	return firstNames[f] + "." + lastNames[l] + strconv.Itoa(n) + "@" + Domain
}

// DisplayName is user u's name as shown.
func DisplayName(u int) string {
	f, l := u%len(firstNames), (u/len(firstNames))%len(lastNames)
	return title(firstNames[f]) + " " + title(lastNames[l])
}

func title(s string) string { return string(s[0]-'a'+'A') + s[1:] }

// OktaID is user u's Okta user id (00u…).
func OktaID(u int) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	h := mix(uint64(u) + 0x9e3779b97f4a7c15)
	b := []byte("00u")
	for i := 0; i < 17; i++ {
		b = append(b, digits[h%62])
		h = h/62 ^ mix(h+uint64(i))
	}
	return string(b)
}

// mix is a 64-bit finaliser (splitmix64's), the integer hash every dataset derives fields from, so a field is a
// function of its row's position and never of generation order.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// newZipf returns a Zipf draw over [0, users) with exponent skew (> 1; larger is more skewed).
func newZipf(rng *rand.Rand, skew float64, users int) *rand.Zipf {
	return rand.NewZipf(rng, max(skew, 1.0001), 1, uint64(max(users-1, 1)))
}

var countries = []struct{ country, city string }{
	{"United States", "Seattle"}, {"United States", "Austin"}, {"Germany", "Berlin"}, {"Israel", "Tel Aviv"},
	{"India", "Bengaluru"}, {"Brazil", "São Paulo"}, {"Japan", "Tokyo"}, {"United Kingdom", "London"},
}
